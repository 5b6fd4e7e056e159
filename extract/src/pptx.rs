//! PowerPoint (.pptx) as python-pptx 1.0.2 reads it: shape and table text per slide.

use crate::error::{DocumentError, Subject};
use crate::limits::Limits;

/// One text per slide with content, each starting `--- Slide N ---` (N counts every slide).
pub(crate) fn slides(_bytes: &[u8], _limits: &Limits) -> Result<Vec<String>, DocumentError> {
    // TODO(documents helper): not implemented yet.
    Err(DocumentError::failed(
        Subject::PowerPoint,
        "not implemented yet",
    ))
}
