//! XML as the reference's parsers see it: expat (through defusedxml's
//! `iterparse`, for worksheets and shared strings) and lxml (`fromstring`
//! with entities unresolved, for the package parts). Names come out in
//! ElementTree's Clark notation (`{uri}local`), text with line ends
//! normalised and references resolved, attribute values normalised; any
//! document those parsers reject is an error here too (unclosed or
//! mismatched tags, unbound prefixes, duplicate attributes, characters XML
//! forbids, undefined or declared entities, content after the root).
//! Nesting is bounded by `Limits::max_xml_depth`.

use super::xml_decl::{declaration_ok, decode};
use quick_xml::events::Event;
use std::borrow::Cow;
use std::io::BufRead;
use std::rc::Rc;

/// Distinct element names remembered at once (a sheet uses a dozen).
const MAX_CACHED_TAGS: usize = 32;

/// Why a part is not the XML the reference's parsers accept.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct XmlError(pub String);

impl XmlError {
    pub(crate) fn new(part: &str, what: impl std::fmt::Display) -> Self {
        XmlError(format!("'{part}' is not well-formed XML: {what}"))
    }
}

/// The namespace of the `xml:` prefix, bound in every document.
const XML_NS: &str = "http://www.w3.org/XML/1998/namespace";

/// One parse event, names resolved.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Ev {
    /// An element opens (empty elements give `Start` then `End`).
    Start {
        /// `{uri}local` or `local` (shared with the reader's name cache: no copy per element).
        tag: Rc<str>,
        /// Attributes in document order, `xmlns` declarations left out.
        attrs: Vec<(String, String)>,
    },
    /// The innermost open element closes.
    End,
    /// Character data (a text run, a resolved reference or a CDATA section).
    Text(String),
    /// A comment or processing instruction inside the root (lxml keeps them as nodes).
    Comment,
}

/// A buffered input whose unconsumed bytes can be looked at beyond one
/// buffer: the worksheet row scanner reads a whole row before it consumes it,
/// so that a row it does not take is still there for the parser.
pub(crate) trait Lookahead: BufRead {
    /// The unconsumed bytes, at least `min` (and at least one) of them unless
    /// the input ends first; the caller bounds `min`.
    fn fill_at_least(&mut self, min: usize) -> std::io::Result<&[u8]>;
}

impl Lookahead for &[u8] {
    fn fill_at_least(&mut self, _min: usize) -> std::io::Result<&[u8]> {
        Ok(self)
    }
}

/// A pull parser over one part's bytes: a slice of them, or a stream.
pub(crate) struct Reader<'a> {
    part: String,
    inner: quick_xml::Reader<Box<dyn Lookahead + 'a>>,
    /// The event buffer `inner` reads into (reused across events).
    buf: Vec<u8>,
    /// Element names resolved under the current bindings (cleared when they
    /// change): a few entries looked up by a scan, cheaper than hashing for the
    /// dozen names a sheet uses.
    tags: Vec<(Box<str>, Rc<str>)>,
    /// Prefix bindings per open element (the default namespace under the empty prefix).
    scopes: Vec<Vec<(String, String)>>,
    max_depth: usize,
    root_done: bool,
    pending_end: bool,
    seen_event: bool,
    text_starts_with_decl: bool,
    /// lxml's rules (the package parts) rather than expat's (worksheets, shared strings).
    lxml: bool,
    /// Strings and lists handed back by the consumer, reused for the next events.
    pool: Pool,
}

/// Most strings and lists the pool keeps (a sheet's cell needs a handful).
const POOL_ITEMS: usize = 256;
/// A string whose buffer grew past this is dropped rather than kept.
const POOL_STRING_BYTES: usize = 4096;

/// Buffers of finished events, reused: a worksheet is millions of small
/// elements, and allocating each one's attribute and text strings afresh
/// was a fifth of its parse time.
#[derive(Default)]
pub(crate) struct Pool {
    strings: Vec<String>,
    attr_lists: Vec<Vec<(String, String)>>,
    node_lists: Vec<Vec<Node>>,
}

impl Pool {
    /// An empty string, with a buffer from an earlier event when there is one.
    fn string(&mut self) -> String {
        self.strings.pop().unwrap_or_default()
    }

