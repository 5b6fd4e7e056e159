//! `ctxguard_extract::upload` of .pdf files: the properties of [`crate::document`].

/// Runs one input as `upload.pdf`.
pub fn check(data: &[u8]) {
    crate::document::check_upload(data, "upload.pdf");
}
