//! `PageObject._extract_text` of PyPDF2 3.0.1: the content stream's
//! operators in order, text appended as it is shown. It does not advance
//! the text matrix by glyph widths; a move (`Td`, `TD`, `Tm`, `T*`, and
//! every `Tj`) becomes a newline when the baseline drops by more than 0.8
//! font sizes (per orientation: 0, 90, 180, 270 degrees), or a space when it
//! stays within 0.3 and jumps by more than 15 space widths. In `TJ`, a
//! number at least half the font's space width adds a space unless the text
//! already ends with one. Right-to-left characters are gathered in reverse.
//! Form XObjects (`Do`) are read with their own resources after a newline;
//! their failures are swallowed, as PyPDF2 only warns.

use super::content::Operations;
use super::document::Document;
use super::encoding::{decode_with, latin1, utf16be, Encoding};
use super::error::{fail, Result};
use super::font::{self, Font};
use super::object::{Dict, Object};
use std::collections::HashMap;
use std::rc::Rc;

/// How deep form XObjects may nest (PyPDF2 recurses until Python's limit
/// and swallows the error; past this depth a form reads as empty).
const MAX_FORM_DEPTH: usize = 16;

/// Work units one page or form costs before its content (its dictionary,
/// resources and the state set up to read it).
const EXTRACT_UNITS: usize = 256;

/// Work units building one font costs (its encoding table and lookups);
/// a font named by reference is built once per document.
const FONT_UNITS: usize = 1024;

/// `obj["/Resources"]["/Font"][name]` as a font: built once per referenced
/// font dictionary, each inline one built (and charged) where it is named.
fn font_named(doc: &Document<'_>, own_fonts: &Dict, name: &str) -> Result<Font> {
    let key = match own_fonts.get(name) {
        Some(Object::Ref(id, gen)) => Some((*id, *gen)),
        _ => None,
    };
    if let Some(font) = key.and_then(|k| doc.fonts.borrow().get(&k).cloned()) {
        return Ok(font);
    }
    doc.work(FONT_UNITS)?;
    let ft = doc.must(own_fonts, name)?;
    let font = font::build(doc, &ft)?;
    if let Some(k) = key {
        doc.fonts.borrow_mut().insert(k, font.clone());
    }
    Ok(font)
}

/// How many form XObjects one document may have read (a form showing itself
/// several times multiplies); past it a form reads as empty.
const MAX_FORMS_READ: usize = 10_000;

type Matrix = [f64; 6];
const IDENTITY: Matrix = [1.0, 0.0, 0.0, 1.0, 0.0, 0.0];

fn mult(m: &Matrix, n: &Matrix) -> Matrix {
    [
        m[0] * n[0] + m[1] * n[2],
        m[0] * n[1] + m[1] * n[3],
        m[2] * n[0] + m[3] * n[2],
        m[2] * n[1] + m[3] * n[3],
        m[4] * n[0] + m[5] * n[2] + n[4],
        m[4] * n[1] + m[5] * n[3] + n[5],
    ]
}

fn orient(m: &Matrix) -> u16 {
    if m[3] > 1e-6 {
        0
    } else if m[3] < -1e-6 {
        180
    } else if m[1] > 0.0 {
        90
    } else {
        270
    }
}

/// Where the content of the object being read comes from.
pub(crate) enum Content<'o> {
    /// A page: its `/Contents` (missing: no text).
    Page,
    /// A form XObject: the stream itself.
    Form(&'o super::object::Stream),
}

