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
    /// Parameter entities' replacement texts.
    pub parameters: HashMap<String, String>,
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
            pubid(self)?;
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
        internal_subset(&mut c, &mut dtd, 0)?;
        c.blanks();
    }
    if !c.eat(">") {
        return Err(c.err("DOCTYPE improperly terminated"));
    }
    Ok((c.pos, dtd))
}

/// How deep parameter entities may nest inside the internal subset.
const MAX_PE_DEPTH: usize = 40;

fn internal_subset(c: &mut Cursor<'_>, dtd: &mut Dtd, depth: usize) -> Result<(), XmlError> {
    loop {
        c.blanks();
        if depth == 0 && c.eat("]") {
            return Ok(());
        }
        if depth > 0 && c.peek().is_none() {
            return Ok(());
        }
        if c.eat("%") {
            let name = c.name()?.to_string();
            if !c.eat(";") {
                return Err(c.err("a parameter-entity reference without ';'"));
            }
            match dtd.parameters.get(&name).cloned() {
                Some(value) if depth < MAX_PE_DEPTH => {
                    let text = format!(" {value} ");
                    let mut inner = Cursor { s: &text, pos: 0 };
                    internal_subset(&mut inner, dtd, depth + 1)?;
                }
                Some(_) => return Err(c.err("parameter entities nested too deep")),
                None => dtd.lenient = true,
            }
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
            let target = c.name()?;
            if target.contains(':') || target.eq_ignore_ascii_case("xml") {
                return Err(c.err("an invalid processing-instruction target in the DTD"));
            }
            if !c.eat("?>") {
                c.need_blanks()?;
                let end = c
                    .rest()
                    .find("?>")
                    .ok_or_else(|| c.err("an unclosed processing instruction in the DTD"))?;
                c.pos += end + 2;
            }
        } else if c.eat("<!ENTITY") {
            entity_decl(c, dtd)?;
        } else if c.eat("<!ELEMENT") {
            element_decl(c)?;
        } else if c.eat("<!ATTLIST") {
            attlist_decl(c)?;
        } else if c.eat("<!NOTATION") {
            notation_decl(c)?;
        } else {
            return Err(c.err("a markup declaration expected in the DTD"));
        }
    }
}

fn end_decl(c: &mut Cursor<'_>) -> Result<(), XmlError> {
    c.blanks();
    if c.eat(">") {
        Ok(())
    } else {
        Err(c.err("a declaration not terminated in the DTD"))
    }
}

/// `<!ELEMENT Name contentspec>`.
fn element_decl(c: &mut Cursor<'_>) -> Result<(), XmlError> {
    c.need_blanks()?;
    c.name()?;
    c.need_blanks()?;
    if !(c.eat("EMPTY") || c.eat("ANY")) {
        if !c.eat("(") {
            return Err(c.err("a content specification expected"));
        }
        c.blanks();
        if c.eat("#PCDATA") {
            c.blanks();
            if c.eat(")") {
                c.eat("*");
            } else {
                loop {
                    if c.eat("|") {
                        c.blanks();
                        c.name()?;
                        c.blanks();
                    } else if c.eat(")*") {
                        break;
                    } else {
                        return Err(c.err("a malformed mixed content model"));
                    }
                }
            }
        } else {
            group(c, 0)?;
        }
    }
    end_decl(c)
}

/// The rest of a `choice` or `seq` group (after its `(`), then its occurrence mark.
fn group(c: &mut Cursor<'_>, depth: usize) -> Result<(), XmlError> {
    if depth > MAX_PE_DEPTH {
        return Err(c.err("a content model nested too deep"));
    }
    let mut separator: Option<u8> = None;
    loop {
        c.blanks();
        if c.eat("(") {
            group(c, depth + 1)?;
        } else {
            c.name()?;
            occurrence(c);
        }
        c.blanks();
        if c.eat(")") {
            occurrence(c);
            return Ok(());
        }
        match c.peek() {
            Some(sep @ (b'|' | b',')) if separator.is_none_or(|s| s == sep) => {
                separator = Some(sep);
                c.pos += 1;
            }
            _ => return Err(c.err("a malformed content model")),
        }
    }
}

fn occurrence(c: &mut Cursor<'_>) {
    if matches!(c.peek(), Some(b'?' | b'*' | b'+')) {
        c.pos += 1;
    }
}

