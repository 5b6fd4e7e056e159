//! From uploads to the preview, in one place for every host (the CLI, the
//! preview element, Rust hosts): each file as the backend stored it (its
//! parsed text, or its refusal), composed into the `<attachment>` block as the
//! backend composes it ([`compose_block`]), then bounded as chat_shell bounds
//! it ([`preview_messages`]); one typed row per file and the totals.
//!
//! The parse itself (bytes to stored text) is `ctxguard-extract`'s; this
//! module takes its result, so it needs no parser, and the tokenizer only here.

use super::admission::RefusalMessage;
use super::block::{compose_block, Attachment, ComposeOptions, Inlined};
use super::header::display_name;
use super::preview::preview_messages;
use crate::message::Message;
use crate::tokens::{TokenCounter, Tokens};
use serde::{Deserialize, Serialize};

/// The backend's refusal of an upload: its error code (`unsupported_type`,
/// `unrecognized_type`, `parse_failed`, `encrypted_pdf`, `legacy_doc`,
/// `legacy_ppt`, `legacy_xls`, `file_too_large`) and its message.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileError {
    /// The reference's error code, which UIs localise.
    pub code: String,
    /// The reference's message, stored as the attachment's `error_message`.
    pub message: String,
    /// Set when the chat input refuses the file before upload ([`super::admit`]):
    /// the frontend's i18n keys and values, which UIs localise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub admission: Option<RefusalMessage>,
}

/// How much of a document the backend keeps when its text is over
/// `MAX_EXTRACTED_TEXT_LENGTH` (its smart truncation).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct UploadTruncation {
    /// The strategy's summary: which pages, rows or paragraphs are kept.
    pub summary_message: String,
    /// Code points of the whole document's text.
    pub original_length: i64,
    /// Code points the backend stores.
    pub truncated_length: i64,
}

/// The image the backend hands to vision models.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StoredImage {
    /// Its MIME type (PNG for converted formats).
    pub mime_type: String,
    /// Its bytes, base64.
    pub base64: String,
}

/// What the backend stored for one upload.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Stored {
    /// Parsed: the stored text (empty for media), how parsing cut it, the prepared image.
    Parsed {
        /// `extracted_text`, after the backend's smart truncation.
        text: String,
        /// Set when the backend keeps only part of the document.
        #[serde(default)]
        upload_truncation: Option<UploadTruncation>,
        /// Set for images.
        #[serde(default)]
        image: Option<StoredImage>,
        /// A PDF with almost no letters: the backend tries OCR on it, so where OCR
        /// tools are installed its text may differ from this one.
        #[serde(default)]
        ocr_fallback: bool,
    },
    /// The backend refuses the file.
    Rejected {
        /// The refusal.
        error: FileError,
    },
}

/// One upload to preview.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PreviewFile {
    /// The file name as picked (any path; the header shows its last part).
    pub name: String,
    /// The stored MIME type (the extension's, or the prepared image's).
    pub mime_type: Option<String>,
    /// Bytes uploaded.
    pub size_bytes: i64,
    /// What the backend stored.
    pub stored: Stored,
}

impl PreviewFile {
    /// The attachment the backend composes from this file, with id `attachment_id`.
    pub fn to_attachment(&self, attachment_id: i64, sandbox_dir: Option<&str>) -> Attachment {
        let (extracted_text, is_truncated, image_base64) = match &self.stored {
            Stored::Parsed {
                text,
                upload_truncation,
                image,
                ..
            } => (
                Some(text.clone()).filter(|t| !t.is_empty()),
                upload_truncation.is_some(),
                image.as_ref().map(|i| i.base64.clone()),
            ),
            Stored::Rejected { .. } => (None, false, None),
        };
        let mime_type = self.mime_type.clone().filter(|m| !m.is_empty());
        Attachment {
            attachment_id,
            filename: self.name.clone(),
            is_image: mime_type
                .as_deref()
                .is_some_and(|m| m.starts_with("image/")),
            mime_type,
            file_size: Some(self.size_bytes),
            extracted_text,
            is_truncated,
            image_base64,
            sandbox_path: sandbox_dir
                .map(|dir| format!("{}/{}", dir.trim_end_matches('/'), display_name(&self.name))),
        }
    }
}