    /// An empty attribute list, reused when possible.
    fn attr_list(&mut self) -> Vec<(String, String)> {
        self.attr_lists.pop().unwrap_or_default()
    }

    /// An empty child list, reused when possible.
    pub(crate) fn node_list(&mut self) -> Vec<Node> {
        self.node_lists.pop().unwrap_or_default()
    }

    /// Takes back a string the consumer is done with.
    pub(crate) fn put_string(&mut self, mut s: String) {
        if self.strings.len() < POOL_ITEMS && s.capacity() <= POOL_STRING_BYTES {
            s.clear();
            self.strings.push(s);
        }
    }

    /// Takes back an attribute list (and its strings).
    pub(crate) fn put_attrs(&mut self, mut attrs: Vec<(String, String)>) {
        for (k, v) in attrs.drain(..) {
            self.put_string(k);
            self.put_string(v);
        }
        if self.attr_lists.len() < POOL_ITEMS && attrs.capacity() <= POOL_ITEMS {
            self.attr_lists.push(attrs);
        }
    }

    /// Takes back a finished tree (every string and list in it).
    pub(crate) fn put_node(&mut self, node: Node) {
        let Node {
            attrs,
            text,
            mut children,
            ..
        } = node;
        self.put_attrs(attrs);
        if let Some(t) = text {
            self.put_string(t);
        }
        for child in children.drain(..) {
            self.put_node(child);
        }
        if self.node_lists.len() < POOL_ITEMS && children.capacity() <= POOL_ITEMS {
            self.node_lists.push(children);
        }
    }
}

/// Whether XML 1.0 allows `c` in a document.
pub(crate) fn is_xml_char(c: char) -> bool {
    matches!(c, '\t' | '\n' | '\r' | '\u{20}'..='\u{d7ff}' | '\u{e000}'..='\u{fffd}' | '\u{10000}'..)
}

/// Raw character data with line ends normalised (`\r\n` and `\r` to `\n`).
pub(crate) fn normalise_eol(raw: &str) -> Cow<'_, str> {
    if !raw.contains('\r') {
        return Cow::Borrowed(raw);
    }
    Cow::Owned(raw.replace("\r\n", "\n").replace('\r', "\n"))
}

/// The character a reference's name (`amp`, `#38`, `#x26`) stands for.
pub(crate) fn resolve_reference(name: &str) -> Option<char> {
    match name {
        "amp" => Some('&'),
        "lt" => Some('<'),
        "gt" => Some('>'),
        "quot" => Some('"'),
        "apos" => Some('\''),
        _ => {
            let num = name.strip_prefix('#')?;
            let code = match num.strip_prefix('x') {
                Some(hex) if !hex.is_empty() && hex.bytes().all(|b| b.is_ascii_hexdigit()) => {
                    u32::from_str_radix(hex, 16).ok()?
                }
                Some(_) => return None,
                None if !num.is_empty() && num.bytes().all(|b| b.is_ascii_digit()) => {
                    num.parse().ok()?
                }
                None => return None,
            };
            char::from_u32(code).filter(|c| is_xml_char(*c))
        }
    }
}

/// An attribute value as XML normalises it (literal whitespace to spaces,
/// references resolved), appended to `out`.
pub(crate) fn attribute_value(part: &str, raw: &str, out: &mut String) -> Result<(), XmlError> {
    if raw.contains('<') {
        return Err(XmlError::new(part, "'<' in an attribute value"));
    }
    let raw = normalise_eol(raw);
    out.reserve(raw.len());
    let mut rest: &str = &raw;
    while let Some(amp) = rest.find('&') {
        push_chars(part, out, &rest[..amp], true)?;
        let after = &rest[amp + 1..];
        let semi = after
            .find(';')
            .ok_or_else(|| XmlError::new(part, "an unterminated reference"))?;
        let c = resolve_reference(&after[..semi]).ok_or_else(|| {
            XmlError::new(part, format!("undefined entity '&{};'", &after[..semi]))
        })?;
        out.push(c);
        rest = &after[semi + 1..];
    }
    push_chars(part, out, rest, true)
}

