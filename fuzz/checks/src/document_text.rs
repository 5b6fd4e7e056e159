//! `ctxguard_extract::upload` of text decoding and MIME sniffing (an unknown
//! extension): the properties of [`crate::document`], and of the decoder,
//! chardet and the sniffer underneath:
//! - the decode never fails; valid UTF-8 comes back as it is;
//! - the name that won the decode decodes the bytes to the same text when
//!   asked again, and latin-1 text is the bytes one for one;
//! - chardet's confidence is in [0, 1], and 0 with no encoding;
//! - chardet fed the input in pieces answers as fed it at once, and bytes
//!   that are not UTF-8 decoded by pieces (the codec chosen by passes, then
//!   read by a stream decoder) give the same name and text as the whole;
//! - the sniffed type is `type/subtype`, and an unknown extension is parsed
//!   exactly when that type is text-readable, refused with it otherwise.

use ctxguard_extract::{chardet, decode, sniff, upload, Options};

/// Runs one input as `notes.log`.
pub fn check(data: &[u8]) {
    crate::document::check_upload(data, "notes.log");

    let decoded = decode::decode_with(data);
    if let Ok(text) = std::str::from_utf8(data) {
        assert_eq!(decoded.text, text);
        assert_eq!(decoded.encoding, None);
    }
    if let Some(name) = decoded.encoding {
        if let Some(codec) = decode::Codec::lookup(name) {
            assert_eq!(codec.decode(data).as_deref(), Ok(decoded.text.as_str()), "{name}");
            if codec == decode::Codec::Latin1 {
                let back: Vec<u8> = decoded.text.chars().map(|c| c as u32 as u8).collect();
                assert_eq!(back, data);
            }
        }
    }

    let guess = chardet::detect(data);
    assert!((0.0..=1.0).contains(&guess.confidence), "{guess:?}");
    if guess.encoding.is_none() {
        assert_eq!(guess.confidence, 0.0);
    }

    // pieces of a size the input picks (its first byte)
    let size = usize::from(data.first().copied().unwrap_or(1)).max(1);
    let mut detector = chardet::Detector::new();
    for piece in data.chunks(size) {
        detector.feed(piece);
    }
    assert_eq!(detector.finish(), guess, "in pieces of {size}");
    if std::str::from_utf8(data).is_err() {
        let (name, codec) = decode::choose_by_passes(&mut |each: &mut dyn FnMut(&[u8]) -> bool| {
            for piece in data.chunks(size) {
                if !each(piece) {
                    break;
                }
            }
            Ok::<(), ()>(())
        })
        .expect("pieces in memory");
        assert_eq!(Some(name), decoded.encoding, "in pieces of {size}");
        let mut stream = decode::StreamDecoder::new(codec);
        let mut text = String::new();
        for piece in data.chunks(size) {
            stream.feed(piece, &mut text).expect("the chosen codec takes every piece");
        }
        stream.finish(&mut text).expect("the chosen codec takes the end");
        assert_eq!(text, decoded.text, "in pieces of {size}");
    }

    let mime = sniff::mime_type(data);
    let (kind, sub) = mime.split_once('/').expect("type/subtype");
    assert!(!kind.is_empty() && !sub.is_empty(), "{mime}");
    let up = upload(data, "notes.log", &Options::default());
    if ctxguard_core::attachment::is_text_readable_mime(&mime) {
        assert!(up.outcome.is_ok(), "a text-readable upload parses");
    } else {
        let refused = up.outcome.expect_err("a non-text upload is refused");
        assert_eq!(
            refused.message,
            format!("Unrecognized file type: .log (detected MIME: {mime})")
        );
    }
}
