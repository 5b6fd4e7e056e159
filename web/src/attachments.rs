//! The attachment budget preview as plain Rust: the files a user picked
//! become core [`Attachment`]s, core's [`compose_block`] builds the
//! `<attachment>` block exactly as the backend will, and core's
//! [`preview_messages`] bounds it under the session's model and budget; the
//! outcome is one row per file. The browser part only reads the bytes.
//!
//! [`preview`] is the only function here that needs a tokenizer. The toolbar's
//! WebAssembly module never calls it (so it ships no vocabulary): the preview
//! element sends a [`PreviewRequest`] to a second module built with the
//! `engine` feature, which answers with a [`PreviewReport`], both as JSON.

use ctxguard_core::attachment::{
    compose_block, display_name, preview_messages, Attachment, ComposeOptions, Inlined,
};
use ctxguard_core::tokens::{TokenCounter, Tokens};
use ctxguard_core::Message;
use serde::{Deserialize, Serialize};

/// Files larger than this are listed but not read.
pub const MAX_READ_BYTES: u64 = 16 * 1024 * 1024;

/// What a picked file holds.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FileBody {
    /// UTF-8 text (what the backend's parser would extract from a text file).
    Text(String),
    /// An image, as base64 (the backend sends it as an image block).
    Image(String),
    /// Neither text nor an image: listed with no body.
    Binary,
    /// Over [`MAX_READ_BYTES`]: listed with no body.
    TooLarge,
}

impl FileBody {
    /// An image when `mime_type` says so; else text when `bytes` are UTF-8 without NUL
    /// bytes (a UTF-8 BOM is dropped); else binary.
    pub fn classify(bytes: Vec<u8>, mime_type: Option<&str>) -> FileBody {
        if mime_type.is_some_and(|m| m.starts_with("image/")) {
            return FileBody::Image(base64(&bytes));
        }
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

/// Standard base64 with padding. O(n).
pub fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            chunk.get(1).copied().unwrap_or(0),
            chunk.get(2).copied().unwrap_or(0),
        ];
        let n = u32::from(b[0]) << 16 | u32::from(b[1]) << 8 | u32::from(b[2]);
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(char::from(ALPHABET[(n >> (18 - 6 * i) & 63) as usize]));
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// One file the user picked.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
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

impl PickedFile {
    /// The attachment the backend would compose from this file, with id `attachment_id`.
    pub fn to_attachment(&self, attachment_id: i64) -> Attachment {
        let (extracted_text, image_base64) = match &self.body {
            FileBody::Text(text) => (Some(text.clone()), None),
            FileBody::Image(data) => (None, Some(data.clone())),
            FileBody::Binary | FileBody::TooLarge => (None, None),
        };
        Attachment {
            attachment_id,
            filename: self.name.clone(),
            mime_type: self.mime_type.clone().filter(|m| !m.is_empty()),
            file_size: Some(self.size_bytes),
            extracted_text,
            is_truncated: false,
            is_image: self
                .mime_type
                .as_deref()
                .is_some_and(|m| m.starts_with("image/")),
            image_base64,
            sandbox_path: None,
        }
    }
}

/// What one file's row says.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum RowState {
    /// Its text goes in whole.
    Fits,
    /// Its text will be cut (by the backend's inline cap or the preview's budget).
    Cut,
    /// It goes as an image block; its header is in the text block.
    Image,
    /// Nothing of it goes in: no text could be read here.
    Binary,
    /// Too large to read here.
    TooLarge,
}

impl RowState {
    /// The `data-state` value.
    pub fn as_str(self) -> &'static str {
        match self {
            RowState::Fits => "fits",
            RowState::Cut => "cut",
            RowState::Image => "image",
            RowState::Binary => "binary",
            RowState::TooLarge => "too-large",
        }
    }
}

/// One row of the preview: what becomes of one attachment.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PreviewRow {
    /// Attachment id in the block (1-based, in pick order).
    pub attachment_id: i64,
    /// Name as the header shows it.
    pub name: String,
    /// MIME type, when known.
    pub mime_type: Option<String>,
    /// Size in bytes.
    pub size_bytes: i64,
    /// What the row says.
    pub state: RowState,
    /// How it entered the block (core's composition).
    pub inlined: Inlined,
    /// Code points of its text the block carries (after the backend's inline cap).
    pub injected_chars: usize,
    /// Whether the backend's inline cap cut its text.
    pub capped: bool,
    /// Tokens of its body in the block.
    pub tokens: Tokens,
    /// Tokens its body is allowed.
    pub allocation: Tokens,
    /// Whether the preview cuts its body.
    pub truncated: bool,
}

