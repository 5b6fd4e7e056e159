//! # ctxguard-extract
//!
//! Attachments as Wegent's backend reads them. Before any block is composed
//! the backend parses every upload once (`DocumentParser.parse` in
//! `backend/app/services/attachment/parser.py`), smart-truncates the text to
//! `MAX_EXTRACTED_TEXT_LENGTH` (500 000 code points) by document structure,
//! and stores the result; this crate reproduces that step exactly, so a
//! preview shows what the server will inject.
//!
//! Bytes and a file name in, [`Upload`] out: the parser's answer
//! ([`Extracted`] or a [`DocumentError`] with the reference's code and
//! message) and the stored [`Record`]. No I/O, no clock, no tokenizer; every
//! parser works within [`Limits`] and never panics on any input.
//!
//! ```
//! use ctxguard_extract::{upload, Options};
//! let up = upload(b"name,age\nAlice,30\n", "people.csv", &Options::default());
//! let parsed = up.outcome.expect("a CSV parses");
//! assert_eq!(parsed.text, "--- Sheet: CSV Data ---\nname | age\nAlice | 30");
//! assert_eq!(up.record.type_data.mime_type, "text/csv");
//! ```
#![deny(missing_docs)]
#![cfg_attr(not(test), deny(clippy::unwrap_used))]

mod archive;
#[cfg(all(feature = "blob", target_arch = "wasm32"))]
pub mod blob;
pub mod chardet;
pub mod chars;
pub mod conformance;
pub mod csv;
pub mod decode;
mod docx;
pub mod error;
pub mod format;
mod image;
pub mod limits;
mod ooxml;
pub mod package;
mod pdf;
mod pptx;
pub mod preview;
pub mod record;
pub mod sniff;
pub mod source;
#[cfg(test)]
mod testing;
mod text_pass;
mod truncate;
#[cfg(all(feature = "wasm", target_arch = "wasm32"))]
mod wasm;
mod xlsx;
mod xmind;

pub use error::{DocumentError, ErrorCode, Subject};
pub use format::Format;
pub use limits::Limits;
pub use record::{Extracted, PreparedImage, Record, Status, StoredTruncation, TypeData, Upload};
pub use source::{Source, SourceError, SourceReader};
pub use truncate::{SheetText, StrategyError, Truncation, TruncationKind};

use text_pass::{DecodedPass, PassError, TextPass, Utf8Pass};
use truncate::Unit;

/// `MAX_EXTRACTED_TEXT_LENGTH`'s default: 500 000 code points.
pub const DEFAULT_MAX_TEXT_LENGTH: i64 = 500_000;

/// How one upload is parsed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Options {
    /// `MAX_EXTRACTED_TEXT_LENGTH` (0 means the default, as the reference's `or` reads it).
    pub max_text_length: i64,
    /// Resource bounds.
    pub limits: Limits,
    /// Make the prepared image's bytes (the default; needs the `image-encoders`
    /// feature). A host that only needs its type, size and `resized` flag (the
    /// preview) turns it off: no decoding, resizing or encoding runs.
    pub prepare_image_bytes: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            max_text_length: DEFAULT_MAX_TEXT_LENGTH,
            limits: Limits::default(),
            prepare_image_bytes: true,
        }
    }
}

