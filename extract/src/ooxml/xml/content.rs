//! The reader proper: prolog, elements, attributes, character data and the
//! blank-text heuristic of libxml2's `areBlanks`.

use super::chars::{
    is_blank, is_char, is_name_char, is_name_start, MAX_NAME_BYTES, MAX_TEXT_BYTES,
};
use super::dtd::{self, Dtd, ALLOWED_EXPANSION, MAX_AMPLIFICATION, REFERENCE_COST};
use super::{char_ref, ns, XmlError};
use std::borrow::Cow;
use std::rc::Rc;

/// libxml2's deepest nesting without `XML_PARSE_HUGE` (the 258th level fails).
const LIBXML_MAX_DEPTH: usize = 257;

/// One attribute of an element (namespace declarations left out).
#[derive(Debug, Clone)]
pub(crate) struct Attr<'a> {
    /// Its namespace URI, `None` for an unprefixed name.
    pub ns: Option<Rc<str>>,
    /// Its local name.
    pub local: &'a str,
    /// Its normalised value.
    pub value: Cow<'a, str>,
}

/// A start tag, its names resolved.
#[derive(Debug, Clone)]
pub(crate) struct Element<'a> {
    /// The element's namespace URI.
    pub ns: Option<Rc<str>>,
    /// Its local name.
    pub local: &'a str,
    /// Its attributes in document order.
    pub attrs: Vec<Attr<'a>>,
}

impl Element<'_> {
    /// Whether the element is `{ns}local`.
    pub(crate) fn is(&self, ns: &str, local: &str) -> bool {
        self.local == local && self.ns.as_deref() == Some(ns)
    }

    /// The value of attribute `{ns}local` (`ns` `None`: unprefixed).
    pub(crate) fn attr(&self, ns: Option<&str>, local: &str) -> Option<&str> {
        self.attrs
            .iter()
            .find(|a| a.local == local && a.ns.as_deref() == ns)
            .map(|a| a.value.as_ref())
    }
}

/// What the reader found next.
#[derive(Debug)]
pub(crate) enum Event<'a> {
    /// A start tag (an empty element is followed by its `End`).
    Start(Element<'a>),
    /// The end of the innermost open element.
    End,
    /// Character data lxml keeps, line ends normalised; consecutive events
    /// belong to one text node until another event intervenes.
    Text(Cow<'a, str>),
    /// A comment, processing instruction or unexpanded entity reference in content.
    Node,
    /// The end of the document.
    Eof,
}

/// An open element and what libxml2 knows of its children so far.
struct Open<'a> {
    qname: &'a str,
    ns_mark: usize,
    /// libxml2's `ctxt->space`: -1 inherit, 0 default, 1 preserve, -2 text seen.
    space: i8,
    has_children: bool,
    first_text: bool,
    last_text: bool,
    text_len: usize,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    Start,
    Prolog,
    Content,
    Epilog,
    Done,
}

/// A pull reader over one decoded document (or an entity's replacement text).
pub(crate) struct Reader<'a> {
    s: &'a str,
    pos: usize,
    state: State,
    open: Vec<Open<'a>>,
    /// Prefix ("" for the default namespace) to URI (`None`: undeclared).
    bindings: Vec<(Rc<str>, Option<Rc<str>>)>,
    dtd: Rc<Dtd>,
    max_depth: usize,
    pending_end: bool,
    /// Open elements that belong to the referencing document (entity checks).
    base: usize,
    /// Expansion of the references this reader met.
    expanded: u64,
}

fn fast_ok(b: u8) -> bool {
    (0x20..=0x7F).contains(&b) || b == b'\t' || b == b'\n'
}

