//! # ctxguard-preview-engine
//!
//! The engine behind `<ctxguard-attachment-preview>`: a [`Session`] takes the
//! uploads of one message, each read where it lies through a
//! [`Source`] (in the browser the picked `File` itself, read by `Blob` slices
//! in the worker: an upload is never copied whole into the module's memory),
//! parses each as Wegent's backend does (`ctxguard-extract`), and answers with
//! core's preview report (`ctxguard_core::attachment::preview_files`). Before
//! any byte is read, the chat input's own refusals apply ([`Session::admit`]:
//! the number of files, limits by media type, video without an uploader).
//! Natively it is plain Rust; on wasm32 the same type is exported to
//! JavaScript as `PreviewSession` (the toolbar package runs it in a module
//! Worker, `preview-worker.js`). A cancelled preview is its worker
//! terminated, which stops a parse at once and frees all its memory.
//!
//! The same worker serves the toolbar's send being written, so the toolbar's
//! own module needs no tokenizer, no model limits and no projection rule: the
//! draft's count ([`count_draft`]), the projection of the send onto the
//! toolbar's metrics ([`send`]) and a provider's usage made into a status event
//! ([`usage`]).
#![deny(missing_docs)]
#![cfg_attr(not(test), deny(clippy::unwrap_used))]

#[cfg(target_arch = "wasm32")]
mod wasm;

mod draft;
pub mod send;
pub mod usage;
pub use draft::count_draft;

use ctxguard_core::attachment::{
    admit, preview_files, AdmissionLimits, Candidate, FileError, PreviewFile, PreviewOptions,
    PreviewReport, Refusal, Stored,
};
use ctxguard_extract::preview::too_large;
use ctxguard_extract::{upload_source, Options};
/// What the engine reads an upload through (re-exported for hosts that make their own).
pub use ctxguard_extract::{Source, SourceError};
use std::collections::VecDeque;

/// The uploads of one message, parsed one by one as they are added.
#[derive(Debug, Default)]
pub struct Session {
    files: Vec<PreviewFile>,
    /// The chat input's verdicts on the next uploads, in order (see [`Session::admit`]).
    verdicts: VecDeque<Option<Refusal>>,
}

impl Session {
    /// An empty session.
    pub fn new() -> Self {
        Session::default()
    }

    /// Judges the files about to be added (in order) as the chat input does
    /// before uploading them; each later [`Session::add`] applies its verdict.
    pub fn admit(&mut self, selection: &[Candidate], limits: &AdmissionLimits) {
        self.verdicts = admit(&[], selection, limits).into();
    }