/// `DocumentParser().parse(bytes, extension)`: the extension (lower-cased,
/// with its dot) picks the parser, which reads the upload from `source`.
pub fn parse(
    source: &dyn Source,
    extension: &str,
    options: &Options,
) -> Result<Extracted, DocumentError> {
    // No parser reads past the length the host gave, whatever offsets the upload names.
    let clamped = source::Clamped::new(source);
    let source: &dyn Source = &clamped;
    // Formats not yet read as a stream take the whole upload once, here.
    let whole = || read_whole(source);
    let max = options.max_text_length;
    let limits = &options.limits;
    let strategy = |subject: Subject| move |e: StrategyError| DocumentError::failed(subject, e);
    let cut = |unit: Unit, items: Vec<String>, subject: Subject| {
        truncate::units(unit, &items, max)
            .map(truncated)
            .map_err(strategy(subject))
    };
    match Format::of_extension(extension) {
        Format::Pdf => {
            let pages = pdf::pages(&whole()?, limits)?;
            let ocr_fallback = pdf::needs_ocr(&pages);
            let mut parsed = cut(Unit::Page, pages, Subject::Pdf)?;
            parsed.ocr_fallback = ocr_fallback;
            Ok(parsed)
        }
        Format::Docx => docx::text(source, limits, max).map(truncated),
        Format::Pptx => pptx::text(source, limits, max).map(truncated),
        Format::Xlsx => {
            let mut sink = truncate::SheetsStream::new(max);
            xlsx::sheets(source, limits, &mut sink)?;
            Ok(truncated(sink.finish()))
        }
        Format::LegacyDoc => Err(legacy(ErrorCode::LegacyDoc, ".doc", ".docx")),
        Format::LegacyPpt => Err(legacy(ErrorCode::LegacyPpt, ".ppt", ".pptx")),
        Format::LegacyXls => Err(legacy(ErrorCode::LegacyXls, ".xls", ".xlsx")),
        Format::Csv => csv_of(source, max),
        Format::Xmind => text_of(&xmind::markdown(source, limits)?, max),
        Format::Image => image::parse(&whole()?, extension, limits, options.prepare_image_bytes),
        Format::Media => Ok(Extracted::text("")),
        Format::Zip => archive::parse(source, limits),
        Format::Text => text_of_source(source, max),
        Format::Unknown => {
            let mime = sniff::mime_type_of(source)
                .map_err(|e| DocumentError::failed(Subject::Document, e))?;
            if ctxguard_core::attachment::is_text_readable_mime(&mime) {
                // The text parser the known text extensions use, streamed as theirs is.
                text_of_source(source, max)
            } else {
                Err(DocumentError::new(
                    ErrorCode::UnrecognizedType,
                    format!("Unrecognized file type: {extension} (detected MIME: {mime})"),
                ))
            }
        }
    }
}

/// A strategy's text and report as a parse result.
fn truncated((text, info): truncate::Truncated) -> Extracted {
    Extracted {
        text,
        truncation: info.into_truncation(),
        image: None,
        ocr_fallback: false,
    }
}

/// `_truncate_text`, outside any parser's own error handling (so a strategy
/// failure reads `Failed to parse document: …`).
fn text_of(text: &str, max: i64) -> Result<Extracted, DocumentError> {
    truncate::text(text, max)
        .map(truncated)
        .map_err(|e| DocumentError::failed(Subject::Document, e))
}

/// A text upload read as a stream: strict UTF-8 by chunks, truncated as it
/// is read; bytes that are not UTF-8 are decoded as the reference does, by
/// passes over the source ([`DecodedPass`]), never held whole either.
fn text_of_source(source: &dyn Source, max: i64) -> Result<Extracted, DocumentError> {
    let failed = |e: PassError| DocumentError::failed(Subject::Document, e);
    match truncate::text_pass(&Utf8Pass::new(source), max) {
        Ok(t) => Ok(truncated(t)),
        Err(PassError::NotUtf8) => {
            let decoded = DecodedPass::new(source).map_err(failed)?;
            truncate::text_pass(&decoded, max)
                .map(truncated)
                .map_err(failed)
        }
        Err(e) => Err(failed(e)),
    }
}

/// A CSV upload read as a stream, as [`text_of_source`] reads text. A CSV
/// error stands only once every byte is known to be UTF-8: decoded otherwise,
/// the same bytes are other characters.
fn csv_of(source: &dyn Source, max: i64) -> Result<Extracted, DocumentError> {
    let utf8 = Utf8Pass::new(source);
    let failed = |e: PassError| match e {
        PassError::Csv(e) => DocumentError::failed(Subject::Csv, e),
        other => DocumentError::failed(Subject::Document, other),
    };
    let decoded = || -> Result<Extracted, DocumentError> {
        let decoded = DecodedPass::new(source).map_err(failed)?;
        csv::parse_text(&decoded, max).map_err(failed)
    };
    match csv::parse_text(&utf8, max) {
        Ok(parsed) => Ok(parsed),
        Err(PassError::NotUtf8) => decoded(),
        Err(PassError::Csv(e)) => match utf8.pass(&mut |_| Ok(())) {
            Ok(()) => Err(failed(PassError::Csv(e))),
            Err(PassError::NotUtf8) => decoded(),
            Err(other) => Err(failed(other)),
        },
        Err(e) => Err(failed(e)),
    }
}