/// How a preview is computed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct PreviewOptions {
    /// The model whose encoding counts.
    pub model: String,
    /// chat_shell's budget per block, in tokens (0 or less: the pass is off).
    pub limit_tokens: Tokens,
    /// The backend's inline cap per file, in code points (0 or less: none).
    pub inject_max_chars: i64,
    /// Where the files sit in the agent's sandbox, when they were copied there.
    pub sandbox_dir: Option<String>,
}

impl Default for PreviewOptions {
    fn default() -> Self {
        PreviewOptions {
            model: "gpt-4o".into(),
            limit_tokens: super::preview::DEFAULT_LIMIT_CAP,
            inject_max_chars: super::block::DEFAULT_INJECT_MAX_CHARS,
            sandbox_dir: None,
        }
    }
}

/// What one file's row says (the `data-state` of the preview element's row).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum RowState {
    /// Its text goes in whole.
    Fits,
    /// Its text will be cut (by the backend's inline cap or chat_shell's budget).
    Cut,
    /// It goes as an image block; its header is in the text block.
    Image,
    /// The backend stores it with no text (audio, video, an empty document).
    Binary,
    /// The backend refuses it ([`PreviewRow::error`] says why).
    Rejected,
    /// The backend keeps only part of it ([`PreviewRow::upload_truncation`] says which).
    TruncatedOnUpload,
    /// A PDF with almost no text: the server may replace it by OCR text.
    Scanned,
}

impl RowState {
    /// The `data-state` value.
    pub fn as_str(self) -> &'static str {
        match self {
            RowState::Fits => "fits",
            RowState::Cut => "cut",
            RowState::Image => "image",
            RowState::Binary => "binary",
            RowState::Rejected => "rejected",
            RowState::TruncatedOnUpload => "truncated-on-upload",
            RowState::Scanned => "scanned",
        }
    }
}

/// What becomes of one upload.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PreviewRow {
    /// Attachment id in the block (1-based, in pick order).
    pub attachment_id: i64,
    /// Name as the header shows it.
    pub name: String,
    /// The stored MIME type, when known.
    pub mime_type: Option<String>,
    /// Bytes uploaded.
    pub size_bytes: i64,
    /// What the row says.
    pub state: RowState,
    /// The backend's refusal, for rejected files.
    pub error: Option<FileError>,
    /// How much the backend keeps, when it keeps only part.
    pub upload_truncation: Option<UploadTruncation>,
    /// How it entered the block.
    pub inlined: Inlined,
    /// Code points of stored text (after the backend's truncation).
    pub stored_chars: usize,
    /// Code points of its text the block carries (after the inline cap).
    pub injected_chars: usize,
    /// Whether the backend's inline cap cut its text.
    pub capped: bool,
    /// Tokens of its body in the block.
    pub tokens: Tokens,
    /// Tokens its body is allowed.
    pub allocation: Tokens,
    /// Whether chat_shell's preview cuts its body.
    pub truncated: bool,
}

/// The preview of a message's uploads.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PreviewReport {
    /// Model whose encoding counted.
    pub model: String,
    /// Block budget in tokens.
    pub limit_tokens: Tokens,
    /// Tokens of the block as the backend composes it.
    pub block_tokens_before: Tokens,
    /// Tokens of the block after chat_shell's preview (what the model sees).
    pub block_tokens_after: Tokens,
    /// One row per file, in order.
    pub attachments: Vec<PreviewRow>,
    /// The block as the model will see it (empty when nothing goes in).
    pub rendered: String,
}

impl PreviewReport {
    /// Rows whose text will be cut in the block.
    pub fn cut_count(&self) -> usize {
        self.attachments
            .iter()
            .filter(|r| r.truncated || r.capped)
            .count()
    }

    /// Rows the backend refuses.
    pub fn rejected_count(&self) -> usize {
        self.attachments
            .iter()
            .filter(|r| r.state == RowState::Rejected)
            .count()
    }
}

