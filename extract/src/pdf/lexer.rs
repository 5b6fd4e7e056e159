//! PyPDF2's `read_object` over a byte cursor: the same tokens, the same
//! lenience (a number that does not parse reads as 0, a dictionary cut short
//! keeps what it read) and the same failures (a number or string running
//! into the end of the data, a byte no object starts with).

use super::error::{bound, fail, Bound, PdfError, Result};
use super::object::{Dict, Object, Stream};
use std::rc::Rc;

/// How deep arrays and dictionaries may nest before the file is refused
/// (PyPDF2 recurses until Python's recursion limit).
const MAX_NESTING: usize = 200;

/// PyPDF2's `WHITESPACES`: space, LF, CR, tab and NUL.
pub(crate) fn is_pdf_whitespace(b: u8) -> bool {
    matches!(b, b' ' | b'\n' | b'\r' | b'\t' | 0)
}

/// Python's `bytes.isspace()`: space, tab, LF, VT, FF, CR (not NUL).
pub(crate) fn is_py_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | 0x0b | 0x0c | b'\r')
}

/// The delimiters that end a name or an operator (`\s+|[\(\)<>\[\]{}/%]`).
pub(crate) fn is_name_delimiter(b: u8) -> bool {
    is_py_space(b)
        || matches!(
            b,
            b'(' | b')' | b'<' | b'>' | b'[' | b']' | b'{' | b'}' | b'/' | b'%'
        )
}

/// A read position over borrowed bytes (Python's `BytesIO`).
#[derive(Debug, Clone)]
pub(crate) struct Cursor<'a> {
    /// The bytes.
    pub(crate) data: &'a [u8],
    /// The position (may be past the end, as after a seek).
    pub(crate) pos: usize,
}

impl<'a> Cursor<'a> {
    /// A cursor at `pos`.
    pub(crate) fn new(data: &'a [u8], pos: usize) -> Self {
        Cursor { data, pos }
    }

    /// The byte at the position, if any (without moving).
    pub(crate) fn peek(&self) -> Option<u8> {
        self.data.get(self.pos).copied()
    }

    /// `read(1)`.
    pub(crate) fn next(&mut self) -> Option<u8> {
        let b = self.peek();
        if b.is_some() {
            self.pos += 1;
        }
        b
    }

    /// `read(n)`: up to `n` bytes.
    pub(crate) fn take(&mut self, n: usize) -> &'a [u8] {
        let start = self.pos.min(self.data.len());
        let end = start.saturating_add(n).min(self.data.len());
        self.pos = end.max(self.pos);
        &self.data[start..end]
    }

    /// The bytes from the position on.
    pub(crate) fn rest(&self) -> &'a [u8] {
        &self.data[self.pos.min(self.data.len())..]
    }

    /// `read_non_whitespace`: skips PDF whitespace, returns (and consumes) the next byte.
    pub(crate) fn next_non_whitespace(&mut self) -> Option<u8> {
        while let Some(b) = self.next() {
            if !is_pdf_whitespace(b) {
                return Some(b);
            }
        }
        None
    }

    /// `read_non_whitespace` then `seek(-1, 1)`: the position of the next non-blank byte.
    pub(crate) fn skip_whitespace(&mut self) {
        while self.peek().is_some_and(is_pdf_whitespace) {
            self.pos += 1;
        }
    }

    /// `read_until_regex(delimiters)`: the bytes up to the first one `stop` accepts.
    /// At the end of the data: the bytes read if `eof_ok`, else PyPDF2's
    /// "Stream has ended unexpectedly".
    pub(crate) fn until(&mut self, stop: impl Fn(u8) -> bool, eof_ok: bool) -> Result<&'a [u8]> {
        let rest = self.rest();
        match rest.iter().position(|&b| stop(b)) {
            Some(n) => {
                self.pos += n;
                Ok(&rest[..n])
            }
            None if eof_ok => {
                self.pos = self.data.len().max(self.pos);
                Ok(rest)
            }
            None => fail("Stream has ended unexpectedly"),
        }
    }
}

