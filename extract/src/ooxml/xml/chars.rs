//! The character rules libxml2 2.13 applies (XML 1.0 fifth edition) and the
//! decoding of a part's bytes as it detects their encoding.

use std::borrow::Cow;

/// XML's `Char`: what may appear anywhere in a document.
pub(super) fn is_char(c: char) -> bool {
    matches!(c, '\t' | '\n' | '\r' | '\u{20}'..='\u{D7FF}' | '\u{E000}'..='\u{FFFD}' | '\u{10000}'..)
}

/// The first character of `text` that is not a `Char`. In UTF-8 only C0
/// controls and U+FFFE/U+FFFF (led by `0xEF`) can be one, so 64 bytes at a
/// time are looked at for those bytes and only a block holding one is read
/// character by character.
pub(super) fn first_invalid(text: &str) -> Option<char> {
    const BLOCK: usize = 64;
    let bytes = text.as_bytes();
    let mut at = 0;
    while at < bytes.len() {
        let end = (at + BLOCK).min(bytes.len());
        let flagged = bytes[at..end].iter().fold(false, |acc, &b| {
            acc | (b < 0x20 && !is_blank(b)) | (b == 0xEF)
        });
        if flagged {
            let mut from = at;
            while !text.is_char_boundary(from) {
                from -= 1;
            }
            let mut to = end;
            while !text.is_char_boundary(to) {
                to += 1;
            }
            if let Some(c) = text[from..to].chars().find(|&c| !is_char(c)) {
                return Some(c);
            }
        }
        at = end;
    }
    None
}

/// `S`: the four blank characters.
pub(super) fn is_blank(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r')
}

/// `NameStartChar` without the colon (an NCName's first character).
pub(super) fn is_name_start(c: char) -> bool {
    matches!(c,
        'A'..='Z' | '_' | 'a'..='z'
        | '\u{C0}'..='\u{D6}' | '\u{D8}'..='\u{F6}' | '\u{F8}'..='\u{2FF}'
        | '\u{370}'..='\u{37D}' | '\u{37F}'..='\u{1FFF}' | '\u{200C}'..='\u{200D}'
        | '\u{2070}'..='\u{218F}' | '\u{2C00}'..='\u{2FEF}' | '\u{3001}'..='\u{D7FF}'
        | '\u{F900}'..='\u{FDCF}' | '\u{FDF0}'..='\u{FFFD}' | '\u{10000}'..='\u{EFFFF}')
}

/// `NameChar` without the colon.
pub(super) fn is_name_char(c: char) -> bool {
    is_name_start(c)
        || matches!(c, '-' | '.' | '0'..='9' | '\u{B7}' | '\u{300}'..='\u{36F}' | '\u{203F}'..='\u{2040}')
}

/// An ASCII byte that [`is_name_char`] accepts (a non-ASCII byte is not decided here).
pub(super) fn is_ascii_name_byte(b: u8) -> bool {
    ASCII_NAME_BYTES[usize::from(b)]
}

/// [`is_ascii_name_byte`] as one load: names are scanned byte by byte in every tag.
static ASCII_NAME_BYTES: [bool; 256] = {
    let mut table = [false; 256];
    let mut b = 0;
    while b < 128 {
        let c = b as u8;
        table[b] = c.is_ascii_alphanumeric() || matches!(c, b'_' | b'-' | b'.');
        b += 1;
    }
    table
};

/// libxml2's longest name without `XML_PARSE_HUGE`, in bytes.
pub(super) const MAX_NAME_BYTES: usize = 50_000;

/// libxml2's longest text node or attribute value without `XML_PARSE_HUGE`, in bytes.
pub(super) const MAX_TEXT_BYTES: usize = 10_000_000;

/// Why a part's bytes are not text in the encoding it says or seems to have.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum DecodeError {
    /// Bytes that are not valid in the encoding.
    Invalid(&'static str),
    /// An encoding name libxml2 would not switch to here.
    Unsupported(String),
}

/// The encodings a part is read in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Encoding {
    Utf8,
    Utf16Le,
    Utf16Be,
    Latin1,
    Ascii,
    Windows1252,
}

