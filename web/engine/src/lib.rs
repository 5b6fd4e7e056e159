//! # ctxguard-preview-engine
//!
//! The engine behind `<ctxguard-attachment-preview>`: a [`Session`] takes the
//! uploads of one message (their bytes streamed in chunks, so a host never
//! holds a whole file twice), parses each as Wegent's backend does
//! (`ctxguard-extract`), and answers with core's preview report
//! (`ctxguard_core::attachment::preview_files`). Natively it is plain Rust;
//! on wasm32 the same type is exported to JavaScript as `PreviewSession`
//! (the toolbar package runs it in a module Worker, `preview-worker.js`).
#![deny(missing_docs)]
#![cfg_attr(not(test), deny(clippy::unwrap_used))]

#[cfg(target_arch = "wasm32")]
mod wasm;

mod draft;
pub use draft::count_draft;

use ctxguard_core::attachment::{preview_files, PreviewFile, PreviewOptions, PreviewReport};
use ctxguard_extract::preview::too_large;
use ctxguard_extract::{upload, Options};

/// The upload being streamed in.
#[derive(Debug)]
struct Pending {
    filename: String,
    bytes: Vec<u8>,
}

/// The uploads of one message, parsed as they are completed.
#[derive(Debug, Default)]
pub struct Session {
    files: Vec<PreviewFile>,
    pending: Option<Pending>,
}

impl Session {
    /// An empty session.
    pub fn new() -> Self {
        Session::default()
    }

    /// Starts the next upload; `size` reserves its buffer. An upload over
    /// `max_upload_bytes` is refused at once with the backend's message (its
    /// bytes are never read): returns false, and the caller sends no chunks.
    pub fn begin(&mut self, filename: &str, size: u64, max_upload_bytes: u64) -> bool {
        if let Some(refused) = too_large(filename, size, max_upload_bytes) {
            self.files.push(refused);
            self.pending = None;
            return false;
        }
        let mut bytes = Vec::new();
        // Reserving is only a hint: a host that lies about the size still works.
        let _ = bytes.try_reserve_exact(usize::try_from(size).unwrap_or(0));
        self.pending = Some(Pending {
            filename: filename.to_string(),
            bytes,
        });
        true
    }

    /// Appends the next bytes of the upload begun last; false when none is begun.
    pub fn append(&mut self, chunk: &[u8]) -> bool {
        match &mut self.pending {
            Some(p) => {
                p.bytes.extend_from_slice(chunk);
                true
            }
            None => false,
        }
    }

    /// Parses the upload begun last, as the backend does with
    /// `MAX_EXTRACTED_TEXT_LENGTH` = `max_text_length`; its bytes are freed.
    pub fn finish(&mut self, max_text_length: i64) -> bool {
        let Some(Pending { filename, bytes }) = self.pending.take() else {
            return false;
        };
        let options = Options {
            max_text_length,
            // The preview composes an image block without its bytes.
            prepare_image_bytes: false,
            ..Options::default()
        };
        let stored = upload(&bytes, &filename, &options).to_preview_file();
        drop(bytes);
        self.files.push(stored);
        true
    }

    /// The files stored so far.
    pub fn files(&self) -> &[PreviewFile] {
        &self.files
    }

    /// The preview of every stored file under `options`.
    pub fn report(&self, options: &PreviewOptions) -> PreviewReport {
        preview_files(&self.files, options)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ctxguard_core::attachment::RowState;

    #[test]
    fn chunks_make_one_upload_and_oversized_ones_are_refused_unread() {
        let mut s = Session::new();
        assert!(s.begin("notes.txt", 11, 1 << 20));
        assert!(s.append(b"hello ") && s.append(b"world"));
        assert!(s.finish(500_000));
        assert!(!s.begin("huge.log", 2 << 20, 1 << 20));
        assert!(
            !s.append(b"ignored"),
            "no upload is pending after a refusal"
        );
        assert!(!s.finish(500_000));
        let report = s.report(&PreviewOptions::default());
        let states: Vec<RowState> = report.attachments.iter().map(|r| r.state).collect();
        assert_eq!(states, [RowState::Fits, RowState::Rejected]);
        assert!(report.rendered.contains("hello world"));
        let error = report.attachments[1].error.as_ref().expect("refused");
        assert_eq!(error.code, "file_too_large");
        assert_eq!(error.message, "File size exceeds maximum limit (1.0 MB)");
    }

    /// A valid 1×1 RGBA PNG.
    const PNG_1X1: &[u8] = &[
        0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44,
        0x52, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x06, 0x00, 0x00, 0x00, 0x1f,
        0x15, 0xc4, 0x89, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x44, 0x41, 0x54, 0x78, 0x9c, 0x63, 0xf8,
        0xcf, 0xc0, 0xf0, 0x1f, 0x00, 0x05, 0x00, 0x01, 0xff, 0x89, 0x99, 0x3d, 0x1d, 0x00, 0x00,
        0x00, 0x00, 0x49, 0x45, 0x4e, 0x44, 0xae, 0x42, 0x60, 0x82,
    ];

    #[test]
    fn images_become_image_blocks_without_their_bytes_being_made() {
        let mut s = Session::new();
        for name in ["dot.png", "dot.bmp"] {
            assert!(s.begin(name, PNG_1X1.len() as u64, 1 << 20));
            s.append(PNG_1X1);
            s.finish(500_000);
        }
        let report = s.report(&PreviewOptions::default());
        assert_eq!(report.attachments[0].state, RowState::Image);
        // A .bmp whose bytes are a PNG: Pillow opens it by content; the prepared image is a PNG.
        assert_eq!(
            report.attachments[1].mime_type.as_deref(),
            Some("image/png")
        );
        assert!(report
            .rendered
            .contains("[Image Attachment: dot.png | ID: 1 | Type: image/png"));
    }
}
