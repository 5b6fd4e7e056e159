//! `ctxguard_extract::upload` of text decoding and MIME sniffing (an unknown extension): the properties of [`crate::document`].

/// Runs one input as `notes.log`.
pub fn check(data: &[u8]) {
    crate::document::check_upload(data, "notes.log");
}
