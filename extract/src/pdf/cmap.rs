//! `/ToUnicode` CMaps as PyPDF2 3.0.1 reads them (`_cmap.prepare_cm`,
//! `process_cm_line`, `parse_bfrange`, `parse_bfchar`): the stream is
//! re-spaced so every `<hex>` is a token and every bracket its own word, then
//! read line by line. The code width is whatever the last range or char line
//! said; keys are the codes decoded as Latin-1 (one byte) or UTF-16BE.

use super::encoding::{latin1, utf16be};
use super::error::{fail, Result};
use std::collections::HashMap;

/// How many entries one map may hold (a hostile range stops here).
const MAX_ENTRIES: usize = 1 << 20;

/// A parsed `/ToUnicode` map.
#[derive(Debug, Clone, Default)]
pub(crate) struct ToUnicode {
    /// Decoded code -> text, in first-insertion order (as a Python dict iterates).
    entries: Vec<(String, String)>,
    index: HashMap<String, usize>,
    /// `map_dict[-1]`: bytes per code, from the last line read (None: no line).
    pub(crate) code_bytes: Option<usize>,
    /// `int_entry`: every code the map named, as integers.
    pub(crate) codes: Vec<u64>,
    /// One-character keys, for the per-character lookup of the text path.
    by_char: HashMap<char, String>,
}

impl ToUnicode {
    fn insert(&mut self, key: String, value: String) -> Result<()> {
        match self.index.get(&key) {
            Some(&i) => self.entries[i].1 = value,
            None => {
                if self.entries.len() >= MAX_ENTRIES {
                    return fail("ToUnicode map too large");
                }
                self.index.insert(key.clone(), self.entries.len());
                self.entries.push((key, value));
            }
        }
        Ok(())
    }

    /// The text a decoded character maps to, if the map names it.
    pub(crate) fn get(&self, c: char) -> Option<&str> {
        self.by_char.get(&c).map(String::as_str)
    }

    /// The last key (in dict order) whose value is a single space.
    pub(crate) fn space_key(&self) -> Option<&str> {
        self.entries
            .iter()
            .filter(|(_, v)| v == " ")
            .map(|(k, _)| k.as_str())
            .next_back()
    }

    fn finish(&mut self) {
        self.by_char = self
            .entries
            .iter()
            .filter_map(|(k, v)| {
                let mut chars = k.chars();
                let c = chars.next()?;
                chars.next().is_none().then(|| (c, v.clone()))
            })
            .collect();
    }
}

/// The map PyPDF2 builds for a `/ToUnicode` name starting `/Identity`.
pub(crate) const IDENTITY: &[u8] = b"beginbfrange\n<0000> <0001> <0000>\nendbfrange";

/// Parses a CMap stream's bytes.
pub(crate) fn parse(cm: &[u8]) -> Result<ToUnicode> {
    let prepared = prepare(cm);
    let mut map = ToUnicode::default();
    let (mut in_range, mut in_char) = (false, false);
    let mut multiline: Option<(u64, u64)> = None;
    for line in prepared.split(|&b| b == b'\n') {
        let l = strip_spaces(line);
        if l.is_empty() || l == b" " || l[0] == b'%' {
            continue;
        }
        if contains(l, b"beginbfrange") {
            in_range = true;
        } else if contains(l, b"endbfrange") {
            in_range = false;
        } else if contains(l, b"beginbfchar") {
            in_char = true;
        } else if contains(l, b"endbfchar") {
            in_char = false;
        } else if in_range {
            multiline = bfrange(l, &mut map, multiline)?;
        } else if in_char {
            bfchar(l, &mut map)?;
        }
    }
    map.finish();
    Ok(map)
}

fn contains(hay: &[u8], needle: &[u8]) -> bool {
    memchr::memmem::find(hay, needle).is_some()
}

/// `bytes.strip(b" ")`.
fn strip_spaces(l: &[u8]) -> &[u8] {
    let start = l.iter().position(|&b| b != b' ').unwrap_or(l.len());
    let end = l.iter().rposition(|&b| b != b' ').map_or(start, |e| e + 1);
    &l[start..end.max(start)]
}

