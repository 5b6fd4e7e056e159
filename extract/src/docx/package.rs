//! `docx.Document(stream)` up to the main document part: python-docx's
//! `PackageReader` walks the relationship graph from the package, reading
//! every part it reaches (a missing one fails), looking up each one's
//! content type, and parsing the XML parts it has classes for.
//!
//! Every part but a main document is read whole (they are small: styles,
//! settings, headers, relationships). A main document part, the one that
//! grows with the document, is left to be read as a stream: the one the
//! package names is read by the caller, any other is checked here the same
//! way, after the walk (either fails the document, whatever the order).

use crate::limits::Limits;
use crate::ooxml::opc::{
    self, base_uri, from_rel_ref, membername, rels_uri, ContentTypes, Flavor, RelXml,
    CT_CORE_PROPERTIES, RT_OFFICE_DOCUMENT,
};
use crate::ooxml::xml::{with_part_stream, Event, XmlError};
use crate::package::{Package, PackageError};
use crate::source::Source;
use std::collections::{HashMap, HashSet};

/// The main document part's content type (`CT.WML_DOCUMENT_MAIN`).
pub(super) const CT_DOCUMENT_MAIN: &str =
    "application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml";
const RT_IMAGE: &str = "http://schemas.openxmlformats.org/officeDocument/2006/relationships/image";

/// The content types python-docx loads as XML parts (`PartFactory.part_type_for`).
const XML_PARTS: [&str; 8] = [
    CT_CORE_PROPERTIES,
    "application/vnd.openxmlformats-officedocument.wordprocessingml.comments+xml",
    CT_DOCUMENT_MAIN,
    "application/vnd.openxmlformats-officedocument.wordprocessingml.footer+xml",
    "application/vnd.openxmlformats-officedocument.wordprocessingml.header+xml",
    "application/vnd.openxmlformats-officedocument.wordprocessingml.numbering+xml",
    "application/vnd.openxmlformats-officedocument.wordprocessingml.settings+xml",
    "application/vnd.openxmlformats-officedocument.wordprocessingml.styles+xml",
];

/// What was loaded of one part.
struct Loaded {
    content_type: Option<String>,
    /// Reached first through an image relationship (an `ImagePart`, not parsed).
    image: bool,
}

/// A relationships part: its relationships, or none when the package has no such member.
fn srels_for(pkg: &mut Package<'_>, partname: &str, depth: usize) -> Result<Vec<RelXml>, String> {
    let uri = rels_uri(partname);
    match pkg.read(membername(&uri)) {
        Ok(xml) => opc::parse_rels(&xml, depth, &uri).map_err(|e| e.to_string()),
        Err(PackageError::NoItem(_)) => Ok(Vec::new()),
        Err(e) => Err(e.to_string()),
    }
}

/// The package, loaded as python-docx loads it, and its main document
/// part, left unread.
pub(super) struct Opened<'a> {
    pub(super) pkg: Package<'a>,
    /// The main document part's member name.
    pub(super) main: String,
}

/// Loads the package as python-docx does, up to the main document part.
pub(super) fn open<'a>(source: &'a dyn Source, limits: &Limits) -> Result<Opened<'a>, String> {
    let depth = limits.max_xml_depth;
    let mut pkg = Package::open(source, limits).map_err(|e| e.to_string())?;
    let ct_xml = pkg.read("[Content_Types].xml").map_err(|e| e.to_string())?;
    let content_types =
        ContentTypes::parse(&ct_xml, depth, Flavor::Docx).map_err(|e| e.to_string())?;
    let package_rels = srels_for(&mut pkg, "/", depth)?;

    let mut visited: HashSet<String> = HashSet::new();
    let mut loaded: HashMap<String, Loaded> = HashMap::new();
    let mut documents: HashSet<String> = HashSet::new();
    let mut stack: Vec<(String, std::vec::IntoIter<RelXml>)> =
        vec![("/".to_string(), package_rels.clone().into_iter())];
    while let Some((base, rels)) = stack.last_mut() {
        let Some(rel) = rels.next() else {
            stack.pop();
            continue;
        };
        if rel.is_external() {
            continue;
        }
        let target = rel
            .target
            .as_deref()
            .ok_or("a relationship without a Target")?;
        let partname = from_rel_ref(base, target);
        if !visited.insert(partname.clone()) {
            continue;
        }
        let part_rels = srels_for(&mut pkg, &partname, depth)?;
        let member = membername(&partname);
        let content_type = content_types.get(&partname)?.map(str::to_string);
        let image = rel.reltype.as_deref() == Some(RT_IMAGE);
        let ct = content_type.as_deref().unwrap_or("");
        if !image && ct == CT_DOCUMENT_MAIN {
            if !pkg.contains(member) {
                return Err(PackageError::NoItem(member.to_string()).to_string());
            }
            documents.insert(partname.clone());
        } else {
            let blob = pkg.read(member).map_err(|e| e.to_string())?;
            if !image && XML_PARTS.contains(&ct) {
                opc::check_xml(&blob, depth, &partname).map_err(|e| e.to_string())?;
            }
        }
        loaded.insert(
            partname.clone(),
            Loaded {
                content_type,
                image,
            },
        );
        stack.push((base_uri(&partname).to_string(), part_rels.into_iter()));
    }

    // The package's relationships keyed by Id (a repeated Id replaces the earlier one).
    let mut by_id: Vec<RelXml> = Vec::new();
    for rel in package_rels {
        match by_id.iter_mut().find(|r| r.id == rel.id) {
            Some(slot) => *slot = rel,
            None => by_id.push(rel),
        }
    }
    let mut main = by_id
        .iter()
        .filter(|r| r.reltype.as_deref() == Some(RT_OFFICE_DOCUMENT));
    let rel = match (main.next(), main.next()) {
        (Some(rel), None) => rel,
        (None, _) => return Err("the package has no officeDocument relationship".into()),
        (Some(_), Some(_)) => {
            return Err("the package has several officeDocument relationships".into())
        }
    };
    if rel.is_external() {
        return Err("the officeDocument relationship points outside the package".into());
    }
    let partname = from_rel_ref("/", rel.target.as_deref().unwrap_or(""));
    let part = loaded
        .get(&partname)
        .ok_or("the main document part was not loaded")?;
    if part.content_type.as_deref() != Some(CT_DOCUMENT_MAIN) {
        return Err(format!(
            "this is not a Word file: its main part's content type is '{}'",
            part.content_type.as_deref().unwrap_or("None")
        ));
    }
    if part.image {
        return Err("the main document part was loaded as an image".into());
    }
    if !documents.remove(&partname) {
        return Err("the main document part was not loaded".into());
    }
    let mut others: Vec<String> = documents.into_iter().collect();
    others.sort();
    for other in others {
        check_streamed(&mut pkg, membername(&other), depth)?;
    }
    Ok(Opened {
        pkg,
        main: membername(&partname).to_string(),
    })
}

/// Reads a part python-docx parses but nothing reads as a stream, failing
/// on what would fail it.
fn check_streamed(pkg: &mut Package<'_>, member: &str, depth: usize) -> Result<(), String> {
    let mut stream = pkg.stream(member).map_err(|e| e.to_string())?;
    with_part_stream(&mut stream, depth, |reader| {
        while !matches!(reader.next()?, Event::Eof) {}
        Ok::<_, XmlError>(())
    })
    .map_err(|e| format!("{member}: {e}"))
}