/// What the object reader needs from the document: indirect `/Length`s and,
/// for a stream whose length is wrong, where the next object starts.
pub(crate) trait Resolver {
    /// The object `id gen R`, resolved.
    fn resolve_ref(&self, id: i64, gen: i64) -> Result<Object>;
    /// The smallest cross-reference offset after `pos` (PyPDF2's
    /// `get_next_obj_pos`), or 2^32 when none.
    fn next_object_offset(&self, pos: usize) -> usize;
}

/// `read_object(stream, pdf)`: one object at the cursor. `pdf` is `None` in
/// content streams (PyPDF2 passes no reader there).
pub(crate) fn read_object(cur: &mut Cursor<'_>, pdf: Option<&dyn Resolver>) -> Result<Object> {
    read_nested(cur, pdf, 0)
}

fn read_nested(cur: &mut Cursor<'_>, pdf: Option<&dyn Resolver>, depth: usize) -> Result<Object> {
    if depth > MAX_NESTING {
        return fail("objects nested too deeply");
    }
    let Some(tok) = cur.peek() else {
        // `b"" in b"0123456789+-."` is true in Python: the number reader then hits the end.
        return fail("Stream has ended unexpectedly");
    };
    match tok {
        b'/' => read_name(cur, pdf.is_some()).map(Object::Name),
        b'<' => {
            if cur.data.get(cur.pos + 1) == Some(&b'<') {
                read_dict(cur, pdf, depth)
            } else {
                read_hex_string(cur).map(|s| Object::Str(s.into()))
            }
        }
        b'[' => read_array(cur, pdf, depth),
        b't' | b'f' => read_bool(cur),
        b'(' => read_literal_string(cur).map(|s| Object::Str(s.into())),
        b'e' => {
            if cur.rest().starts_with(b"endobj") {
                Ok(Object::Null)
            } else {
                fail(format!(
                    "invalid object starting with 'e' at byte {}",
                    cur.pos
                ))
            }
        }
        b'n' => {
            if cur.take(4) == b"null" {
                Ok(Object::Null)
            } else {
                fail("Could not read Null object")
            }
        }
        b'%' => {
            while let Some(b) = cur.next() {
                if b == b'\r' || b == b'\n' {
                    cur.skip_whitespace();
                    return read_nested(cur, pdf, depth + 1);
                }
            }
            fail("File ended unexpectedly.")
        }
        b'0'..=b'9' | b'+' | b'-' | b'.' => {
            if let Some((id, gen, len)) = indirect_at(cur.rest()) {
                cur.pos += len;
                Ok(Object::Ref(id, gen))
            } else {
                read_number(cur)
            }
        }
        other => fail(format!(
            "invalid object starting with {:?} at byte {}",
            other as char, cur.pos
        )),
    }
}

/// `IndirectPattern.match(peek[:20])` (`[+-]?(\d+)\s+(\d+)\s+R[^a-zA-Z]`) and
/// what `IndirectObject.read_from_stream` then consumes: `(id, gen, bytes)`.
fn indirect_at(rest: &[u8]) -> Option<(i64, i64, usize)> {
    let window = &rest[..rest.len().min(20)];
    let mut i = 0;
    if matches!(window.first(), Some(b'+' | b'-')) {
        i += 1;
    }
    let d1 = i;
    while window.get(i).is_some_and(u8::is_ascii_digit) {
        i += 1;
    }
    if i == d1 {
        return None;
    }
    let s1 = i;
    while window.get(i).copied().is_some_and(is_py_space) {
        i += 1;
    }
    if i == s1 {
        return None;
    }
    let g1 = i;
    while window.get(i).is_some_and(u8::is_ascii_digit) {
        i += 1;
    }
    if i == g1 {
        return None;
    }
    let s2 = i;
    while window.get(i).copied().is_some_and(is_py_space) {
        i += 1;
    }
    if i == s2 || window.get(i) != Some(&b'R') {
        return None;
    }
    if window.get(i + 1).is_none_or(|b| b.is_ascii_alphabetic()) {
        return None;
    }
    // The reader: id up to whitespace, generation up to whitespace, then 'R'.
    let id = parse_int_saturating(&window[..s1]);
    let gen = parse_int_saturating(&window[g1..s2]);
    Some((id, gen, i + 1))
}