/// Decodes a part as libxml2 does: a byte-order mark or the UTF-16 pattern
/// of `<?` fixes the encoding; otherwise the XML declaration's `encoding`
/// (UTF-8 when there is none). The byte-order mark is not part of the text.
pub(super) fn decode(bytes: &[u8]) -> Result<Cow<'_, str>, DecodeError> {
    let (encoding, body) = match bytes {
        [0xEF, 0xBB, 0xBF, rest @ ..] => (Encoding::Utf8, rest),
        [0xFF, 0xFE, rest @ ..] => (Encoding::Utf16Le, rest),
        [0xFE, 0xFF, rest @ ..] => (Encoding::Utf16Be, rest),
        [0x3C, 0x00, 0x3F, 0x00, ..] => (Encoding::Utf16Le, bytes),
        [0x00, 0x3C, 0x00, 0x3F, ..] => (Encoding::Utf16Be, bytes),
        [0x00, 0x00, 0x00, 0x3C, ..]
        | [0x3C, 0x00, 0x00, 0x00, ..]
        | [0x00, 0x00, 0x3C, 0x00, ..]
        | [0x00, 0x3C, 0x00, 0x00, ..] => return Err(DecodeError::Unsupported("UCS-4".into())),
        [0x4C, 0x6F, 0xA7, 0x94, ..] => return Err(DecodeError::Unsupported("EBCDIC".into())),
        _ => (declared(bytes)?, bytes),
    };
    match encoding {
        Encoding::Utf8 => std::str::from_utf8(body)
            .map(Cow::Borrowed)
            .map_err(|_| DecodeError::Invalid("UTF-8")),
        Encoding::Utf16Le | Encoding::Utf16Be => {
            let le = encoding == Encoding::Utf16Le;
            let units = body.chunks(2).map(|pair| match pair {
                [a, b] if le => u16::from_le_bytes([*a, *b]),
                [a, b] => u16::from_be_bytes([*a, *b]),
                // An odd trailing byte: an unpaired surrogate stands for it.
                _ => 0xD800,
            });
            char::decode_utf16(units)
                .collect::<Result<String, _>>()
                .map(Cow::Owned)
                .map_err(|_| DecodeError::Invalid("UTF-16"))
        }
        Encoding::Latin1 => Ok(Cow::Owned(body.iter().map(|&b| char::from(b)).collect())),
        Encoding::Ascii => {
            if body.is_ascii() {
                Ok(Cow::Owned(body.iter().map(|&b| char::from(b)).collect()))
            } else {
                Err(DecodeError::Invalid("ASCII"))
            }
        }
        Encoding::Windows1252 => body
            .iter()
            .map(|&b| windows_1252(b).ok_or(DecodeError::Invalid("windows-1252")))
            .collect::<Result<String, _>>()
            .map(Cow::Owned),
    }
}

/// Whether a part whose first bytes are `prefix` decodes as UTF-8 (what
/// [`decode`] would pick), and how many bytes of byte-order mark to skip;
/// `None` for another encoding, or a declaration `prefix` does not hold to
/// its end (`complete`: `prefix` is the whole part).
pub(super) fn utf8_skip(prefix: &[u8], complete: bool) -> Option<usize> {
    match prefix {
        [0xEF, 0xBB, 0xBF, ..] => return Some(3),
        [0xFF, 0xFE, ..] | [0xFE, 0xFF, ..] => return None,
        [a, b, c, d, ..] if [*a, *b, *c, *d].contains(&0) => return None,
        [0x4C, 0x6F, 0xA7, 0x94, ..] => return None,
        _ => {}
    }
    let cut = prefix.starts_with(b"<?xml") && memchr::memmem::find(prefix, b"?>").is_none();
    if cut && !complete {
        return None;
    }
    matches!(declared(prefix), Ok(Encoding::Utf8)).then_some(0)
}

