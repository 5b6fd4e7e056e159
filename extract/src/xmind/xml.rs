//! `ElementTree.fromstring` of `content.xml` and the walk the reference
//! makes over it: the bytes decoded as expat decodes them (a BOM, or the
//! declared UTF-8, UTF-16, ISO-8859-1 or US-ASCII), parsed by `roxmltree`
//! (well-formedness, namespaces, internal DTD entities with expansion
//! bounded), sheets found anywhere by local name, titles and notes from the
//! direct children's text, topics under `children/topics`, and the depth at
//! which the reference's recursion would exceed Python's limit.

use super::{clean_text, html, Failure};
use roxmltree::Node;

/// Python frames below the root topic's `_render_xml_topic` call, so that a
/// topic at depth `d` whose deepest helper call is `k` frames down raises
/// `RecursionError` when `BASE_FRAMES + d + k` passes the limit of 1 000.
const BASE_FRAMES: usize = 9;
const RECURSION_LIMIT: usize = 1000;

/// The document's text as expat would read its bytes.
fn decode(raw: &[u8]) -> Result<String, Failure> {
    let bad = |what: &str| Failure::Content(format!("not well-formed: {what}"));
    if let Some(rest) = raw.strip_prefix(b"\xef\xbb\xbf") {
        return String::from_utf8(rest.to_vec()).map_err(|_| bad("invalid UTF-8"));
    }
    let utf16 = |bytes: &[u8], le: bool| -> Result<String, Failure> {
        if bytes.len() % 2 != 0 {
            return Err(bad("odd UTF-16 length"));
        }
        let units = bytes.chunks_exact(2).map(|c| {
            if le {
                u16::from_le_bytes([c[0], c[1]])
            } else {
                u16::from_be_bytes([c[0], c[1]])
            }
        });
        char::decode_utf16(units)
            .collect::<Result<String, _>>()
            .map_err(|_| bad("invalid UTF-16"))
    };
    if let Some(rest) = raw.strip_prefix(b"\xff\xfe") {
        return utf16(rest, true);
    }
    if let Some(rest) = raw.strip_prefix(b"\xfe\xff") {
        return utf16(rest, false);
    }
    if raw.starts_with(b"<\0?\0") {
        return utf16(raw, true);
    }
    if raw.starts_with(b"\0<\0?") {
        return utf16(raw, false);
    }
    let encoding = declared_encoding(raw).map(|e| e.to_ascii_lowercase());
    match encoding.as_deref() {
        None | Some("utf-8") => String::from_utf8(raw.to_vec()).map_err(|_| bad("invalid UTF-8")),
        Some("iso-8859-1" | "latin-1" | "latin1" | "iso8859-1" | "l1") => {
            Ok(raw.iter().map(|&b| char::from(b)).collect())
        }
        Some("us-ascii" | "ascii") => {
            if raw.is_ascii() {
                Ok(raw.iter().map(|&b| char::from(b)).collect())
            } else {
                Err(bad("a byte outside US-ASCII"))
            }
        }
        Some("utf-16") => Err(bad("UTF-16 declared without a byte order mark")),
        Some(other) => Err(Failure::Content(format!("unknown encoding: {other}"))),
    }
}

/// The `encoding` pseudo-attribute of an XML declaration at the start.
fn declared_encoding(raw: &[u8]) -> Option<&str> {
    if !raw.starts_with(b"<?xml") {
        return None;
    }
    let end = memchr::memmem::find(raw, b"?>")?;
    let decl = std::str::from_utf8(&raw[..end]).ok()?;
    let at = decl.find("encoding")?;
    let rest = decl[at + 8..].trim_start().strip_prefix('=')?.trim_start();
    let quote = rest.chars().next()?;
    if quote != '"' && quote != '\'' {
        return None;
    }
    let body = &rest[1..];
    Some(&body[..body.find(quote)?])
}

/// `_direct_child`: the first child element with that local name.
fn direct_child<'a, 'i>(node: Node<'a, 'i>, name: &str) -> Option<Node<'a, 'i>> {
    node.children()
        .find(|c| c.is_element() && c.tag_name().name() == name)
}

