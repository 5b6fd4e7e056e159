//! `.zip` uploads: no text extraction, a description of the archive and its
//! first ten member names, as `_parse_archive` writes it.

use crate::error::{DocumentError, Subject};
use crate::limits::Limits;
use crate::record::Extracted;

/// Describes a zip upload (TODO(documents helper)).
pub(crate) fn parse(_bytes: &[u8], _limits: &Limits) -> Result<Extracted, DocumentError> {
    Err(DocumentError::failed(
        Subject::Archive,
        "not implemented yet",
    ))
}