/// Appends literal characters, checking each is allowed; in attributes, whitespace becomes a space.
pub(crate) fn push_chars(
    part: &str,
    out: &mut String,
    text: &str,
    attribute: bool,
) -> Result<(), XmlError> {
    // Printable ASCII (the bulk of every sheet) is allowed and kept as it is.
    if text.bytes().all(|b| (0x20..0x7f).contains(&b)) {
        out.push_str(text);
        return Ok(());
    }
    for c in text.chars() {
        if !is_xml_char(c) {
            return Err(XmlError::new(
                part,
                format!("character U+{:04X} is not allowed", c as u32),
            ));
        }
        out.push(if attribute && matches!(c, '\t' | '\n') {
            ' '
        } else {
            c
        });
    }
    Ok(())
}

impl<'a> Reader<'a> {
    /// A reader over `text` (already decoded), for the part named `part`.
    fn over(part: &str, text: &'a str, max_depth: usize) -> Self {
        Self::over_stream(
            part,
            Box::new(text.as_bytes()),
            max_depth,
            text.starts_with("<?xml"),
        )
    }

    /// A reader over UTF-8 text read as a stream (a byte-order mark already
    /// skipped); `starts_with_decl` says whether it opens with `<?xml`.
    pub(crate) fn over_stream(
        part: &str,
        text: Box<dyn Lookahead + 'a>,
        max_depth: usize,
        starts_with_decl: bool,
    ) -> Self {
        let mut inner = quick_xml::Reader::from_reader(text);
        let config = inner.config_mut();
        config.check_end_names = true;
        config.check_comments = true;
        config.expand_empty_elements = false;
        config.trim_text(false);
        Reader {
            part: part.to_string(),
            inner,
            buf: Vec::new(),
            tags: Vec::new(),
            scopes: Vec::new(),
            max_depth,
            root_done: false,
            pending_end: false,
            seen_event: false,
            text_starts_with_decl: starts_with_decl,
            lxml: false,
            pool: Pool::default(),
        }
    }

    fn err(&self, what: impl std::fmt::Display) -> XmlError {
        XmlError::new(&self.part, what)
    }

    /// The buffers a consumer hands back once done with an event's strings.
    pub(crate) fn pool(&mut self) -> &mut Pool {
        &mut self.pool
    }

    /// How many elements are open.
    pub(crate) fn depth(&self) -> usize {
        self.scopes.len()
    }

    /// The deepest nesting the reader accepts.
    pub(crate) fn max_depth(&self) -> usize {
        self.max_depth
    }

    /// Every prefix bound in the open scopes with its namespace, innermost
    /// binding last (the default namespace under the empty prefix).
    pub(crate) fn bindings(&self) -> Vec<(String, String)> {
        self.scopes.iter().flatten().cloned().collect()
    }

    /// The input where the next event starts, when that is a place the
    /// parser can be bypassed at: right after a start or end tag the reader
    /// has handed out, with no end of an empty element still to hand out
    /// (the parser, after a tag, has consumed exactly through its `>` and
    /// reads text next, so bytes consumed here are as if it had read them
    /// as elements it was never shown). Only call it after a `Start` or `End` event.
    pub(crate) fn input_after_tag(&mut self) -> Option<&mut (dyn Lookahead + 'a)> {
        if self.pending_end {
            return None;
        }
        Some(&mut **self.inner.get_mut())
    }

    /// The namespace bound to `prefix` in the open scopes.
    fn lookup(&self, prefix: &str) -> Option<&str> {
        if prefix == "xml" {
            return Some(XML_NS);
        }
        self.scopes
            .iter()
            .rev()
            .flat_map(|scope| scope.iter().rev())
            .find(|(p, _)| p == prefix)
            .map(|(_, uri)| uri.as_str())
    }

    /// `{uri}local` for a qualified name; `element` names take the default namespace.
    fn clark(&self, qname: &str, element: bool) -> Result<String, XmlError> {
        match qname.split_once(':') {
            Some((prefix, local)) => {
                if local.is_empty() || local.contains(':') || prefix.is_empty() {
                    return Err(self.err(format!("bad name '{qname}'")));
                }
                let uri = self
                    .lookup(prefix)
                    .ok_or_else(|| self.err(format!("unbound prefix '{prefix}'")))?;
                Ok(format!("{{{uri}}}{local}"))
            }
            None if element => match self.lookup("") {
                Some(uri) if !uri.is_empty() => Ok(format!("{{{uri}}}{qname}")),
                _ => Ok(qname.to_string()),
            },
            None => Ok(qname.to_string()),
        }
    }

