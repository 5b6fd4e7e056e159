//! The reader proper: prolog, elements, attributes, character data and the
//! blank-text heuristic of libxml2's `areBlanks`.

use super::chars::{
    first_invalid, is_ascii_name_byte, is_blank, is_name_char, is_name_start, MAX_NAME_BYTES,
    MAX_TEXT_BYTES,
};
use super::dtd::{self, Dtd};
use super::{ns, XmlError};
use smallvec::SmallVec;
use std::borrow::Cow;
use std::rc::Rc;
use text::normalize;

mod attrs;
mod lookahead;
mod text;

pub(super) use lookahead::Lookahead;

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

/// An attribute as written: its qualified name, prefix, local part and value.
type RawAttr<'a> = (&'a str, Option<&'a str>, &'a str, Cow<'a, str>);

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
struct Open {
    /// Where its qualified name starts in [`Saved::names`] (it runs to the
    /// end: the innermost open element's name is the last one pushed).
    qname_at: usize,
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

/// A pull parser over a text that holds at least the next event's markup:
/// a whole document, an entity's replacement text, or the window a
/// [`Reader`](super::Reader) keeps of a streamed part.
pub(super) struct Parser<'a, 'p> {
    s: &'a str,
    st: &'p mut Saved,
}

/// Everything a parser knows but its text: kept between events while the
/// text a streamed part is read from is refilled.
pub(super) struct Saved {
    /// Where the next event starts in the text.
    pos: usize,
    state: State,
    open: Vec<Open>,
    /// The qualified names of the open elements, one after another.
    names: String,
    /// Prefix ("" for the default namespace) to URI (`None`: undeclared).
    bindings: Vec<(Rc<str>, Option<Rc<str>>)>,
    dtd: Rc<Dtd>,
    max_depth: usize,
    pending_end: bool,
    /// Open elements that belong to the referencing document (entity checks).
    base: usize,
    /// Expansion of the references this parser met.
    expanded: u64,
}

impl Saved {
    /// The state at the start of a document.
    pub(super) fn new(max_depth: usize) -> Self {
        Saved {
            pos: 0,
            state: State::Start,
            open: Vec::new(),
            names: String::new(),
            bindings: Vec::new(),
            dtd: Rc::new(Dtd::default()),
            max_depth: max_depth.min(LIBXML_MAX_DEPTH),
            pending_end: false,
            base: 0,
            expanded: 0,
        }
    }

    /// Where the next event starts in the text.
    pub(super) fn pos(&self) -> usize {
        self.pos
    }

    /// The text before `pos` was dropped: positions count from what is left.
    pub(super) fn rebase(&mut self, dropped: usize) {
        self.pos -= dropped;
    }
}

impl<'a, 'p> Parser<'a, 'p> {
    /// A parser over `s`, from where `st` stands in it.
    pub(super) fn new(s: &'a str, st: &'p mut Saved) -> Self {
        Parser { s, st }
    }
}

impl<'a> Parser<'a, '_> {
    fn err(&self, what: &str) -> XmlError {
        XmlError::at(self.st.pos, what)
    }