/// What the preview element asks the engine.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PreviewRequest {
    /// The files, in pick order.
    pub files: Vec<PickedFile>,
    /// Model whose encoding counts.
    pub model: String,
    /// Block budget in tokens.
    pub limit_tokens: i64,
}

/// The preview of all picked files.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PreviewReport {
    /// Model whose encoding counted.
    pub model: String,
    /// Block budget in tokens.
    pub limit_tokens: i64,
    /// Tokens of the block as composed.
    pub block_tokens_before: Tokens,
    /// Tokens of the block after the preview.
    pub block_tokens_after: Tokens,
    /// One row per file.
    pub attachments: Vec<PreviewRow>,
    /// The block as the model will see it (empty when nothing goes in).
    pub rendered: String,
}

impl PreviewReport {
    /// Rows whose text will be cut.
    pub fn cut_count(&self) -> usize {
        self.attachments
            .iter()
            .filter(|r| r.state == RowState::Cut)
            .count()
    }
}

/// Previews `files` under `model` with `limit_tokens` per block: core composes the block
/// as the backend does and bounds it as chat_shell does. O(total size).
pub fn preview(files: &[PickedFile], model: &str, limit_tokens: i64) -> PreviewReport {
    let attachments: Vec<Attachment> = files
        .iter()
        .enumerate()
        .map(|(i, f)| f.to_attachment(i as i64 + 1))
        .collect();
    let composed = compose_block(&attachments, ComposeOptions::default());
    let counter = TokenCounter::for_model(model);
    let block = composed.text.clone().unwrap_or_default();
    let outcome = preview_messages(&[Message::user(block.clone())], &counter, limit_tokens);
    let rendered = outcome
        .messages
        .first()
        .and_then(|m| m.text().map(str::to_string))
        .unwrap_or_else(|| block.clone());
    let attachments = files
        .iter()
        .zip(&composed.parts)
        .map(|(file, part)| {
            let id = part.attachment_id;
            let segment = outcome
                .segments
                .iter()
                .find(|s| s.attachment_id == id.to_string());
            let truncated = segment.is_some_and(|s| s.truncated);
            let state = match (part.inlined, &file.body) {
                (Inlined::Text, _) if truncated || part.capped => RowState::Cut,
                (Inlined::Text | Inlined::Header, _) => RowState::Fits,
                (Inlined::Image, _) => RowState::Image,
                (Inlined::Nothing, FileBody::TooLarge) => RowState::TooLarge,
                (Inlined::Nothing, _) => RowState::Binary,
            };
            PreviewRow {
                attachment_id: id,
                name: display_name(&file.name),
                mime_type: file.mime_type.clone().filter(|m| !m.is_empty()),
                size_bytes: file.size_bytes,
                state,
                inlined: part.inlined,
                injected_chars: part.injected_chars,
                capped: part.capped,
                tokens: segment
                    .filter(|_| part.inlined == Inlined::Text)
                    .map_or(0, |s| s.tokens),
                allocation: segment
                    .filter(|_| part.inlined == Inlined::Text)
                    .map_or(0, |s| s.allocation),
                truncated,
            }
        })
        .collect();
    PreviewReport {
        model: model.to_string(),
        limit_tokens,
        block_tokens_before: counter.count_text(&block),
        block_tokens_after: counter.count_text(&rendered),
        attachments,
        rendered,
    }
}

