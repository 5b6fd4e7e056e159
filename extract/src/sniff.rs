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
mod zip;

/// What a magic rule scan found: a MIME type, or a match that names none
/// (which stops the scan and leaves the answer to the later stages).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Hit {
    Mime(&'static str),
    NoMime,
}

/// The MIME type libmagic gives these bytes.
pub fn mime_type(bytes: &[u8]) -> String {
    sniff(bytes).to_string()
}

fn sniff(bytes: &[u8]) -> &'static str {
    match bytes.len() {
        0 => return "application/x-empty",
        1 => return "application/octet-stream",
        _ => {}
    }
    let text = encoding::classify(bytes);
    let looks_text = text.is_some();
    if builtin::is_tar(bytes) {
        return "application/x-tar";
    }
    if let Some(ndjson) = builtin::json(bytes) {
        return if ndjson {
            "application/x-ndjson"
        } else {
            "application/json"
        };
    }
    if looks_text && builtin::csv(bytes) {
        return "text/csv";
    }
    if let Some(mime) = binary::cdf(bytes) {
        return mime;
    }
    if let Some(Hit::Mime(mime)) = binary::rules(bytes, looks_text) {
        return mime;
    }
    ascmagic(bytes, looks_text).unwrap_or("application/octet-stream")
}

/// `file_ascmagic`: trailing NULs trimmed, the encoding test again, the text
/// rules over the text as UTF-8, else `text/plain`; `None` for non-text.
fn ascmagic(bytes: &[u8], looks_text: bool) -> Option<&'static str> {
    let mut len = bytes.len();
    while len > 1 && bytes[len - 1] == 0 {
        len -= 1;
    }
    // keep an even length when the original was even (UTF-16 LE)
    if len % 2 == 1 && bytes.len() % 2 == 0 {
        len += 1;
    }
    let trimmed = bytes.get(..len).unwrap_or(bytes);
    let found = encoding::classify(trimmed)?;
    let mut nul_trimmed = trimmed.len();
    while nul_trimmed > 1 && trimmed[nul_trimmed - 1] == 0 {
        nul_trimmed -= 1;
    }
    if nul_trimmed <= 1 {
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
