//! An upload as the preview takes it: [`Upload::to_preview_file`] turns the
//! stored record into core's [`PreviewFile`], so every host (the CLI, the
//! preview engine) goes from bytes to a report the same way:
//! [`crate::upload`], then `ctxguard_core::attachment::preview_files`.

use crate::error::{DocumentError, ErrorCode};
use crate::limits::MAX_UPLOAD_BYTES;
use crate::record::Upload;
use ctxguard_core::attachment::{FileError, PreviewFile, Stored, StoredImage, UploadTruncation};

impl Upload {
    /// The upload as the preview composes it: the stored text (or the refusal),
    /// what smart truncation kept, the prepared image.
    pub fn to_preview_file(&self) -> PreviewFile {
        let stored = match (&self.outcome, self.record.parsed) {
            (Err(e), true) => Stored::Rejected {
                error: file_error(e),
            },
            (_, false) => Stored::Parsed {
                text: String::new(),
                upload_truncation: None,
                image: None,
                ocr_fallback: false,
            },
            (Ok(parsed), true) => Stored::Parsed {
                text: parsed.text.clone(),
                upload_truncation: parsed.truncation.as_ref().map(|t| UploadTruncation {
                    summary_message: t.summary_message.clone(),
                    original_length: t.original_length.unwrap_or_default(),
                    truncated_length: t.truncated_length.unwrap_or_default(),
                }),
                image: parsed.image.as_ref().map(|i| StoredImage {
                    mime_type: i.mime_type.clone(),
                    base64: IMAGE_STAND_IN.to_string(),
                }),
                ocr_fallback: parsed.ocr_fallback,
            },
        };
        PreviewFile {
            name: self.record.type_data.original_filename.clone(),
            mime_type: Some(self.record.type_data.mime_type.clone()),
            size_bytes: i64::try_from(self.record.type_data.file_size).unwrap_or(i64::MAX),
            stored,
        }
    }
}

/// The image data a preview composes its image block with: the block's bytes
/// never reach the preview's report (only that the image is sent as one), so a
/// short stand-in replaces the prepared image's base64 there.
pub const IMAGE_STAND_IN: &str = "AA==";

/// A refusal as core's preview carries it.
pub fn file_error(e: &DocumentError) -> FileError {
    FileError {
        code: e.code.as_str().to_string(),
        message: e.message.clone(),
        admission: None,
    }
}

/// The upload endpoint's size check, before any parsing:
/// `File size exceeds maximum limit (100.0 MB)` past `max_upload_bytes`.
pub fn check_size(size: u64, max_upload_bytes: u64) -> Result<(), DocumentError> {
    if size <= max_upload_bytes {
        return Ok(());
    }
    let mb = max_upload_bytes as f64 / (1024.0 * 1024.0);
    let shown = if mb.fract() == 0.0 && mb.abs() < 1e16 {
        format!("{mb:.1}")
    } else {
        format!("{mb}")
    };
    Err(DocumentError::new(
        ErrorCode::FileTooLarge,
        format!("File size exceeds maximum limit ({shown} MB)"),
    ))
}

/// The preview file of an upload refused for its size (its bytes never read).
pub fn too_large(filename: &str, size: u64, max_upload_bytes: u64) -> Option<PreviewFile> {
    let error = check_size(size, max_upload_bytes).err()?;
    let extension = crate::format::extension(filename);
    Some(PreviewFile {
        name: filename.to_string(),
        mime_type: Some(crate::format::mime_type(&extension).to_string()),
        size_bytes: i64::try_from(size).unwrap_or(i64::MAX),
        stored: Stored::Rejected {
            error: file_error(&error),
        },
    })
}

/// The backend's default cap, for hosts without their own.
pub const DEFAULT_MAX_UPLOAD_BYTES: u64 = MAX_UPLOAD_BYTES;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{upload, Options};

    #[test]
    fn the_size_check_says_the_cap_as_python_prints_it() {
        assert!(check_size(100, 100).is_ok());
        let e = check_size(MAX_UPLOAD_BYTES + 1, MAX_UPLOAD_BYTES).expect_err("over");
        assert_eq!(e.code, ErrorCode::FileTooLarge);
        assert_eq!(e.message, "File size exceeds maximum limit (100.0 MB)");
        let e = check_size(10 << 20, 3 << 19).expect_err("over");
        assert_eq!(e.message, "File size exceeds maximum limit (1.5 MB)");
        let row = too_large("big.log", 200 << 20, MAX_UPLOAD_BYTES).expect("refused");
        assert!(
            matches!(row.stored, Stored::Rejected { ref error } if error.code == "file_too_large")
        );
    }

    #[test]
    fn uploads_become_preview_files() {
        let up = upload(b"\xd0\xcf\x11\xe0", "old.doc", &Options::default());
        let file = up.to_preview_file();
        assert_eq!(file.mime_type.as_deref(), Some("application/msword"));
        assert!(
            matches!(file.stored, Stored::Rejected { ref error } if error.code == "legacy_doc")
        );
        let text = "line\n".repeat(300);
        let options = Options {
            max_text_length: 400,
            ..Options::default()
        };
        let file = upload(text.as_bytes(), "notes.txt", &options).to_preview_file();
        let Stored::Parsed {
            upload_truncation: Some(t),
            ..
        } = &file.stored
        else {
            panic!("a truncated text: {file:?}")
        };
        assert_eq!((t.original_length, t.truncated_length > 0), (1500, true));
        let video = upload(b"\x00\x00\x00\x18ftypmp42", "clip.mp4", &Options::default());
        assert!(
            matches!(video.to_preview_file().stored, Stored::Parsed { ref text, .. } if text.is_empty())
        );
    }
}