/// An ASCII integer (with an optional sign), saturating at the i64 bounds.
fn parse_int_saturating(text: &[u8]) -> i64 {
    let (neg, digits) = match text.first() {
        Some(b'-') => (true, &text[1..]),
        Some(b'+') => (false, &text[1..]),
        _ => (false, text),
    };
    let mut v: i64 = 0;
    for &d in digits {
        v = v.saturating_mul(10).saturating_add(i64::from(d - b'0'));
    }
    if neg {
        -v
    } else {
        v
    }
}

/// Python's `int(text)` over the bytes PyPDF2's number reader keeps (`+,-.` and digits).
pub(crate) fn python_int(text: &[u8]) -> Option<i64> {
    let digits = match text.first() {
        Some(b'-' | b'+') => &text[1..],
        _ => text,
    };
    if digits.is_empty() || !digits.iter().all(u8::is_ascii_digit) {
        return None;
    }
    Some(parse_int_saturating(text))
}

/// Python's `Decimal(text)` for the same bytes, as a float.
fn python_decimal(text: &[u8]) -> Option<f64> {
    let body = match text.first() {
        Some(b'-' | b'+') => &text[1..],
        _ => text,
    };
    let dot = body.iter().position(|&b| b == b'.')?;
    let (int, frac) = (&body[..dot], &body[dot + 1..]);
    let digits_ok = |s: &[u8]| s.iter().all(u8::is_ascii_digit);
    if !digits_ok(int) || !digits_ok(frac) || (int.is_empty() && frac.is_empty()) {
        return None;
    }
    std::str::from_utf8(text)
        .ok()?
        .parse::<f64>()
        .ok()
        .or_else(|| {
            // Rust refuses "5." and ".5" forms with a sign only in rare spellings; rebuild.
            let mut s = String::from_utf8_lossy(text).into_owned();
            s.push('0');
            s.parse().ok()
        })
}

/// `NumberObject.read_from_stream`: digits and `+,-.` up to anything else;
/// a dot makes a real; what does not parse reads as 0 (PyPDF2 warns).
fn read_number(cur: &mut Cursor<'_>) -> Result<Object> {
    let text = cur.until(
        |b| !matches!(b, b'+' | b',' | b'-' | b'.' | b'0'..=b'9'),
        false,
    )?;
    if text.contains(&b'.') {
        Ok(Object::Real(python_decimal(text).unwrap_or(0.0)))
    } else {
        Ok(Object::Int(python_int(text).unwrap_or(0)))
    }
}

/// `NameObject.read_from_stream`: `/` and the bytes up to a delimiter, `#xx`
/// decoded, read as UTF-8, else GBK, else Latin-1 (only with a reader: in a
/// content stream PyPDF2 fails there).
pub(crate) fn read_name(cur: &mut Cursor<'_>, with_reader: bool) -> Result<Rc<str>> {
    cur.pos += 1;
    let raw = cur.until(is_name_delimiter, true)?;
    let mut bytes = Vec::with_capacity(raw.len() + 1);
    bytes.push(b'/');
    bytes.extend_from_slice(raw);
    let bytes = unnumber(bytes);
    if let Ok(s) = std::str::from_utf8(&bytes) {
        return Ok(s.into());
    }
    if let Ok(s) = crate::decode::codec::Codec::lookup("gbk")
        .ok_or_else(|| PdfError::new("no gbk codec"))?
        .decode(&bytes)
    {
        return Ok(s.into());
    }
    if with_reader {
        Ok(bytes.iter().map(|&b| b as char).collect::<String>().into())
    } else {
        fail("illegal character in a name")
    }
}