/// `"".join(element.itertext())`: every text inside, in document order.
fn itertext(node: Node) -> String {
    let mut out = String::new();
    for d in node.descendants() {
        if let Some(t) = d.is_text().then(|| d.text()).flatten() {
            out.push_str(t);
        }
    }
    out
}

/// `_child_text`.
fn child_text(node: Node, name: &str) -> String {
    direct_child(node, name).map_or_else(String::new, |c| clean_text(&itertext(c)))
}

/// `_extract_xml_note`, and whether it went through the HTML parser.
fn note(topic: Node) -> Result<(String, bool), Failure> {
    let Some(notes) = direct_child(topic, "notes") else {
        return Ok((String::new(), false));
    };
    if let Some(plain) = direct_child(notes, "plain") {
        let n = clean_text(&itertext(plain));
        if !n.is_empty() {
            return Ok((n, false));
        }
    }
    match direct_child(notes, "html") {
        Some(h) => Ok((html::text(&itertext(h))?, true)),
        None => Ok((String::new(), false)),
    }
}

/// `_iter_xml_child_topics`.
fn child_topics<'a, 'i>(topic: Node<'a, 'i>) -> Vec<Node<'a, 'i>> {
    let Some(children) = direct_child(topic, "children") else {
        return Vec::new();
    };
    children
        .children()
        .filter(|t| t.is_element() && t.tag_name().name() == "topics")
        .flat_map(|t| {
            t.children()
                .filter(|c| c.is_element() && c.tag_name().name() == "topic")
        })
        .collect()
}

/// `_render_xml_topic`, iteratively, with the reference's recursion limit.
fn render_topic(root: Node, lines: &mut Vec<String>) -> Result<(), Failure> {
    let mut stack: Vec<(Node, usize)> = vec![(root, 0)];
    while let Some((topic, depth)) = stack.pop() {
        let has_children = topic.children().any(|c| c.is_element());
        let title = child_text(topic, "title");
        let title = if title.is_empty() {
            "Untitled topic".to_string()
        } else {
            title
        };
        let indent = "  ".repeat(depth);
        let (note, via_html) = note(topic)?;
        let helpers = if via_html {
            6
        } else if has_children {
            3
        } else {
            2
        };
        if BASE_FRAMES + depth + helpers > RECURSION_LIMIT {
            return Err(Failure::Document("maximum recursion depth exceeded".into()));
        }
        lines.push(format!("{indent}- {title}"));
        if !note.is_empty() {
            lines.push(format!("{indent}  Note: {note}"));
        }
        for child in child_topics(topic).into_iter().rev() {
            stack.push((child, depth + 1));
        }
    }
    Ok(())
}

/// `_parse_content_xml`.
pub(crate) fn markdown(raw: &[u8], max_nodes: u32) -> Result<String, Failure> {
    let text = decode(raw)?;
    let options = roxmltree::ParsingOptions {
        allow_dtd: true,
        nodes_limit: max_nodes,
        ..roxmltree::ParsingOptions::default()
    };
    let doc = roxmltree::Document::parse_with_options(&text, options)
        .map_err(|e| Failure::Content(e.to_string()))?;
    let mut sections = Vec::new();
    let sheets = doc
        .root()
        .descendants()
        .filter(|n| n.is_element() && n.tag_name().name() == "sheet");
    for (index, sheet) in sheets.enumerate() {
        let title = child_text(sheet, "title");
        let title = if title.is_empty() {
            format!("Sheet {}", index + 1)
        } else {
            title
        };
        let mut lines = vec![format!("# {title}")];
        if let Some(topic) = direct_child(sheet, "topic") {
            render_topic(topic, &mut lines)?;
        }
        let section = lines.join("\n");
        let section = ctxguard_core::pyjson::strip(&section);
        if !section.is_empty() {
            sections.push(section.to_string());
        }
    }
    Ok(sections.join("\n\n"))
}
