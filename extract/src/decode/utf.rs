//! Python's UTF codecs, strict: UTF-8 (as Rust validates it, which agrees),
//! UTF-16 and UTF-32 with the BOM rules of `utf-16`/`utf-32` (a leading BOM
//! picks the order and is dropped; without one, the native little-endian
//! order of the reference's machine), lone surrogates and truncated units refused.

use super::CodecError;

/// Strict UTF-8.
pub(super) fn utf8(bytes: &[u8]) -> Result<String, CodecError> {
    std::str::from_utf8(bytes)
        .map(str::to_string)
        .map_err(|e| CodecError::Invalid {
            at: e.valid_up_to(),
        })
}

/// UTF-16; `big_endian` None reads a BOM (`utf-16`), Some fixes the order and keeps any BOM.
pub(super) fn utf16(bytes: &[u8], big_endian: Option<bool>) -> Result<String, CodecError> {
    let (big, body, offset) = match big_endian {
        Some(big) => (big, bytes, 0),
        None => match bytes {
            [0xFF, 0xFE, rest @ ..] => (false, rest, 2),
            [0xFE, 0xFF, rest @ ..] => (true, rest, 2),
            _ => (false, bytes, 0),
        },
    };
    let units = body.chunks_exact(2).map(|p| {
        if big {
            u16::from_be_bytes([p[0], p[1]])
        } else {
            u16::from_le_bytes([p[0], p[1]])
        }
    });
    let mut out = String::with_capacity(body.len() / 2);
    let mut at = offset;
    for c in char::decode_utf16(units) {
        match c {
            Ok(c) => {
                at += c.len_utf16() * 2;
                out.push(c);
            }
            Err(_) => return Err(CodecError::Invalid { at }),
        }
    }
    if body.len() % 2 != 0 {
        return Err(CodecError::Invalid {
            at: bytes.len() - 1,
        });
    }
    Ok(out)
}

/// UTF-32; `big_endian` as for [`utf16`].
pub(super) fn utf32(bytes: &[u8], big_endian: Option<bool>) -> Result<String, CodecError> {
    let (big, body, offset) = match big_endian {
        Some(big) => (big, bytes, 0),
        None => match bytes {
            [0xFF, 0xFE, 0, 0, rest @ ..] => (false, rest, 4),
            [0, 0, 0xFE, 0xFF, rest @ ..] => (true, rest, 4),
            _ => (false, bytes, 0),
        },
    };
    let mut out = String::with_capacity(body.len() / 4);
    for (i, q) in body.chunks_exact(4).enumerate() {
        let q = [q[0], q[1], q[2], q[3]];
        let unit = if big {
            u32::from_be_bytes(q)
        } else {
            u32::from_le_bytes(q)
        };
        match char::from_u32(unit) {
            Some(c) => out.push(c),
            None => return Err(CodecError::Invalid { at: offset + 4 * i }),
        }
    }
    if body.len() % 4 != 0 {
        return Err(CodecError::Invalid {
            at: bytes.len() - body.len() % 4,
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utf16_boms_and_failures() {
        assert_eq!(utf16(b"\xFF\xFEa\x00", None).as_deref(), Ok("a"));
        assert_eq!(utf16(b"\xFE\xFF\x00a", None).as_deref(), Ok("a"));
        assert_eq!(utf16(b"a\x00", None).as_deref(), Ok("a"));
        // a BOM later on, or under a fixed order, is a character
        assert_eq!(
            utf16(b"\xFF\xFEa\x00\xFF\xFE", None).as_deref(),
            Ok("a\u{FEFF}")
        );
        assert_eq!(
            utf16(b"\xFF\xFEa\x00", Some(false)).as_deref(),
            Ok("\u{FEFF}a")
        );
        assert!(utf16(b"a\x00b", None).is_err(), "odd length");
        assert!(
            utf16(b"\x00\xD8a\x00", None).is_err(),
            "lone high surrogate"
        );
        assert!(utf16(b"\x00\xDC", None).is_err(), "lone low surrogate");
        assert_eq!(utf16(b"\x3D\xD8\x00\xDE", None).as_deref(), Ok("\u{1F600}"));
    }

    #[test]
    fn utf32_boms_and_failures() {
        assert_eq!(
            utf32(b"\xFF\xFE\x00\x00a\x00\x00\x00", None).as_deref(),
            Ok("a")
        );
        assert_eq!(
            utf32(b"\x00\x00\xFE\xFF\x00\x00\x00a", None).as_deref(),
            Ok("a")
        );
        assert!(utf32(b"\x00\xD8\x00\x00", None).is_err(), "surrogate");
        assert!(utf32(b"\x00\x00\x11\x00", None).is_err(), "beyond U+10FFFF");
        assert!(utf32(b"a\x00\x00", None).is_err(), "truncated");
    }
}