/// `NameObject.unnumber`: each `#` followed by two hex digits becomes that byte.
fn unnumber(mut s: Vec<u8>) -> Vec<u8> {
    let mut i = 0;
    while let Some(off) = s[i..].iter().position(|&b| b == b'#') {
        let at = i + off;
        let hex = s.get(at + 1..at + 3).and_then(|h| {
            let h = std::str::from_utf8(h).ok()?;
            u8::from_str_radix(h, 16)
                .ok()
                .filter(|_| h.bytes().all(|b| b.is_ascii_hexdigit()))
        });
        match hex {
            Some(b) => {
                s.splice(at..at + 3, [b]);
                i = at + 1;
            }
            None => i = at + 1,
        }
        if i >= s.len() {
            break;
        }
    }
    s
}

fn read_bool(cur: &mut Cursor<'_>) -> Result<Object> {
    let word = cur.take(4);
    if word == b"true" {
        Ok(Object::Bool)
    } else if word == b"fals" {
        cur.take(1);
        Ok(Object::Bool)
    } else {
        fail("Could not read Boolean object")
    }
}

/// `read_hex_string_from_stream`: hex digit pairs up to `>`, blanks skipped,
/// an odd final digit padded with 0.
fn read_hex_string(cur: &mut Cursor<'_>) -> Result<Vec<u8>> {
    cur.pos += 1;
    let mut out = Vec::new();
    let mut pair: Vec<u8> = Vec::with_capacity(2);
    loop {
        let Some(tok) = cur.next_non_whitespace() else {
            return fail("Stream has ended unexpectedly");
        };
        if tok == b'>' {
            break;
        }
        pair.push(tok);
        if pair.len() == 2 {
            out.push(hex_pair(&pair)?);
            pair.clear();
        }
    }
    if pair.len() == 1 {
        pair.push(b'0');
        out.push(hex_pair(&pair)?);
    }
    Ok(out)
}

/// Python's `chr(int(pair, 16))` as one byte.
fn hex_pair(pair: &[u8]) -> Result<u8> {
    let digit = |b: u8| (b as char).to_digit(16);
    match (digit(pair[0]), digit(pair[1])) {
        (Some(a), Some(b)) => Ok((a * 16 + b) as u8),
        (None, Some(b)) if pair[0] == b'+' || (pair[0] == b'-' && b == 0) => Ok(b as u8),
        _ => fail(format!(
            "invalid hexadecimal string digits {:?}",
            String::from_utf8_lossy(pair)
        )),
    }
}

/// `read_string_from_stream`: a literal string with balanced parentheses and escapes.
fn read_literal_string(cur: &mut Cursor<'_>) -> Result<Vec<u8>> {
    cur.pos += 1;
    let mut depth = 1usize;
    let mut out = Vec::new();
    loop {
        let Some(tok) = cur.next() else {
            return fail("Stream has ended unexpectedly");
        };
        match tok {
            b'(' => {
                depth += 1;
                out.push(tok);
            }
            b')' => {
                depth -= 1;
                if depth == 0 {
                    break;
                }
                out.push(tok);
            }
            b'\\' => {
                let Some(esc) = cur.next() else {
                    // `b"" in b"\n\r"`: an escaped line break at the end; the loop then ends the data.
                    continue;
                };
                match esc {
                    b'n' => out.push(b'\n'),
                    b'r' => out.push(b'\r'),
                    b't' => out.push(b'\t'),
                    b'b' => out.push(8),
                    b'f' => out.push(12),
                    b'c' => out.extend_from_slice(b"\\c"),
                    b'(' | b')' | b'/' | b'\\' | b' ' | b'%' | b'<' | b'>' | b'[' | b']' | b'#'
                    | b'_' | b'&' | b'$' => out.push(esc),
                    b'0'..=b'7' => {
                        let mut value = u32::from(esc - b'0');
                        for _ in 0..2 {
                            match cur.peek() {
                                Some(d @ b'0'..=b'7') => {
                                    value = value * 8 + u32::from(d - b'0');
                                    cur.pos += 1;
                                }
                                _ => break,
                            }
                        }
                        // `b_(chr(n))`: Latin-1 when it fits, else UTF-8.
                        if value < 256 {
                            out.push(value as u8);
                        } else {
                            let c = char::from_u32(value).unwrap_or('\u{FFFD}');
                            let mut buf = [0u8; 4];
                            out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
                        }
                    }
                    b'\n' | b'\r' => {
                        if matches!(cur.peek(), Some(b'\n' | b'\r')) {
                            cur.pos += 1;
                        }
                    }
                    // PyPDF2 warns `Unexpected escaped string: {tok.decode('utf8')}`,
                    // which raises for a byte that is not ASCII.
                    other if other >= 0x80 => {
                        return fail(format!(
                            "'utf-8' codec can't decode escaped byte 0x{other:02x}"
                        ))
                    }
                    other => out.push(other),
                }
            }
            _ => out.push(tok),
        }
    }
    Ok(out)
}

