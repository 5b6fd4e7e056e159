//! A part's bytes before parsing: the encoding (UTF-8, with or without a
//! BOM; UTF-16 by its BOM; Latin-1 when declared) and the XML declaration,
//! checked as libxml2 (`lxml`) or expat checks it.

use super::xml::XmlError;
use std::borrow::Cow;

/// Bytes as UTF-8 text: a BOM dropped, UTF-16 and Latin-1 transcoded.
pub(crate) fn decode<'b>(part: &str, bytes: &'b [u8]) -> Result<Cow<'b, str>, XmlError> {
    if let Some(rest) = bytes.strip_prefix(b"\xef\xbb\xbf") {
        return std::str::from_utf8(rest)
            .map(Cow::Borrowed)
            .map_err(|_| XmlError::new(part, "invalid UTF-8"));
    }
    let utf16 = |rest: &[u8], big: bool| -> Result<Cow<'b, str>, XmlError> {
        let units = rest.chunks(2).map(|c| match (c, big) {
            ([a, b], true) => Ok(u16::from_be_bytes([*a, *b])),
            ([a, b], false) => Ok(u16::from_le_bytes([*a, *b])),
            _ => Err(()),
        });
        let units: Result<Vec<u16>, ()> = units.collect();
        let units = units.map_err(|()| XmlError::new(part, "truncated UTF-16"))?;
        String::from_utf16(&units)
            .map(Cow::Owned)
            .map_err(|_| XmlError::new(part, "invalid UTF-16"))
    };
    if let Some(rest) = bytes.strip_prefix(b"\xfe\xff") {
        return utf16(rest, true);
    }
    if let Some(rest) = bytes.strip_prefix(b"\xff\xfe") {
        return utf16(rest, false);
    }
    if declared_latin1(bytes) {
        return Ok(Cow::Owned(bytes.iter().map(|&b| char::from(b)).collect()));
    }
    std::str::from_utf8(bytes)
        .map(Cow::Borrowed)
        .map_err(|_| XmlError::new(part, "invalid UTF-8"))
}

/// Whether the XML declaration names ISO-8859-1 (Latin-1).
pub(crate) fn declared_latin1(bytes: &[u8]) -> bool {
    let Some(head) = bytes.strip_prefix(b"<?xml") else {
        return false;
    };
    let end = memchr::memmem::find(head, b"?>").unwrap_or(0);
    let decl = String::from_utf8_lossy(&head[..end]).to_ascii_lowercase();
    ["iso-8859-1", "latin-1", "latin1", "iso8859-1"]
        .iter()
        .any(|name| decl.contains(&format!("\"{name}\"")) || decl.contains(&format!("'{name}'")))
}

/// Encodings both parsers know (a declaration naming another is refused).
fn known_encoding(name: &[u8]) -> bool {
    let name = String::from_utf8_lossy(name).to_ascii_lowercase();
    let prefixes = ["iso-8859-", "iso8859-", "windows-125", "cp125", "latin"];
    matches!(
        name.as_str(),
        "utf-8"
            | "utf8"
            | "utf-16"
            | "utf16"
            | "utf-16le"
            | "utf-16be"
            | "us-ascii"
            | "ascii"
            | "gb2312"
            | "gbk"
            | "gb18030"
            | "big5"
            | "shift_jis"
            | "euc-jp"
            | "euc-kr"
            | "koi8-r"
    ) || prefixes.iter().any(|p| name.starts_with(p))
}

/// `<?xml version="1.x" (encoding="…")? (standalone="yes|no")? ?>`, in that order.
pub(crate) fn declaration_ok(d: &[u8], lxml: bool) -> bool {
    let Some(mut rest) = d.strip_prefix(b"xml") else {
        return false;
    };
    let Some(version) = pseudo_attribute(&mut rest, b"version") else {
        return false;
    };
    // libxml2 wants `1.` and digits; expat any version characters.
    let version_ok = if lxml {
        version.starts_with(b"1.") && version[2..].iter().all(u8::is_ascii_digit)
    } else {
        !version.is_empty()
            && version
                .iter()
                .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b':' | b'-'))
    };
    if !version_ok {
        return false;
    }
    let mut probe = rest;
    if let Some(enc) = pseudo_attribute(&mut probe, b"encoding") {
        let ok = enc.first().is_some_and(u8::is_ascii_alphabetic)
            && enc
                .iter()
                .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-'));
        if !ok || !known_encoding(&enc) {
            return false;
        }
        rest = probe;
    }
    let mut probe = rest;
    if let Some(v) = pseudo_attribute(&mut probe, b"standalone") {
        if v != b"yes" && v != b"no" {
            return false;
        }
        rest = probe;
    }
    rest.trim_ascii().is_empty()
}

/// One pseudo-attribute of the XML declaration (` name = "value"`), advancing `rest`.
fn pseudo_attribute(rest: &mut &[u8], name: &[u8]) -> Option<Vec<u8>> {
    let trimmed = rest.trim_ascii_start();
    if trimmed.len() == rest.len() {
        return None;
    }
    let after = trimmed.strip_prefix(name)?.trim_ascii_start();
    let after = after.strip_prefix(b"=")?.trim_ascii_start();
    let quote = *after.first()?;
    if quote != b'"' && quote != b'\'' {
        return None;
    }
    let end = after[1..].iter().position(|&b| b == quote)?;
    let value = after[1..1 + end].to_vec();
    *rest = &after[end + 2..];
    Some(value)
}
