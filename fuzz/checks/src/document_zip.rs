//! `ctxguard_extract::upload` of zip listings: the properties of
//! [`crate::document`], and the listing's own: a parse starts with the
//! archive's label, format and byte size, then either says the archive
//! cannot be read or gives the member count and at most ten names, with the
//! count of the rest when there are more (names are the archive's own, so
//! they may hold a newline and the listing's "  - " themselves); a refusal (a flagged UTF-8 name
//! that is not UTF-8, an entry of a newer zip version) has the
//! `Failed to parse archive: ` prefix.

use ctxguard_extract::{upload, Options};

/// Runs one input as `archive.zip`.
pub fn check(data: &[u8]) {
    crate::document::check_upload(data, "archive.zip");
    let up = upload(data, "archive.zip", &Options::default());
    match &up.outcome {
        Ok(parsed) => {
            let head = format!("[压缩文件]\n格式: ZIP\n文件大小: {} 字节", data.len());
            let rest = parsed.text.strip_prefix(&head).expect("the listing's head");
            if rest == "\n(无法读取压缩包内容)" {
                return;
            }
            let rest = rest.strip_prefix("\n包含文件数: ").expect("a member count");
            let count_len = rest.bytes().take_while(u8::is_ascii_digit).count();
            let count: usize = rest[..count_len].parse().expect("a count");
            // Each listed name opens with "\n  - "; a name may hold that text
            // itself, so there are at least as many openings as names listed.
            let openings = rest.matches("\n  - ").count();
            assert!(openings >= count.min(10), "{openings} names of {count}");
            if count > 10 {
                assert!(rest.ends_with(&format!("  ... 还有 {} 个文件", count - 10)), "{rest}");
            }
        }
        Err(e) => assert!(e.message.starts_with("Failed to parse archive: "), "{}", e.message),
    }
}
