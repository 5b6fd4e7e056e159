//! What an upload produces: the parser's result (text, truncation report,
//! prepared image) and the attachment record the backend stores, shaped as
//! the conformance cases' `expected` and as `parseDocument` returns it.

use crate::error::DocumentError;
use crate::truncate::Truncation;
use serde::Serialize;
use serde_json::{json, Map, Value};

/// The image the backend hands to vision models (`prepare_image_bytes_for_model`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PreparedImage {
    /// The MIME type of the bytes handed over (`image/png` for converted formats).
    pub mime_type: String,
    /// Width of the prepared image, in pixels.
    pub width: u32,
    /// Height of the prepared image, in pixels.
    pub height: u32,
    /// Whether the bytes differ from the upload (converted, resized or both).
    pub resized: bool,
    /// The prepared image's bytes (the upload itself when not `resized`).
    pub data: Vec<u8>,
}

/// A successful parse (`ParseResult`): the text the chat model sees.
#[derive(Debug, Clone, PartialEq)]
pub struct Extracted {
    /// The extracted text after smart truncation.
    pub text: String,
    /// The truncation report, when the text was cut.
    pub truncation: Option<Truncation>,
    /// The prepared image, for images.
    pub image: Option<PreparedImage>,
    /// A PDF whose text has under 100 letters: the backend tries OCR on it,
    /// so where OCR tools are installed the stored text may differ from this one.
    pub ocr_fallback: bool,
}

impl Extracted {
    /// A text with no truncation and no image.
    pub fn text(text: impl Into<String>) -> Self {
        Extracted {
            text: text.into(),
            truncation: None,
            image: None,
            ocr_fallback: false,
        }
    }

    /// `text_length`: code points of the text.
    pub fn text_length(&self) -> i64 {
        crate::chars::len(&self.text)
    }

    /// Whether the stored text is only part of the document.
    pub fn is_truncated(&self) -> bool {
        self.truncation.is_some()
    }
}

/// `ContextStatus` of a stored attachment.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// Parsed (or skipped, for video) and usable.
    Ready,
    /// The parser refused the file.
    Failed,
}

/// The upload response's truncation summary (`truncation_message_key` is
/// what the frontend localises).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct StoredTruncation {
    /// Always true when present.
    pub is_truncated: bool,
    /// Code points before truncation.
    pub original_length: Option<i64>,
    /// Code points after truncation.
    pub truncated_length: Option<i64>,
    /// `content_truncated`.
    pub truncation_message_key: &'static str,
}

/// The record's `type_data`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TypeData {
    /// The uploaded file name.
    pub original_filename: String,
    /// `os.path.splitext(filename)[1].lower()`.
    pub file_extension: String,
    /// Bytes uploaded.
    pub file_size: u64,
    /// The extension's MIME type, or the prepared image's when it was converted.
    pub mime_type: String,
    /// Whether parsing truncated the text; absent when parsing failed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub is_truncated: Option<bool>,
}

/// The stored attachment (`SubtaskContext` and the upload response).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Record {
    /// `ready` or `failed`.
    pub status: Status,
    /// The refusal's message, or empty.
    pub error_message: String,
    /// The stored text (empty on failure or skip).
    pub extracted_text: String,
    /// Code points of the stored text.
    pub text_length: i64,
    /// The prepared image as base64, or empty.
    pub image_base64: String,
    /// File metadata.
    pub type_data: TypeData,
    /// The upload response's truncation summary.
    pub truncation_info: Option<StoredTruncation>,
    /// False for video files, which are stored unparsed.
    pub parsed: bool,
}

/// One upload: the parser's own answer and what the backend stores.
#[derive(Debug, Clone, PartialEq)]
pub struct Upload {
    /// The parser's answer (for video files, what it would have said).
    pub outcome: Result<Extracted, DocumentError>,
    /// The stored attachment.
    pub record: Record,
}

impl Upload {
    /// The case's `expected`: `{text, text_length, is_truncated, truncation,
    /// image, record}` or `{error: {code, message}, record}`. With
    /// `placeholders`, the record's text and image are written `<text>` and
    /// `<image>` as the recorded cases write them; without, they are real.
    pub fn to_json(&self, placeholders: bool) -> Value {
        let mut record = serde_json::to_value(&self.record).unwrap_or(Value::Null);
        if placeholders {
            if let Some(obj) = record.as_object_mut() {
                if !self.record.extracted_text.is_empty() {
                    obj.insert("extracted_text".into(), "<text>".into());
                }
                if !self.record.image_base64.is_empty() {
                    obj.insert("image_base64".into(), "<image>".into());
                }
            }
        }
        match &self.outcome {
            Ok(extracted) => {
                let image = extracted.image.as_ref().map(|i| {
                    json!({"mime_type": i.mime_type, "width": i.width, "height": i.height, "resized": i.resized})
                });
                let mut out = Map::new();
                out.insert("text".into(), extracted.text.clone().into());
                out.insert("text_length".into(), extracted.text_length().into());
                out.insert("is_truncated".into(), extracted.is_truncated().into());
                out.insert(
                    "truncation".into(),
                    serde_json::to_value(&extracted.truncation).unwrap_or(Value::Null),
                );
                out.insert("image".into(), image.unwrap_or(Value::Null));
                out.insert("record".into(), record);
                Value::Object(out)
            }
            Err(e) => json!({
                "error": {"code": e.code.as_str(), "message": e.message},
                "record": record,
            }),
        }
    }
}

/// Standard base64 with padding, as Python's `base64.b64encode`.
pub(crate) fn base64(data: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(data.len().div_ceil(3) * 4);
    for chunk in data.chunks(3) {
        let b = [
            chunk[0],
            *chunk.get(1).unwrap_or(&0),
            *chunk.get(2).unwrap_or(&0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(char::from(ALPHABET[((n >> (18 - 6 * i)) & 63) as usize]));
            } else {
                out.push('=');
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_matches_python() {
        assert_eq!(base64(b""), "");
        assert_eq!(base64(b"f"), "Zg==");
        assert_eq!(base64(b"fo"), "Zm8=");
        assert_eq!(base64(b"foo"), "Zm9v");
        assert_eq!(base64(b"foob"), "Zm9vYg==");
        assert_eq!(base64(&[0xff, 0xfe, 0x00]), "//4A");
    }
}
