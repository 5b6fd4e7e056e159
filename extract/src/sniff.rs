//! MIME sniffing of files with an unknown extension, as libmagic 5.44 names
//! them through python-magic (`magic.Magic(mime=True).from_buffer(bytes)`,
//! which hands libmagic the whole buffer), as far as the parser's decision
//! (text-readable or not) and its refusal message need.
//!
//! The pipeline is libmagic's `file_buffer`: an empty buffer is
//! `application/x-empty`, one byte `application/octet-stream`; then the
//! encoding test on the first 64 KiB ([`encoding`]), the built-in tar, JSON
//! and CSV tests ([`builtin`]), the binary magic rules on the raw bytes, and
//! for text the text rules on the text re-encoded as UTF-8, else
//! `text/plain`; anything else is `application/octet-stream`. A magic rule
//! that matches without a MIME type ends the rule scan, as in libmagic.
//!
//! The magic database itself has some 3500 rules; this module carries the
//! ones for the formats an upload plausibly is (see [`binary`] and
//! [`text`]), checked against libmagic on generated and real files.

mod binary;
pub mod builtin;
pub mod encoding;
mod raw_text;
mod tables;
mod text;
mod window;
mod zip;

use crate::source::{read_all, read_exact_at, Source, SourceError};
use builtin::Scan;

/// What a magic rule scan found: a MIME type, or a match that names none
/// (which stops the scan and leaves the answer to the later stages).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Hit {
    Mime(&'static str),
    NoMime,
}

/// The MIME type libmagic gives these bytes.
pub fn mime_type(bytes: &[u8]) -> String {
    let view = View {
        head: bytes,
        len: bytes.len(),
        trailing_nuls: bytes.iter().rev().take_while(|&&b| b == 0).count(),
        scan: bytes,
    };
    sniff(&view).to_string()
}

/// How far the magic rules read, but for the kinds [`reads_anywhere`] names:
/// every other offset they test is a constant or a 16-bit field (at most
/// 655 360 bytes in), and every search range is a few kilobytes.
const HEAD_BYTES: usize = 2 << 20;

/// Rules that read at offsets the file itself gives in 32 bits (an ID3 tag's
/// size, a DOS header's new-header offset, a zip entry's compressed size):
/// such a file is read whole to be named.
fn reads_anywhere(head: &[u8]) -> bool {
    [&b"ID3"[..], b"MZ", b"PK\x03\x04"]
        .iter()
        .any(|magic| head.starts_with(magic))
}

/// [`mime_type`] of an upload read from `source`, holding its first
/// [`HEAD_BYTES`] and a window: the JSON and CSV tests read it front to back
/// and its trailing NULs are counted from the end, so the answer is the
/// whole upload's. Only the kinds [`reads_anywhere`] names are read whole.
pub fn mime_type_of(source: &dyn Source) -> Result<String, SourceError> {
    let len = usize::try_from(source.len()).map_err(|_| SourceError::Read {
        offset: 0,
        reason: format!("{} bytes do not fit in memory", source.len()),
    })?;
    let mut head = vec![0; len.min(HEAD_BYTES)];
    read_exact_at(source, 0, &mut head)?;
    if head.len() == len {
        return Ok(mime_type(&head));
    }
    if reads_anywhere(&head) {
        return Ok(mime_type(&read_all(source)?));
    }
    let scan = window::Windowed::new(source, len);
    let view = View {
        head: &head,
        len,
        trailing_nuls: trailing_nuls(source, len)?,
        scan: &scan,
    };
    let mime = sniff(&view);
    scan.finish()?;
    Ok(mime.to_string())
}

/// The NUL bytes at the end of the first `len` bytes of `source`, read backwards a window at a time.
fn trailing_nuls(source: &dyn Source, len: usize) -> Result<usize, SourceError> {
    let mut window = vec![0; 64 * 1024];
    let mut end = len;
    while end > 0 {
        let start = end.saturating_sub(window.len());
        let bytes = &mut window[..end - start];
        read_exact_at(source, start as u64, bytes)?;
        if let Some(last) = bytes.iter().rposition(|&b| b != 0) {
            return Ok(len - (start + last + 1));
        }
        end = start;
    }
    Ok(len)
}

/// What the sniffer reads of an upload.
struct View<'a, S: Scan + ?Sized> {
    /// Its first bytes: all of them, or at least [`HEAD_BYTES`].
    head: &'a [u8],
    /// Its length.
    len: usize,
    /// The NUL bytes at its end.
    trailing_nuls: usize,
    /// All of it, front to back, for the JSON and CSV tests.
    scan: &'a S,
}

