//! `ctxguard_extract::upload` of zip listings: the properties of [`crate::document`].

/// Runs one input as `archive.zip`.
pub fn check(data: &[u8]) {
    crate::document::check_upload(data, "archive.zip");
}