/// Previews `files`: core composes the block as the backend does and bounds
/// it as chat_shell does; the composed and the rendered block are each
/// counted once. O(total stored text).
pub fn preview_files(files: &[PreviewFile], options: &PreviewOptions) -> PreviewReport {
    let counter = TokenCounter::for_model(&options.model);
    let attachments: Vec<Attachment> = files
        .iter()
        .enumerate()
        .map(|(i, f)| f.to_attachment(i as i64 + 1, options.sandbox_dir.as_deref()))
        .collect();
    let composed = compose_block(
        &attachments,
        ComposeOptions {
            inject_max_chars: options.inject_max_chars,
            ..ComposeOptions::default()
        },
    );
    let block = composed.text.unwrap_or_default();
    let before = counter.count_text(&block);
    let outcome = preview_messages(
        &[Message::user(block.as_str())],
        &counter,
        options.limit_tokens,
    );
    let rendered = outcome
        .messages
        .into_iter()
        .next()
        .and_then(|m| m.text().map(str::to_string))
        .unwrap_or_default();
    let after = if rendered == block {
        before
    } else {
        counter.count_text(&rendered)
    };
    let rows = files
        .iter()
        .zip(&composed.parts)
        .map(|(file, part)| {
            let id = part.attachment_id;
            let segment = outcome
                .segments
                .iter()
                .find(|s| s.attachment_id == id.to_string())
                .filter(|_| part.inlined == Inlined::Text);
            let truncated = segment.is_some_and(|s| s.truncated);
            let (error, upload_truncation, ocr_fallback, stored_chars) = match &file.stored {
                Stored::Rejected { error } => (Some(error.clone()), None, false, 0),
                Stored::Parsed {
                    text,
                    upload_truncation,
                    ocr_fallback,
                    ..
                } => (
                    None,
                    upload_truncation.clone(),
                    *ocr_fallback,
                    text.chars().count(),
                ),
            };
            let state = if error.is_some() {
                RowState::Rejected
            } else if upload_truncation.is_some() {
                RowState::TruncatedOnUpload
            } else if ocr_fallback {
                RowState::Scanned
            } else {
                match part.inlined {
                    Inlined::Text if truncated || part.capped => RowState::Cut,
                    Inlined::Text | Inlined::Header => RowState::Fits,
                    Inlined::Image => RowState::Image,
                    Inlined::Nothing => RowState::Binary,
                }
            };
            PreviewRow {
                attachment_id: id,
                name: display_name(&file.name),
                mime_type: file.mime_type.clone().filter(|m| !m.is_empty()),
                size_bytes: file.size_bytes,
                state,
                error,
                upload_truncation,
                inlined: part.inlined,
                stored_chars,
                injected_chars: part.injected_chars,
                capped: part.capped,
                tokens: segment.map_or(0, |s| s.tokens),
                allocation: segment.map_or(0, |s| s.allocation),
                truncated,
            }
        })
        .collect();
    PreviewReport {
        model: options.model.clone(),
        limit_tokens: options.limit_tokens,
        block_tokens_before: before,
        block_tokens_after: after,
        attachments: rows,
        rendered,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::attachment::{INLINE_CUT_MARKER, OPEN_TAG, PARSING_TRUNCATED_NOTE};

    fn parsed(name: &str, mime: &str, text: &str) -> PreviewFile {
        PreviewFile {
            name: name.into(),
            mime_type: Some(mime.into()),
            size_bytes: text.len() as i64,
            stored: Stored::Parsed {
                text: text.into(),
                upload_truncation: None,
                image: None,
                ocr_fallback: false,
            },
        }
    }

    fn options(limit_tokens: Tokens) -> PreviewOptions {
        PreviewOptions {
            limit_tokens,
            ..PreviewOptions::default()
        }
    }

    #[test]
    fn the_block_is_cores_composition_and_counted_as_it_is() {
        let image = PreviewFile {
            name: "C:\\pics\\cat.png".into(),
            mime_type: Some("image/png".into()),
            size_bytes: 3,
            stored: Stored::Parsed {
                text: "[图片文件]".into(),
                upload_truncation: None,
                image: Some(StoredImage {
                    mime_type: "image/png".into(),
                    base64: "AAEC".into(),
                }),
                ocr_fallback: false,
            },
        };
        let files = vec![parsed("notes.txt", "text/plain", "hello"), image];
        let report = preview_files(&files, &options(15_000));
        let attachments: Vec<Attachment> = files
            .iter()
            .enumerate()
            .map(|(i, f)| f.to_attachment(i as i64 + 1, None))
            .collect();
        let block = compose_block(&attachments, ComposeOptions::default())
            .text
            .expect("a block");
        let counter = TokenCounter::for_model("gpt-4o");
        assert!(block.starts_with(OPEN_TAG));
        assert_eq!(report.block_tokens_before, counter.count_text(&block));
        assert_eq!(
            report.block_tokens_after,
            counter.count_text(&report.rendered)
        );
        assert!(report
            .rendered
            .contains("hello\n\n[Image Attachment: cat.png"));
        assert_eq!(report.attachments[0].state, RowState::Fits);
        assert_eq!(report.attachments[1].state, RowState::Image);
        assert_eq!(report.attachments[1].name, "cat.png");
    }

    #[test]
    fn refusals_partial_uploads_and_big_texts_each_say_so() {
        let big = "lorem ipsum dolor sit amet ".repeat(400);
        let rejected = PreviewFile {
            name: "old.doc".into(),
            mime_type: Some("application/msword".into()),
            size_bytes: 10,
            stored: Stored::Rejected {
                error: FileError {
                    code: "legacy_doc".into(),
                    message: "Legacy .doc format is not fully supported. Please convert to .docx"
                        .into(),
                    admission: None,
                },
            },
        };
        let mut partial = parsed("report.pdf", "application/pdf", "--- Page 1 ---\nfirst");
        if let Stored::Parsed {
            upload_truncation, ..
        } = &mut partial.stored
        {
            *upload_truncation = Some(UploadTruncation {
                summary_message: "Kept: 1 head + 0 middle (sampled) + 1 tail pages".into(),
                original_length: 900_000,
                truncated_length: 500_000,
            });
        }
        let files = vec![
            parsed("a.txt", "text/plain", "short note"),
            parsed("b.txt", "text/plain", &big),
            rejected,
            partial,
            parsed("clip.mp4", "video/mp4", ""),
        ];
        let report = preview_files(&files, &options(300));
        let states: Vec<RowState> = report.attachments.iter().map(|r| r.state).collect();
        assert_eq!(
            states,
            [
                RowState::Fits,
                RowState::Cut,
                RowState::Rejected,
                RowState::TruncatedOnUpload,
                RowState::Binary
            ]
        );
        let rejected = &report.attachments[2];
        assert_eq!(
            rejected.error.as_ref().map(|e| e.code.as_str()),
            Some("legacy_doc")
        );
        assert_eq!((rejected.tokens, rejected.inlined), (0, Inlined::Nothing));
        assert!(report.rendered.contains(PARSING_TRUNCATED_NOTE.trim_end()));
        assert_eq!(report.cut_count(), 1);
        assert_eq!(report.rejected_count(), 1);
        assert!(report.block_tokens_after < report.block_tokens_before);
        assert!(report.rendered.contains("read_attachment(attachment_id=2)"));
    }

    #[test]
    fn the_inline_cap_counts_as_a_cut_and_sandbox_paths_reach_the_header() {
        let long = "x".repeat(40_000);
        let report = preview_files(
            &[parsed("long.txt", "text/plain", &long)],
            &PreviewOptions {
                limit_tokens: 100_000,
                sandbox_dir: Some("/home/user/uploads/".into()),
                ..PreviewOptions::default()
            },
        );
        let row = &report.attachments[0];
        assert!(row.capped && !row.truncated);
        assert_eq!(row.state, RowState::Cut);
        assert_eq!(row.stored_chars, 40_000);
        assert!(report.rendered.contains(INLINE_CUT_MARKER.trim()));
        assert!(report
            .rendered
            .contains("File Path(already in sandbox): /home/user/uploads/long.txt"));
    }

    #[test]
    fn nothing_readable_means_no_block() {
        let report = preview_files(&[parsed("x.mp3", "audio/mpeg", "")], &options(1_000));
        assert_eq!(report.rendered, "");
        assert_eq!(report.block_tokens_before, 0);
        assert_eq!(report.attachments[0].state, RowState::Binary);
    }

    #[test]
    fn rows_serialise_with_kebab_case_states() {
        let report = preview_files(&[parsed("a.txt", "text/plain", "one")], &options(1_000));
        let json = serde_json::to_string(&report).expect("a report serialises");
        assert!(json.contains("\"state\":\"fits\",\"error\":null"), "{json}");
        let back: PreviewReport = serde_json::from_str(&json).expect("and reads back");
        assert_eq!(back, report);
        assert_eq!(RowState::TruncatedOnUpload.as_str(), "truncated-on-upload");
    }
}