fn sniff<S: Scan + ?Sized>(view: &View<'_, S>) -> &'static str {
    match view.len {
        0 => return "application/x-empty",
        1 => return "application/octet-stream",
        _ => {}
    }
    let head = view.head;
    let text = encoding::classify(head);
    let looks_text = text.is_some();
    if builtin::is_tar(head) {
        return "application/x-tar";
    }
    if let Some(ndjson) = builtin::json(view.scan) {
        return if ndjson {
            "application/x-ndjson"
        } else {
            "application/json"
        };
    }
    if looks_text && builtin::csv(view.scan) {
        return "text/csv";
    }
    if let Some(mime) = binary::cdf(head) {
        return mime;
    }
    if let Some(Hit::Mime(mime)) = binary::rules(head, looks_text) {
        return mime;
    }
    ascmagic(view, looks_text).unwrap_or("application/octet-stream")
}

/// `file_ascmagic`: trailing NULs trimmed, the encoding test again, the text
/// rules over the text as UTF-8, else `text/plain`; `None` for non-text.
fn ascmagic<S: Scan + ?Sized>(view: &View<'_, S>, looks_text: bool) -> Option<&'static str> {
    // The bytes before the trailing NULs, one kept if all are NULs.
    let kept = view.len - view.trailing_nuls;
    let mut len = kept.max(1);
    // keep an even length when the original was even (UTF-16 LE)
    if len % 2 == 1 && view.len % 2 == 0 {
        len += 1;
    }
    // The encoding test reads the trimmed upload's first bytes only, which the head holds.
    let found = encoding::classify(&view.head[..len.min(view.head.len())])?;
    if kept <= 1 {
        return None;
    }
    // encode_utf8 refuses code points beyond 31 bits (a UTF-32 "text"): libmagic errs
    if found.chars.iter().any(|&c| c > 0x7FFF_FFFF) {
        return None;
    }
    let utf8: String = found
        .chars
        .iter()
        .map(|&c| char::from_u32(c).unwrap_or('\u{FFFD}'))
        .collect();
    if !found.chars.is_empty() {
        if let Some(Hit::Mime(mime)) = text::rules(utf8.as_bytes(), looks_text) {
            return Some(mime);
        }
    }
    Some("text/plain")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recorded_kinds() {
        assert_eq!(mime_type(b""), "application/x-empty");
        assert_eq!(mime_type(b"a"), "application/octet-stream");
        assert_eq!(mime_type(b"plain words\n"), "text/plain");
        assert_eq!(mime_type(b"{\"a\": 1}"), "application/json");
        assert_eq!(mime_type(b"%!PS-Adobe-3.0\n"), "application/postscript");
        assert_eq!(
            mime_type(b"\x00\x01\x02\x03\xff\xfe\xfd"),
            "application/octet-stream"
        );
        assert_eq!(
            mime_type(b"words\x00with\x00nuls\n"),
            "application/octet-stream"
        );
        assert_eq!(
            mime_type(b"words\n\x00\x00"),
            "text/plain",
            "trailing NULs are trimmed"
        );
    }

    #[test]
    fn libmagic_quirks() {
        // GBK text whose first byte is 0xB8 reads as a DOS COM program
        assert_eq!(
            mime_type(b"\xb8\xf6\xc8\xcb\xca\xfd\xbe\xdd\n"),
            "application/x-dosexec"
        );
        // a UTF-32 BOM over code points beyond 31 bits: libmagic errs, python-magic says octet-stream
        assert_eq!(
            mime_type(b"\xff\xfe\x00\x00\x41\x42\x43\xd0"),
            "application/octet-stream"
        );
        // a first INI section [Strings] is Windows setup information
        assert_eq!(mime_type(b"[Strings]\nx=1\n"), "application/x-setupscript");
        assert_eq!(mime_type(b"[server]\nport = 1\n"), "text/plain");
        // /t rules are skipped when NULs made the first look binary
        assert_eq!(mime_type(b"From: a@b.c\n\nhi\n"), "message/rfc822");
        assert_eq!(mime_type(b"From: a@b.c\n\nhi\n\x00\x00"), "text/plain");
    }
}

#[cfg(test)]
mod streamed_tests {
    use super::*;
    use std::cell::Cell;

    /// A source that answers short reads and notes the largest read asked of it.
    struct Noted<'a> {
        bytes: &'a [u8],
        largest: Cell<usize>,
    }

    impl Source for Noted<'_> {
        fn len(&self) -> u64 {
            self.bytes.len() as u64
        }

        fn read_at(&self, offset: u64, buf: &mut [u8]) -> Result<usize, SourceError> {
            self.largest.set(self.largest.get().max(buf.len()));
            let n = buf.len().min(40_000);
            self.bytes.read_at(offset, &mut buf[..n])
        }
    }

    fn repeat_to(unit: &[u8], len: usize) -> Vec<u8> {
        unit.iter().copied().cycle().take(len).collect()
    }

    fn with(mut head: Vec<u8>, tail: &[u8]) -> Vec<u8> {
        head.extend_from_slice(tail);
        head
    }

    /// Uploads past the head, of every kind whose answer depends on bytes
    /// beyond it: the streamed answer is the whole upload's, read in
    /// windows (but for the kinds read whole).
    #[test]
    fn a_big_upload_is_named_as_the_whole_of_it_is() {
        let big = HEAD_BYTES + HEAD_BYTES / 2;
        let log = repeat_to(b"2026-12-07 12:00:01 GET /api/items 200 31ms\n", big);
        let ndjson = repeat_to(
            b"{\"level\": \"info\", \"n\": [1, 2.5e3, true, null]}\n",
            big,
        );
        let mut array = b"[".to_vec();
        let element = b"{\"a\": \"b\\u00e9\"}, ";
        for _ in 0..big / element.len() {
            array.extend_from_slice(element);
        }
        array.extend_from_slice(b"1]");
        // The kinds whose test reads past the head are what they are meant to be.
        assert_eq!(mime_type(&array), "application/json");
        assert_eq!(mime_type(&ndjson), "application/x-ndjson");
        let csv = repeat_to(b"id,name,price\n1,\"widget, large\",3.5\n", big);
        let mut quoted_csv = b"a,b,c\n\"".to_vec();
        quoted_csv.extend(repeat_to(b"x", big));
        quoted_csv.extend_from_slice(b"\",2,3\n1,2,3\n4,5,6\n");
        let utf16: Vec<u8> = "UTF-16 text, ‘quoted’\n"
            .encode_utf16()
            .cycle()
            .take(big / 2)
            .flat_map(u16::to_le_bytes)
            .collect();
        let cases: Vec<(&str, Vec<u8>)> = vec![
            ("a log", log.clone()),
            ("NDJSON", ndjson.clone()),
            (
                "NDJSON broken past the head",
                with(ndjson.clone(), b"{oops\n"),
            ),
            ("a JSON array", array.clone()),
            ("a JSON array left open", array[..array.len() - 2].to_vec()),
            ("CSV", csv),
            ("CSV with a quote past the head", quoted_csv),
            ("UTF-16 LE", utf16.clone()),
            ("UTF-16 LE, odd", with(utf16, b"!")),
            (
                "a log then NULs past the head",
                with(log.clone(), &vec![0; big]),
            ),
            (
                "a short text then NULs",
                with(b"short words\n".to_vec(), &vec![0; big]),
            ),
            ("two bytes then NULs", with(b"ab".to_vec(), &vec![0; big])),
            ("one byte then NULs", with(b"a".to_vec(), &vec![0; big])),
            ("NULs", vec![0; big]),
            ("NULs then a log", with(vec![0; HEAD_BYTES], &log)),
            (
                "bytes",
                (0..big as u32)
                    .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
                    .collect(),
            ),
            (
                "an ID3 tag",
                with(b"ID3\x04\x00\x00\x00\x00\x10\x00".to_vec(), &log),
            ),
            ("a DOS header", with(b"MZ".to_vec(), &vec![7; big])),
            ("a zip entry", with(b"PK\x03\x04".to_vec(), &log)),
        ];
        for (what, bytes) in &cases {
            let source = Noted {
                bytes,
                largest: Cell::new(0),
            };
            let streamed = mime_type_of(&source).expect("the source reads");
            assert_eq!(streamed, mime_type(bytes), "{what}");
            let whole = reads_anywhere(bytes);
            assert_eq!(
                source.largest.get() <= HEAD_BYTES,
                !whole,
                "{what}: largest read {}",
                source.largest.get()
            );
        }
    }

    /// A read that fails, in the middle (the JSON test's windows) or at the
    /// end (the trailing NULs), is the answer, not a guess from what was read.
    #[test]
    fn a_failed_read_is_an_error() {
        struct Failing(Vec<u8>, std::ops::Range<u64>);
        impl Source for Failing {
            fn len(&self) -> u64 {
                self.0.len() as u64
            }
            fn read_at(&self, offset: u64, buf: &mut [u8]) -> Result<usize, SourceError> {
                if self.1.contains(&offset) {
                    return Err(SourceError::Read {
                        offset,
                        reason: "the disk is gone".into(),
                    });
                }
                self.0.read_at(offset, buf)
            }
        }
        let mut array = b"[".to_vec();
        for _ in 0..HEAD_BYTES / 5 {
            array.extend_from_slice(b"{\"a\": 1}, ");
        }
        array.extend_from_slice(b"1]");
        let len = array.len() as u64;
        let middle = HEAD_BYTES as u64 + 1..len - 64 * 1024;
        for failing in [middle, len - 64 * 1024..len] {
            let e =
                mime_type_of(&Failing(array.clone(), failing.clone())).expect_err("the read fails");
            assert!(
                e.to_string().contains("the disk is gone"),
                "{failing:?}: {e}"
            );
        }
        assert_eq!(
            mime_type_of(&Failing(array.clone(), 0..0)).as_deref(),
            Ok("application/json")
        );
    }
}