    fn start(&mut self, e: &quick_xml::events::BytesStart<'_>) -> Result<Ev, XmlError> {
        if self.root_done && self.scopes.is_empty() {
            return Err(self.err("junk after the document element"));
        }
        if self.scopes.len() >= self.max_depth {
            return Err(self.err(format!("nested deeper than {} elements", self.max_depth)));
        }
        let qname = e.name();
        let name = std::str::from_utf8(qname.as_ref()).map_err(|_| self.err("invalid UTF-8"))?;
        let mut bindings = Vec::new();
        let mut attrs = self.pool.attr_list();
        for attr in e.attributes().with_checks(true) {
            let attr = attr.map_err(|err| self.err(err))?;
            let key =
                std::str::from_utf8(attr.key.as_ref()).map_err(|_| self.err("invalid UTF-8"))?;
            let raw = std::str::from_utf8(&attr.value).map_err(|_| self.err("invalid UTF-8"))?;
            let mut value = self.pool.string();
            attribute_value(&self.part, raw, &mut value)?;
            if key == "xmlns" {
                bindings.push((String::new(), value));
            } else if let Some(prefix) = key.strip_prefix("xmlns:") {
                if value.is_empty() {
                    return Err(self.err(format!("prefix '{prefix}' bound to nothing")));
                }
                bindings.push((prefix.to_string(), value));
            } else {
                let mut name = self.pool.string();
                name.push_str(key);
                attrs.push((name, value));
            }
        }
        if !bindings.is_empty() || self.tags.len() > MAX_CACHED_TAGS {
            self.tags.clear();
        }
        self.scopes.push(bindings);
        let tag = match self.tags.iter().find(|(n, _)| **n == *name) {
            Some((_, tag)) => tag.clone(),
            None => {
                let tag: Rc<str> = self.clark(name, true)?.into();
                self.tags.push((name.into(), tag.clone()));
                tag
            }
        };
        // Prefixed names resolve once every binding of the element is known;
        // a plain attribute name is already its own key.
        for i in 0..attrs.len() {
            if attrs[i].0.contains(':') {
                attrs[i].0 = self.clark(&attrs[i].0, false)?;
            }
            if attrs[..i].iter().any(|(k, _)| *k == attrs[i].0) {
                return Err(self.err(format!("duplicate attribute '{}'", attrs[i].0)));
            }
        }
        Ok(Ev::Start { tag, attrs })
    }

    fn end(&mut self) -> Ev {
        if self.scopes.pop().is_some_and(|scope| !scope.is_empty()) {
            self.tags.clear();
        }
        if self.scopes.is_empty() {
            self.root_done = true;
        }
        Ev::End
    }

    /// Text outside the root must be whitespace.
    fn outside_root(&self, text: &str) -> Result<(), XmlError> {
        if self.scopes.is_empty() && !text.chars().all(|c| matches!(c, ' ' | '\t' | '\r' | '\n')) {
            return Err(self.err("text outside the document element"));
        }
        Ok(())
    }

    /// Reads what is left of the input (after a failure, so that the stream
    /// under it can say whether it failed first); errors are the stream's to report.
    pub(crate) fn drain(&mut self) {
        let input = self.inner.get_mut();
        while let Ok(chunk) = input.fill_buf() {
            let n = chunk.len();
            if n == 0 {
                break;
            }
            input.consume(n);
        }
    }

    /// The next event, `None` at the end of a complete document.
    pub(crate) fn next(&mut self) -> Result<Option<Ev>, XmlError> {
        if self.pending_end {
            self.pending_end = false;
            return Ok(Some(self.end()));
        }
        let mut buf = std::mem::take(&mut self.buf);
        let out = self.next_into(&mut buf);
        self.buf = buf;
        out
    }

