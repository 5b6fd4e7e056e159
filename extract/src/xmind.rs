//! XMind mind maps as shared/utils/xmind_parser.py turns them into Markdown:
//! `content.json` (XMind Zen and later) or else `content.xml` (XMind 8) from
//! the zip, sheets as `# title` sections, topics as an indented list with
//! their notes and labels. Refusals keep the reference's two prefixes: what
//! `parse_xmind_to_markdown` raises as `XMindParseError` reads `Failed to
//! parse XMind file: …`; anything else (a name or `content.json` that is not
//! UTF-8, a damaged member, a nesting past Python's recursion limit) escapes
//! to `Failed to parse document: …`.

mod entities;
mod html;
mod json;
mod xml;

use crate::archive::zipfile::{ZipDir, ZipError};
use crate::error::{DocumentError, Subject};
use crate::limits::Limits;
use crate::source::Source;
use json::Py;

/// Why the mind map could not be read, by the prefix the reference gives it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Failure {
    /// An `XMindParseError`: `Invalid XMind content: …` and the like.
    Content(String),
    /// An `XMindParseError` with its whole reason.
    XMind(String),
    /// Any other exception: `Failed to parse document: …`.
    Document(String),
}

/// `_clean_text` of a string: whitespace runs (Python's `str.split()`) to one space.
pub(crate) fn clean_text(s: &str) -> String {
    let s = s.replace('\r', "\n");
    let mut out = String::with_capacity(s.len());
    for word in s
        .split(ctxguard_core::pyjson::is_space)
        .filter(|w| !w.is_empty())
    {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(word);
    }
    out
}

/// `_clean_text(value)` of a JSON value (`None` is empty, others are `str()`ed).
fn clean_value(v: Option<&Py>) -> String {
    match v {
        None | Some(Py::None) => String::new(),
        Some(v) => clean_text(&v.to_py_str()),
    }
}

/// `_extract_json_note`.
fn json_note(notes: Option<&Py>) -> Result<String, Failure> {
    let Some(notes @ Py::Dict(_)) = notes else {
        return Ok(String::new());
    };
    match notes.get("plain") {
        Some(plain @ Py::Dict(_)) => {
            let n = clean_value(plain.get("content"));
            if !n.is_empty() {
                return Ok(n);
            }
        }
        Some(Py::Str(s)) => {
            let n = clean_text(s);
            if !n.is_empty() {
                return Ok(n);
            }
        }
        _ => {}
    }
    match notes.get("html") {
        Some(h @ Py::Dict(_)) => {
            let content = match h.get("content") {
                Some(c) if c.truthy() => c.to_py_str(),
                _ => String::new(),
            };
            html::text(&content)
        }
        Some(Py::Str(s)) => html::text(s),
        _ => Ok(String::new()),
    }
}

/// `_iter_json_child_topics`.
fn json_children(children: Option<&Py>) -> Vec<&Py> {
    let mut out = Vec::new();
    let Some(Py::Dict(groups)) = children else {
        return out;
    };
    for (_, group) in groups {
        match group {
            Py::List(items) => out.extend(items.iter().filter(|c| matches!(c, Py::Dict(_)))),
            Py::Dict(values) => {
                for (_, value) in values {
                    match value {
                        Py::List(items) => {
                            out.extend(items.iter().filter(|c| matches!(c, Py::Dict(_))))
                        }
                        Py::Dict(_) => out.push(value),
                        _ => {}
                    }
                }
            }
            _ => {}
        }
    }
    out
}

