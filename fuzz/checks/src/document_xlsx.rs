//! `ctxguard_extract::upload` of .xlsx files: the properties of
//! [`crate::document`], and of the Excel text itself:
//! - the extension's case does not matter (`upload.XLSX` answers the same);
//! - a refusal is always `parse_failed` with the `Failed to parse Excel: ` prefix;
//! - an untruncated text is made of whole lines of three kinds only: sheet
//!   headers (`--- Sheet: NAME ---`), row lines (`R<n>: ` then cells, the
//!   cells' strings JSON-quoted so that no value breaks a line), and the
//!   blank line between two sheets.

use ctxguard_extract::{upload, ErrorCode, Options};

/// Runs one input as `upload.xlsx`.
pub fn check(data: &[u8]) {
    crate::document::check_upload(data, "upload.xlsx");
    let options = Options {
        max_text_length: crate::document::MAX_TEXT_LENGTH,
        ..Options::default()
    };
    let lower = upload(data, "upload.xlsx", &options);
    let upper = upload(data, "UPLOAD.XLSX", &options);
    match (&lower.outcome, &upper.outcome) {
        (Ok(a), Ok(b)) => assert_eq!(a.text, b.text, "the extension's case changed the text"),
        (Err(a), Err(b)) => assert_eq!(a.message, b.message),
        _ => panic!("the extension's case changed the outcome"),
    }
    match &lower.outcome {
        Err(e) => {
            assert_eq!(e.code, ErrorCode::ParseFailed, "{}", e.message);
            assert!(e.message.starts_with("Failed to parse Excel: "), "{}", e.message);
        }
        Ok(parsed) if !parsed.is_truncated() => {
            let lines: Vec<&str> = parsed.text.split('\n').collect();
            for (i, line) in lines.iter().enumerate() {
                let header = line.starts_with("--- Sheet: ") && line.ends_with(" ---");
                let row = line.strip_prefix('R').is_some_and(|rest| {
                    let digits = rest.trim_start_matches('-');
                    let n = digits.bytes().take_while(u8::is_ascii_digit).count();
                    n > 0 && digits[n..].starts_with(": ")
                });
                let gap = line.is_empty() && i > 0 && i + 1 < lines.len();
                let empty_text = parsed.text.is_empty();
                assert!(
                    header || row || gap || empty_text,
                    "line {i} is none of header, row, gap: {line:?}"
                );
            }
        }
        Ok(_) => {}
    }
}
