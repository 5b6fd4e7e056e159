//! `ctxguard_extract::upload` of .xmind files: the properties of [`crate::document`].

/// Runs one input as `upload.xmind`.
pub fn check(data: &[u8]) {
    crate::document::check_upload(data, "upload.xmind");
}