/// `ArrayObject.read_from_stream`.
fn read_array(cur: &mut Cursor<'_>, pdf: Option<&dyn Resolver>, depth: usize) -> Result<Object> {
    cur.pos += 1;
    let mut items = Vec::new();
    loop {
        while cur.peek().is_some_and(is_py_space) {
            cur.pos += 1;
        }
        match cur.peek() {
            Some(b']') => {
                cur.pos += 1;
                break;
            }
            None => return fail("Stream has ended unexpectedly"),
            Some(_) => {
                let at = cur.pos;
                items.push(read_nested(cur, pdf, depth + 1)?);
                if cur.pos == at {
                    // `endobj` reads as null without moving: PyPDF2 appends nulls forever.
                    return bound(Bound::NeverCloses { at });
                }
            }
        }
    }
    Ok(Object::Array(Rc::new(items)))
}

/// `DictionaryObject.read_from_stream`, and the stream that may follow.
fn read_dict(cur: &mut Cursor<'_>, pdf: Option<&dyn Resolver>, depth: usize) -> Result<Object> {
    cur.pos += 2;
    let mut dict = Dict::default();
    loop {
        let Some(tok) = cur.next_non_whitespace() else {
            return fail("Stream has ended unexpectedly");
        };
        if tok == b'%' {
            while let Some(b) = cur.next() {
                if b == b'\n' || b == b'\r' {
                    break;
                }
            }
            continue;
        }
        if tok == b'>' {
            cur.take(1);
            break;
        }
        cur.pos -= 1;
        let at = cur.pos;
        let entry = (|| -> Result<(Object, Object)> {
            let key = read_nested(cur, pdf, depth + 1)?;
            cur.skip_whitespace();
            let value = read_nested(cur, pdf, depth + 1)?;
            Ok((key, value))
        })();
        let (key, value) = match entry {
            Ok(kv) => kv,
            Err(e) if e.is_bound() => return Err(e),
            // PyPDF2 (not strict) warns and keeps the entries read so far.
            Err(_) => return Ok(Object::Dict(Rc::new(dict))),
        };
        if cur.pos == at {
            // `endobj` as key and value, read without moving: PyPDF2 loops forever.
            return bound(Bound::NeverCloses { at });
        }
        if let Object::Name(key) = key {
            if !dict.get(&key).is_some_and(Object::is_truthy) {
                dict.insert(key, value);
            }
        }
    }
    let after = cur.pos;
    let is_stream = cur.next_non_whitespace() == Some(b's') && cur.take(5) == b"tream";
    if !is_stream {
        cur.pos = after;
        return Ok(Object::Dict(Rc::new(dict)));
    }
    read_stream_body(cur, pdf, dict)
}

