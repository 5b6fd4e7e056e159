//! The attachment budget preview as plain Rust: files the user picked become
//! one `<attachment>` block (headers from core's builder), which core's
//! preview bounds under the session's model and budget; the outcome is one row
//! per file. The browser part only reads the bytes.

use ctxguard_core::attachment::{build_header, preview_messages, HeaderArgs};
use ctxguard_core::tokens::{TokenCounter, Tokens};
use ctxguard_core::Message;

/// Files larger than this are listed but not read.
pub const MAX_READ_BYTES: u64 = 16 * 1024 * 1024;

/// What a picked file holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FileBody {
    /// UTF-8 text.
    Text(String),
    /// Not UTF-8, or holds NUL bytes: listed with no body.
    Binary,
    /// Over [`MAX_READ_BYTES`]: listed with no body.
    TooLarge,
}

impl FileBody {
    /// Text when `bytes` are UTF-8 without NUL bytes, else binary. A UTF-8 BOM is dropped.
    pub fn classify(bytes: Vec<u8>) -> FileBody {
        match String::from_utf8(bytes) {
            Ok(text) if !text.contains('\0') => FileBody::Text(
                text.strip_prefix('\u{feff}')
                    .map(str::to_string)
                    .unwrap_or(text),
            ),
            _ => FileBody::Binary,
        }
    }
}

/// One file the user picked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PickedFile {
    /// File name as the browser gives it.
    pub name: String,
    /// MIME type, when the browser knows it.
    pub mime_type: Option<String>,
    /// Size in bytes.
    pub size_bytes: i64,
    /// The contents.
    pub body: FileBody,
}

/// One row of the preview table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PreviewRow {
    /// Attachment id in the block (1-based, in pick order).
    pub attachment_id: i64,
    /// Name as shown in the header.
    pub name: String,
    /// MIME type, when known.
    pub mime_type: Option<String>,
    /// Size in bytes.
    pub size_bytes: i64,
    /// Why there is no body, if there is none.
    pub no_body: Option<FileBody>,
    /// Tokens of the body.
    pub tokens: Tokens,
    /// Tokens the body is allowed.
    pub allocation: i64,
    /// Whether the body will be cut.
    pub truncated: bool,
}

/// The preview of all picked files.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PreviewReport {
    /// Model whose encoding counted.
    pub model: String,
    /// Block budget in tokens.
    pub limit_tokens: i64,
    /// Tokens of the block as built.
    pub block_tokens_before: Tokens,
    /// Tokens of the block after the preview.
    pub block_tokens_after: Tokens,
    /// One row per file.
    pub rows: Vec<PreviewRow>,
    /// The block as the model will see it.
    pub rendered: String,
}

impl PreviewReport {
    /// Rows whose body will be cut.
    pub fn cut_count(&self) -> usize {
        self.rows.iter().filter(|r| r.truncated).count()
    }
}

/// The `<attachment>` block of `files`: each header from core's builder, then its body. O(total size).
pub fn build_block(files: &[PickedFile]) -> String {
    let mut block = String::from("<attachment>");
    for (i, file) in files.iter().enumerate() {
        if i > 0 {
            block.push('\n');
        }
        let mime = file.mime_type.clone().filter(|m| !m.is_empty());
        let header = build_header(&HeaderArgs {
            attachment_id: i as i64 + 1,
            filename: file.name.clone(),
            is_image: mime.as_deref().is_some_and(|m| m.starts_with("image/")),
            mime_type: mime,
            file_size: file.size_bytes,
            sandbox_path: None,
        });
        block.push_str(&header);
        block.push('\n');
        if let FileBody::Text(text) = &file.body {
            block.push_str(text);
        }
    }
    block.push_str("</attachment>");
    block
}