    fn next_into(&mut self, buf: &mut Vec<u8>) -> Result<Option<Ev>, XmlError> {
        loop {
            buf.clear();
            let event = self.inner.read_event_into(buf).map_err(|e| self.err(e))?;
            let first = !self.seen_event;
            self.seen_event = true;
            if first {
                if let Event::Decl(d) = &event {
                    if !self.text_starts_with_decl || !declaration_ok(d, self.lxml) {
                        return Err(
                            self.err("XML declaration allowed only at the start of the document")
                        );
                    }
                    continue;
                }
            }
            match event {
                Event::Start(e) => return self.start(&e).map(Some),
                Event::Empty(e) => {
                    let ev = self.start(&e)?;
                    self.pending_end = true;
                    return Ok(Some(ev));
                }
                Event::End(_) => return Ok(Some(self.end())),
                Event::Text(t) => {
                    let raw = std::str::from_utf8(&t).map_err(|_| self.err("invalid UTF-8"))?;
                    self.outside_root(raw)?;
                    if self.scopes.is_empty() {
                        continue;
                    }
                    if raw.contains("]]>") {
                        return Err(self.err("']]>' in character data"));
                    }
                    let mut out = self.pool.string();
                    push_chars(&self.part, &mut out, &normalise_eol(raw), false)?;
                    return Ok(Some(Ev::Text(out)));
                }
                Event::CData(t) => {
                    if self.scopes.is_empty() {
                        return Err(self.err("CDATA outside the document element"));
                    }
                    let raw = std::str::from_utf8(&t).map_err(|_| self.err("invalid UTF-8"))?;
                    let mut out = String::with_capacity(raw.len());
                    push_chars(&self.part, &mut out, &normalise_eol(raw), false)?;
                    return Ok(Some(Ev::Text(out)));
                }
                Event::GeneralRef(r) => {
                    let name = std::str::from_utf8(&r).map_err(|_| self.err("invalid UTF-8"))?;
                    if self.scopes.is_empty() {
                        return Err(self.err("a reference outside the document element"));
                    }
                    let c = resolve_reference(name)
                        .ok_or_else(|| self.err(format!("undefined entity '&{name};'")))?;
                    return Ok(Some(Ev::Text(c.to_string())));
                }
                Event::Comment(_) | Event::PI(_) => {
                    if !self.scopes.is_empty() {
                        return Ok(Some(Ev::Comment));
                    }
                }
                Event::Decl(_) => {
                    return Err(
                        self.err("XML declaration allowed only at the start of the document")
                    );
                }
                Event::DocType(d) => {
                    if memchr::memmem::find(&d, b"ENTITY").is_some() {
                        return Err(self.err("the document declares entities"));
                    }
                }
                Event::Eof => {
                    if !self.scopes.is_empty() {
                        return Err(self.err("no closing tag before the end"));
                    }
                    if !self.root_done {
                        return Err(self.err("no element found"));
                    }
                    return Ok(None);
                }
            }
        }
    }
}

/// Decodes `bytes` and calls `f` with a reader over them.
pub(crate) fn with_reader<T>(
    part: &str,
    bytes: &[u8],
    max_depth: usize,
    f: impl FnOnce(&mut Reader<'_>) -> Result<T, XmlError>,
) -> Result<T, XmlError> {
    let text = decode(part, bytes)?;
    let mut reader = Reader::over(part, &text, max_depth);
    f(&mut reader)
}

/// A node of a small part's tree.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct Node {
    /// `{uri}local`; empty for a comment or processing instruction (lxml mode only).
    pub tag: Rc<str>,
    /// Attributes in document order.
    pub attrs: Vec<(String, String)>,
    /// ElementTree's `.text`: the character data before the first child.
    pub text: Option<String>,
    /// Child nodes.
    pub children: Vec<Node>,
}

impl Node {
    /// An attribute's value.
    pub(crate) fn get(&self, key: &str) -> Option<&str> {
        self.attrs
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }

    /// Whether this is a comment or processing instruction.
    pub(crate) fn is_comment(&self) -> bool {
        self.tag.is_empty()
    }

    /// The first child element with this exact tag (`element.find(tag)`).
    pub(crate) fn find(&self, tag: &str) -> Option<&Node> {
        self.children.iter().find(|c| &*c.tag == tag)
    }

    /// The local part of the tag (`openpyxl.xml.functions.localname`).
    pub(crate) fn local(&self) -> &str {
        if self.is_comment() {
            return "comment";
        }
        match self.tag.rfind('}') {
            Some(i) => &self.tag[i + 1..],
            None => &self.tag,
        }
    }
}

/// Builds trees from events: ElementTree semantics (comments dropped, text
/// around them joined) or lxml's (comments kept as nodes, ending `.text`).
pub(crate) struct Builder {
    stack: Vec<Node>,
    keep_comments: bool,
}

