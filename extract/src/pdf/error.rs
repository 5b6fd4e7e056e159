//! Why a PDF could not be read: PyPDF2 raises and the backend reports
//! `Failed to parse PDF: <reason>`; the reason here is ctxguard's own.
//!
//! Two kinds: a malformed part, which PyPDF2's lenient paths may swallow
//! (a dictionary cut short keeps its entries, a form that fails reads as
//! empty), and a bound reached, which nothing swallows: past a bound the
//! reader stops, so a hostile file costs time linear in its bytes.

use thiserror::Error;

/// A failure anywhere in the reader (object model, filters, fonts, content).
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub(crate) enum PdfError {
    /// A part of the file is malformed (what PyPDF2 would raise).
    #[error("{0}")]
    Malformed(String),
    /// The file drove the reader to a bound; reading stops here.
    #[error(transparent)]
    Bound(#[from] Bound),
}

/// The bounds that end reading a hostile file.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub(crate) enum Bound {
    /// `endobj` inside an array or dictionary: PyPDF2 3.0.1 reads it as a
    /// `null` without moving on, and loops forever.
    #[error(
        "an array or dictionary at byte {at} runs into `endobj` and never closes \
         (the reference reader loops forever on it); the file is damaged"
    )]
    NeverCloses {
        /// The offset of the `endobj` (in the bytes being read).
        at: usize,
    },
    /// Decoding streams produced more than `Limits::max_inflated_bytes`.
    #[error("the document's streams decompress past the size limit (too large to preview)")]
    Inflated,
    /// The reader repeated work (pages, forms, content streams, fonts) past
    /// its budget: a structure that multiplies itself.
    #[error(
        "reading the file takes more than {units} units of work ({factor} per byte read or \
         decompressed): its page tree, forms or content lists repeat themselves; too costly to preview"
    )]
    Work {
        /// The budget that was spent.
        units: u64,
        /// The units allowed per byte.
        factor: u64,
    },
}

impl PdfError {
    /// A failure with a reason that says what part of the file was wrong.
    pub(crate) fn new(reason: impl Into<String>) -> Self {
        PdfError::Malformed(reason.into())
    }

    /// Whether a lenient path may swallow this failure (a bound may not).
    pub(crate) fn is_bound(&self) -> bool {
        matches!(self, PdfError::Bound(_))
    }

    /// The malformed part's reason (`None` for a bound).
    pub(crate) fn reason(&self) -> Option<&str> {
        match self {
            PdfError::Malformed(r) => Some(r),
            PdfError::Bound(_) => None,
        }
    }
}

/// Results of the reader.
pub(crate) type Result<T> = std::result::Result<T, PdfError>;

/// Shorthand for an `Err(PdfError::Malformed)`.
pub(crate) fn fail<T>(reason: impl Into<String>) -> Result<T> {
    Err(PdfError::new(reason))
}

/// Shorthand for an `Err(PdfError::Bound)`.
pub(crate) fn bound<T>(b: Bound) -> Result<T> {
    Err(PdfError::Bound(b))
}
