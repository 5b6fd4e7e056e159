//! The rows of `<sheetData>` read straight from the inflated bytes, in the
//! forms spreadsheet writers emit: `<row …>` holding `<c …>` cells whose
//! children are `<v>`, `<f>` and `<is>` (plain `<t>` and runs of `<t>`), tags
//! self-closing or not, whitespace between them, attribute values and text
//! with references and line ends decoded as the parser decodes them. A row is
//! looked at whole before anything of it is consumed; one holding anything
//! else (a comment, CDATA, a processing instruction, a prefixed element, a
//! namespace declaration, an unknown child, a duplicate attribute, a
//! character XML forbids, a `dataTable` formula, run properties, a row longer
//! than the window may grow to…) is left where it is, for the parser
//! (`xml::Reader`) to read, and the scanner carries on after it. So the rows
//! and errors are the parser's, only sooner: the semantics stay in `sheet.rs`,
//! which reads a scanned row's cells through the same [`CellView`] it reads
//! a parsed cell through.
//!
//! Bounds: a row is scanned only within `max_row_bytes` (the window never
//! grows past it), elements nest five levels below `<sheetData>` and are
//! scanned only when the reader's depth limit allows that, an element has
//! at most [`MAX_ATTRS`] attributes, a row [`MAX_CELLS`] cells and an inline
//! string [`MAX_RUNS`] runs (beyond, the parser reads the row, as before).

use super::cell_view::{CellView, FormulaView, Inline};
use super::xml::{
    attribute_value, normalise_eol, push_chars, resolve_reference, Lookahead, Reader,
};

#[cfg(test)]
mod tests;

/// How many levels a scanned row nests below `<sheetData>`: row, c, is, r, t.
const ROW_NESTING: usize = 5;

/// Most attributes an element may have to be scanned.
pub(crate) const MAX_ATTRS: usize = 16;

/// Most cells a scanned row may have (a sheet is 16 384 columns wide; wider
/// rows go to the parser): with the window, this bounds what a row holds.
pub(crate) const MAX_CELLS: usize = 4096;

/// Most runs an inline string may have to be scanned.
pub(crate) const MAX_RUNS: usize = 256;

/// Why a row was not read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Stop {
    /// It runs past the bytes at hand.
    Incomplete,
    /// It holds something the scanner leaves to the parser.
    Unsure,
}

type Step<T> = Result<T, Stop>;

/// A decoded value: a span of the window (taken as it is) or of the arena.
#[derive(Debug, Clone, Copy, Default)]
struct Val {
    start: usize,
    end: usize,
    decoded: bool,
}

/// An attribute of the element being scanned: its name's span, where its
/// prefix ends (if it has one), its value.
#[derive(Debug, Clone, Copy)]
struct Attr {
    name: (usize, usize),
    colon: Option<usize>,
    value: Val,
}

#[derive(Debug, Clone, Copy, Default)]
struct FormulaScan {
    text: Option<Val>,
    t: Option<Val>,
    reference: Option<Val>,
    si: Option<Val>,
}

#[derive(Debug, Clone, Copy, Default)]
struct CellScan {
    r: Option<Val>,
    s: Option<Val>,
    t: Option<Val>,
    v: Option<Val>,
    f: Option<FormulaScan>,
    is: Option<Val>,
}

/// Reads rows from the input after a `<sheetData>` start tag (or a row's end
/// tag inside it), keeping its buffers from row to row.
pub(crate) struct RowScanner {
    /// Prefixes bound where the rows are.
    prefixes: Vec<String>,
    max_row_bytes: usize,
    row_r: Option<Val>,
    cells: Vec<CellScan>,
    attrs: Vec<Attr>,
    /// Decoded values (with references, line ends, attribute whitespace) and
    /// inline strings joined from runs.
    arena: String,
    runs: Vec<Option<Val>>,
    joined: String,
}

fn is_ws(c: u8) -> bool {
    matches!(c, b' ' | b'\t' | b'\n' | b'\r')
}

fn is_name_char(c: u8) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, b'_' | b'-' | b'.' | b':')
}

fn byte(b: &[u8], i: usize) -> Step<u8> {
    b.get(i).copied().ok_or(Stop::Incomplete)
}

fn skip_ws(b: &[u8], i: &mut usize) -> usize {
    let n = b[(*i).min(b.len())..]
        .iter()
        .take_while(|c| is_ws(**c))
        .count();
    *i += n;
    n
}