fn replace(hay: &[u8], from: &[u8], to: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(hay.len());
    let mut i = 0;
    for at in memchr::memmem::find_iter(hay, from) {
        if at < i {
            continue;
        }
        out.extend_from_slice(&hay[i..at]);
        out.extend_from_slice(to);
        i = at + from.len();
    }
    out.extend_from_slice(&hay[i..]);
    out
}

/// `prepare_cm`.
fn prepare(cm: &[u8]) -> Vec<u8> {
    let mut cm = cm.trim_ascii().to_vec();
    for (from, to) in [
        (&b"beginbfchar"[..], &b"\nbeginbfchar\n"[..]),
        (b"endbfchar", b"\nendbfchar\n"),
        (b"beginbfrange", b"\nbeginbfrange\n"),
        (b"endbfrange", b"\nendbfrange\n"),
        (b"<<", b"\n{\n"),
        (b">>", b"\n}\n"),
    ] {
        cm = replace(&cm, from, to);
    }
    let mut pieces: Vec<Vec<u8>> = cm.split(|&b| b == b'<').map(<[u8]>::to_vec).collect();
    for piece in &mut pieces {
        if let Some(j) = piece.iter().position(|&b| b == b'>') {
            let content: Vec<u8> = if j == 0 {
                b".".to_vec()
            } else {
                piece[..j].iter().copied().filter(|&b| b != b' ').collect()
            };
            let mut next = content;
            next.push(b' ');
            next.extend_from_slice(&piece[j + 1..]);
            *piece = next;
        }
    }
    let joined = pieces.join(&b' ');
    let joined = replace(&joined, b"[", b" [ ");
    let joined = replace(&joined, b"]", b" ]\n ");
    replace(&joined, b"\r", b"\n")
}

/// `binascii.unhexlify`.
fn unhexlify(hex: &[u8]) -> Result<Vec<u8>> {
    if hex.len() % 2 != 0 {
        return fail("Odd-length string");
    }
    hex.chunks(2)
        .map(|p| {
            let d = |b: u8| (b as char).to_digit(16);
            match (d(p[0]), d(p[1])) {
                (Some(a), Some(b)) => Ok((a * 16 + b) as u8),
                _ => fail("Non-hexadecimal digit found"),
            }
        })
        .collect()
}

/// Python's `int(token, 16)`.
fn hex_int(tok: &[u8]) -> Result<u64> {
    let t = tok.trim_ascii();
    let t = t
        .strip_prefix(b"0x")
        .or_else(|| t.strip_prefix(b"0X"))
        .unwrap_or(t);
    let digits: Vec<u8> = t.iter().copied().filter(|&b| b != b'_').collect();
    if digits.is_empty() || digits.len() > 16 || !digits.iter().all(u8::is_ascii_hexdigit) {
        return fail(format!(
            "invalid literal for int() with base 16: {:?}",
            String::from_utf8_lossy(tok)
        ));
    }
    u64::from_str_radix(std::str::from_utf8(&digits).unwrap_or("0"), 16)
        .or_else(|_| fail("code too large"))
}

/// A key: `unhexlify(fmt % code)` decoded as Latin-1 (one-byte codes) or UTF-16BE.
fn key_of(code: u64, width: usize) -> Result<String> {
    let hex = format!("{:0w$X}", code, w = width * 2);
    let bytes = unhexlify(hex.as_bytes())?;
    decode_code(&bytes, width == 1)
}

fn decode_code(bytes: &[u8], one_byte: bool) -> Result<String> {
    if one_byte {
        Ok(latin1(bytes))
    } else {
        match utf16be(bytes) {
            Some(s) => Ok(s),
            None => fail("'utf-16-be' codec can't decode: truncated data"),
        }
    }
}

fn utf16_value(hex: &[u8]) -> Result<String> {
    decode_code(&unhexlify(hex)?, false)
}

fn tokens(l: &[u8]) -> Vec<&[u8]> {
    l.split(|&b| b == b' ').filter(|t| !t.is_empty()).collect()
}

