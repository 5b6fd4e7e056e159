//! `ctxguard_extract::upload` of .csv files: the properties of [`crate::document`].

/// Runs one input as `upload.csv`.
pub fn check(data: &[u8]) {
    crate::document::check_upload(data, "upload.csv");
}