/// `<name` at `i`, ended by whitespace, `/` or `>`: the name.
fn open_tag<'b>(b: &'b [u8], i: &mut usize) -> Step<&'b [u8]> {
    if byte(b, *i)? != b'<' {
        return Err(Stop::Unsure);
    }
    let start = *i + 1;
    let mut j = start;
    while is_name_char(byte(b, j)?) {
        j += 1;
    }
    let c = b[j];
    if j == start || !(is_ws(c) || c == b'/' || c == b'>') {
        return Err(Stop::Unsure);
    }
    *i = j;
    Ok(&b[start..j])
}

/// After whitespace: `</name>` (consumed, `true`) or a child's `<` (`false`).
fn next_child(b: &[u8], i: &mut usize, name: &[u8]) -> Step<bool> {
    skip_ws(b, i);
    if byte(b, *i)? != b'<' {
        return Err(Stop::Unsure);
    }
    if byte(b, *i + 1)? != b'/' {
        return Ok(false);
    }
    let end = *i + 2 + name.len();
    if b.len() <= end {
        return Err(Stop::Incomplete);
    }
    if &b[*i + 2..end] != name || b[end] != b'>' {
        return Err(Stop::Unsure);
    }
    *i = end + 1;
    Ok(true)
}

/// [`BYTE_CLASS`] flags: a byte outside ASCII, `>`, a byte no value takes
/// as it is (`&`, `<`, a control character other than tab and line feed), a
/// tab or line feed (which attribute values turn into spaces).
const NON_ASCII: u8 = 1;
const GT: u8 = 2;
const DECODE: u8 = 4;
const WHITESPACE: u8 = 8;

/// The flags of every byte value.
const BYTE_CLASS: [u8; 256] = {
    let mut table = [0u8; 256];
    let mut c = 0;
    while c < 256 {
        table[c] = match c as u8 {
            b'\t' | b'\n' => WHITESPACE,
            b'&' | b'<' | 0..=0x1f => DECODE,
            b'>' => GT,
            0x80.. => NON_ASCII,
            _ => 0,
        };
        c += 1;
    }
    table
};

/// Whether raw text (or an attribute value) reads as it is: no reference,
/// no carriage return, no character XML forbids, no `]]>` (in an attribute:
/// no `<`, `>` or literal whitespace other than spaces either).
fn verbatim(raw: &str, attribute: bool) -> bool {
    let flags = raw
        .as_bytes()
        .iter()
        .fold(0u8, |flags, &c| flags | BYTE_CLASS[usize::from(c)]);
    let refused = if attribute {
        DECODE | GT | WHITESPACE
    } else {
        DECODE
    };
    if flags & refused != 0 || (flags & GT != 0 && raw.contains("]]>")) {
        return false;
    }
    flags & NON_ASCII == 0 || !has_noncharacter(raw)
}

/// Whether text holds U+FFFE or U+FFFF: the only characters outside ASCII
/// that XML forbids and a `str` can hold (surrogates it cannot), found by
/// their lead byte (rare in any script) rather than by decoding every character.
fn has_noncharacter(raw: &str) -> bool {
    let b = raw.as_bytes();
    memchr::memchr_iter(0xEF, b)
        .any(|i| b.get(i + 1) == Some(&0xBF) && matches!(b.get(i + 2), Some(0xBE | 0xBF)))
}

impl RowScanner {
    /// A scanner for the rows of the element `reader` just opened, when
    /// unprefixed names there are in `namespace` and rows nest within the
    /// reader's depth limit; `None` where the parser must read them.
    pub(crate) fn new(reader: &Reader<'_>, namespace: &str, max_row_bytes: usize) -> Option<Self> {
        let bindings = reader.bindings();
        let default = bindings.iter().rev().find(|(p, _)| p.is_empty());
        if default.is_none_or(|(_, uri)| uri != namespace)
            || reader.depth() + ROW_NESTING > reader.max_depth()
        {
            return None;
        }
        Some(RowScanner {
            prefixes: bindings.into_iter().map(|(p, _)| p).collect(),
            max_row_bytes,
            row_r: None,
            cells: Vec::new(),
            attrs: Vec::new(),
            arena: String::new(),
            runs: Vec::new(),
            joined: String::new(),
        })
    }

