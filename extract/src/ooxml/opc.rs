//! The Open Packaging Conventions as python-docx and python-pptx read them:
//! part names (`PackURI`, Python's `posixpath`), `[Content_Types].xml` and
//! relationship parts.

use super::xml::{Element, Event, Source, XmlError};
use std::collections::HashMap;

/// The content-types namespace.
pub(crate) const NS_CT: &str = "http://schemas.openxmlformats.org/package/2006/content-types";
/// The package-relationships namespace.
pub(crate) const NS_PR: &str = "http://schemas.openxmlformats.org/package/2006/relationships";
/// The `officeDocument` relationship type (the main part).
pub(crate) const RT_OFFICE_DOCUMENT: &str =
    "http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument";
/// The core-properties content type (an XML part in both libraries).
pub(crate) const CT_CORE_PROPERTIES: &str =
    "application/vnd.openxmlformats-package.core-properties+xml";

/// Why a package part is unusable as the libraries read it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum OpcError {
    /// The part is not XML lxml accepts.
    #[error("part '{part}': {source}")]
    Xml {
        /// The part's name.
        part: String,
        /// What the XML reader found.
        source: XmlError,
    },
    /// The part parses but is not what the library expects of it.
    #[error("part '{part}': {what}")]
    Shape {
        /// The part's name.
        part: String,
        /// What was wrong.
        what: String,
    },
}

impl OpcError {
    pub(crate) fn shape(part: &str, what: impl Into<String>) -> Self {
        OpcError::Shape {
            part: part.to_string(),
            what: what.into(),
        }
    }
}

/// `posixpath.split(p)[0]`: the directory of a part name.
pub(crate) fn base_uri(partname: &str) -> &str {
    let cut = partname.rfind('/').map_or(0, |i| i + 1);
    let head = &partname[..cut];
    if head.bytes().all(|b| b == b'/') {
        head
    } else {
        head.trim_end_matches('/')
    }
}

/// `posixpath.split(p)[1]`.
fn filename(partname: &str) -> &str {
    partname.rfind('/').map_or(partname, |i| &partname[i + 1..])
}

/// `PackURI.ext`: the extension after the last dot of the file name, unless
/// only dots come before it.
pub(crate) fn ext(partname: &str) -> &str {
    let name = filename(partname);
    match name.rfind('.') {
        Some(dot) if name[..dot].bytes().any(|b| b != b'.') => &name[dot + 1..],
        _ => "",
    }
}

/// `posixpath.join(a, b)`.
fn join(a: &str, b: &str) -> String {
    if b.starts_with('/') {
        b.to_string()
    } else if a.is_empty() || a.ends_with('/') {
        format!("{a}{b}")
    } else {
        format!("{a}/{b}")
    }
}

/// `posixpath.normpath` of an absolute path (two leading slashes are kept).
fn normpath(path: &str) -> String {
    let initial = if path.starts_with("//") && !path.starts_with("///") {
        "//"
    } else {
        "/"
    };
    let mut parts: Vec<&str> = Vec::new();
    for comp in path.split('/') {
        match comp {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            c => parts.push(c),
        }
    }
    format!("{initial}{}", parts.join("/"))
}

/// `PackURI.from_rel_ref(base, ref)`: `posixpath.abspath(posixpath.join(base, ref))`.
pub(crate) fn from_rel_ref(base: &str, target: &str) -> String {
    normpath(&join(base, target))
}

/// `PackURI.rels_uri`: where a part's relationships are stored.
pub(crate) fn rels_uri(partname: &str) -> String {
    let dir = join(base_uri(partname), "_rels");
    join(&dir, &format!("{}.rels", filename(partname)))
}

/// The zip member name of a part name (the leading slash dropped).
pub(crate) fn membername(partname: &str) -> &str {
    partname.strip_prefix('/').unwrap_or(partname)
}

/// Python's `str.lower()`.
fn lower(s: &str) -> String {
    s.to_lowercase()
}

/// `[Content_Types].xml`: overrides by lower-cased part name, defaults by
/// lower-cased extension (`None` values: python-docx's missing attributes).
#[derive(Debug, Default)]
pub(crate) struct ContentTypes {
    overrides: HashMap<String, Option<String>>,
    defaults: HashMap<String, Option<String>>,
}

/// Which library's rules for missing attributes apply.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Flavor {
    /// python-docx: `get()` (a missing part name or extension fails on `.lower()`).
    Docx,
    /// python-pptx: every attribute required.
    Pptx,
}

impl ContentTypes {
    /// Parses the part as the library does (its root must be `ct:Types`).
    pub(crate) fn parse(bytes: &[u8], depth: usize, flavor: Flavor) -> Result<Self, OpcError> {
        const PART: &str = "/[Content_Types].xml";
        let mut ct = ContentTypes::default();
        let mut overrides = Vec::new();
        let mut defaults = Vec::new();
        for_children(bytes, depth, PART, NS_CT, "Types", |e| {
            if e.ns.as_deref() != Some(NS_CT) {
                return Ok(());
            }
            let content_type = e.attr(None, "ContentType").map(str::to_string);
            let (key, list) = match e.local {
                "Override" => ("PartName", &mut overrides),
                "Default" => ("Extension", &mut defaults),
                _ => return Ok(()),
            };
            let name = e
                .attr(None, key)
                .ok_or_else(|| OpcError::shape(PART, format!("a {} without {key}", e.local)))?;
            if flavor == Flavor::Pptx && content_type.is_none() {
                return Err(OpcError::shape(
                    PART,
                    format!("a {} without ContentType", e.local),
                ));
            }
            list.push((lower(name), content_type));
            Ok(())
        })?;
        ct.overrides.extend(overrides);
        ct.defaults.extend(defaults);
        Ok(ct)
    }

