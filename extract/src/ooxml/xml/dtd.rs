//! The document type declaration: its internal subset is read for entity
//! declarations only (lxml leaves references to them unexpanded in content
//! and expands them in attribute values); every other declaration is
//! checked for its shape and skipped.

use super::chars::{is_blank, is_char, is_name_char, is_name_start};
use super::XmlError;
use std::cell::{Cell, RefCell};
use std::collections::HashMap;

/// libxml2's amplification rule: past a million bytes of expansion, at most
/// five bytes expanded per byte read.
pub(super) const ALLOWED_EXPANSION: u64 = 1_000_000;
/// libxml2's `maxAmpl` default.
pub(super) const MAX_AMPLIFICATION: u64 = 5;
/// libxml2's fixed cost of one entity reference.
pub(super) const REFERENCE_COST: u64 = 20;

/// One general entity of the internal subset.
#[derive(Debug)]
pub(super) struct Entity {
    /// The replacement text of an internal entity (character references expanded).
    pub value: Option<String>,
    /// An unparsed (`NDATA`) external entity, which content may not reference.
    pub unparsed: bool,
    /// Whether its replacement text was checked already (libxml2 checks it once).
    pub checked: Cell<bool>,
    /// The bytes its replacement text expands to, once checked.
    pub size: Cell<u64>,
}

/// What the document type declaration told the parser.
#[derive(Debug, Default)]
pub(super) struct Dtd {
    /// General entities by name, the first declaration of a name winning.
    pub entities: HashMap<String, Entity>,
    /// An external subset or a parameter-entity reference was seen: references to
    /// undeclared entities are then warnings (left as reference nodes), not errors.
    pub lenient: bool,
    /// Entities whose replacement text is being checked (loop detection).
    pub open: RefCell<Vec<String>>,
    /// Bytes that expanding every reference seen so far would produce.
    pub expanded: Cell<u64>,
}

/// A cursor over the declaration's text.
struct Cursor<'a> {
    s: &'a str,
    pos: usize,
}

impl<'a> Cursor<'a> {
    fn rest(&self) -> &'a str {
        self.s.get(self.pos..).unwrap_or("")
    }
    fn peek(&self) -> Option<u8> {
        self.s.as_bytes().get(self.pos).copied()
    }
    fn eat(&mut self, lit: &str) -> bool {
        if self.rest().starts_with(lit) {
            self.pos += lit.len();
            true
        } else {
            false
        }
    }
    fn blanks(&mut self) -> bool {
        let start = self.pos;
        while self.peek().is_some_and(is_blank) {
            self.pos += 1;
        }
        self.pos > start
    }
    fn err(&self, what: &str) -> XmlError {
        XmlError::at(self.pos, what)
    }
    fn name(&mut self) -> Result<&'a str, XmlError> {
        let rest = self.rest();
        let mut chars = rest.char_indices();
        match chars.next() {
            Some((_, c)) if is_name_start(c) || c == ':' => {}
            _ => return Err(self.err("a name expected in the document type declaration")),
        }
        let end = chars
            .find(|&(_, c)| !(is_name_char(c) || c == ':'))
            .map_or(rest.len(), |(i, _)| i);
        self.pos += end;
        Ok(&rest[..end])
    }
    fn quoted(&mut self) -> Result<&'a str, XmlError> {
        let quote = match self.peek() {
            Some(q @ (b'"' | b'\'')) => q,
            _ => return Err(self.err("a quoted string expected in the document type declaration")),
        };
        let body = &self.rest()[1..];
        let close = memchr::memchr(quote, body.as_bytes())
            .ok_or_else(|| self.err("an unclosed string in the document type declaration"))?;
        self.pos += close + 2;
        Ok(&body[..close])
    }
    fn external_id(&mut self) -> Result<bool, XmlError> {
        if self.eat("SYSTEM") {
            self.need_blanks()?;
            self.quoted()?;
            Ok(true)
        } else if self.eat("PUBLIC") {
            self.need_blanks()?;
            self.quoted()?;
            self.need_blanks()?;
            self.quoted()?;
            Ok(true)
        } else {
            Ok(false)
        }
    }
    fn need_blanks(&mut self) -> Result<(), XmlError> {
        if self.blanks() {
            Ok(())
        } else {
            Err(self.err("blank needed in the document type declaration"))
        }
    }
}

/// Reads `<!DOCTYPE …>` starting at `pos` (just past `<!DOCTYPE`); returns the
/// position after it and what it declared.
pub(super) fn parse(s: &str, pos: usize) -> Result<(usize, Dtd), XmlError> {
    let mut c = Cursor { s, pos };
    let mut dtd = Dtd::default();
    c.blanks();
    c.name()?;
    c.blanks();
    if c.external_id()? {
        dtd.lenient = true;
        c.blanks();
    }
    if c.eat("[") {
        internal_subset(&mut c, &mut dtd)?;
        c.blanks();
    }
    if !c.eat(">") {
        return Err(c.err("DOCTYPE improperly terminated"));
    }
    Ok((c.pos, dtd))
}

