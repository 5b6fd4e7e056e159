//! `ctxguard_extract::upload` of images: the properties of [`crate::document`].

/// Runs one input as `picture.png`.
pub fn check(data: &[u8]) {
    crate::document::check_upload(data, "picture.png");
}
