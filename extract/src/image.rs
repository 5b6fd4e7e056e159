//! Images as the reference prepares them (Pillow 12 opens and fully loads
//! the file; `prepare_image_bytes_for_model` converts and resizes to a long
//! edge of at most 1 568 pixels): the metadata text and the prepared image.

use crate::error::{DocumentError, Subject};
use crate::record::Extracted;

/// Parses an image upload with its lower-cased extension (TODO(documents helper)).
pub(crate) fn parse(_bytes: &[u8], _extension: &str) -> Result<Extracted, DocumentError> {
    Err(DocumentError::failed(Subject::Image, "not implemented yet"))
}