/// `parse_bfrange`: `<lo> <hi> <dst>` or `<lo> <hi> [ … ]`, possibly over
/// several lines; returns the pending `(next code, hi)` of an open list.
fn bfrange(
    l: &[u8],
    map: &mut ToUnicode,
    multiline: Option<(u64, u64)>,
) -> Result<Option<(u64, u64)>> {
    let lst = tokens(l);
    if lst.len() < 2 {
        return fail("list index out of range (bfrange line)");
    }
    let width = lst[0].len().max(lst[1].len()).div_ceil(2);
    map.code_bytes = Some(width);
    let closed;
    let (mut a, b);
    if let Some((na, nb)) = multiline {
        b = nb;
        (a, closed) = array_values(map, &lst[1..], na, width)?;
    } else {
        a = hex_int(lst[0])?;
        b = hex_int(lst[1])?;
        let Some(third) = lst.get(2) else {
            return fail("list index out of range (bfrange line)");
        };
        if *third == b"[" {
            (a, closed) = array_values(map, &lst[3..], a, width)?;
        } else {
            let mut c = hex_int(third)?;
            let w2 = third.len().max(4);
            closed = true;
            if b.saturating_sub(a) as usize > MAX_ENTRIES {
                return fail("ToUnicode range too large");
            }
            while a <= b {
                let hex = format!("{:0w$X}", c, w = w2);
                map.insert(key_of(a, width)?, utf16_value(hex.as_bytes())?)?;
                map.codes.push(a);
                a += 1;
                c += 1;
            }
        }
    }
    Ok(if closed { None } else { Some((a, b)) })
}

/// The values of a `[ … ]` range array, one code each from `a` on, until `]`:
/// the next code, and whether the array closed on this line.
fn array_values(
    map: &mut ToUnicode,
    items: &[&[u8]],
    mut a: u64,
    width: usize,
) -> Result<(u64, bool)> {
    for sq in items {
        if *sq == b"]" {
            return Ok((a, true));
        }
        map.insert(key_of(a, width)?, utf16_value(sq)?)?;
        map.codes.push(a);
        a += 1;
    }
    Ok((a, false))
}

/// `parse_bfchar`: pairs `<code> <text>` on one line.
fn bfchar(l: &[u8], map: &mut ToUnicode) -> Result<()> {
    let mut lst = tokens(l);
    let width = lst.first().map_or(0, |t| t.len() / 2);
    map.code_bytes = Some(width);
    while lst.len() > 1 {
        let value = if lst[1] == b"." {
            String::new()
        } else {
            let bytes = unhexlify(lst[1])?;
            decode_code(&bytes, lst[1].len() < 4)?
        };
        let key = decode_code(&unhexlify(lst[0])?, width == 1)?;
        map.insert(key, value)?;
        map.codes.push(hex_int(lst[0])?);
        lst.drain(..2);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_and_chars_map_codes() {
        let cm = b"1 begincodespacerange <0000> <FFFF> endcodespacerange\n\
            2 beginbfchar <0003> <0020> <0011> <0041> endbfchar\n\
            1 beginbfrange <0020> <0022> <0061> endbfrange\n\
            1 beginbfrange <0030> <0031> [<0078> <0079>] endbfrange";
        let map = parse(cm).expect("a valid map");
        assert_eq!(map.get('\u{11}'), Some("A"));
        assert_eq!(map.get('\u{21}'), Some("b"));
        assert_eq!(map.get('\u{31}'), Some("y"));
        assert_eq!(map.space_key(), Some("\u{3}"));
        assert_eq!(map.code_bytes, Some(2));
    }

    #[test]
    fn an_odd_destination_fails_as_unhexlify_does() {
        let cm = b"beginbfrange <01> <02> <00041> endbfrange";
        assert_eq!(parse(cm).expect_err("odd").to_string(), "Odd-length string");
    }

    #[test]
    fn a_huge_range_is_refused() {
        assert!(parse(b"beginbfrange <00000000> <FFFFFFFF> <0000> endbfrange").is_err());
    }
}
