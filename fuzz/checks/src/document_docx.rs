//! `ctxguard_extract::upload` of .docx files: the properties of [`crate::document`].

/// Runs one input as `upload.docx`.
pub fn check(data: &[u8]) {
    crate::document::check_upload(data, "upload.docx");
}