impl<'a> Reader<'a> {
    /// A reader at the start of a document.
    pub(super) fn new(s: &'a str, max_depth: usize) -> Result<Self, XmlError> {
        Ok(Reader {
            s,
            pos: 0,
            state: State::Start,
            open: Vec::new(),
            bindings: Vec::new(),
            dtd: Rc::new(Dtd::default()),
            max_depth: max_depth.min(LIBXML_MAX_DEPTH),
            pending_end: false,
            base: 0,
            expanded: 0,
        })
    }

    fn err(&self, what: &str) -> XmlError {
        XmlError::at(self.pos, what)
    }

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

    /// The next event.
    pub(crate) fn next(&mut self) -> Result<Event<'a>, XmlError> {
        if self.pending_end {
            self.pending_end = false;
            self.pop();
            return Ok(Event::End);
        }
        loop {
            match self.state {
                State::Start => {
                    self.state = State::Prolog;
                    if self.rest().starts_with("<?xml")
                        && self
                            .s
                            .as_bytes()
                            .get(5)
                            .is_some_and(|&b| is_blank(b) || b == b'?')
                    {
                        self.xml_decl()?;
                    }
                }
                State::Prolog => return self.prolog(),
                State::Content => {
                    if let Some(event) = self.content()? {
                        return Ok(event);
                    }
                }
                State::Epilog => {
                    self.misc()?;
                    if self.pos < self.s.len() {
                        return Err(self.err("extra content at the end of the document"));
                    }
                    self.state = State::Done;
                }
                State::Done => return Ok(Event::Eof),
            }
        }
    }

    /// `<?xml version=… encoding=… standalone=…?>` (the encoding was applied when decoding).
    fn xml_decl(&mut self) -> Result<(), XmlError> {
        self.pos += 5;
        self.blanks();
        if !self.eat("version") {
            return Err(self.err("malformed XML declaration: version expected"));
        }
        let version = self.decl_value()?;
        let bytes = version.as_bytes();
        let well_formed = bytes.len() >= 2
            && bytes[0].is_ascii_digit()
            && bytes[1] == b'.'
            && bytes[2..].iter().all(u8::is_ascii_digit);
        if !well_formed || !version.starts_with("1.") {
            return Err(self.err("unsupported XML version"));
        }
        let mut had_blank = self.blanks();
        if had_blank && self.eat("encoding") {
            let value = self.decl_value()?;
            let mut cs = value.chars();
            let ok = cs.next().is_some_and(|c| c.is_ascii_alphabetic())
                && cs.all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'));
            if !ok {
                return Err(self.err("a malformed encoding name in the XML declaration"));
            }
            had_blank = self.blanks();
        }
        if had_blank && self.eat("standalone") {
            let value = self.decl_value()?;
            if !matches!(value, "yes" | "no") {
                return Err(self.err("standalone accepts only 'yes' or 'no'"));
            }
        }
        self.blanks();
        if !self.eat("?>") {
            return Err(self.err("'?>' expected to end the XML declaration"));
        }
        Ok(())
    }

    fn decl_value(&mut self) -> Result<&'a str, XmlError> {
        self.blanks();
        if !self.eat("=") {
            return Err(self.err("'=' expected in the XML declaration"));
        }
        self.blanks();
        let quote = match self.peek() {
            Some(q @ (b'"' | b'\'')) => q,
            _ => return Err(self.err("a quoted value expected in the XML declaration")),
        };
        let body = &self.rest()[1..];
        let end = memchr::memchr(quote, body.as_bytes())
            .ok_or_else(|| self.err("an unclosed value in the XML declaration"))?;
        self.pos += end + 2;
        Ok(&body[..end])
    }

    /// Comments, processing instructions and blanks outside the root element.
    fn misc(&mut self) -> Result<(), XmlError> {
        loop {
            self.blanks();
            if self.rest().starts_with("<!--") {
                self.comment()?;
            } else if self.rest().starts_with("<?") {
                self.pi()?;
            } else {
                return Ok(());
            }
        }
    }

    fn prolog(&mut self) -> Result<Event<'a>, XmlError> {
        let mut doctype_seen = false;
        loop {
            self.misc()?;
            if self.rest().starts_with("<!DOCTYPE") {
                if doctype_seen {
                    return Err(self.err("a second document type declaration"));
                }
                doctype_seen = true;
                let (end, dtd) = dtd::parse(self.s, self.pos + 9)?;
                self.pos = end;
                self.dtd = Rc::new(dtd);
                continue;
            }
            return match self.peek() {
                None => Err(self.err("the document is empty")),
                Some(b'<') => {
                    self.state = State::Content;
                    self.start_tag()
                }
                Some(_) => Err(self.err("start tag expected, '<' not found")),
            };
        }
    }

    fn comment(&mut self) -> Result<(), XmlError> {
        self.pos += 4;
        let rest = self.rest();
        let end = memchr::memmem::find(rest.as_bytes(), b"--")
            .ok_or_else(|| self.err("an unclosed comment"))?;
        self.check_chars(&rest[..end])?;
        self.pos += end;
        if !self.eat("-->") {
            return Err(self.err("'--' inside a comment"));
        }
        Ok(())
    }

    fn pi(&mut self) -> Result<(), XmlError> {
        self.pos += 2;
        let target = self.name()?;
        if target.contains(':') {
            return Err(self.err("colons are forbidden from processing-instruction names"));
        }
        if target.eq_ignore_ascii_case("xml") {
            return Err(self.err("an XML declaration or 'xml' target not at the start"));
        }
        if self.eat("?>") {
            return Ok(());
        }
        if !self.blanks() {
            return Err(self.err("a blank expected after a processing-instruction target"));
        }
        let rest = self.rest();
        let end = memchr::memmem::find(rest.as_bytes(), b"?>")
            .ok_or_else(|| self.err("an unclosed processing instruction"))?;
        self.check_chars(&rest[..end])?;
        self.pos += end + 2;
        Ok(())
    }

    /// Every character of `text` is an XML `Char`.
    fn check_chars(&self, text: &str) -> Result<(), XmlError> {
        let bad = if text.is_ascii() {
            text.bytes()
                .find(|&b| b < 0x20 && !is_blank(b))
                .map(char::from)
        } else {
            text.chars().find(|&c| !is_char(c))
        };
        match bad {
            Some(c) => Err(self.err(&format!("invalid character U+{:04X}", c as u32))),
            None => Ok(()),
        }
    }

    /// A `Name` (colons allowed), as in processing-instruction targets and references.
    fn name(&mut self) -> Result<&'a str, XmlError> {
        let rest = self.rest();
        let mut chars = rest.char_indices();
        match chars.next() {
            Some((_, c)) if is_name_start(c) || c == ':' => {}
            _ => return Err(self.err("a name expected")),
        }
        let end = chars
            .find(|&(_, c)| !(is_name_char(c) || c == ':'))
            .map_or(rest.len(), |(i, _)| i);
        if end > MAX_NAME_BYTES {
            return Err(self.err("a name too long"));
        }
        self.pos += end;
        Ok(&rest[..end])
    }

    fn ncname(&mut self) -> Option<&'a str> {
        let rest = self.rest();
        let mut chars = rest.char_indices();
        match chars.next() {
            Some((_, c)) if is_name_start(c) => {}
            _ => return None,
        }
        let end = chars
            .find(|&(_, c)| !is_name_char(c))
            .map_or(rest.len(), |(i, _)| i);
        self.pos += end;
        Some(&rest[..end])
    }

    /// A `QName`: the whole name, its prefix and its local part.
    fn qname(&mut self) -> Result<(&'a str, Option<&'a str>, &'a str), XmlError> {
        let start = self.pos;
        let first = self
            .ncname()
            .ok_or_else(|| self.err("an invalid element or attribute name"))?;
        let (prefix, local) = if self.peek() == Some(b':') {
            self.pos += 1;
            let local = self
                .ncname()
                .ok_or_else(|| self.err("failed to parse a QName"))?;
            (Some(first), local)
        } else {
            (None, first)
        };
        if self.peek() == Some(b':') {
            return Err(self.err("failed to parse a QName (a second colon)"));
        }
        if self.pos - start > MAX_NAME_BYTES {
            return Err(self.err("a name too long"));
        }
        Ok((&self.s[start..self.pos], prefix, local))
    }

    fn lookup(&self, prefix: &str) -> Option<Rc<str>> {
        if prefix == "xml" {
            return Some(Rc::from(ns::XML));
        }
        self.bindings
            .iter()
            .rev()
            .find(|(p, _)| &**p == prefix)
            .and_then(|(_, uri)| uri.clone())
    }

    fn start_tag(&mut self) -> Result<Event<'a>, XmlError> {
        self.pos += 1;
        let (qname, prefix, local) = self.qname()?;
        let mut raw: Vec<(&'a str, Option<&'a str>, &'a str, Cow<'a, str>)> = Vec::new();
        let empty = loop {
            let had_blank = self.blanks();
            match self.peek() {
                Some(b'>') => {
                    self.pos += 1;
                    break false;
                }
                Some(b'/') => {
                    if !self.eat("/>") {
                        return Err(self.err("'/>' expected"));
                    }
                    break true;
                }
                None => return Err(self.err("premature end of data in a start tag")),
                Some(_) if !had_blank => return Err(self.err("attributes construct error")),
                Some(_) => {}
            }
            let (aq, ap, al) = self.qname()?;
            self.blanks();
            if !self.eat("=") {
                return Err(self.err("'=' expected after an attribute name"));
            }
            self.blanks();
            let value = self.att_value()?;
            if raw.iter().any(|(q, ..)| *q == aq) {
                return Err(self.err("an attribute redefined"));
            }
            raw.push((aq, ap, al, value));
        };
        if self.open.len() >= self.max_depth {
            return Err(self.err("excessive depth in document"));
        }
        let ns_mark = self.bindings.len();
        for (_, ap, al, value) in &raw {
            let declared: Option<&str> = match (ap, *al) {
                (None, "xmlns") => Some(""),
                (Some("xmlns"), p) => Some(p),
                _ => None,
            };
            let Some(p) = declared else { continue };
            let v: &str = value;
            if p == "xmlns" || v == ns::XMLNS {
                return Err(self.err("the xmlns prefix or namespace cannot be declared"));
            }
            if (p == "xml") != (v == ns::XML) {
                return Err(self.err("the xml prefix and namespace belong together"));
            }
            if !v.is_empty() && !super::uri::is_uri_reference(v) {
                return Err(self.err("a namespace name that is not a valid URI"));
            }
            if p.is_empty() {
                let uri = (!v.is_empty()).then(|| Rc::from(v));
                self.bindings.push((Rc::from(""), uri));
            } else if v.is_empty() {
                return Err(self.err("an empty namespace URI for a prefix"));
            } else if p != "xml" {
                self.bindings.push((Rc::from(p), Some(Rc::from(v))));
            }
        }
        let element_ns = match prefix {
            Some(p) => Some(
                self.lookup(p)
                    .ok_or_else(|| self.err("an undeclared namespace prefix on an element"))?,
            ),
            None => self.lookup(""),
        };
        let mut attrs: Vec<Attr<'a>> = Vec::with_capacity(raw.len());
        let mut space: Option<i8> = None;
        for (_, ap, al, value) in raw {
            let ns =
                match ap {
                    None if al == "xmlns" => continue,
                    Some("xmlns") => continue,
                    None => None,
                    Some(p) => Some(self.lookup(p).ok_or_else(|| {
                        self.err("an undeclared namespace prefix on an attribute")
                    })?),
                };
            if attrs.iter().any(|a| a.local == al && a.ns == ns) {
                return Err(self.err("a namespaced attribute redefined"));
            }
            if ap == Some("xml") && al == "space" {
                space = match value.as_ref() {
                    "preserve" => Some(1),
                    "default" => Some(0),
                    _ => space,
                };
            }
            attrs.push(Attr {
                ns,
                local: al,
                value,
            });
        }
        let inherited = match self.open.last() {
            None => -1,
            Some(parent) if parent.space == -2 => -1,
            Some(parent) => parent.space,
        };
        self.child_node();
        self.open.push(Open {
            qname,
            ns_mark,
            space: space.unwrap_or(inherited),
            has_children: false,
            first_text: false,
            last_text: false,
            text_len: 0,
        });
        self.pending_end = empty;
        Ok(Event::Start(Element {
            ns: element_ns,
            local,
            attrs,
        }))
    }

    /// A quoted attribute value, normalised as libxml2 does (entities expanded).
    fn att_value(&mut self) -> Result<Cow<'a, str>, XmlError> {
        let quote = match self.peek() {
            Some(q @ (b'"' | b'\'')) => q,
            _ => return Err(self.err("a quoted attribute value expected")),
        };
        let body = &self.rest()[1..];
        let end = memchr::memchr(quote, body.as_bytes())
            .ok_or_else(|| self.err("an unclosed attribute value"))?;
        let raw = &body[..end];
        if raw.contains('<') {
            return Err(self.err("an unescaped '<' in an attribute value"));
        }
        self.check_chars(raw)?;
        let value = if raw
            .bytes()
            .any(|b| matches!(b, b'&' | b'\t' | b'\n' | b'\r'))
        {
            let mut out = String::with_capacity(raw.len());
            let mut stack = Vec::new();
            self.expand_attr(raw, &mut out, &mut stack, true)?;
            Cow::Owned(out)
        } else {
            Cow::Borrowed(raw)
        };
        if value.len() > MAX_TEXT_BYTES {
            return Err(self.err("an attribute value too long"));
        }
        self.pos += end + 2;
        Ok(value)
    }

    fn expand_attr(
        &self,
        raw: &str,
        out: &mut String,
        stack: &mut Vec<String>,
        literal: bool,
    ) -> Result<(), XmlError> {
        let mut rest = raw;
        loop {
            let found = if literal {
                rest.find(['&', '\t', '\n', '\r'])
            } else {
                rest.find('&')
            };
            let Some(i) = found else {
                out.push_str(rest);
                return Ok(());
            };
            out.push_str(&rest[..i]);
            let b = rest.as_bytes()[i];
            if b != b'&' {
                out.push(' ');
                let skip = if b == b'\r' && rest.as_bytes().get(i + 1) == Some(&b'\n') {
                    2
                } else {
                    1
                };
                rest = &rest[i + skip..];
                continue;
            }
            let after = &rest[i + 1..];
            let end = after
                .find(';')
                .ok_or_else(|| self.err("a reference without ';' in an attribute value"))?;
            let body = &after[..end];
            rest = &after[end + 1..];
            if let Some(num) = body.strip_prefix('#') {
                out.push(char_ref(num).ok_or_else(|| self.err("a bad character reference"))?);
                continue;
            }
            if let Some(c) = predefined(body) {
                out.push(c);
                continue;
            }
            valid_name(body).ok_or_else(|| self.err("a bad entity reference"))?;
            match self.dtd.entities.get(body) {
                Some(entity) => {
                    let value = entity
                        .value
                        .as_deref()
                        .ok_or_else(|| self.err("an attribute references an external entity"))?;
                    if value.contains('<') {
                        return Err(self.err("'<' in an entity referenced from an attribute value"));
                    }
                    if stack.iter().any(|n| n == body) {
                        return Err(self.err("an entity reference loop"));
                    }
                    if out.len() as u64
                        > ALLOWED_EXPANSION.max((self.s.len() as u64) * MAX_AMPLIFICATION)
                    {
                        return Err(self.err("maximum entity amplification factor exceeded"));
                    }
                    stack.push(body.to_string());
                    self.expand_attr(value, out, stack, false)?;
                    stack.pop();
                }
                None if self.dtd.lenient => {}
                None => return Err(self.err("an undeclared entity in an attribute value")),
            }
        }
    }

    /// The parent gains a non-text child.
    fn child_node(&mut self) {
        if let Some(parent) = self.open.last_mut() {
            parent.has_children = true;
            parent.last_text = false;
            parent.text_len = 0;
        }
    }

    /// The parent gains text (`blank_path`: delivered through `areBlanks`).
    fn text_node(&mut self, len: usize, blank_path: bool) -> Result<(), XmlError> {
        let Some(parent) = self.open.last_mut() else {
            return Ok(());
        };
        if !parent.has_children {
            parent.first_text = true;
        }
        parent.has_children = true;
        parent.last_text = true;
        parent.text_len += len;
        if blank_path && parent.space == -1 {
            parent.space = -2;
        }
        if parent.text_len > MAX_TEXT_BYTES {
            return Err(XmlError::at(self.pos, "a text node too long"));
        }
        Ok(())
    }

    fn pop(&mut self) {
        if let Some(o) = self.open.pop() {
            self.bindings.truncate(o.ns_mark);
        }
        if self.open.len() <= self.base && self.base == 0 {
            self.state = State::Epilog;
        }
    }

    /// One step of element content; `None` when blank text was dropped.
    fn content(&mut self) -> Result<Option<Event<'a>>, XmlError> {
        let Some(b) = self.peek() else {
            return if self.base > 0 && self.open.len() == self.base {
                self.state = State::Done;
                Ok(Some(Event::Eof))
            } else {
                Err(self.err("premature end of data: an element is not closed"))
            };
        };
        match b {
            b'<' => {
                let rest = self.rest();
                if rest.starts_with("</") {
                    self.end_tag().map(Some)
                } else if rest.starts_with("<!--") {
                    self.comment()?;
                    self.child_node();
                    Ok(Some(Event::Node))
                } else if rest.starts_with("<![CDATA[") {
                    self.pos += 9;
                    let body = self.rest();
                    let end = memchr::memmem::find(body.as_bytes(), b"]]>")
                        .ok_or_else(|| self.err("an unclosed CDATA section"))?;
                    let text = &body[..end];
                    self.check_chars(text)?;
                    self.pos += end + 3;
                    let text = normalize(text);
                    self.text_node(text.len(), false)?;
                    Ok(Some(Event::Text(text)))
                } else if rest.starts_with("<?") {
                    self.pi()?;
                    self.child_node();
                    Ok(Some(Event::Node))
                } else if rest.starts_with("<!") {
                    Err(self.err("markup that is not allowed in content"))
                } else {
                    self.start_tag().map(Some)
                }
            }
            b'&' => self.reference().map(Some),
            _ => self.char_data(),
        }
    }

    fn end_tag(&mut self) -> Result<Event<'a>, XmlError> {
        self.pos += 2;
        let (qname, ..) = self.qname()?;
        self.blanks();
        if !self.eat(">") {
            return Err(self.err("'>' expected to end an end tag"));
        }
        match self.open.last() {
            Some(top) if self.open.len() > self.base && top.qname == qname => {
                self.pop();
                Ok(Event::End)
            }
            _ => Err(self.err("opening and ending tag mismatch")),
        }
    }

    fn reference(&mut self) -> Result<Event<'a>, XmlError> {
        self.pos += 1;
        if self.eat("#") {
            let rest = self.rest();
            let end = rest
                .find(';')
                .ok_or_else(|| self.err("a character reference without ';'"))?;
            let c =
                char_ref(&rest[..end]).ok_or_else(|| self.err("an invalid character reference"))?;
            self.pos += end + 1;
            self.text_node(c.len_utf8(), false)?;
            return Ok(Event::Text(Cow::Owned(c.to_string())));
        }
        let name = self.name()?;
        if !self.eat(";") {
            return Err(self.err("an entity reference without ';'"));
        }
        if let Some(c) = predefined(name) {
            self.text_node(c.len_utf8(), false)?;
            return Ok(Event::Text(Cow::Owned(c.to_string())));
        }
        let dtd = Rc::clone(&self.dtd);
        match dtd.entities.get(name) {
            Some(entity) if entity.unparsed => {
                return Err(self.err("a reference to an unparsed entity"));
            }
            Some(entity) => {
                if let Some(value) = entity.value.as_deref() {
                    if !entity.checked.get() {
                        self.check_entity(name, value)?;
                        entity.checked.set(true);
                    }
                    let cost = entity.size.get().saturating_add(REFERENCE_COST);
                    self.expanded = self.expanded.saturating_add(cost);
                    let total = dtd.expanded.get().saturating_add(cost);
                    dtd.expanded.set(total);
                    if total > ALLOWED_EXPANSION && total / MAX_AMPLIFICATION > self.pos as u64 {
                        return Err(self.err("maximum entity amplification factor exceeded"));
                    }
                }
            }
            None if dtd.lenient => {}
            None => return Err(self.err("an undeclared entity")),
        }
        self.child_node();
        Ok(Event::Node)
    }

    /// libxml2 parses an entity's replacement text once, as content, when
    /// it is first referenced: it must be well-formed on its own.
    fn check_entity(&mut self, name: &str, value: &str) -> Result<(), XmlError> {
        let dtd = Rc::clone(&self.dtd);
        if dtd.open.borrow().iter().any(|n| n == name) {
            return Err(self.err("detected an entity reference loop"));
        }
        dtd.open.borrow_mut().push(name.to_string());
        let mut sub = Reader {
            s: value,
            pos: 0,
            state: State::Content,
            open: Vec::new(),
            bindings: self.bindings.clone(),
            dtd: Rc::clone(&dtd),
            max_depth: self.max_depth,
            pending_end: false,
            base: self.open.len().max(1),
            expanded: 0,
        };
        for _ in 0..sub.base {
            sub.open.push(Open {
                qname: "",
                ns_mark: sub.bindings.len(),
                space: -1,
                has_children: false,
                first_text: false,
                last_text: false,
                text_len: 0,
            });
        }
        let result = loop {
            match sub.next() {
                Ok(Event::Eof) => break Ok(()),
                Ok(_) => {}
                Err(e) => {
                    break Err(XmlError::at(
                        self.pos,
                        &format!("in entity '{name}': {}", e.what),
                    ))
                }
            }
        };
        dtd.open.borrow_mut().pop();
        if let Some(entity) = dtd.entities.get(name) {
            entity
                .size
                .set((value.len() as u64).saturating_add(sub.expanded));
        }
        result
    }

    /// A run of character data up to the next `<` or `&`.
    fn char_data(&mut self) -> Result<Option<Event<'a>>, XmlError> {
        let start = self.pos;
        let rest = self.rest();
        let len = memchr::memchr2(b'<', b'&', rest.as_bytes()).unwrap_or(rest.len());
        let seg = &rest[..len];
        self.check_chars(seg)?;
        if memchr::memmem::find(seg.as_bytes(), b"]]>").is_some() {
            return Err(self.err("the sequence ']]>' is not allowed in content"));
        }
        self.pos = start + len;
        let bytes = self.s.as_bytes();
        let raw_end = bytes.get(self.pos).copied().unwrap_or(0);
        let nxt = bytes.get(self.pos + 1).copied().unwrap_or(0);
        let removable = self.open.last().is_some_and(|top| {
            top.space != 1
                && top.space != -2
                && (!top.has_children || (!top.last_text && !top.first_text))
        });
        let no_children = self.open.last().is_some_and(|top| !top.has_children);
        let drops = |raw: u8, at_end: bool| {
            removable
                && (raw == b'<' || raw == b'\r')
                && !(no_children && at_end && raw == b'<' && nxt == b'/')
        };
        let (kept, blank_path) = first_kept(seg.as_bytes(), raw_end, drops);
        let Some(k) = kept else {
            return Ok(None);
        };
        let text = normalize(&seg[k..]);
        self.text_node(text.len(), blank_path)?;
        Ok(Some(Event::Text(text)))
    }
}

