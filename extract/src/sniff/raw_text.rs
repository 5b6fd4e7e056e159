//! libmagic's `string` and `ubyte` rules without `/t` that name text-like
//! files (binary tests, so run on the raw bytes of text too): SVG, vCard,
//! vCalendar, FrameMaker, Windows setup information (also in UTF-16), and
//! `#!` lines of shells (for files that do not look like text) and Perl.

use super::binary::{at, byte, mime, search};
use super::Hit;

/// `<?xml version=` then a version number at 14, as the regex reads it.
fn xml_version(buf: &[u8]) -> bool {
    if !buf.starts_with(b"<?xml version=") {
        return false;
    }
    let rest = buf.get(14..).unwrap_or(&[]);
    let quotes = rest
        .iter()
        .take_while(|b| matches!(b, b'\'' | b'"' | b' ' | b'\t'))
        .count();
    rest.get(quotes)
        .is_some_and(|b| b.is_ascii_digit() || *b == b'.')
}

/// The `string` rules without `/t` (binary tests in libmagic, run on the raw
/// bytes of text too): SVG (Magdir/sgml), vCalendar and vCard (misctools),
/// Windows setup information (windows), FrameMaker (frame).
pub(super) fn plain_strings(buf: &[u8], _: bool) -> Option<Hit> {
    if buf.starts_with(b"<svg") || (xml_version(buf) && search(buf, 19, 4096, b"<svg").is_some()) {
        return mime("image/svg+xml");
    }
    if buf
        .get(..15)
        .is_some_and(|h| h.eq_ignore_ascii_case(b"BEGIN:VCALENDAR"))
    {
        return mime("text/calendar");
    }
    if buf
        .get(..11)
        .is_some_and(|h| h.eq_ignore_ascii_case(b"begin:vcard"))
        && !at(buf, 13, b"VERSION:END")
    {
        return mime("text/vcard");
    }
    if buf.starts_with(b"<MakerFile") || buf.starts_with(b"<MML") || buf.starts_with(b"<BookFile") {
        return mime("application/x-mif");
    }
    if let Some(hit) = windows_ini(buf) {
        return Some(hit);
    }
    utf16_inf(buf)
}

/// Magdir/windows: a UTF-16 LE setup information file (`[Version]`, `[Strings]`,
/// `[SourceDisksNames]` as the first section, or `[Version]` after a line break).
fn utf16_inf(buf: &[u8]) -> Option<Hit> {
    if !buf.starts_with(b"\xFF\xFE") || byte(buf, 2)? & 0x89 != 0x09 || byte(buf, 3)? != 0 {
        return None;
    }
    let le16_str = |from: usize, text: &[u8]| {
        text.iter().enumerate().all(|(i, &c)| {
            byte(buf, from + 2 * i) == Some(c) && byte(buf, from + 2 * i + 1) == Some(0)
        })
    };
    let first = search(buf, 2, 8192, b"[")?;
    for word in [&b"ersion]"[..], b"trings]", b"ourceDisksNames]"] {
        if le16_str(first + 3, word) {
            return mime("application/x-setupscript");
        }
    }
    let next = search(buf, first + 3, 8192, b"\x0A\x00\x5B")?;
    le16_str(next + 3, b"ersion]").then_some(Hit::Mime("application/x-setupscript"))
}

/// Magdir/commands and perl: `#!` lines matched on the raw bytes (the shells'
/// `/b` rules for files that do not look like text, Perl's for any file).
pub(super) fn shebang(buf: &[u8], looks_text: bool) -> Option<Hit> {
    let line = buf.strip_prefix(b"#!")?;
    let line = &line[..memchr::memchr(b'\n', line).unwrap_or(line.len())];
    let trimmed: &[u8] = {
        let skip = line
            .iter()
            .take_while(|&&b| b == b' ' || b == b'\t')
            .count();
        &line[skip..]
    };
    let word_is = |w: &[u8]| {
        trimmed.starts_with(w) && trimmed.get(w.len()).is_none_or(|b| b.is_ascii_whitespace())
    };
    if !looks_text {
        for sh in [
            &b"/bin/sh"[..],
            b"/bin/ksh",
            b"/bin/bash",
            b"/usr/bin/bash",
            b"/usr/local/bash",
            b"/usr/local/bin/bash",
        ] {
            if word_is(sh) {
                return mime("text/x-shellscript");
            }
        }
    }
    if line.starts_with(b"/usr/bin/env perl")
        || line.starts_with(b" /usr/bin/env perl")
        || memchr::memmem::find(line, b"/bin/perl").is_some()
    {
        return mime("text/x-perl");
    }
    None
}

/// Magdir/windows ini-file: a leading `[` whose first section is
/// `[version]` or `[strings]`, or whose next section starts `version`
/// (Windows setup information).
fn windows_ini(buf: &[u8]) -> Option<Hit> {
    if !buf.starts_with(b"[") {
        return None;
    }
    let ci = |from: usize, word: &[u8]| {
        buf.get(from..from + word.len())
            .is_some_and(|h| h.eq_ignore_ascii_case(word))
    };
    if ci(1, b"version]") || ci(1, b"strings]") {
        return mime("application/x-setupscript");
    }
    let next = search(buf, 1, 8192, b"[");
    if next.is_some_and(|n| ci(n, b"version")) {
        return mime("application/x-setupscript");
    }
    None
}