/// `<!ATTLIST Name AttDef*>`.
fn attlist_decl(c: &mut Cursor<'_>) -> Result<(), XmlError> {
    c.need_blanks()?;
    c.name()?;
    loop {
        let had_blank = c.blanks();
        if c.eat(">") {
            return Ok(());
        }
        if !had_blank {
            return Err(c.err("a blank expected between attribute definitions"));
        }
        c.name()?;
        c.need_blanks()?;
        let keyword = [
            "CDATA", "IDREFS", "IDREF", "ID", "ENTITY", "ENTITIES", "NMTOKENS", "NMTOKEN",
        ]
        .iter()
        .any(|k| c.eat(k));
        if !keyword {
            let notation = c.eat("NOTATION");
            if notation {
                c.need_blanks()?;
            }
            if !c.eat("(") {
                return Err(c.err("an attribute type expected"));
            }
            loop {
                c.blanks();
                nmtoken(c)?;
                c.blanks();
                if c.eat(")") {
                    break;
                }
                if !c.eat("|") {
                    return Err(c.err("a malformed enumerated attribute type"));
                }
            }
        }
        c.need_blanks()?;
        if !(c.eat("#REQUIRED") || c.eat("#IMPLIED")) {
            if c.eat("#FIXED") {
                c.need_blanks()?;
            }
            if c.quoted()?.contains('<') {
                return Err(c.err("'<' in a default attribute value"));
            }
        }
    }
}

fn nmtoken(c: &mut Cursor<'_>) -> Result<(), XmlError> {
    let rest = c.rest();
    let end = rest
        .char_indices()
        .find(|&(_, ch)| !(is_name_char(ch) || ch == ':'))
        .map_or(rest.len(), |(i, _)| i);
    if end == 0 {
        return Err(c.err("a name token expected"));
    }
    c.pos += end;
    Ok(())
}

/// `<!NOTATION Name (ExternalID | PublicID)>`.
fn notation_decl(c: &mut Cursor<'_>) -> Result<(), XmlError> {
    c.need_blanks()?;
    c.name()?;
    c.need_blanks()?;
    if c.eat("SYSTEM") {
        c.need_blanks()?;
        c.quoted()?;
    } else if c.eat("PUBLIC") {
        c.need_blanks()?;
        pubid(c)?;
        if c.blanks() && matches!(c.peek(), Some(b'"' | b'\'')) {
            c.quoted()?;
        }
    } else {
        return Err(c.err("an external or public identifier expected"));
    }
    end_decl(c)
}

/// A `PubidLiteral`.
fn pubid(c: &mut Cursor<'_>) -> Result<(), XmlError> {
    let literal = c.quoted()?;
    let ok = literal
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || b" \r\n-'()+,./:=?;!*#@$_%".contains(&b));
    if ok {
        Ok(())
    } else {
        Err(c.err("an invalid character in a public identifier"))
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
        (Some(entity_value(raw, c.pos, dtd)?), false)
    } else if c.external_id()? {
        let had_blank = c.blanks();
        let unparsed = had_blank && c.eat("NDATA");
        if unparsed {
            if parameter {
                return Err(c.err("a parameter entity cannot be unparsed"));
            }
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
    if parameter {
        if let Some(v) = value {
            dtd.parameters.entry(name.to_string()).or_insert(v);
        } else {
            dtd.lenient = true;
        }
    } else if !dtd.entities.contains_key(name) {
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

/// An entity value's replacement text: character and parameter-entity
/// references expanded (an undeclared parameter entity to nothing), general
/// references kept as written.
fn entity_value(raw: &str, pos: usize, dtd: &mut Dtd) -> Result<String, XmlError> {
    let mut out = String::with_capacity(raw.len());
    let mut rest = raw;
    while let Some(i) = rest.find(['&', '%']) {
        out.push_str(&rest[..i]);
        let after = &rest[i + 1..];
        let end = after
            .find(';')
            .ok_or_else(|| XmlError::at(pos, "a reference without ';' in an entity value"))?;
        let body = &after[..end];
        let is_name = body
            .chars()
            .next()
            .is_some_and(|c| is_name_start(c) || c == ':')
            && body.chars().all(|c| is_name_char(c) || c == ':');
        if !(is_name || rest.as_bytes()[i] == b'&' && body.starts_with('#')) {
            return Err(XmlError::at(
                pos,
                "a malformed reference in an entity value",
            ));
        }
        if rest.as_bytes()[i] == b'%' {
            dtd.lenient = true;
            if let Some(v) = dtd.parameters.get(body) {
                out.push_str(v);
            }
        } else if let Some(num) = body.strip_prefix('#') {
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
        if out.len() > super::chars::MAX_TEXT_BYTES {
            return Err(XmlError::at(pos, "an entity value too long"));
        }
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