    fn rest(&self) -> &'a str {
        self.s.get(self.st.pos..).unwrap_or("")
    }

    fn peek(&self) -> Option<u8> {
        self.s.as_bytes().get(self.st.pos).copied()
    }

    fn eat(&mut self, lit: &str) -> bool {
        if self.rest().starts_with(lit) {
            self.st.pos += lit.len();
            true
        } else {
            false
        }
    }

    fn blanks(&mut self) -> bool {
        let start = self.st.pos;
        while self.peek().is_some_and(is_blank) {
            self.st.pos += 1;
        }
        self.st.pos > start
    }

    /// The next event.
    pub(super) fn next(&mut self) -> Result<Event<'a>, XmlError> {
        if self.st.pending_end {
            self.st.pending_end = false;
            self.pop();
            return Ok(Event::End);
        }
        loop {
            match self.st.state {
                State::Start => {
                    self.st.state = State::Prolog;
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
                    if self.st.pos < self.s.len() {
                        return Err(self.err("extra content at the end of the document"));
                    }
                    self.st.state = State::Done;
                }
                State::Done => return Ok(Event::Eof),
            }
        }
    }

    /// `<?xml version=… encoding=… standalone=…?>` (the encoding was applied when decoding).
    fn xml_decl(&mut self) -> Result<(), XmlError> {
        self.st.pos += 5;
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
        self.st.pos += end + 2;
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
                let (end, dtd) = dtd::parse(self.s, self.st.pos + 9)?;
                self.st.pos = end;
                self.st.dtd = Rc::new(dtd);
                continue;
            }
            return match self.peek() {
                None => Err(self.err("the document is empty")),
                Some(b'<') => {
                    self.st.state = State::Content;
                    self.start_tag()
                }
                Some(_) => Err(self.err("start tag expected, '<' not found")),
            };
        }
    }

    fn comment(&mut self) -> Result<(), XmlError> {
        self.st.pos += 4;
        let rest = self.rest();
        let end = memchr::memmem::find(rest.as_bytes(), b"--")
            .ok_or_else(|| self.err("an unclosed comment"))?;
        self.check_chars(&rest[..end])?;
        self.st.pos += end;
        if !self.eat("-->") {
            return Err(self.err("'--' inside a comment"));
        }
        Ok(())
    }

    fn pi(&mut self) -> Result<(), XmlError> {
        self.st.pos += 2;
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
        self.st.pos += end + 2;
        Ok(())
    }

    /// Every character of `text` is an XML `Char`.
    fn check_chars(&self, text: &str) -> Result<(), XmlError> {
        match first_invalid(text) {
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
        self.st.pos += end;
        Ok(&rest[..end])
    }

    fn ncname(&mut self) -> Option<&'a str> {
        let rest = self.rest();
        let first = match rest.chars().next() {
            Some(c) if is_name_start(c) => c.len_utf8(),
            _ => return None,
        };
        // Names are ASCII nearly always: bytes first, characters from the first that is not.
        let bytes = rest.as_bytes();
        let ascii = bytes[first..]
            .iter()
            .position(|&b| !is_ascii_name_byte(b))
            .map_or(bytes.len(), |i| i + first);
        let end = if bytes.get(ascii).is_some_and(|b| !b.is_ascii()) {
            rest[ascii..]
                .char_indices()
                .find(|&(_, c)| !is_name_char(c))
                .map_or(rest.len(), |(i, _)| ascii + i)
        } else {
            ascii
        };
        self.st.pos += end;
        Some(&rest[..end])
    }

    /// A `QName`: the whole name, its prefix and its local part.
    fn qname(&mut self) -> Result<(&'a str, Option<&'a str>, &'a str), XmlError> {
        match self.ascii_qname() {
            Some(found) => Ok(found),
            None => self.any_qname(),
        }
    }

    /// [`Parser::qname`] for any name, character by character.
    fn any_qname(&mut self) -> Result<(&'a str, Option<&'a str>, &'a str), XmlError> {
        let start = self.st.pos;
        let first = self
            .ncname()
            .ok_or_else(|| self.err("an invalid element or attribute name"))?;
        let (prefix, local) = if self.peek() == Some(b':') {
            self.st.pos += 1;
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
        if self.st.pos - start > MAX_NAME_BYTES {
            return Err(self.err("a name too long"));
        }
        Ok((&self.s[start..self.st.pos], prefix, local))
    }

    /// [`Parser::qname`] for the names nearly every part has: ASCII, at most
    /// one colon, followed by a byte that cannot continue a name. `None`
    /// leaves anything else (and every error) to the general path.
    fn ascii_qname(&mut self) -> Option<(&'a str, Option<&'a str>, &'a str)> {
        let start = self.st.pos;
        let bytes = self.s.as_bytes();
        let ncname_end = |from: usize| -> Option<usize> {
            let first = *bytes.get(from)?;
            if !(first.is_ascii_alphabetic() || first == b'_') {
                return None;
            }
            let len = bytes[from + 1..]
                .iter()
                .position(|&b| !is_ascii_name_byte(b))?;
            Some(from + 1 + len)
        };
        let first_end = ncname_end(start)?;
        let (prefix, local_at, end) = if bytes[first_end] == b':' {
            let end = ncname_end(first_end + 1)?;
            (Some(&self.s[start..first_end]), first_end + 1, end)
        } else {
            (None, start, first_end)
        };
        // A second colon, a non-ASCII name character or an overlong name: the general path.
        let next = bytes[end];
        if next == b':' || !next.is_ascii() || end - start > MAX_NAME_BYTES {
            return None;
        }
        self.st.pos = end;
        Some((&self.s[start..end], prefix, &self.s[local_at..end]))
    }

    fn lookup(&self, prefix: &str) -> Option<Rc<str>> {
        if prefix == "xml" {
            return Some(Rc::from(ns::XML));
        }
        self.st
            .bindings
            .iter()
            .rev()
            .find(|(p, _)| &**p == prefix)
            .and_then(|(_, uri)| uri.clone())
    }

    fn start_tag(&mut self) -> Result<Event<'a>, XmlError> {
        self.st.pos += 1;
        let (qname, prefix, local) = self.qname()?;
        let mut raw: SmallVec<[RawAttr<'a>; 4]> = SmallVec::new();
        let empty = loop {
            let had_blank = self.blanks();
            match self.peek() {
                Some(b'>') => {
                    self.st.pos += 1;
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
        if self.st.open.len() >= self.st.max_depth {
            return Err(self.err("excessive depth in document"));
        }
        let ns_mark = self.st.bindings.len();
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
                self.st.bindings.push((Rc::from(""), uri));
            } else if v.is_empty() {
                return Err(self.err("an empty namespace URI for a prefix"));
            } else if p != "xml" {
                self.st.bindings.push((Rc::from(p), Some(Rc::from(v))));
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
        let inherited = match self.st.open.last() {
            None => -1,
            Some(parent) if parent.space == -2 => -1,
            Some(parent) => parent.space,
        };
        self.child_node();
        let qname_at = self.st.names.len();
        self.st.names.push_str(qname);
        self.st.open.push(Open {
            qname_at,
            ns_mark,
            space: space.unwrap_or(inherited),
            has_children: false,
            first_text: false,
            last_text: false,
            text_len: 0,
        });
        self.st.pending_end = empty;
        Ok(Event::Start(Element {
            ns: element_ns,
            local,
            attrs,
        }))
    }

    /// The parent gains a non-text child.
    fn child_node(&mut self) {
        if let Some(parent) = self.st.open.last_mut() {
            parent.has_children = true;
            parent.last_text = false;
            parent.text_len = 0;
        }
    }

    /// The parent gains text (`blank_path`: delivered through `areBlanks`).
    fn text_node(&mut self, len: usize, blank_path: bool) -> Result<(), XmlError> {
        let Some(parent) = self.st.open.last_mut() else {
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
            return Err(XmlError::at(self.st.pos, "a text node too long"));
        }
        Ok(())
    }

    fn pop(&mut self) {
        if let Some(o) = self.st.open.pop() {
            self.st.bindings.truncate(o.ns_mark);
            self.st.names.truncate(o.qname_at);
        }
        if self.st.open.len() <= self.st.base && self.st.base == 0 {
            self.st.state = State::Epilog;
        }
    }

    /// One step of element content; `None` when blank text was dropped.
    fn content(&mut self) -> Result<Option<Event<'a>>, XmlError> {
        let Some(b) = self.peek() else {
            return if self.st.base > 0 && self.st.open.len() == self.st.base {
                self.st.state = State::Done;
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
                    self.st.pos += 9;
                    let body = self.rest();
                    let end = memchr::memmem::find(body.as_bytes(), b"]]>")
                        .ok_or_else(|| self.err("an unclosed CDATA section"))?;
                    let text = &body[..end];
                    self.check_chars(text)?;
                    self.st.pos += end + 3;
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
        self.st.pos += 2;
        let (qname, ..) = self.qname()?;
        self.blanks();
        if !self.eat(">") {
            return Err(self.err("'>' expected to end an end tag"));
        }
        match self.st.open.last() {
            Some(top)
                if self.st.open.len() > self.st.base && self.st.names[top.qname_at..] == *qname =>
            {
                self.pop();
                Ok(Event::End)
            }
            _ => Err(self.err("opening and ending tag mismatch")),
        }
    }
}

#[cfg(test)]
mod qname_tests {
    use super::{Parser, Saved};

    /// Every name form, followed by every kind of byte: the ASCII path
    /// either declines or reads exactly what the general path reads.
    #[test]
    fn the_ascii_path_reads_names_as_the_general_path_does() {
        let names = [
            "p",
            "w:p",
            "_a",
            "a-b.c1",
            "xml:space",
            "a:b:c",
            "1a",
            "a:1",
            ":a",
            "a:",
            "é",
            "aé",
            "a:é",
            "w:té",
            "",
        ];
        let after = ["", ">", " ", "/", "=", ":", "é", "\u{B7}", "\t"];
        let long = "n".repeat(super::MAX_NAME_BYTES + 1);
        let mut cases: Vec<String> = Vec::new();
        for name in names.iter().copied().chain([long.as_str()]) {
            for tail in after {
                cases.push(format!("{name}{tail}"));
            }
        }
        for case in &cases {
            let mut fast_state = Saved::new(10);
            let mut general_state = Saved::new(10);
            let fast = Parser::new(case, &mut fast_state).ascii_qname();
            let general = Parser::new(case, &mut general_state)
                .any_qname()
                .map_err(|e| e.what);
            if let Some(found) = fast {
                assert_eq!(Ok(found), general, "{case:?}");
                assert_eq!(fast_state.pos, general_state.pos, "{case:?}");
            }
        }
        // The common forms do take the ASCII path.
        for case in ["w:p>", "p ", "xml:space=", "a-b.c1/"] {
            let mut state = Saved::new(10);
            assert!(
                Parser::new(case, &mut state).ascii_qname().is_some(),
                "{case}"
            );
        }
    }
}
