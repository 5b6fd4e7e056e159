//! `ctxguard_extract::upload` of .xlsx files: the properties of [`crate::document`].

/// Runs one input as `upload.xlsx`.
pub fn check(data: &[u8]) {
    crate::document::check_upload(data, "upload.xlsx");
}
