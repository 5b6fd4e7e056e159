//! Excel (.xlsx) as openpyxl 3.1.5 reads it, serialised as Wegent's knowledge_engine/excel.py does.

use crate::error::{DocumentError, Subject};
use crate::limits::Limits;

/// The populated sheets, their header line and compact rows rendered.
pub(crate) fn sheets(
    _bytes: &[u8],
    _limits: &Limits,
) -> Result<Vec<crate::truncate::SheetText>, DocumentError> {
    // TODO(documents helper): not implemented yet.
    Err(DocumentError::failed(Subject::Excel, "not implemented yet"))
}