impl Builder {
    /// A builder whose first `Start` is the subtree's root.
    pub(crate) fn new(keep_comments: bool) -> Self {
        Builder {
            stack: Vec::new(),
            keep_comments,
        }
    }

    /// Feeds one event; returns the finished root when its `End` arrives.
    pub(crate) fn feed(&mut self, ev: Ev) -> Option<Node> {
        self.feed_pooled(ev, &mut Pool::default())
    }

    /// [`Builder::feed`], child lists taken from `pool` and text it no longer needs handed back.
    pub(crate) fn feed_pooled(&mut self, ev: Ev, pool: &mut Pool) -> Option<Node> {
        match ev {
            Ev::Start { tag, attrs } => {
                self.stack.push(Node {
                    tag,
                    attrs,
                    text: None,
                    children: Vec::new(),
                });
                None
            }
            Ev::End => {
                let node = self.stack.pop()?;
                match self.stack.last_mut() {
                    Some(parent) => {
                        if parent.children.capacity() == 0 {
                            parent.children = pool.node_list();
                        }
                        parent.children.push(node);
                        None
                    }
                    None => Some(node),
                }
            }
            Ev::Text(t) => {
                match self.stack.last_mut() {
                    Some(top) if top.children.is_empty() => match &mut top.text {
                        Some(text) => {
                            text.push_str(&t);
                            pool.put_string(t);
                        }
                        None => top.text = Some(t),
                    },
                    _ => pool.put_string(t),
                }
                None
            }
            Ev::Comment => {
                if self.keep_comments {
                    if let Some(top) = self.stack.last_mut() {
                        top.children.push(Node::default());
                    }
                }
                None
            }
        }
    }
}

/// A whole small part as a tree, lxml's way (comments kept as nodes).
pub(crate) fn parse_tree(part: &str, bytes: &[u8], max_depth: usize) -> Result<Node, XmlError> {
    with_reader(part, bytes, max_depth, |reader| {
        reader.lxml = true;
        let mut builder = Builder::new(true);
        let mut root = None;
        while let Some(ev) = reader.next()? {
            if let Some(done) = builder.feed(ev) {
                root = Some(done);
            }
        }
        root.ok_or_else(|| XmlError::new(part, "no element found"))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tree(xml: &str) -> Result<Node, XmlError> {
        parse_tree("t.xml", xml.as_bytes(), 64)
    }

    #[test]
    fn names_are_resolved_to_clark_notation() {
        let n = tree(r#"<x:a xmlns:x="urn:x" xmlns="urn:d" b="1" x:c="2"><d/></x:a>"#)
            .expect("well-formed");
        assert_eq!(&*n.tag, "{urn:x}a");
        assert_eq!(
            n.attrs,
            [("b".into(), "1".into()), ("{urn:x}c".into(), "2".into())]
        );
        assert_eq!(&*n.children[0].tag, "{urn:d}d");
    }

    #[test]
    fn text_and_attributes_are_normalised() {
        let n = tree("<a v=\"x\ty&#10;z\">l1\r\nl2\r&amp;&#x41;<![CDATA[<c>]]></a>").expect("ok");
        assert_eq!(n.get("v"), Some("x y\nz"));
        assert_eq!(n.text.as_deref(), Some("l1\nl2\n&A<c>"));
    }

    #[test]
    fn malformed_documents_are_refused() {
        for bad in [
            "<?xml encoding='UTF-8'?><a/>",
            "<?xml version='2.0'?><a/>",
            "<?xml version='1.0' standalone='maybe'?><a/>",
            " <?xml version='1.0'?><a/>",
            "<a>",
            "<a></b>",
            "<a/><b/>",
            "<p:a/>",
            "<a x='1' x='2'/>",
            "<a>\u{1}</a>",
            "<a>&foo;</a>",
            "<!DOCTYPE a [<!ENTITY e 'x'>]><a>&e;</a>",
            "",
            "text<a/>",
        ] {
            assert!(tree(bad).is_err(), "{bad:?} accepted");
        }
    }

    #[test]
    fn depth_is_bounded() {
        let deep = "<a>".repeat(100) + &"</a>".repeat(100);
        assert!(tree(&deep)
            .expect_err("too deep")
            .0
            .contains("nested deeper"));
    }
}
