//! The properties every `document_*` target checks of `ctxguard_extract::upload`
//! (each target names the file with its format's extension): no input
//! panics; a refusal carries a code and a message (`parse_failed` ones the
//! reference's `Failed to parse …: ` prefix) and is stored as failed; a
//! parse is stored as ready with its text, whose length is counted in code
//! points and stays within the limit once truncated. The same bytes read in
//! short pieces give the same upload; under a shorter length, the upload of
//! the bytes up to it; under a longer one, a refusal that says so or a parse,
//! never a panic ([`crate::source`]).

use crate::source::{Claimed, ShortReads};
use ctxguard_extract::{upload, upload_source, ErrorCode, Format, Options, Status};

/// The text limit the targets parse with (small, so that truncation runs).
pub const MAX_TEXT_LENGTH: i64 = 2_000;

/// Uploads `data` as `filename` and checks the record against the parse.
pub fn check_upload(data: &[u8], filename: &str) {
    let options = Options {
        max_text_length: MAX_TEXT_LENGTH,
        ..Options::default()
    };
    let up = upload(data, filename, &options);
    // Images are read whole, through the one reader the PDF target's source
    // checks cover; their decode is too slow to run four times more within
    // the fuzzer's timeout.
    let extension = ctxguard_extract::format::extension(filename);
    if Format::of_extension(&extension) != Format::Image {
        check_sources(data, filename, &options, &up);
    }
    let record = &up.record;
    assert_eq!(record.type_data.file_size, data.len() as u64);
    match &up.outcome {
        Ok(parsed) => {
            assert_eq!(record.status, Status::Ready);
            assert_eq!(record.extracted_text, parsed.text);
            let length = parsed.text.chars().count() as i64;
            assert_eq!(parsed.text_length(), length);
            assert_eq!(record.text_length, length);
            assert_eq!(record.type_data.is_truncated, Some(parsed.is_truncated()));
            if let Some(t) = &parsed.truncation {
                assert!(
                    length <= MAX_TEXT_LENGTH,
                    "{length} code points kept over the limit"
                );
                assert_eq!(t.truncated_length, Some(length));
            }
            assert_eq!(record.image_base64.is_empty(), parsed.image.is_none());
        }
        Err(e) => {
            assert_eq!(record.status, Status::Failed);
            assert_eq!(record.error_message, e.message);
            assert!(!e.message.is_empty());
            if e.code == ErrorCode::ParseFailed {
                assert!(e.message.starts_with("Failed to parse "), "{}", e.message);
            }
            assert_eq!(record.type_data.is_truncated, None);
        }
    }
}

/// The upload of `data` through the hosts' kinds of source ([`crate::source`]).
fn check_sources(data: &[u8], filename: &str, options: &Options, whole: &ctxguard_extract::Upload) {
    // a piece size the input picks (its last byte), so every size gets explored
    let piece = usize::from(data.last().copied().unwrap_or(1)) % 61 + 1;
    let short = upload_source(&ShortReads { bytes: data, piece }, filename, options);
    assert_eq!(&short, whole, "read in pieces of {piece}");

    let cut = data.len() / 2;
    let shorter = upload_source(
        &Claimed {
            bytes: data,
            len: cut as u64,
        },
        filename,
        options,
    );
    assert_eq!(
        shorter,
        upload(&data[..cut], filename, options),
        "claimed {cut} bytes"
    );

    let longer = upload_source(
        &Claimed {
            bytes: data,
            len: data.len() as u64 + 1 + u64::from(data.first().copied().unwrap_or(0)),
        },
        filename,
        options,
    );
    if let Err(e) = &longer.outcome {
        assert!(!e.message.is_empty(), "a refusal says why");
    }
}
