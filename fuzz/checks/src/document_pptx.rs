//! `ctxguard_extract::upload` of .pptx files: the properties of [`crate::document`].

/// Runs one input as `upload.pptx`.
pub fn check(data: &[u8]) {
    crate::document::check_upload(data, "upload.pptx");
}