fn internal_subset(c: &mut Cursor<'_>, dtd: &mut Dtd) -> Result<(), XmlError> {
    loop {
        c.blanks();
        if c.eat("]") {
            return Ok(());
        }
        if c.eat("%") {
            c.name()?;
            if !c.eat(";") {
                return Err(c.err("a parameter-entity reference without ';'"));
            }
            dtd.lenient = true;
        } else if c.eat("<!--") {
            let end = c
                .rest()
                .find("--")
                .ok_or_else(|| c.err("an unclosed comment in the DTD"))?;
            c.pos += end;
            if !c.eat("-->") {
                return Err(c.err("'--' inside a comment in the DTD"));
            }
        } else if c.eat("<?") {
            let end = c
                .rest()
                .find("?>")
                .ok_or_else(|| c.err("an unclosed processing instruction in the DTD"))?;
            c.pos += end + 2;
        } else if c.eat("<!ENTITY") {
            entity_decl(c, dtd)?;
        } else if c.eat("<!ELEMENT") || c.eat("<!ATTLIST") || c.eat("<!NOTATION") {
            skip_decl(c)?;
        } else {
            return Err(c.err("a markup declaration expected in the DTD"));
        }
    }
}

/// Skips an element, attribute-list or notation declaration to its `>`.
fn skip_decl(c: &mut Cursor<'_>) -> Result<(), XmlError> {
    c.need_blanks()?;
    loop {
        match c.peek() {
            None => return Err(c.err("an unterminated declaration in the DTD")),
            Some(b'>') => {
                c.pos += 1;
                return Ok(());
            }
            Some(b'"' | b'\'') => {
                c.quoted()?;
            }
            Some(b'<') => return Err(c.err("'<' inside a declaration in the DTD")),
            Some(_) => {
                let ch = c.rest().chars().next().map_or(1, char::len_utf8);
                c.pos += ch;
            }
        }
    }
}

fn entity_decl(c: &mut Cursor<'_>, dtd: &mut Dtd) -> Result<(), XmlError> {
    c.need_blanks()?;
    let parameter = c.eat("%");
    if parameter {
        c.need_blanks()?;
    }
    let name = c.name()?;
    if name.contains(':') {
        return Err(c.err("colons are forbidden from entity names"));
    }
    c.need_blanks()?;
    let (value, unparsed) = if matches!(c.peek(), Some(b'"' | b'\'')) {
        let raw = c.quoted()?;
        (Some(entity_value(raw, c.pos)?), false)
    } else if c.external_id()? {
        let had_blank = c.blanks();
        let unparsed = had_blank && c.eat("NDATA");
        if unparsed {
            c.need_blanks()?;
            c.name()?;
        }
        (None, unparsed)
    } else {
        return Err(c.err("an entity value or external identifier expected"));
    };
    c.blanks();
    if !c.eat(">") {
        return Err(c.err("an entity declaration not terminated"));
    }
    if !parameter && !dtd.entities.contains_key(name) {
        dtd.entities.insert(
            name.to_string(),
            Entity {
                value,
                unparsed,
                checked: Cell::new(false),
                size: Cell::new(0),
            },
        );
    }
    Ok(())
}

/// An entity value's replacement text: character references expanded, general
/// references kept as written, parameter references refused (internal subset).
fn entity_value(raw: &str, pos: usize) -> Result<String, XmlError> {
    let mut out = String::with_capacity(raw.len());
    let mut rest = raw;
    while let Some(i) = rest.find(['&', '%']) {
        out.push_str(&rest[..i]);
        let after = &rest[i + 1..];
        let end = after
            .find(';')
            .ok_or_else(|| XmlError::at(pos, "a reference without ';' in an entity value"))?;
        let body = &after[..end];
        if rest.as_bytes()[i] == b'%' {
            return Err(XmlError::at(
                pos,
                "a parameter-entity reference inside an entity value of the internal subset",
            ));
        }
        if let Some(num) = body.strip_prefix('#') {
            out.push(
                super::char_ref(num)
                    .ok_or_else(|| XmlError::at(pos, "a bad character reference"))?,
            );
        } else {
            out.push('&');
            out.push_str(body);
            out.push(';');
        }
        rest = &after[end + 1..];
    }
    out.push_str(rest);
    if let Some(bad) = out.chars().find(|&c| !is_char(c)) {
        return Err(XmlError::at(
            pos,
            &format!("invalid character U+{:04X} in an entity value", bad as u32),
        ));
    }
    Ok(out)
}