/// `&lt;` and its kin.
fn predefined(name: &str) -> Option<char> {
    match name {
        "lt" => Some('<'),
        "gt" => Some('>'),
        "amp" => Some('&'),
        "apos" => Some('\''),
        "quot" => Some('"'),
        _ => None,
    }
}

fn valid_name(s: &str) -> Option<()> {
    let mut cs = s.chars();
    let first = cs.next()?;
    (is_name_start(first) || first == ':').then_some(())?;
    cs.all(|c| is_name_char(c) || c == ':').then_some(())
}

/// Line ends as XML normalises them: `\r\n` and a lone `\r` become `\n`.
fn normalize(text: &str) -> Cow<'_, str> {
    if !text.contains('\r') {
        return Cow::Borrowed(text);
    }
    Cow::Owned(text.replace("\r\n", "\n").replace('\r', "\n"))
}

/// How libxml2's `xmlParseCharData` delivers a run in chunks, each blank
/// chunk passing `areBlanks`: the byte offset from which text is kept (a
/// kept chunk gives the element a text child, so everything after it is
/// kept too) and whether a kept chunk went through `areBlanks` (which
/// marks the element as holding text for later runs).
fn first_kept(seg: &[u8], raw_end: u8, drops: impl Fn(u8, bool) -> bool) -> (Option<usize>, bool) {
    let n = seg.len();
    let mut kept: Option<usize> = None;
    let mut blank_path = false;
    let mut cur = 0;
    let mut i = 0;
    // The fast path: ASCII, chunks ending at each `\r\n`.
    loop {
        let mut j = i;
        while j < n && fast_ok(seg[j]) {
            j += 1;
        }
        let chunk = &seg[cur..j];
        if let Some(&first) = chunk.first() {
            let next = if j < n { seg[j] } else { raw_end };
            if is_blank(first) {
                let all_blank = chunk.iter().all(|&b| is_blank(b));
                if !(kept.is_none() && all_blank && drops(next, j == n)) {
                    kept.get_or_insert(cur);
                    blank_path = true;
                }
            } else {
                kept.get_or_insert(cur);
            }
        }
        if j >= n {
            return (kept, blank_path);
        }
        cur = j;
        if seg[j] == b'\r' && seg.get(j + 1) == Some(&b'\n') {
            cur = j + 1;
            i = j + 2;
            if i >= n || fast_ok(seg[i]) {
                if i >= n && raw_end == 0 {
                    break;
                }
                continue;
            }
        }
        break;
    }
    // The complex path: chunks of 300 characters, line ends normalised.
    let mut k = cur;
    while k < n {
        let chunk_start = k;
        let mut count = 0;
        let mut all_blank = true;
        while k < n && count < 300 {
            let b = seg[k];
            let width = if b == b'\r' && seg.get(k + 1) == Some(&b'\n') {
                2
            } else if b < 0x80 {
                1
            } else {
                utf8_width(b)
            };
            all_blank &= is_blank(b);
            k += width;
            count += 1;
        }
        let next = if k < n { seg[k] } else { raw_end };
        if !(kept.is_none() && all_blank && drops(next, k >= n)) {
            kept.get_or_insert(chunk_start);
            blank_path = true;
        }
    }
    (kept, blank_path)
}

fn utf8_width(lead: u8) -> usize {
    match lead {
        0xF0.. => 4,
        0xE0.. => 3,
        _ => 2,
    }
}