/// `_render_json_topic`, iteratively (the JSON nesting limit bounds the depth).
fn render_json_topic(root: &Py, lines: &mut Vec<String>) -> Result<(), Failure> {
    let mut stack: Vec<(&Py, usize)> = vec![(root, 0)];
    while let Some((topic, depth)) = stack.pop() {
        let title = clean_value(topic.get("title"));
        let title = if title.is_empty() {
            "Untitled topic".to_string()
        } else {
            title
        };
        let indent = "  ".repeat(depth);
        lines.push(format!("{indent}- {title}"));
        let note = json_note(topic.get("notes"))?;
        if !note.is_empty() {
            lines.push(format!("{indent}  Note: {note}"));
        }
        if let Some(Py::List(labels)) = topic.get("labels") {
            let labels: Vec<String> = labels
                .iter()
                .map(|l| clean_value(Some(l)))
                .filter(|l| !l.is_empty())
                .collect();
            if !labels.is_empty() {
                lines.push(format!("{indent}  Labels: {}", labels.join(", ")));
            }
        }
        for child in json_children(topic.get("children")).into_iter().rev() {
            stack.push((child, depth + 1));
        }
    }
    Ok(())
}

/// `_parse_content_json`.
fn json_markdown(raw: &[u8]) -> Result<String, Failure> {
    let raw = raw.strip_prefix(b"\xef\xbb\xbf").unwrap_or(raw);
    let text = std::str::from_utf8(raw)
        .map_err(|e| Failure::Document(format!("content.json is not UTF-8: {e}")))?;
    let payload = json::loads(text)?;
    let sheets: Vec<&Py> = match &payload {
        Py::List(items) => items.iter().collect(),
        other => vec![other],
    };
    let mut sections = Vec::new();
    for (index, sheet) in sheets.into_iter().enumerate() {
        if !matches!(sheet, Py::Dict(_)) {
            continue;
        }
        let title = clean_value(sheet.get("title"));
        let title = if title.is_empty() {
            format!("Sheet {}", index + 1)
        } else {
            title
        };
        let mut lines = vec![format!("# {title}")];
        if let Some(root @ Py::Dict(_)) = sheet.get("rootTopic") {
            render_json_topic(root, &mut lines)?;
        }
        let section = lines.join("\n");
        let section = ctxguard_core::pyjson::strip(&section);
        if !section.is_empty() {
            sections.push(section.to_string());
        }
    }
    Ok(sections.join("\n\n"))
}

/// A zip failure as `parse_xmind_to_markdown` sees it.
fn zip_failure(e: ZipError) -> Failure {
    match e {
        ZipError::BadZip(_) => Failure::XMind("Invalid XMind archive".into()),
        ZipError::Other(why) => Failure::Document(why),
        ZipError::TooLarge(limit) => Failure::XMind(format!(
            "too large to preview: its content inflates past {limit} bytes"
        )),
    }
}

/// `parse_xmind_to_markdown`.
fn parse(source: &dyn Source, limits: &Limits) -> Result<String, Failure> {
    let zip = ZipDir::open(source).map_err(zip_failure)?;
    let markdown = if zip.contains("content.json") {
        json_markdown(
            &zip.read("content.json", limits.max_inflated_bytes)
                .map_err(zip_failure)?,
        )?
    } else if zip.contains("content.xml") {
        let raw = zip
            .read("content.xml", limits.max_inflated_bytes)
            .map_err(zip_failure)?;
        xml::markdown(
            &raw,
            u32::try_from(limits.max_inflated_bytes).unwrap_or(u32::MAX),
        )?
    } else {
        return Err(Failure::XMind(
            "XMind archive does not contain content.json or content.xml".into(),
        ));
    };
    let markdown = ctxguard_core::pyjson::strip(&markdown);
    if markdown.is_empty() {
        return Err(Failure::XMind(
            "XMind archive contains no readable topics".into(),
        ));
    }
    Ok(markdown.to_string())
}