    /// The content type of a part, `Err` when neither an override nor a default names one.
    pub(crate) fn get(&self, partname: &str) -> Result<Option<&str>, String> {
        let found = self
            .overrides
            .get(&lower(partname))
            .or_else(|| self.defaults.get(&lower(ext(partname))));
        match found {
            Some(ct) => Ok(ct.as_deref()),
            None => Err(format!(
                "no content type for part '{partname}' in [Content_Types].xml"
            )),
        }
    }
}

/// One `Relationship` element's attributes, as written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct RelXml {
    pub id: Option<String>,
    pub reltype: Option<String>,
    pub target: Option<String>,
    /// `TargetMode`, `None` when absent (the libraries default it to `Internal`).
    pub mode: Option<String>,
}

impl RelXml {
    /// Whether the libraries treat the target as outside the package.
    pub(crate) fn is_external(&self) -> bool {
        self.mode.as_deref() == Some("External")
    }
}

/// Parses a relationships part (root `pr:Relationships`, children `pr:Relationship`).
pub(crate) fn parse_rels(bytes: &[u8], depth: usize, part: &str) -> Result<Vec<RelXml>, OpcError> {
    let mut rels = Vec::new();
    for_children(bytes, depth, part, NS_PR, "Relationships", |e| {
        if e.is(NS_PR, "Relationship") {
            let get = |k: &str| e.attr(None, k).map(str::to_string);
            rels.push(RelXml {
                id: get("Id"),
                reltype: get("Type"),
                target: get("Target"),
                mode: get("TargetMode"),
            });
        }
        Ok(())
    })?;
    Ok(rels)
}

/// Reads an XML part whose root must be `{ns}root`, calling `f` on each child element of the root.
pub(crate) fn for_children(
    bytes: &[u8],
    depth: usize,
    part: &str,
    ns: &str,
    root: &str,
    mut f: impl FnMut(&Element<'_>) -> Result<(), OpcError>,
) -> Result<(), OpcError> {
    let xml = |source| OpcError::Xml {
        part: part.to_string(),
        source,
    };
    let source = Source::new(bytes).map_err(xml)?;
    let mut reader = source.reader(depth).map_err(xml)?;
    let mut level = 0usize;
    loop {
        match reader.next().map_err(xml)? {
            Event::Start(e) => {
                level += 1;
                if level == 1 && !e.is(ns, root) {
                    return Err(OpcError::shape(
                        part,
                        format!("its root element is not {root}"),
                    ));
                }
                if level == 2 {
                    f(&e)?;
                }
            }
            Event::End => level -= 1,
            Event::Eof => return Ok(()),
            Event::Text(_) | Event::Node => {}
        }
    }
}

/// Checks that a part is XML lxml parses (what loading an XML part does).
pub(crate) fn check_xml(bytes: &[u8], depth: usize, part: &str) -> Result<(), OpcError> {
    super::xml::check(bytes, depth).map_err(|source| OpcError::Xml {
        part: part.to_string(),
        source,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn part_names_follow_posixpath() {
        assert_eq!(base_uri("/word/document.xml"), "/word");
        assert_eq!(base_uri("/document.xml"), "/");
        assert_eq!(
            from_rel_ref("/word", "media/image1.png"),
            "/word/media/image1.png"
        );
        assert_eq!(
            from_rel_ref("/ppt/slides", "../slideLayouts/l1.xml"),
            "/ppt/slideLayouts/l1.xml"
        );
        assert_eq!(from_rel_ref("/", "/a//b/./c/../d"), "/a/b/d");
        assert_eq!(from_rel_ref("/", "../../x"), "/x");
        assert_eq!(from_rel_ref("/", "//x/y"), "//x/y");
        assert_eq!(
            rels_uri("/word/document.xml"),
            "/word/_rels/document.xml.rels"
        );
        assert_eq!(rels_uri("/"), "/_rels/.rels");
        assert_eq!(ext("/a/b.XML"), "XML");
        assert_eq!(ext("/a/.rels"), "");
        assert_eq!(ext("/a/..x"), "");
        assert_eq!(ext("/a/b."), "");
        assert_eq!(ext("/a.b/c"), "");
    }

    #[test]
    fn content_types_match_without_case() {
        let xml = br#"<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="XML" ContentType="application/xml"/><Override PartName="/Word/Document.xml" ContentType="main"/></Types>"#;
        let ct = ContentTypes::parse(xml, 256, Flavor::Pptx).expect("valid");
        assert_eq!(ct.get("/word/document.xml"), Ok(Some("main")));
        assert_eq!(ct.get("/word/styles.xml"), Ok(Some("application/xml")));
        assert!(ct.get("/word/image.png").is_err());
        let wrong_root =
            br#"<Typez xmlns="http://schemas.openxmlformats.org/package/2006/content-types"/>"#;
        assert!(ContentTypes::parse(wrong_root, 256, Flavor::Docx).is_err());
    }
}