/// The text of a page (or form) dictionary `obj`.
pub(crate) fn extract(
    doc: &Document<'_>,
    obj: &Dict,
    content: Content<'_>,
    depth: usize,
) -> Result<String> {
    // `while "/Resources" not in objr: objr = objr["/Parent"]`; no resources, no text.
    doc.work(EXTRACT_UNITS)?;
    let mut objr = obj.clone();
    let mut hops = 0;
    while !objr.contains("/Resources") {
        hops += 1;
        doc.work(objr.len())?;
        let parent = match doc.key(&objr, "/Parent") {
            Ok(Some(p)) if hops < 64 => p,
            _ => return Ok(String::new()),
        };
        match parent.as_dict() {
            Some(d) => objr = d.clone(),
            None => return Ok(String::new()),
        }
    }
    let resources = doc.must(&objr, "/Resources")?;
    let Some(resources) = resources.as_dict() else {
        return fail(format!("page /Resources is a {}", resources.kind()));
    };
    let mut fonts = HashMap::new();
    if let Some(font_dict) = doc.key(resources, "/Font")? {
        let Some(font_dict) = font_dict.as_dict() else {
            return fail("/Font resources are not a dictionary");
        };
        // build_char_map reads `obj["/Resources"]["/Font"][name]`.
        let own = match doc.key(obj, "/Resources")? {
            Some(r) => r,
            None => return fail("missing key /Resources (fonts of an inheriting object)"),
        };
        let own_fonts = match own.as_dict() {
            Some(d) => doc.must(d, "/Font")?,
            None => return fail("page /Resources is not a dictionary"),
        };
        let Some(own_fonts) = own_fonts.as_dict() else {
            return fail("/Font resources are not a dictionary");
        };
        for (name, _) in font_dict.iter() {
            fonts.insert(name.clone(), font_named(doc, own_fonts, name)?);
        }
    }
    let data: Rc<[u8]> = match content {
        Content::Page => match doc.key(obj, "/Contents")? {
            None | Some(Object::Null) => return Ok(String::new()),
            Some(Object::Array(items)) => {
                let mut data = Vec::new();
                for item in items.iter() {
                    match doc.resolve(item)? {
                        Object::Stream(s) => {
                            let part = doc.stream_data(&s)?;
                            // The same stream may be listed many times: each copy is work.
                            doc.work(part.len())?;
                            data.extend_from_slice(&part);
                        }
                        other => return fail(format!("a /Contents entry is a {}", other.kind())),
                    }
                    data.push(b'\n');
                }
                data.into()
            }
            Some(Object::Stream(s)) => doc.stream_data(&s)?,
            Some(other) => return fail(format!("/Contents is a {}, not a stream", other.kind())),
        },
        Content::Form(s) => doc.stream_data(s)?,
    };
    // Interpreting is linear in the bytes; the same content read again is charged again.
    doc.work(data.len())?;
    let mut state = State {
        doc,
        resources,
        fonts,
        depth,
        output: String::new(),
        text: Run::default(),
        rtl: false,
        cm: IDENTITY,
        cm_stack: Vec::new(),
        tm: IDENTITY,
        tm_prev: IDENTITY,
        font: Font::initial(),
        space_width: 500.0,
        tl: 0.0,
        font_size: 12.0,
    };
    let mut ops = Operations::new(&data);
    while let Some((operands, op)) = ops.next_op()? {
        state.operation(op, &operands)?;
    }
    let State {
        mut output,
        mut text,
        ..
    } = state;
    text.drain_into(&mut output);
    Ok(output)
}

/// The text shown since the last flush (PyPDF2's `text`): characters put
/// before it (a right-to-left run, kept in reverse) and after it, so that
/// prepending costs O(1) where PyPDF2's `x + text` copies the whole run, a
/// time quadratic in a long right-to-left run.
#[derive(Debug, Default)]
struct Run {
    before: Vec<char>,
    after: String,
}

impl Run {
    fn push(&mut self, c: char) {
        self.after.push(c);
    }

    fn push_str(&mut self, s: &str) {
        self.after.push_str(s);
    }

    fn prepend(&mut self, c: char) {
        self.before.push(c);
    }

    fn last(&self) -> Option<char> {
        self.after
            .chars()
            .next_back()
            .or_else(|| self.before.first().copied())
    }

    fn clear(&mut self) {
        self.before.clear();
        self.after.clear();
    }

    /// Appends the run to `out` and empties it.
    fn drain_into(&mut self, out: &mut String) {
        out.extend(self.before.iter().rev());
        out.push_str(&self.after);
        self.clear();
    }
}