    /// Parses the next upload from `source` as the backend does with
    /// `MAX_EXTRACTED_TEXT_LENGTH` = `max_text_length`. An upload over
    /// `max_upload_bytes` is refused with the backend's message, its bytes
    /// never read: returns false. A file the chat input refused (see
    /// [`Session::admit`]) is refused the same way, with its message.
    pub fn add(
        &mut self,
        filename: &str,
        source: &dyn Source,
        max_upload_bytes: u64,
        max_text_length: i64,
    ) -> bool {
        let size = source.len();
        let verdict = self.verdicts.pop_front().flatten();
        if let Some(refusal) = verdict.filter(|r| !matches!(r, Refusal::FileTooLarge { .. })) {
            self.files
                .push(refused_before_upload(filename, size, refusal));
            return false;
        }
        if let Some(mut refused) = too_large(filename, size, max_upload_bytes) {
            // The chat input says the same before upload: keep its message beside the backend's.
            if let (Some(r), Stored::Rejected { error }) = (verdict, &mut refused.stored) {
                error.admission = Some(r.message());
            }
            self.files.push(refused);
            return false;
        }
        let options = Options {
            max_text_length,
            // The preview composes an image block without its bytes.
            prepare_image_bytes: false,
            ..Options::default()
        };
        self.files
            .push(upload_source(source, filename, &options).to_preview_file());
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

/// The row of a file the chat input refuses: its code, its English message,
/// and the frontend's keys for UIs to localise.
fn refused_before_upload(filename: &str, size: u64, refusal: Refusal) -> PreviewFile {
    let message = refusal.message();
    let extension = ctxguard_extract::format::extension(filename);
    PreviewFile {
        name: filename.to_string(),
        mime_type: Some(ctxguard_extract::format::mime_type(&extension).to_string()),
        size_bytes: i64::try_from(size).unwrap_or(i64::MAX),
        stored: Stored::Rejected {
            error: FileError {
                code: refusal.code().to_string(),
                message: message.english(),
                admission: Some(message),
            },
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ctxguard_core::attachment::RowState;
    use ctxguard_extract::SourceError;

    /// A source that claims a size and fails any read: what "refused unread" means.
    struct Unreadable(u64);

    impl Source for Unreadable {
        fn len(&self) -> u64 {
            self.0
        }
        fn read_at(&self, offset: u64, _: &mut [u8]) -> Result<usize, SourceError> {
            panic!("byte {offset} of an upload over the cap was read")
        }
    }

    #[test]
    fn uploads_are_parsed_from_their_source_and_oversized_ones_are_refused_unread() {
        let mut s = Session::new();
        assert!(s.add("notes.txt", &b"hello world".as_slice(), 1 << 20, 500_000));
        assert!(!s.add("huge.log", &Unreadable(2 << 20), 1 << 20, 500_000));
        let report = s.report(&PreviewOptions::default());
        let states: Vec<RowState> = report.attachments.iter().map(|r| r.state).collect();
        assert_eq!(states, [RowState::Fits, RowState::Rejected]);
        assert!(report.rendered.contains("hello world"));
        let error = report.attachments[1].error.as_ref().expect("refused");
        assert_eq!(error.code, "file_too_large");
        assert_eq!(error.message, "File size exceeds maximum limit (1.0 MB)");
    }

    #[test]
    fn the_chat_input_refuses_before_any_byte_is_read() {
        let mut s = Session::new();
        let names = ["a.txt", "clip.mp4", "b.txt", "c.txt"];
        let selection: Vec<Candidate> = names
            .iter()
            .map(|n| Candidate {
                name: n.to_string(),
                size_bytes: 5,
            })
            .collect();
        let limits = AdmissionLimits {
            max_reference_images: Some(0),
            ..AdmissionLimits::default()
        };
        s.admit(&selection, &limits);
        let begun: Vec<bool> = names
            .iter()
            .map(|n| s.add(n, &b"hello".as_slice(), 1 << 20, 500_000))
            .collect();
        assert_eq!(begun, [true, false, true, true]);
        let report = s.report(&PreviewOptions::default());
        let error = report.attachments[1].error.as_ref().expect("refused");
        assert_eq!(error.code, "video_upload_unavailable");
        assert_eq!(
            error.message,
            "Video upload is not configured; video files are not supported"
        );
        let key = error.admission.as_ref().map(|m| m.title.key.as_str());
        assert_eq!(
            key,
            Some("common:attachment.errors.video_upload_unavailable")
        );
        assert_eq!(report.attachments[1].state, RowState::Rejected);

        // Too many files: every one of the selection is refused, unread.
        let mut s = Session::new();
        let limits = AdmissionLimits {
            max_attachments: Some(2),
            ..AdmissionLimits::default()
        };
        let texts: Vec<Candidate> = selection
            .iter()
            .filter(|c| c.name.ends_with(".txt"))
            .cloned()
            .collect();
        s.admit(&texts, &limits);
        assert!(["a.txt", "b.txt", "c.txt"].iter().all(|n| !s.add(
            n,
            &b"hello".as_slice(),
            1 << 20,
            500_000
        )));
        let report = s.report(&PreviewOptions::default());
        assert!(report.attachments.iter().all(|r| r
            .error
            .as_ref()
            .is_some_and(|e| e.code == "attachment_limit_reached")));
        // Over the cap: the backend's row, with the chat input's message beside it.
        let mut s = Session::new();
        s.admit(
            &[Candidate {
                name: "big.txt".into(),
                size_bytes: 101 << 20,
            }],
            &AdmissionLimits::default(),
        );
        assert!(!s.add("big.txt", &Unreadable(101 << 20), 100 << 20, 500_000));
        let report = s.report(&PreviewOptions::default());
        let error = report.attachments[0].error.as_ref().expect("refused");
        assert_eq!(error.message, "File size exceeds maximum limit (100.0 MB)");
        assert_eq!(
            error.admission.as_ref().map(|m| m.title.key.as_str()),
            Some("common:attachment.errors.file_too_large")
        );
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
            assert!(s.add(name, &PNG_1X1, 1 << 20, 500_000));
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
