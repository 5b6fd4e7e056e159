//! XMind mind maps as shared/utils/xmind_parser.py turns them into Markdown.

use crate::error::{DocumentError, Subject};
use crate::limits::Limits;

/// The mind map as Markdown (before truncation, which the caller applies).
pub(crate) fn markdown(_bytes: &[u8], _limits: &Limits) -> Result<String, DocumentError> {
    // TODO(documents helper): not implemented yet.
    Err(DocumentError::failed(Subject::XMind, "not implemented yet"))
}