/// What `q` saves.
struct Saved {
    cm: Matrix,
    font: Font,
    font_size: f64,
    space_width: f64,
    tl: f64,
}

struct State<'d, 'a> {
    doc: &'d Document<'a>,
    resources: &'d Dict,
    fonts: HashMap<Rc<str>, Font>,
    depth: usize,
    output: String,
    text: Run,
    rtl: bool,
    cm: Matrix,
    cm_stack: Vec<Saved>,
    tm: Matrix,
    tm_prev: Matrix,
    font: Font,
    space_width: f64,
    tl: f64,
    font_size: f64,
}

/// Python's `float(x)` for an operand.
fn float(o: Option<&Object>) -> Result<f64> {
    match o {
        None => fail("list index out of range (operator without its operands)"),
        Some(Object::Int(i)) => Ok(*i as f64),
        Some(Object::Real(r)) => Ok(*r),
        Some(Object::Str(s)) => match std::str::from_utf8(s)
            .ok()
            .and_then(|t| t.trim().parse::<f64>().ok())
        {
            Some(v) => Ok(v),
            None => fail("could not convert string to float"),
        },
        Some(other) => fail(format!(
            "float() argument must be a number, not a {}",
            other.kind()
        )),
    }
}

fn matrix(operands: &[Object]) -> Result<Matrix> {
    let mut m = [0.0; 6];
    for (i, v) in m.iter_mut().enumerate() {
        *v = float(operands.get(i))?;
    }
    Ok(m)
}