/// Previews `files` under `model` with `limit_tokens` per block.
pub fn preview(files: &[PickedFile], model: &str, limit_tokens: i64) -> PreviewReport {
    let counter = TokenCounter::for_model(model);
    let block = build_block(files);
    let outcome = preview_messages(
        &[Message::new("user", block.clone())],
        &counter,
        limit_tokens,
    );
    let rendered = outcome
        .messages
        .first()
        .and_then(|m| m.text().map(str::to_string))
        .unwrap_or_else(|| block.clone());
    let rows = files
        .iter()
        .enumerate()
        .map(|(i, file)| {
            let id = i as i64 + 1;
            let segment = outcome
                .segments
                .iter()
                .find(|s| s.attachment_id == id.to_string());
            PreviewRow {
                attachment_id: id,
                name: ctxguard_core::attachment::display_name(&file.name),
                mime_type: file.mime_type.clone().filter(|m| !m.is_empty()),
                size_bytes: file.size_bytes,
                no_body: (!matches!(file.body, FileBody::Text(_))).then(|| file.body.clone()),
                tokens: segment.map_or(0, |s| s.tokens),
                allocation: segment.map_or(0, |s| s.allocation),
                truncated: segment.is_some_and(|s| s.truncated),
            }
        })
        .collect();
    PreviewReport {
        model: model.to_string(),
        limit_tokens,
        block_tokens_before: counter.count_text(&block),
        block_tokens_after: counter.count_text(&rendered),
        rows,
        rendered,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text_file(name: &str, text: &str) -> PickedFile {
        PickedFile {
            name: name.into(),
            mime_type: Some("text/plain".into()),
            size_bytes: text.len() as i64,
            body: FileBody::Text(text.into()),
        }
    }

    #[test]
    fn classifies_bodies() {
        assert_eq!(
            FileBody::classify(b"hi".to_vec()),
            FileBody::Text("hi".into())
        );
        assert_eq!(
            FileBody::classify("\u{feff}bom".as_bytes().to_vec()),
            FileBody::Text("bom".into())
        );
        assert_eq!(FileBody::classify(vec![0xff, 0xfe, 0x00]), FileBody::Binary);
        assert_eq!(FileBody::classify(b"a\0b".to_vec()), FileBody::Binary);
    }

    #[test]
    fn builds_one_block_with_core_headers() {
        let files = vec![
            text_file("notes.txt", "hello"),
            PickedFile {
                name: "C:\\pics\\cat.png".into(),
                mime_type: Some("image/png".into()),
                size_bytes: 2048,
                body: FileBody::Binary,
            },
        ];
        assert_eq!(
            build_block(&files),
            "<attachment>[Attachment: notes.txt | ID: 1 | Type: text/plain | Size: 5 bytes | URL: /api/attachments/1/download]\nhello\n\
             [Image Attachment: cat.png | ID: 2 | Type: image/png | Size: 2.0 KB | URL: /api/attachments/2/download]\n</attachment>"
        );
    }

    #[test]
    fn small_files_fit_and_big_ones_are_cut() {
        let big = "lorem ipsum dolor sit amet ".repeat(400);
        let files = vec![
            text_file("a.txt", "short note"),
            text_file("b.txt", &big),
            PickedFile {
                name: "blob.bin".into(),
                mime_type: None,
                size_bytes: 3,
                body: FileBody::Binary,
            },
        ];
        let report = preview(&files, "gpt-4o", 300);
        assert_eq!(report.rows.len(), 3);
        let [a, b, bin] = &report.rows[..] else {
            panic!("three rows")
        };
        assert!(!a.truncated && a.tokens > 0 && a.allocation >= a.tokens);
        assert!(b.truncated && b.tokens > 300 && b.allocation < b.tokens);
        assert_eq!(bin.no_body, Some(FileBody::Binary));
        assert_eq!(bin.tokens, 0);
        assert!(!bin.truncated);
        assert_eq!(report.cut_count(), 1);
        assert!(report.block_tokens_after < report.block_tokens_before);
        assert!(report.rendered.contains("Truncated: yes"));
        assert!(report.rendered.contains("read_attachment(attachment_id=2)"));
        assert!(report
            .rendered
            .contains("[Attachment IDs in this message: 1, 2, 3]"));
    }

    #[test]
    fn everything_fits_under_a_large_budget() {
        let report = preview(&[text_file("a.txt", "one two three")], "gpt-4o", 15_000);
        assert_eq!(report.cut_count(), 0);
        assert!(report.rendered.contains("Truncated: no"));
    }
}
