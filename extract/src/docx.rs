//! Word (.docx) as python-docx 1.2.0 reads it: body paragraphs, then table rows.

use crate::error::{DocumentError, Subject};
use crate::limits::Limits;

/// The paragraph texts the reference keeps (non-blank body paragraphs, then one `a | b` line per table row).
pub(crate) fn paragraphs(_bytes: &[u8], _limits: &Limits) -> Result<Vec<String>, DocumentError> {
    // TODO(documents helper): not implemented yet.
    Err(DocumentError::failed(Subject::Word, "not implemented yet"))
}