/// What `Tj` was given.
enum Shown<'o> {
    /// A `str` operand (a name, or the space `TJ` inserts): appended as it is.
    Str(&'o str),
    /// String bytes, decoded through the font.
    Bytes(&'o [u8]),
}

impl State<'_, '_> {
    fn flush(&mut self) {
        self.text.drain_into(&mut self.output);
    }

    fn last_char(&self) -> Option<char> {
        self.text.last().or_else(|| self.output.chars().next_back())
    }

    fn operation(&mut self, op: &[u8], operands: &[Object]) -> Result<()> {
        match op {
            b"'" => {
                self.process(b"T*", &[])?;
                self.process(b"Tj", operands)
            }
            b"\"" => {
                self.process(b"Tw", operands.get(..1).unwrap_or(&[]))?;
                if operands.len() < 2 {
                    return fail("list index out of range (\" without its operands)");
                }
                self.process(b"T*", &[])?;
                self.process(b"Tj", &operands[2..])
            }
            b"TD" => {
                let ty = float(operands.get(1))
                    .map_err(|_| super::error::PdfError::new("bad operand for unary -"))?;
                self.tl = -ty;
                self.process(b"Td", operands)
            }
            b"TJ" => self.show_array(operands.first()),
            b"Do" => {
                self.flush();
                if self.output.chars().next_back().is_some_and(|c| c != '\n') {
                    self.output.push('\n');
                }
                match self.form_text(operands.first()) {
                    Ok(Some(t)) => self.output.push_str(&t),
                    // A bound ends reading; any other failure PyPDF2 only warns about.
                    Err(e) if e.is_bound() => return Err(e),
                    Ok(None) | Err(_) => {}
                }
                self.text.clear();
                Ok(())
            }
            _ => self.process(op, operands),
        }
    }

    fn form_text(&self, name: Option<&Object>) -> Result<Option<String>> {
        let name = name
            .and_then(Object::as_name)
            .ok_or_else(|| super::error::PdfError::new("Do without a name"))?;
        let xobjects = self.doc.must(self.resources, "/XObject")?;
        let xobjects = xobjects
            .as_dict()
            .ok_or_else(|| super::error::PdfError::new("/XObject is not a dictionary"))?;
        let form = self.doc.must(xobjects, name)?;
        let dict = form
            .as_dict()
            .ok_or_else(|| super::error::PdfError::new("an XObject is not a dictionary"))?;
        let subtype = self.doc.must(dict, "/Subtype")?;
        if subtype.as_name() == Some("/Image") {
            return Ok(None);
        }
        if self.depth >= MAX_FORM_DEPTH || self.doc.forms_read.get() >= MAX_FORMS_READ {
            return fail("form XObjects nested too deeply or read too often");
        }
        self.doc.forms_read.set(self.doc.forms_read.get() + 1);
        let Object::Stream(stream) = &form else {
            return fail("a form XObject is not a stream");
        };
        extract(
            self.doc,
            &stream.dict,
            Content::Form(stream),
            self.depth + 1,
        )
        .map(Some)
    }

    fn show_array(&mut self, arg: Option<&Object>) -> Result<()> {
        let gap = |state: &mut Self, v: f64| -> Result<()> {
            if v.abs() >= state.space_width && state.text.last().is_some_and(|c| c != ' ') {
                state.show(Shown::Str(" "))?;
            }
            Ok(())
        };
        match arg {
            None => fail("list index out of range (TJ without its array)"),
            Some(Object::Array(items)) => {
                for item in items.iter() {
                    match item {
                        Object::Str(s) => self.show(Shown::Bytes(s))?,
                        Object::Name(n) => self.show(Shown::Str(n))?,
                        Object::Int(i) => gap(self, *i as f64)?,
                        Object::Real(r) => gap(self, *r)?,
                        _ => {}
                    }
                }
                Ok(())
            }
            Some(Object::Str(s)) => {
                for &b in s.iter() {
                    gap(self, f64::from(b))?;
                }
                Ok(())
            }
            Some(Object::Name(n)) => {
                for c in n.chars() {
                    let mut buf = [0u8; 4];
                    self.show(Shown::Str(c.encode_utf8(&mut buf)))?;
                }
                Ok(())
            }
            Some(other) => fail(format!("'{}' object is not iterable (TJ)", other.kind())),
        }
    }

    fn process(&mut self, op: &[u8], operands: &[Object]) -> Result<()> {
        match op {
            b"BT" => {
                self.tm = IDENTITY;
                self.flush();
                return Ok(());
            }
            b"ET" => self.flush(),
            b"q" => self.cm_stack.push(Saved {
                cm: self.cm,
                font: self.font.clone(),
                font_size: self.font_size,
                space_width: self.space_width,
                tl: self.tl,
            }),
            b"Q" => match self.cm_stack.pop() {
                Some(s) => {
                    self.cm = s.cm;
                    self.font = s.font;
                    self.font_size = s.font_size;
                    self.space_width = s.space_width;
                    self.tl = s.tl;
                }
                None => self.cm = IDENTITY,
            },
            b"cm" => {
                self.flush();
                self.cm = mult(&matrix(operands)?, &self.cm);
            }
            b"Tz" | b"Tw" => {
                float(operands.first())?;
            }
            b"TL" => self.tl = float(operands.first())?,
            b"Tf" => {
                self.flush();
                let Some(name) = operands.first() else {
                    return fail("list index out of range (Tf without a font)");
                };
                let Object::Name(name) = name else {
                    return fail(format!("Tf names its font with a {}", name.kind()));
                };
                let font = self.fonts.get(name).cloned().unwrap_or_else(Font::unknown);
                self.space_width = font.space_width;
                self.font = font;
                if let Ok(size) = float(operands.get(1)) {
                    self.font_size = size;
                }
            }
            b"Td" => {
                let tx = float(operands.first())?;
                let ty = float(operands.get(1))?;
                self.tm[4] += tx * self.tm[0] + ty * self.tm[2];
                self.tm[5] += tx * self.tm[1] + ty * self.tm[3];
                self.after_move();
            }
            b"Tm" => {
                self.tm = matrix(operands)?;
                self.after_move();
            }
            b"T*" => {
                self.tm[5] -= self.tl;
                self.after_move();
            }
            b"Tj" => match operands.first() {
                None => return fail("list index out of range (Tj without a string)"),
                Some(Object::Str(s)) => self.show(Shown::Bytes(s))?,
                Some(Object::Name(n)) => self.show(Shown::Str(n))?,
                Some(other) => return fail(format!("Tj shows a {}, not a string", other.kind())),
            },
            _ => {}
        }
        Ok(())
    }

    /// `Tj` for one operand, then the move check.
    fn show(&mut self, shown: Shown<'_>) -> Result<()> {
        match shown {
            Shown::Str(s) => self.text.push_str(s),
            Shown::Bytes(bytes) => {
                let decoded = self.decode(bytes)?;
                let map = Rc::clone(&self.font.map);
                for c in decoded.chars() {
                    match map.get(c) {
                        Some(t) => {
                            for x in t.chars() {
                                self.push_char(x);
                            }
                        }
                        None => self.push_char(c),
                    }
                }
            }
        }
        self.after_move();
        Ok(())
    }

    fn decode(&self, bytes: &[u8]) -> Result<String> {
        match &*self.font.encoding {
            Encoding::Codec(c) => Ok(match decode_with(c, bytes) {
                Some(t) => t,
                None if c == "charmap" => match utf16be(bytes) {
                    Some(t) => t,
                    None => return fail("'utf-16-be' codec can't decode bytes: truncated data"),
                },
                None => latin1(bytes),
            }),
            Encoding::Table(t) => {
                let mut out = String::with_capacity(bytes.len());
                for &b in bytes {
                    match t.get(usize::from(b)).and_then(Option::as_ref) {
                        Some(s) => out.push_str(s),
                        None if b < 0x80 => out.push(char::from(b)),
                        None => return fail(format!("'utf-8' codec can't decode byte 0x{b:02x}")),
                    }
                }
                Ok(out)
            }
        }
    }

    /// One character into the text, right-to-left runs reversed.
    fn push_char(&mut self, x: char) {
        let xx = x as u32;
        let neutral = xx <= 0x2F
            || (0x3A..=0x40).contains(&xx)
            || (0x2000..=0x206F).contains(&xx)
            || (0x20A0..=0x21FF).contains(&xx);
        let rtl = (0x0590..=0x08FF).contains(&xx)
            || (0xFB1D..=0xFDFF).contains(&xx)
            || (0xFE70..=0xFEFF).contains(&xx);
        if neutral {
            if self.rtl {
                self.text.prepend(x);
            } else {
                self.text.push(x);
            }
        } else if rtl {
            if !self.rtl {
                self.rtl = true;
                self.flush();
            }
            self.text.prepend(x);
        } else {
            if self.rtl {
                self.rtl = false;
                self.flush();
            }
            self.text.push(x);
        }
    }

    /// The `check_crlf_space` block.
    fn after_move(&mut self) {
        let m = mult(&self.tm, &self.cm);
        let orientation = orient(&m);
        let dx = m[4] - self.tm_prev[4];
        let dy = m[5] - self.tm_prev[5];
        let k = ((m[0] * m[3]).abs() + (m[1] * m[2]).abs()).sqrt();
        let f = self.font_size * k;
        self.tm_prev = m;
        let sw = self.space_width / 1000.0;
        let (newline, space) = match orientation {
            0 => (
                dy < -0.8 * f,
                dy.abs() < f * 0.3 && dx.abs() > sw * f * 15.0,
            ),
            180 => (dy > 0.8 * f, dy.abs() < f * 0.3 && dx.abs() > sw * f * 15.0),
            90 => (dx > 0.8 * f, dx.abs() < f * 0.3 && dy.abs() > sw * f * 15.0),
            _ => (
                dx < -0.8 * f,
                dx.abs() < f * 0.3 && dy.abs() > sw * f * 15.0,
            ),
        };
        let Some(last) = self.last_char() else {
            return; // `(output + text)[-1]` raises on empty text; PyPDF2 passes
        };
        if newline {
            if last != '\n' {
                self.text.push('\n');
                self.flush();
            }
        } else if space && last != ' ' {
            self.text.push(' ');
        }
    }
}
