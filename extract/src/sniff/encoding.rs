//! libmagic's `file_encoding` (encoding.c): whether the first 64 KiB look
//! like ASCII, UTF-8 (with or without BOM), UTF-32/UTF-16 with a BOM,
//! ISO-8859, "extended ASCII" or EBCDIC text, and the text as code points.

/// `FILE_ENCODING_MAX`: only this many leading bytes are examined.
pub const ENCODING_MAX: usize = 64 * 1024;

/// The class of a byte in `text_chars`.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Class {
    /// Never appears in text.
    F,
    /// Plain ASCII text.
    T,
    /// ISO-8859 text.
    I,
    /// Non-ISO extended ASCII (Mac, IBM PC).
    X,
}

fn class(b: u8) -> Class {
    match b {
        7..=13 | 27 | 0x20..=0x7E | 0x85 => Class::T,
        0x80..=0x9F => Class::X,
        0xA0..=0xFF => Class::I,
        _ => Class::F,
    }
}

/// What `file_encoding` found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Code {
    /// `ASCII`.
    Ascii,
    /// `Unicode text, UTF-7`.
    Utf7,
    /// `Unicode text, UTF-8 (with BOM)`.
    Utf8Bom,
    /// `Unicode text, UTF-8`.
    Utf8,
    /// UTF-32 with a BOM.
    Utf32 {
        /// The BOM says big-endian.
        big_endian: bool,
    },
    /// UTF-16 with a BOM.
    Utf16 {
        /// The BOM says big-endian.
        big_endian: bool,
    },
    /// `ISO-8859`.
    Latin1,
    /// `Non-ISO extended-ASCII`.
    Extended,
    /// `EBCDIC` or `International EBCDIC`.
    Ebcdic,
}

/// The text's code and its characters (as libmagic decodes them, at most 64 KiB of input).
pub struct Text {
    /// The encoding found.
    pub code: Code,
    /// The characters.
    pub chars: Vec<u32>,
}

/// `file_looks_utf8`: -1 invalid, 0 odd control characters, 1 seven-bit, 2 UTF-8.
pub fn looks_utf8(buf: &[u8], mut out: Option<&mut Vec<u32>>) -> i32 {
    let mut ctrl = false;
    let mut gotone = false;
    let mut i = 0;
    while i < buf.len() {
        crate::decode::steps::step();
        let b = buf[i];
        if b & 0x80 == 0 {
            if class(b) != Class::T {
                ctrl = true;
            }
            if let Some(o) = out.as_deref_mut() {
                o.push(u32::from(b));
            }
            i += 1;
            continue;
        }
        if b & 0x40 == 0 {
            return -1;
        }
        // Go's first-byte table: the accepted range of the second byte, or invalid.
        let (lo, hi) = match b {
            0xC2..=0xDF => (0x80, 0xBF),
            0xE0 => (0xA0, 0xBF),
            0xE1..=0xEC | 0xEE | 0xEF => (0x80, 0xBF),
            0xED => (0x80, 0x9F),
            0xF0 => (0x90, 0xBF),
            0xF1..=0xF3 => (0x80, 0xBF),
            0xF4 => (0x80, 0x8F),
            _ => return -1,
        };
        let (mut c, following) = if b & 0x20 == 0 {
            (u32::from(b & 0x1F), 1)
        } else if b & 0x10 == 0 {
            (u32::from(b & 0x0F), 2)
        } else {
            (u32::from(b & 0x07), 3)
        };
        for n in 0..following {
            i += 1;
            let Some(&t) = buf.get(i) else {
                return if ctrl {
                    0
                } else if gotone {
                    2
                } else {
                    1
                };
            };
            if n == 0 && !(lo..=hi).contains(&t) {
                return -1;
            }
            if t & 0x80 == 0 || t & 0x40 != 0 {
                return -1;
            }
            c = (c << 6) + u32::from(t & 0x3F);
        }
        if let Some(o) = out.as_deref_mut() {
            o.push(c);
        }
        gotone = true;
        i += 1;
    }
    if ctrl {
        0
    } else if gotone {
        2
    } else {
        1
    }
}

fn looks(buf: &[u8], ok: impl Fn(Class) -> bool) -> Option<Vec<u32>> {
    buf.iter()
        .map(|&b| {
            crate::decode::steps::step();
            ok(class(b)).then_some(u32::from(b))
        })
        .collect()
}

