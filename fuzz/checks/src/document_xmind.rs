//! `ctxguard_extract::upload` of .xmind files: the properties of
//! [`crate::document`], and the mind map's own: an untruncated parse is
//! Markdown whose sections start with `# ` and whose other lines are topics
//! (`- `), notes or labels indented under them; a refusal has one of the
//! reference's two prefixes (`Failed to parse XMind file: ` for what the
//! XMind parser raises, `Failed to parse document: ` for what escapes it).

use ctxguard_extract::{upload, Options};

/// Runs one input as `upload.xmind`.
pub fn check(data: &[u8]) {
    crate::document::check_upload(data, "upload.xmind");
    let up = upload(data, "upload.xmind", &Options::default());
    match &up.outcome {
        Ok(parsed) => {
            assert!(!parsed.text.is_empty());
            if parsed.is_truncated() {
                return;
            }
            for line in parsed.text.lines() {
                let body = line.trim_start_matches(' ');
                let indent = line.len() - body.len();
                assert!(indent % 2 == 0, "odd indent: {line:?}");
                assert!(
                    line.is_empty()
                        || (indent == 0 && line.starts_with("# "))
                        || body.starts_with("- ")
                        || (indent >= 2 && (body.starts_with("Note: ") || body.starts_with("Labels: "))),
                    "{line:?}"
                );
            }
            assert!(parsed.text.starts_with("# "), "{}", parsed.text);
        }
        Err(e) => assert!(
            e.message.starts_with("Failed to parse XMind file: ")
                || e.message.starts_with("Failed to parse document: "),
            "{}",
            e.message
        ),
    }
}