/// The data of a stream after its `stream` keyword, PyPDF2's way: `/Length`
/// bytes, else one byte fewer, else up to `endstream` before the next object.
fn read_stream_body(
    cur: &mut Cursor<'_>,
    pdf: Option<&dyn Resolver>,
    mut dict: Dict,
) -> Result<Object> {
    let mut eol = cur.next();
    while eol == Some(b' ') {
        eol = cur.next();
    }
    match eol {
        Some(b'\n') => {}
        Some(b'\r') => {
            if cur.peek() == Some(b'\n') {
                cur.pos += 1;
            }
        }
        _ => return fail("Stream data must be followed by a newline"),
    }
    let length = match dict.get("/Length") {
        None => return fail("Stream length not defined"),
        Some(Object::Ref(id, gen)) => match pdf {
            Some(pdf) => {
                let here = cur.pos;
                let v = pdf.resolve_ref(*id, *gen)?;
                cur.pos = here;
                v
            }
            None => return fail("stream length is an indirect object in a content stream"),
        },
        Some(other) => other.clone(),
    };
    let Object::Int(length) = length else {
        return fail(format!(
            "stream length is a {}, not an integer",
            length.kind()
        ));
    };
    let start = cur.pos;
    // `read(-1)` reads everything.
    let length = usize::try_from(length).unwrap_or(usize::MAX);
    let mut data = cur.take(length);
    let e = cur.next_non_whitespace();
    let nd = cur.take(8);
    let found = e == Some(b'e') && nd == b"ndstream";
    if !found {
        let back = cur.pos.saturating_sub(10);
        if cur.data.get(back..back + 9) == Some(b"endstream") {
            data = &data[..data.len().saturating_sub(1)];
            cur.pos = back + 9;
        } else {
            let Some(pdf) = pdf else {
                return fail("Unable to find 'endstream' marker in a content stream");
            };
            cur.pos = start;
            let eon = pdf.next_object_offset(start).saturating_sub(1);
            let rw = cur.take(eon.saturating_sub(start));
            let Some(p) = memchr::memmem::find(rw, b"endstream") else {
                return fail(format!(
                    "Unable to find 'endstream' marker for obj starting at {start}."
                ));
            };
            cur.pos = start + p + 9;
            // `rw[: p - 1]`: with p == 0 Python's slice drops only the last byte.
            data = if p == 0 {
                &rw[..rw.len().saturating_sub(1)]
            } else {
                &rw[..p - 1]
            };
        }
    }
    dict.remove("/Length");
    Ok(Object::Stream(Rc::new(Stream::new(dict, data.into()))))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &[u8]) -> Result<Object> {
        read_object(&mut Cursor::new(text, 0), None)
    }

    #[test]
    fn numbers_read_as_pypdf2_reads_them() {
        assert!(matches!(read(b"12 "), Ok(Object::Int(12))));
        assert!(matches!(read(b"-.5 "), Ok(Object::Real(r)) if r == -0.5));
        assert!(matches!(read(b"1,5 "), Ok(Object::Int(0))));
        assert!(matches!(read(b"1.2.3 "), Ok(Object::Real(r)) if r == 0.0));
        assert!(read(b"12").is_err(), "a number running into the end fails");
        assert!(matches!(read(b"3 0 R "), Ok(Object::Ref(3, 0))));
    }

    #[test]
    fn strings_decode_escapes() {
        let Ok(Object::Str(s)) = read(b"(a\\(b\\)\\101\\\nc\\q)") else {
            panic!("a string")
        };
        assert_eq!(&*s, b"a(b)Acq");
        let Ok(Object::Str(s)) = read(b"<41 4>") else {
            panic!("a hex string")
        };
        assert_eq!(&*s, b"A@");
    }

    #[test]
    fn a_dictionary_cut_short_keeps_its_entries() {
        let Ok(Object::Dict(d)) = read(b"<< /A 1 /B") else {
            panic!("a partial dictionary")
        };
        assert!(d.contains("/A"));
        assert!(!d.contains("/B"));
    }

    #[test]
    fn endobj_inside_an_array_or_dictionary_ends_reading() {
        // PyPDF2 reads `endobj` there as a null without moving on, forever.
        for text in [&b"[1 endobj"[..], b"<< /A endobj", b"<< /A 1 endobj >>"] {
            let e = read(text).expect_err("never closes");
            assert!(e.is_bound(), "{e}");
            assert!(e.to_string().contains("never closes"), "{e}");
        }
        // Nested in a dictionary whose other failures keep a partial dictionary.
        let e = read(b"<< /A << /B [endobj >> >>").expect_err("never closes");
        assert!(e.is_bound(), "{e}");
    }

    #[test]
    fn deep_nesting_is_refused() {
        let text = vec![b'['; 100_000];
        assert!(read(&text).is_err());
    }
}