fn looks_utf16(buf: &[u8]) -> Option<(bool, Vec<u32>)> {
    let big = match buf {
        [0xFF, 0xFE, ..] => false,
        [0xFE, 0xFF, ..] => true,
        _ => return None,
    };
    let mut out = Vec::with_capacity(buf.len() / 2);
    let mut hi = 0u32;
    let mut i = 2;
    while i + 1 < buf.len() {
        let (a, b) = (u32::from(buf[i]), u32::from(buf[i + 1]));
        let mut uc = if big { b | a << 8 } else { a | b << 8 };
        if uc == 0xFFFE || uc == 0xFFFF || (0xFDD0..=0xFDEF).contains(&uc) {
            return None;
        }
        if hi != 0 {
            if !(0xDC00..=0xDFFF).contains(&uc) {
                return None;
            }
            uc = 0x10000 + 0x400 * (hi - 1) + (uc - 0xDC00);
            hi = 0;
        }
        if uc < 128 && class(uc as u8) != Class::T {
            return None;
        }
        out.push(uc);
        if (0xD800..=0xDBFF).contains(&uc) {
            hi = uc - 0xD800 + 1;
        }
        if (0xDC00..=0xDFFF).contains(&uc) {
            return None;
        }
        i += 2;
    }
    Some((big, out))
}

fn looks_utf32(buf: &[u8]) -> Option<(bool, Vec<u32>)> {
    let big = match buf {
        [0xFF, 0xFE, 0, 0, ..] => false,
        [0, 0, 0xFE, 0xFF, ..] => true,
        _ => return None,
    };
    let mut out = Vec::with_capacity(buf.len() / 4);
    let mut i = 4;
    while i + 3 < buf.len() {
        let q = [buf[i], buf[i + 1], buf[i + 2], buf[i + 3]];
        let uc = if big {
            u32::from_be_bytes(q)
        } else {
            u32::from_le_bytes(q)
        };
        if uc == 0xFFFE || (uc < 128 && class(uc as u8) != Class::T) {
            return None;
        }
        out.push(uc);
        i += 4;
    }
    Some((big, out))
}

/// libmagic's EBCDIC → ASCII table (`ebcdic_to_ascii`), generated from encoding.c.
fn from_ebcdic(b: u8) -> u8 {
    super::tables::EBCDIC_TO_ASCII[usize::from(b)]
}

/// `file_encoding` on the first [`ENCODING_MAX`] bytes; `None` when they do not look like text.
pub fn classify(bytes: &[u8]) -> Option<Text> {
    let buf = bytes.get(..ENCODING_MAX).unwrap_or(bytes);
    let text = |code, chars| Some(Text { code, chars });
    if let Some(chars) = looks(buf, |c| c == Class::T) {
        let utf7 = buf.len() > 4
            && buf.starts_with(b"+/v")
            && matches!(buf.get(3), Some(b'8' | b'9' | b'+' | b'/'));
        return if utf7 {
            text(Code::Utf7, Vec::new())
        } else {
            text(Code::Ascii, chars)
        };
    }
    if buf.len() > 3 && buf.starts_with(b"\xEF\xBB\xBF") {
        let mut chars = Vec::new();
        if looks_utf8(&buf[3..], Some(&mut chars)) > 0 {
            return text(Code::Utf8Bom, chars);
        }
    }
    let mut chars = Vec::new();
    if looks_utf8(buf, Some(&mut chars)) > 1 {
        return text(Code::Utf8, chars);
    }
    if let Some((big_endian, chars)) = looks_utf32(buf) {
        return text(Code::Utf32 { big_endian }, chars);
    }
    if let Some((big_endian, chars)) = looks_utf16(buf) {
        return text(Code::Utf16 { big_endian }, chars);
    }
    if let Some(chars) = looks(buf, |c| c == Class::T || c == Class::I) {
        return text(Code::Latin1, chars);
    }
    if let Some(chars) = looks(buf, |c| c != Class::F) {
        return text(Code::Extended, chars);
    }
    let converted: Vec<u8> = buf.iter().map(|&b| from_ebcdic(b)).collect();
    if let Some(chars) = looks(&converted, |c| c == Class::T || c == Class::I) {
        return text(Code::Ebcdic, chars);
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes() {
        let code = |b: &[u8]| classify(b).map(|t| t.code);
        assert_eq!(code(b"hello\n"), Some(Code::Ascii));
        assert_eq!(code("héllo".as_bytes()), Some(Code::Utf8));
        assert_eq!(code(b"\xEF\xBB\xBFh\xc3\xa9"), Some(Code::Utf8Bom));
        assert_eq!(
            code(b"\xFF\xFEh\x00i\x00"),
            Some(Code::Utf16 { big_endian: false })
        );
        assert_eq!(code(b"caf\xe9"), Some(Code::Latin1));
        assert_eq!(code(b"\x93quoted\x94"), Some(Code::Extended));
        assert_eq!(code(b"a\x01b"), None);
        // a truncated last UTF-8 character still counts
        assert_eq!(code(b"\xc3\xa9\xe4\xb8"), Some(Code::Utf8));
    }
}
