//! `ctxguard_extract::upload` of .docx files: the properties of
//! [`crate::document`], and those of python-docx's reading:
//! - the parse is deterministic;
//! - a refusal is `parse_failed` with the `Failed to parse Word document: ` prefix;
//! - an untruncated text that is not empty holds a non-blank paragraph or row;
//! - no package is both a Word and a PowerPoint file (the one main part has
//!   one content type), so the same bytes never parse as both.

use crate::document::{check_upload, MAX_TEXT_LENGTH};
use ctxguard_extract::{parse, ErrorCode, Options};

/// Runs one input as `upload.docx`.
pub fn check(data: &[u8]) {
    check_upload(data, "upload.docx");
    let options = Options {
        max_text_length: MAX_TEXT_LENGTH,
        ..Options::default()
    };
    let first = parse(&data, ".docx", &options);
    assert_eq!(first, parse(&data, ".docx", &options), "deterministic");
    match &first {
        Ok(parsed) => {
            if !parsed.is_truncated() && !parsed.text.is_empty() {
                assert!(!ctxguard_core::pyjson::strip(&parsed.text).is_empty());
            }
            assert!(
                parse(&data, ".pptx", &options).is_err(),
                "a Word package is not also a PowerPoint one"
            );
        }
        Err(e) => {
            assert_eq!(e.code, ErrorCode::ParseFailed);
            assert!(e.message.starts_with("Failed to parse Word document: "), "{}", e.message);
        }
    }
}