/// The engine's entry point on JSON: a [`PreviewRequest`] in, a [`PreviewReport`] out.
pub fn preview_json(request: &str) -> Result<String, String> {
    let request: PreviewRequest =
        serde_json::from_str(request).map_err(|e| format!("preview request: {e}"))?;
    let report = preview(&request.files, &request.model, request.limit_tokens);
    serde_json::to_string(&report).map_err(|e| format!("preview report: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use ctxguard_core::attachment::{INLINE_CUT_MARKER, OPEN_TAG};

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
            FileBody::classify(b"hi".to_vec(), Some("text/plain")),
            FileBody::Text("hi".into())
        );
        assert_eq!(
            FileBody::classify("\u{feff}bom".as_bytes().to_vec(), None),
            FileBody::Text("bom".into())
        );
        assert_eq!(
            FileBody::classify(vec![0xff, 0xfe, 0x00], None),
            FileBody::Binary
        );
        assert_eq!(FileBody::classify(b"a\0b".to_vec(), None), FileBody::Binary);
        assert_eq!(
            FileBody::classify(b"GIF8".to_vec(), Some("image/gif")),
            FileBody::Image("R0lGOA==".into())
        );
    }

    #[test]
    fn base64_matches_the_standard_alphabet() {
        for (bytes, want) in [
            (&b""[..], ""),
            (b"f", "Zg=="),
            (b"fo", "Zm8="),
            (b"foo", "Zm9v"),
            (b"foobar", "Zm9vYmFy"),
            (&[0xff, 0xfe, 0xfd, 0x00][..], "//79AA=="),
        ] {
            assert_eq!(base64(bytes), want);
        }
    }

    #[test]
    fn the_block_is_cores_composition() {
        let files = vec![
            text_file("notes.txt", "hello"),
            PickedFile {
                name: "C:\\pics\\cat.png".into(),
                mime_type: Some("image/png".into()),
                size_bytes: 3,
                body: FileBody::Image("AAEC".into()),
            },
        ];
        let attachments: Vec<Attachment> = files
            .iter()
            .enumerate()
            .map(|(i, f)| f.to_attachment(i as i64 + 1))
            .collect();
        let block = compose_block(&attachments, ComposeOptions::default())
            .text
            .expect("a block");
        let report = preview(&files, "gpt-4o", 15_000);
        let counter = TokenCounter::for_model("gpt-4o");
        assert_eq!(report.block_tokens_before, counter.count_text(&block));
        assert!(report
            .rendered
            .contains("hello\n\n[Image Attachment: cat.png"));
        assert!(block.starts_with(OPEN_TAG));
        assert!(block.contains("[Attachment 1]\n"));
        assert!(block.contains("[Image Attachment: cat.png | ID: 2 | Type: image/png"));
        assert_eq!(report.attachments[1].state, RowState::Image);
        assert_eq!(report.attachments[1].name, "cat.png");
        assert_eq!(report.attachments[0].state, RowState::Fits);
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
            PickedFile {
                name: "huge.log".into(),
                mime_type: Some("text/plain".into()),
                size_bytes: 1 << 30,
                body: FileBody::TooLarge,
            },
        ];
        let report = preview(&files, "gpt-4o", 300);
        let [a, b, bin, huge] = &report.attachments[..] else {
            panic!("four rows")
        };
        assert_eq!(a.state, RowState::Fits);
        assert!(a.tokens > 0 && a.allocation >= a.tokens);
        assert_eq!(b.state, RowState::Cut);
        assert!(b.truncated && b.tokens > 300 && b.allocation < b.tokens);
        assert_eq!(
            (bin.state, bin.tokens, bin.inlined),
            (RowState::Binary, 0, Inlined::Nothing)
        );
        assert_eq!(huge.state, RowState::TooLarge);
        assert_eq!(report.cut_count(), 1);
        assert!(report.block_tokens_after < report.block_tokens_before);
        assert!(report.rendered.contains("Truncated: yes"));
        assert!(report.rendered.contains("read_attachment(attachment_id=2)"));
    }

    #[test]
    fn the_backends_inline_cap_counts_as_a_cut() {
        let long = "x".repeat(40_000);
        let report = preview(&[text_file("long.txt", &long)], "gpt-4o", 100_000);
        let row = &report.attachments[0];
        assert!(row.capped && !row.truncated);
        assert_eq!(row.state, RowState::Cut);
        assert!(report.rendered.contains(INLINE_CUT_MARKER.trim()));
    }

    #[test]
    fn nothing_readable_means_no_block() {
        let files = [PickedFile {
            name: "x.bin".into(),
            mime_type: None,
            size_bytes: 1,
            body: FileBody::Binary,
        }];
        let report = preview(&files, "gpt-4o", 1_000);
        assert_eq!(report.rendered, "");
        assert_eq!(report.block_tokens_before, 0);
    }

    #[test]
    fn json_entry_point() {
        let request = PreviewRequest {
            files: vec![text_file("a.txt", "one two three")],
            model: "gpt-4o".into(),
            limit_tokens: 15_000,
        };
        let out = preview_json(&serde_json::to_string(&request).expect("json")).expect("report");
        let report: PreviewReport = serde_json::from_str(&out).expect("report json");
        assert_eq!(report, preview(&request.files, "gpt-4o", 15_000));
        assert!(out.contains("\"state\":\"fits\""));
        assert!(preview_json("{").is_err());
    }
}