/// The mind map as Markdown (before truncation, which the caller applies).
pub(crate) fn markdown(source: &dyn Source, limits: &Limits) -> Result<String, DocumentError> {
    parse(source, limits).map_err(|f| match f {
        Failure::Content(why) => {
            DocumentError::failed(Subject::XMind, format!("Invalid XMind content: {why}"))
        }
        Failure::XMind(why) => DocumentError::failed(Subject::XMind, why),
        Failure::Document(why) => DocumentError::failed(Subject::Document, why),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::package::testing::zip_of;

    fn md(members: &[(&str, &[u8])]) -> Result<String, DocumentError> {
        markdown(&zip_of(members), &Limits::default())
    }

    #[test]
    fn json_maps_render_titles_notes_labels_and_python_str() {
        let content = br#"[{"title": null, "rootTopic": {"title": "  root\n topic ", "notes": {"plain": {"content": " "}, "html": {"content": "<p>a &amp; b</p>"}},
            "labels": [1, null, "  ", "ok", 2.5, true], "children": {"attached": [{"title": 0}, "skip", {"notes": {"plain": "n"}}],
            "summary": {"x": {"title": ["a", 1]}}}}}, 5, {"title": "Second"}]"#;
        assert_eq!(
            md(&[("content.json", content)]).expect("a map"),
            "# Sheet 1\n- root topic\n  Note: a & b\n  Labels: 1, ok, 2.5, True\n  - 0\n  - Untitled topic\n    Note: n\n  - ['a', 1]\n\n# Second"
        );
    }

    #[test]
    fn xml_maps_render_sheets_anywhere_and_topics_under_topics() {
        let content = b"<?xml version='1.0' encoding='UTF-8'?><xmap-content xmlns='urn:xmind' xmlns:h='urn:h'><sheet><title>T &amp; U</title>\
            <topic><title>root</title><notes><plain> </plain><html><h:p>&amp;lt;b&amp;gt;bold</h:p></html></notes><children><topics><topic><title>kid</title></topic></topics>\
            <other><topic><title>ignored</title></topic></other></children></topic></sheet><sheet/></xmap-content>";
        assert_eq!(
            md(&[("content.xml", content)]).expect("a map"),
            "# T & U\n- root\n  Note: bold\n  - kid\n\n# Sheet 2"
        );
    }

    #[test]
    fn refusals_carry_the_reference_prefixes() {
        let fixed =
            |r: Result<String, DocumentError>| r.expect_err("refused").fixed_part().to_string();
        assert_eq!(
            fixed(markdown(&&b"not a zip"[..], &Limits::default())),
            "Failed to parse XMind file: "
        );
        assert_eq!(
            fixed(md(&[("other.txt", b"x")])),
            "Failed to parse XMind file: "
        );
        assert_eq!(
            fixed(md(&[("content.json", b"[1, 2]")])),
            "Failed to parse XMind file: "
        );
        assert_eq!(
            fixed(md(&[("content.json", b"{'a': 1}")])),
            "Failed to parse XMind file: "
        );
        assert_eq!(
            fixed(md(&[("content.xml", b"<a></b>")])),
            "Failed to parse XMind file: "
        );
        assert_eq!(
            fixed(md(&[("content.json", b"[{\"title\": \"caf\xe9\"}]")])),
            "Failed to parse document: "
        );
        assert_eq!(
            md(&[("content.json", b"[]")]).expect_err("empty").message,
            "Failed to parse XMind file: XMind archive contains no readable topics"
        );
        // content.json wins over content.xml.
        assert_eq!(
            md(&[
                ("content.xml", b"<a><sheet/></a>"),
                ("content.json", b"{\"title\": \"j\"}")
            ])
            .expect("json"),
            "# j"
        );
    }

    #[test]
    fn hostile_maps_are_bounded() {
        // Topics nested past Python's recursion limit fail as the reference does.
        let mut deep = String::from("<topic><title>x</title></topic>");
        for _ in 0..2000 {
            deep = format!(
                "<topic><title>x</title><children><topics>{deep}</topics></children></topic>"
            );
        }
        let doc = format!("<a><sheet>{deep}</sheet></a>");
        let err = md(&[("content.xml", doc.as_bytes())]).expect_err("too deep");
        assert_eq!(err.fixed_part(), "Failed to parse document: ");
        // JSON nesting past the scanner's limit.
        let nested = format!("{}{}", "[".repeat(5000), "]".repeat(5000));
        let err = md(&[("content.json", nested.as_bytes())]).expect_err("too deep");
        assert_eq!(err.fixed_part(), "Failed to parse document: ");
        // Exponential entities are refused, not expanded.
        let laughs = b"<!DOCTYPE a [<!ENTITY a 'aaaaaaaaaa'><!ENTITY b '&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;'>\
            <!ENTITY c '&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;'><!ENTITY d '&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;'>\
            <!ENTITY e '&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;'><!ENTITY f '&e;&e;&e;&e;&e;&e;&e;&e;&e;&e;'>\
            <!ENTITY g '&f;&f;&f;&f;&f;&f;&f;&f;&f;&f;'><!ENTITY h '&g;&g;&g;&g;&g;&g;&g;&g;&g;&g;'>]>\
            <a><sheet><title>&h;&h;&h;&h;&h;&h;&h;&h;</title></sheet></a>";
        let started = std::time::Instant::now();
        let _ = md(&[("content.xml", laughs)]);
        assert!(
            started.elapsed().as_secs() < 5,
            "entity expansion is bounded"
        );
        // A member that inflates past the budget is refused.
        let big = vec![b' '; 100_000];
        let limits = Limits {
            max_inflated_bytes: 10_000,
            ..Limits::default()
        };
        let err = markdown(&zip_of(&[("content.json", &big)]), &limits).expect_err("over budget");
        assert!(err.message.contains("too large"), "{}", err.message);
    }

    /// Mutated archives and contents never panic, in either the XMind parser or the listing.
    #[test]
    fn mutated_maps_never_panic() {
        let mut seed: u64 = 0x2545_f491_4f6c_dd1d;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        let samples = [
            zip_of(&[("content.json", br#"[{"title":"s","rootTopic":{"title":"t","notes":{"html":"<p>a &amp; b</p>"},"labels":["x"],"children":{"attached":[{"title":"c"}]}}}]"#)]),
            zip_of(&[("content.xml", b"<a xmlns:h='u'><sheet><title>t</title><topic><title>r</title><notes><html><h:p>x&amp;lt;b&amp;gt;</h:p></html></notes><children><topics><topic/></topics></children></topic></sheet></a>")]),
        ];
        for round in 0..3000 {
            let mut bytes = samples[round % samples.len()].clone();
            for _ in 0..1 + next() % 3 {
                if bytes.is_empty() {
                    break;
                }
                let at = (next() as usize) % bytes.len();
                match next() % 3 {
                    0 => bytes[at] ^= 1 << (next() % 8),
                    1 => bytes.truncate(at),
                    _ => bytes.insert(at, (next() % 256) as u8),
                }
            }
            let _ = markdown(&bytes, &Limits::default());
            let _ = crate::archive::parse(&bytes, &Limits::default());
        }
        // The contents themselves, stored uncompressed so the mutation reaches them.
        let json = br#"[{"title":"s","rootTopic":{"title":"t","notes":{"plain":{"content":"n"},"html":{"content":"<b>x</b>&amp;"}},"children":{"d":{"k":{"title":1.5}}}}}]"#;
        let xml = b"<?xml version='1.0'?><!DOCTYPE a [<!ENTITY e 'v'>]><a><sheet><title>&e;</title><topic><title>r<![CDATA[c]]></title></topic></sheet></a>";
        for round in 0..3000 {
            let (name, mut text) = if round % 2 == 0 {
                ("content.json", json.to_vec())
            } else {
                ("content.xml", xml.to_vec())
            };
            for _ in 0..1 + next() % 3 {
                let at = (next() as usize) % text.len().max(1);
                match next() % 3 {
                    0 if at < text.len() => text[at] ^= 1 << (next() % 8),
                    1 => text.truncate(at),
                    _ => text.insert(at.min(text.len()), (next() % 256) as u8),
                }
            }
            let _ = md(&[(name, &text)]);
        }
    }
}
