//! Why a PDF could not be read: PyPDF2 raises and the backend reports
//! `Failed to parse PDF: <reason>`; the reason here is ctxguard's own.

use std::fmt;

/// A failure anywhere in the reader (object model, filters, fonts, content).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct PdfError(pub(crate) String);

impl PdfError {
    /// A failure with a reason that says what part of the file was wrong.
    pub(crate) fn new(reason: impl Into<String>) -> Self {
        PdfError(reason.into())
    }
}

impl fmt::Display for PdfError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// Results of the reader.
pub(crate) type Result<T> = std::result::Result<T, PdfError>;

/// Shorthand for an `Err(PdfError)`.
pub(crate) fn fail<T>(reason: impl Into<String>) -> Result<T> {
    Err(PdfError::new(reason))
}
