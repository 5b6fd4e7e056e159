//! `ctxguard_extract::upload` of .pptx files: the properties of
//! [`crate::document`], and those of python-pptx's reading:
//! - the parse is deterministic;
//! - a refusal is `parse_failed` with the `Failed to parse PowerPoint: ` prefix;
//! - an untruncated text that is not empty starts with a `--- Slide N ---` header;
//! - no package is both a PowerPoint and a Word file.

use crate::document::{check_upload, MAX_TEXT_LENGTH};
use ctxguard_extract::{parse, ErrorCode, Options};

/// Runs one input as `upload.pptx`.
pub fn check(data: &[u8]) {
    check_upload(data, "upload.pptx");
    let options = Options {
        max_text_length: MAX_TEXT_LENGTH,
        ..Options::default()
    };
    let first = parse(&data, ".pptx", &options);
    assert_eq!(first, parse(&data, ".pptx", &options), "deterministic");
    match &first {
        Ok(parsed) => {
            if !parsed.is_truncated() && !parsed.text.is_empty() {
                assert!(parsed.text.starts_with("--- Slide "), "{:?}", parsed.text);
            }
            assert!(
                parse(&data, ".docx", &options).is_err(),
                "a PowerPoint package is not also a Word one"
            );
        }
        Err(e) => {
            assert_eq!(e.code, ErrorCode::ParseFailed);
            assert!(e.message.starts_with("Failed to parse PowerPoint: "), "{}", e.message);
        }
    }
}