    /// Reads rows from `input` (positioned right after a start or end tag)
    /// while they are rows it reads exactly, handing each to `on_row`; stops
    /// before anything else (`</sheetData>`, a row it leaves to the parser,
    /// the end of the input), having consumed only what it read.
    pub(crate) fn run<E>(
        &mut self,
        input: &mut dyn Lookahead,
        on_row: &mut dyn FnMut(&ScannedRow<'_>) -> Result<(), E>,
    ) -> Result<(), E> {
        let mut want = 0;
        loop {
            let Ok(buf) = input.fill_at_least(want) else {
                // The parser meets the failure and reports it.
                return Ok(());
            };
            let (len, ended) = (buf.len(), buf.len() < want.max(1));
            if len == 0 {
                return Ok(());
            }
            let (text, broken) = match std::str::from_utf8(buf) {
                Ok(text) => (text, false),
                Err(e) => (
                    std::str::from_utf8(&buf[..e.valid_up_to()]).unwrap_or_default(),
                    e.error_len().is_some(),
                ),
            };
            let b = text.as_bytes();
            let mut at = 0;
            let incomplete = loop {
                let mut start = at;
                skip_ws(b, &mut start);
                match self.row(text.get(start..).unwrap_or_default()) {
                    Ok(n) => {
                        let row = ScannedRow {
                            text: text.get(start..).unwrap_or_default(),
                            scanner: self,
                        };
                        on_row(&row)?;
                        at = start + n;
                    }
                    Err(stop) => {
                        at = start;
                        break stop == Stop::Incomplete;
                    }
                }
            };
            input.consume(at);
            if !incomplete {
                return Ok(());
            }
            if at == 0 {
                if ended || broken || len >= self.max_row_bytes {
                    return Ok(());
                }
                want = (len * 2).clamp(len + 1, self.max_row_bytes);
            } else {
                want = 0;
            }
        }
    }

    /// One `<row>` at the start of `b`: its length.
    fn row(&mut self, src: &str) -> Step<usize> {
        let b = src.as_bytes();
        self.cells.clear();
        self.arena.clear();
        let mut i = 0;
        if open_tag(b, &mut i)? != b"row" {
            return Err(Stop::Unsure);
        }
        let closed = self.attributes(src, &mut i)?;
        self.row_r = self.attr(src, b"r");
        if !closed {
            while !next_child(b, &mut i, b"row")? {
                self.cell(src, &mut i)?;
            }
        }
        Ok(i)
    }

    /// One `<c>` at `i`.
    fn cell(&mut self, src: &str, i: &mut usize) -> Step<()> {
        let b = src.as_bytes();
        if open_tag(b, i)? != b"c" || self.cells.len() == MAX_CELLS {
            return Err(Stop::Unsure);
        }
        let closed = self.attributes(src, i)?;
        let mut cell = CellScan {
            r: self.attr(src, b"r"),
            s: self.attr(src, b"s"),
            t: self.attr(src, b"t"),
            ..CellScan::default()
        };
        let mut seen_v = false;
        if !closed {
            while !next_child(b, i, b"c")? {
                match open_tag(b, i)? {
                    b"v" if !seen_v => {
                        seen_v = true;
                        if !self.attributes(src, i)? {
                            cell.v = self.text_content(src, i, b"v")?;
                        }
                    }
                    b"f" if cell.f.is_none() => {
                        let closed = self.attributes(src, i)?;
                        let t = self.attr(src, b"t");
                        if t.is_some_and(|t| self.bytes(src, t) == b"dataTable") {
                            return Err(Stop::Unsure);
                        }
                        let mut f = FormulaScan {
                            text: None,
                            t,
                            reference: self.attr(src, b"ref"),
                            si: self.attr(src, b"si"),
                        };
                        if !closed {
                            f.text = self.text_content(src, i, b"f")?;
                        }
                        cell.f = Some(f);
                    }
                    b"is" if cell.is.is_none() => cell.is = Some(self.inline(src, i)?),
                    _ => return Err(Stop::Unsure),
                }
            }
        }
        self.cells.push(cell);
        Ok(())
    }

    /// An `<is>` (its name read): `Text.content` of plain `<t>`s and runs of `<t>`s.
    fn inline(&mut self, src: &str, i: &mut usize) -> Step<Val> {
        let b = src.as_bytes();
        let closed = self.attributes(src, i)?;
        if self.attrs.iter().any(|a| a.colon.is_none()) {
            return Err(Stop::Unsure);
        }
        let mut plain = None;
        self.runs.clear();
        if !closed {
            while !next_child(b, i, b"is")? {
                match open_tag(b, i)? {
                    b"t" => plain = self.t(src, i)?,
                    b"r" => {
                        if self.runs.len() == MAX_RUNS {
                            return Err(Stop::Unsure);
                        }
                        let closed = self.attributes(src, i)?;
                        if self.attrs.iter().any(|a| a.colon.is_none()) {
                            return Err(Stop::Unsure);
                        }
                        let mut text = None;
                        if !closed {
                            while !next_child(b, i, b"r")? {
                                if open_tag(b, i)? != b"t" {
                                    return Err(Stop::Unsure);
                                }
                                text = self.t(src, i)?;
                            }
                        }
                        self.runs.push(text);
                    }
                    _ => return Err(Stop::Unsure),
                }
            }
        }
        let empty = Val {
            start: 0,
            end: 0,
            decoded: true,
        };
        if self.runs.iter().all(Option::is_none) {
            return Ok(plain.unwrap_or(empty));
        }
        let mut joined = std::mem::take(&mut self.joined);
        joined.clear();
        for v in plain.iter().chain(self.runs.iter().flatten()) {
            joined.push_str(self.str(src, *v));
        }
        let start = self.arena.len();
        self.arena.push_str(&joined);
        self.joined = joined;
        Ok(Val {
            start,
            end: self.arena.len(),
            decoded: true,
        })
    }

    /// A `<t>` (its name read): its text.
    fn t(&mut self, src: &str, i: &mut usize) -> Step<Option<Val>> {
        if self.attributes(src, i)? {
            return Ok(None);
        }
        self.text_content(src, i, b"t")
    }

    /// The attributes after an element's name, up to `>` (`false`) or `/>`
    /// (`true`), into `self.attrs`.
    fn attributes(&mut self, src: &str, i: &mut usize) -> Step<bool> {
        let b = src.as_bytes();
        self.attrs.clear();
        loop {
            let ws = skip_ws(b, i);
            match byte(b, *i)? {
                b'>' => {
                    *i += 1;
                    return Ok(false);
                }
                b'/' => {
                    if byte(b, *i + 1)? != b'>' {
                        return Err(Stop::Unsure);
                    }
                    *i += 2;
                    return Ok(true);
                }
                c if ws == 0 || !(c.is_ascii_alphabetic() || c == b'_') => {
                    return Err(Stop::Unsure)
                }
                _ => {}
            }
            if self.attrs.len() == MAX_ATTRS {
                return Err(Stop::Unsure);
            }
            let start = *i;
            let mut colon = None;
            loop {
                let c = byte(b, *i)?;
                if c == b':' {
                    if colon.is_some() {
                        return Err(Stop::Unsure);
                    }
                    colon = Some(*i);
                } else if !is_name_char(c) {
                    break;
                }
                *i += 1;
            }
            let name = (start, *i);
            let quote = byte(b, *i + 1)?;
            if b[*i] != b'=' || !(quote == b'"' || quote == b'\'') {
                return Err(Stop::Unsure);
            }
            let value_start = *i + 2;
            let Some(n) = memchr::memchr(quote, &b[value_start..]) else {
                return Err(Stop::Incomplete);
            };
            *i = value_start + n + 1;
            let raw_name = &b[name.0..name.1];
            match colon {
                Some(c) => {
                    let prefix = &b[name.0..c];
                    let bound = prefix == b"xml"
                        || (prefix != b"xmlns"
                            && self.prefixes.iter().any(|p| p.as_bytes() == prefix));
                    if c + 1 == name.1 || !bound {
                        return Err(Stop::Unsure);
                    }
                }
                None if raw_name == b"xmlns" => return Err(Stop::Unsure),
                None => {}
            }
            let local = |a: &Attr| &b[a.colon.map_or(a.name.0, |c| c + 1)..a.name.1];
            let this_local = &b[colon.map_or(name.0, |c| c + 1)..name.1];
            let clash = self.attrs.iter().any(|a| {
                &b[a.name.0..a.name.1] == raw_name
                    || (a.colon.is_some() && colon.is_some() && local(a) == this_local)
            });
            if clash {
                return Err(Stop::Unsure);
            }
            let value = self.value(src, value_start, value_start + n, true)?;
            self.attrs.push(Attr { name, colon, value });
        }
    }

    /// The unprefixed attribute `name` of the element just scanned.
    fn attr(&self, src: &str, name: &[u8]) -> Option<Val> {
        self.attrs
            .iter()
            .find(|a| a.colon.is_none() && &src.as_bytes()[a.name.0..a.name.1] == name)
            .map(|a| a.value)
    }

    /// After an element's `>`: its text up to `</name>`; `None` when it has none.
    fn text_content(&mut self, src: &str, i: &mut usize, name: &[u8]) -> Step<Option<Val>> {
        let b = src.as_bytes();
        let start = *i;
        let Some(n) = memchr::memchr(b'<', &b[start..]) else {
            return Err(Stop::Incomplete);
        };
        let end = start + n;
        let mut close = end;
        if !next_child(b, &mut close, name)? {
            return Err(Stop::Unsure);
        }
        *i = close;
        if end == start {
            return Ok(None);
        }
        self.value(src, start, end, false).map(Some)
    }

    /// Raw text or an attribute value at `start..end`, decoded as the parser does.
    fn value(&mut self, src: &str, start: usize, end: usize, attribute: bool) -> Step<Val> {
        let raw = src.get(start..end).ok_or(Stop::Unsure)?;
        if verbatim(raw, attribute) {
            return Ok(Val {
                start,
                end,
                decoded: false,
            });
        }
        let from = self.arena.len();
        if attribute {
            if raw.contains('>') {
                return Err(Stop::Unsure);
            }
            attribute_value("", raw, &mut self.arena).map_err(|_| Stop::Unsure)?;
        } else {
            if raw.contains("]]>") {
                return Err(Stop::Unsure);
            }
            let mut rest = raw;
            while let Some(amp) = rest.find('&') {
                push_chars("", &mut self.arena, &normalise_eol(&rest[..amp]), false)
                    .map_err(|_| Stop::Unsure)?;
                let after = &rest[amp + 1..];
                let semi = after.find(';').ok_or(Stop::Unsure)?;
                let c = resolve_reference(&after[..semi]).ok_or(Stop::Unsure)?;
                self.arena.push(c);
                rest = &after[semi + 1..];
            }
            push_chars("", &mut self.arena, &normalise_eol(rest), false)
                .map_err(|_| Stop::Unsure)?;
        }
        Ok(Val {
            start: from,
            end: self.arena.len(),
            decoded: true,
        })
    }

    fn bytes<'s>(&'s self, src: &'s str, v: Val) -> &'s [u8] {
        self.str(src, v).as_bytes()
    }

    /// A value's text (spans lie between ASCII delimiters of valid UTF-8, so
    /// they are always on character boundaries).
    fn str<'s>(&'s self, src: &'s str, v: Val) -> &'s str {
        if v.decoded {
            self.arena.get(v.start..v.end).unwrap_or_default()
        } else {
            src.get(v.start..v.end).unwrap_or_default()
        }
    }
}

/// A row the scanner read whole: its `r` and its cells, as views.
pub(crate) struct ScannedRow<'w> {
    text: &'w str,
    scanner: &'w RowScanner,
}

impl<'w> ScannedRow<'w> {
    fn str(&self, v: Val) -> &'w str {
        if v.decoded {
            self.scanner.arena.get(v.start..v.end).unwrap_or_default()
        } else {
            self.text.get(v.start..v.end).unwrap_or_default()
        }
    }

    /// The row's `r` attribute.
    pub(crate) fn r(&self) -> Option<&'w str> {
        self.scanner.row_r.map(|v| self.str(v))
    }

    /// Its cells in document order.
    pub(crate) fn cells(&self) -> impl Iterator<Item = CellView<'w>> + '_ {
        self.scanner.cells.iter().map(|c| CellView {
            r: c.r.map(|v| self.str(v)),
            s: c.s.map(|v| self.str(v)),
            t: c.t.map(|v| self.str(v)),
            v: c.v.map(|v| self.str(v)),
            f: c.f.map(|f| FormulaView {
                text: f.text.map(|v| self.str(v)),
                t: f.t.map(|v| self.str(v)),
                reference: f.reference.map(|v| self.str(v)),
                si: f.si.map(|v| self.str(v)),
                attrs: &[],
            }),
            is: c.is.map(|v| Inline::Text(self.str(v))),
        })
    }
}
