//! PDF as PyPDF2 3.0.1's extract_text() reads it, page by page.

use crate::error::{DocumentError, Subject};
use crate::limits::Limits;

/// The text of each page that yielded text (`extract_text()`), in order; encrypted files refused.
pub(crate) fn pages(_bytes: &[u8], _limits: &Limits) -> Result<Vec<String>, DocumentError> {
    // TODO(documents helper): not implemented yet.
    Err(DocumentError::failed(Subject::Pdf, "not implemented yet"))
}

/// `_parse_pdf_smart`'s OCR rule: fewer than 100 "meaningful" characters
/// (Python `str.isalpha()` letters and `，。、；：''（）【】`) in the pages joined by `\n`.
pub(crate) fn needs_ocr(_pages: &[String]) -> bool {
    // TODO(documents helper): Python's isalpha.
    false
}