/// The whole upload in memory, for a parser that does not read a stream yet.
/// A failed read is a parse failure naming the host's reason.
fn read_whole(source: &dyn Source) -> Result<Vec<u8>, DocumentError> {
    source::read_all(source).map_err(|e| DocumentError::failed(Subject::Document, e))
}

/// The legacy formats' refusal: `Legacy .doc format is not fully supported. Please convert to .docx`.
fn legacy(code: ErrorCode, old: &str, new: &str) -> DocumentError {
    DocumentError::new(
        code,
        format!("Legacy {old} format is not fully supported. Please convert to {new}"),
    )
}

/// One upload held in memory, as [`upload_source`] handles it.
pub fn upload(bytes: &[u8], filename: &str, options: &Options) -> Upload {
    upload_source(&bytes, filename, options)
}

/// One upload as `ContextService.upload_attachment` handles it: the parse
/// (skipped for video files, which are stored as they are) and the stored
/// record, the bytes read from `source` where they lie.
pub fn upload_source(source: &dyn Source, filename: &str, options: &Options) -> Upload {
    let extension = format::extension(filename);
    let outcome = parse(source, &extension, options);
    let mut type_data = TypeData {
        original_filename: filename.to_string(),
        file_extension: extension.clone(),
        file_size: source.len(),
        mime_type: format::mime_type(&extension).to_string(),
        is_truncated: None,
    };
    let record = if format::is_video(&extension) {
        type_data.is_truncated = Some(false);
        Record {
            status: Status::Ready,
            error_message: String::new(),
            extracted_text: String::new(),
            text_length: 0,
            image_base64: String::new(),
            type_data,
            truncation_info: None,
            parsed: false,
        }
    } else {
        match &outcome {
            Ok(extracted) => {
                if let Some(image) = &extracted.image {
                    type_data.mime_type = image.mime_type.clone();
                }
                type_data.is_truncated = Some(extracted.is_truncated());
                Record {
                    status: Status::Ready,
                    error_message: String::new(),
                    extracted_text: extracted.text.clone(),
                    text_length: extracted.text_length(),
                    image_base64: extracted
                        .image
                        .as_ref()
                        .map_or_else(String::new, |i| record::base64(&i.data)),
                    type_data,
                    truncation_info: extracted.truncation.as_ref().map(|t| StoredTruncation {
                        is_truncated: true,
                        original_length: t.original_length,
                        truncated_length: t.truncated_length,
                        truncation_message_key: "content_truncated",
                    }),
                    parsed: true,
                }
            }
            Err(e) => Record {
                status: Status::Failed,
                error_message: e.message.clone(),
                extracted_text: String::new(),
                text_length: 0,
                image_base64: String::new(),
                type_data,
                truncation_info: None,
                parsed: true,
            },
        }
    };
    Upload { outcome, record }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn legacy_formats_are_refused_with_their_codes() {
        let up = upload(b"\xd0\xcf\x11\xe0", "Old.DOC", &Options::default());
        let err = up.outcome.expect_err("legacy");
        assert_eq!(err.code, ErrorCode::LegacyDoc);
        assert_eq!(
            err.message,
            "Legacy .doc format is not fully supported. Please convert to .docx"
        );
        assert_eq!(up.record.status, Status::Failed);
        assert_eq!(up.record.type_data.is_truncated, None);
        assert_eq!(up.record.type_data.mime_type, "application/msword");
    }

    #[test]
    fn video_is_stored_unparsed_whatever_the_parser_says() {
        let up = upload(b"\x00\x01\x02junk", "clip.flv", &Options::default());
        assert!(
            up.outcome.is_err(),
            "the sniffer does not call binary junk text"
        );
        assert_eq!(up.record.status, Status::Ready);
        assert!(!up.record.parsed);
        assert_eq!(up.record.type_data.is_truncated, Some(false));
    }

    /// A source that refuses any read larger than the streaming buffer: a
    /// parser that reads it whole (one read of its length) fails.
    struct NoWholeReads<'a>(&'a [u8]);

    impl Source for NoWholeReads<'_> {
        fn len(&self) -> u64 {
            self.0.len() as u64
        }
        fn read_at(&self, offset: u64, buf: &mut [u8]) -> Result<usize, SourceError> {
            if buf.len() > source::READ_BUFFER_BYTES {
                return Err(SourceError::Read {
                    offset,
                    reason: format!("a read of {} bytes: the upload was read whole", buf.len()),
                });
            }
            self.0.read_at(offset, buf)
        }
    }

    #[test]
    fn text_and_csv_uploads_are_read_in_buffers_not_whole() {
        let csv: String = (0..200_000)
            .map(|i| format!("{i},name {i},\"city, {}\"\n", i % 97))
            .collect();
        let markdown: String = (0..40_000)
            .map(|i| format!("## Part {i}\nsome words of part {i}\n"))
            .collect();
        let log = "2026-12-01 INFO served a request\n".repeat(100_000);
        for (bytes, name) in [
            (csv.as_bytes(), "big.csv"),
            (markdown.as_bytes(), "notes.md"),
            (log.as_bytes(), "server.txt"),
        ] {
            assert!(bytes.len() > 2 * source::READ_BUFFER_BYTES);
            let options = Options::default();
            let streamed = upload_source(&NoWholeReads(bytes), name, &options);
            let parsed = streamed.outcome.as_ref().expect("parses from buffers");
            assert!(parsed.is_truncated(), "{name} is over the limit");
            assert_eq!(
                streamed.to_json(true),
                upload(bytes, name, &options).to_json(true),
                "{name}"
            );
        }
    }

    #[test]
    fn uploads_that_are_not_utf8_are_read_in_buffers_not_whole() {
        let log: String = (0..60_000)
            .map(|i| format!("2026-12-01 信息 第{i}号请求已处理，用户数据文件报告\n"))
            .collect();
        let (gbk, _, _) = encoding_rs::GBK.encode(&log);
        let csv: String = (0..120_000)
            .map(|i| format!("{i},café {i},\"Zürich, Straße {}\"\n", i % 97))
            .collect();
        let (latin1, _, _) = encoding_rs::WINDOWS_1252.encode(&csv);
        let options = Options::default();
        let max = options.max_text_length;
        let text_whole = text_of(&decode::decode(&gbk), max);
        let csv_whole = csv::parse(&latin1, max);
        for (bytes, name, whole) in [
            (&gbk[..], "server.txt", text_whole),
            (&latin1[..], "people.csv", csv_whole),
        ] {
            assert!(bytes.len() > 4 * source::READ_BUFFER_BYTES);
            assert!(std::str::from_utf8(bytes).is_err());
            let streamed = upload_source(&NoWholeReads(bytes), name, &options);
            let parsed = streamed.outcome.expect("parses from buffers");
            assert!(parsed.is_truncated(), "{name} is over the limit");
            assert_eq!(
                Ok(parsed),
                whole,
                "{name}: as the whole upload decoded at once"
            );
        }
    }

    #[test]
    fn text_is_truncated_at_the_limit() {
        let text = "line\n".repeat(1000);
        let options = Options {
            max_text_length: 500,
            ..Options::default()
        };
        let up = upload(text.as_bytes(), "notes.txt", &options);
        let parsed = up.outcome.expect("text parses");
        assert!(parsed.is_truncated());
        assert!(parsed.text_length() <= 500);
        let stored = up.record.truncation_info.expect("truncated");
        assert_eq!(stored.original_length, Some(5000));
        assert_eq!(up.record.type_data.is_truncated, Some(true));
    }
}