/// The encoding an 8-bit document declares in `<?xml … encoding="…"?>`.
fn declared(bytes: &[u8]) -> Result<Encoding, DecodeError> {
    let Some(rest) = bytes.strip_prefix(b"<?xml") else {
        return Ok(Encoding::Utf8);
    };
    if !rest.first().is_some_and(|&b| is_blank(b)) {
        return Ok(Encoding::Utf8);
    }
    let end = memchr::memmem::find(rest, b"?>").unwrap_or(rest.len());
    let decl = &rest[..end];
    let Some(at) = memchr::memmem::find(decl, b"encoding") else {
        return Ok(Encoding::Utf8);
    };
    let after = &decl[at + b"encoding".len()..];
    let after = trim_blanks(after);
    let Some(after) = after.strip_prefix(b"=") else {
        return Ok(Encoding::Utf8);
    };
    let after = trim_blanks(after);
    let Some((&quote, value)) = after.split_first() else {
        return Ok(Encoding::Utf8);
    };
    if quote != b'"' && quote != b'\'' {
        return Ok(Encoding::Utf8);
    }
    let Some(close) = value.iter().position(|&b| b == quote) else {
        return Ok(Encoding::Utf8);
    };
    let name = String::from_utf8_lossy(&value[..close]).to_ascii_uppercase();
    match name.as_str() {
        "UTF-8" | "UTF8" => Ok(Encoding::Utf8),
        "ISO-8859-1" | "ISO-LATIN-1" | "ISO LATIN 1" | "ISO_8859-1" | "ISO8859-1" | "LATIN1"
        | "L1" | "CP819" | "IBM819" | "ISO-IR-100" | "CSISOLATIN1" | "ISO_8859-1:1987" => {
            Ok(Encoding::Latin1)
        }
        "US-ASCII" | "ASCII" | "ANSI_X3.4-1968" | "ANSI_X3.4-1986" | "ISO646-US" | "US"
        | "IBM367" | "CP367" | "CSASCII" | "ISO-IR-6" => Ok(Encoding::Ascii),
        "WINDOWS-1252" | "CP1252" | "MS-ANSI" => Ok(Encoding::Windows1252),
        _ => Err(DecodeError::Unsupported(name)),
    }
}

fn trim_blanks(mut s: &[u8]) -> &[u8] {
    while let [first, rest @ ..] = s {
        if !is_blank(*first) {
            break;
        }
        s = rest;
    }
    s
}

/// windows-1252 as iconv maps it (five bytes are undefined).
fn windows_1252(b: u8) -> Option<char> {
    const HIGH: [u16; 32] = [
        0x20AC, 0, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021, 0x02C6, 0x2030, 0x0160, 0x2039,
        0x0152, 0, 0x017D, 0, 0, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013, 0x2014, 0x02DC,
        0x2122, 0x0161, 0x203A, 0x0153, 0, 0x017E, 0x0178,
    ];
    match b {
        0x80..=0x9F => match HIGH[usize::from(b - 0x80)] {
            0 => None,
            cp => char::from_u32(u32::from(cp)),
        },
        _ => Some(char::from(b)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_ascii_name_bytes_are_the_ascii_name_chars() {
        for b in 0u8..0x80 {
            assert_eq!(is_ascii_name_byte(b), is_name_char(b as char), "{b:#04x}");
        }
    }

    #[test]
    fn boms_and_declarations_pick_the_encoding() {
        assert_eq!(decode(b"\xEF\xBB\xBF<a/>").as_deref(), Ok("<a/>"));
        let utf16: Vec<u8> = [0xFF, 0xFE]
            .into_iter()
            .chain("<a>é</a>".encode_utf16().flat_map(u16::to_le_bytes))
            .collect();
        assert_eq!(decode(&utf16).as_deref(), Ok("<a>é</a>"));
        let latin = b"<?xml version=\"1.0\" encoding=\"latin1\"?><a>\xe9</a>";
        assert!(decode(latin).is_ok_and(|s| s.ends_with("<a>é</a>")));
        assert!(matches!(
            decode(b"<?xml version=\"1.0\" encoding=\"UTF-16\"?><a/>"),
            Err(DecodeError::Unsupported(_))
        ));
        assert_eq!(decode(b"<a>\xff</a>"), Err(DecodeError::Invalid("UTF-8")));
    }

    #[test]
    fn the_first_character_that_is_not_a_char_is_found() {
        let mut text = "中".repeat(40) + "\u{FF0C}ok";
        assert_eq!(first_invalid(&text), None);
        text.push('\u{FFFF}');
        text.push('\u{1}');
        assert_eq!(first_invalid(&text), Some('\u{FFFF}'));
        assert_eq!(
            first_invalid(&format!("{}\u{1F}\u{FFFE}", "a".repeat(63))),
            Some('\u{1F}')
        );
        for n in 0..130 {
            let t = format!("{}\u{FFFE}", "é".repeat(n));
            assert_eq!(first_invalid(&t), Some('\u{FFFE}'), "{n}");
        }
    }

    #[test]
    fn names_follow_the_fifth_edition() {
        assert!(is_name_start('a') && is_name_start('中') && !is_name_start('1'));
        assert!(is_name_char('1') && is_name_char('-') && !is_name_char(' '));
        assert!(is_char('\t') && !is_char('\u{1}') && !is_char('\u{FFFE}'));
    }
}
