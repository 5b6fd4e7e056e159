//! `pptx.Presentation(stream)` up to the presentation part: python-pptx's
//! `_PackageLoader` reads every zip member, walks the relationship graph
//! (parsing the relationships of every part it reaches, present or not),
//! loads the parts that exist (content type looked up, XML parts parsed)
//! and their relationships (those to absent parts dropped).

use crate::limits::Limits;
use crate::ooxml::opc::{
    self, base_uri, from_rel_ref, rels_uri, ContentTypes, Flavor, RelXml, CT_CORE_PROPERTIES,
    RT_OFFICE_DOCUMENT,
};
use crate::package::Package;
use crate::source::Source;
use std::collections::{HashMap, HashSet, VecDeque};

/// A slide part's content type (`CT.PML_SLIDE`).
pub(super) const CT_SLIDE: &str =
    "application/vnd.openxmlformats-officedocument.presentationml.slide+xml";
const CT_PRESENTATION: &str =
    "application/vnd.openxmlformats-officedocument.presentationml.presentation.main+xml";
const CT_PRESENTATION_MACRO: &str =
    "application/vnd.ms-powerpoint.presentation.macroEnabled.main+xml";

/// The content types python-pptx loads as XML parts.
const XML_PARTS: [&str; 11] = [
    CT_PRESENTATION,
    CT_PRESENTATION_MACRO,
    "application/vnd.openxmlformats-officedocument.presentationml.template.main+xml",
    "application/vnd.openxmlformats-officedocument.presentationml.slideshow.main+xml",
    CT_CORE_PROPERTIES,
    "application/vnd.openxmlformats-officedocument.presentationml.notesMaster+xml",
    "application/vnd.openxmlformats-officedocument.presentationml.notesSlide+xml",
    CT_SLIDE,
    "application/vnd.openxmlformats-officedocument.presentationml.slideLayout+xml",
    "application/vnd.openxmlformats-officedocument.presentationml.slideMaster+xml",
    "application/vnd.openxmlformats-officedocument.drawingml.chart+xml",
];

/// Where a loaded relationship points.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Target {
    /// Outside the package.
    External,
    /// A loaded part.
    Part(String),
}

/// The loaded package, as far as reading slides needs it. Only the
/// presentation part's XML is held (it lists the slides); every other part
/// was checked as it was read and is read again when needed ([`Loaded::xml`]).
pub(super) struct Loaded<'s> {
    pkg: Package<'s>,
    /// The presentation part's XML.
    pub presentation: Vec<u8>,
    /// The presentation part's relationships by Id.
    pub presentation_rels: HashMap<String, Target>,
    /// Every loaded part's content type.
    pub content_types: HashMap<String, String>,
    /// The loaded parts python-pptx parses as XML (each checked), by part name.
    xml: HashSet<String>,
}

impl Loaded<'_> {
    /// The XML of a loaded part python-pptx parses (empty for any other part),
    /// read again: its inflation was charged to the budget when it was loaded.
    pub(super) fn xml(&mut self, partname: &str) -> Result<Vec<u8>, String> {
        if !self.xml.contains(partname) {
            return Ok(Vec::new());
        }
        reread(&mut self.pkg, partname)
    }
}

/// A member read a second time, its inflation not charged again.
fn reread(pkg: &mut Package<'_>, partname: &str) -> Result<Vec<u8>, String> {
    let left = pkg.budget_left();
    let read = pkg.read(partname.strip_prefix('/').unwrap_or(partname));
    pkg.restore_budget(left);
    read.map_err(|e| e.to_string())
}

/// A part's (or the package's) relationships as `_Relationships.load_from_xml` keeps them.
fn load_rels(
    base: &str,
    rels: &[RelXml],
    parts: &HashMap<String, String>,
) -> Result<Vec<(String, String, Target)>, String> {
    let mut out: Vec<(String, String, Target)> = Vec::new();
    for rel in rels {
        let mode = rel.mode.as_deref().unwrap_or("Internal");
        let target_ref = rel
            .target
            .as_deref()
            .ok_or("a relationship without a Target")?;
        if mode == "Internal" && !parts.contains_key(&from_rel_ref(base, target_ref)) {
            continue;
        }
        let target = if mode == "External" {
            Target::External
        } else {
            let partname = from_rel_ref(base, target_ref);
            if !parts.contains_key(&partname) {
                return Err(format!("a relationship to the absent part '{partname}'"));
            }
            Target::Part(partname)
        };
        let id = rel.id.clone().ok_or("a relationship without an Id")?;
        let reltype = rel.reltype.clone().ok_or("a relationship without a Type")?;
        match out.iter_mut().find(|(i, ..)| *i == id) {
            Some(slot) => *slot = (id, reltype, target),
            None => out.push((id, reltype, target)),
        }
    }
    Ok(out)
}

/// Loads the package as python-pptx does, up to its presentation part.
pub(super) fn load<'s>(source: &'s dyn Source, limits: &Limits) -> Result<Loaded<'s>, String> {
    let depth = limits.max_xml_depth;
    let mut pkg = Package::open(source, limits).map_err(|e| e.to_string())?;
    let names = pkg.names();
    let ct_xml = if pkg.contains("[Content_Types].xml") {
        Some(pkg.read("[Content_Types].xml").map_err(|e| e.to_string())?)
    } else {
        None
    };
    let content_types = match &ct_xml {
        Some(xml) => {
            Some(ContentTypes::parse(xml, depth, Flavor::Pptx).map_err(|e| e.to_string())?)
        }
        None => None,
    };
    // Every member is read (a damaged one fails); relationships are kept, and
    // the XML the loader parses is checked now (its verdict kept, reported
    // where the loader parses it), so no other part is held.
    let mut present: HashSet<String> = HashSet::new();
    let mut blobs: HashMap<String, Vec<u8>> = HashMap::new();
    let mut checks: HashMap<String, Result<(), String>> = HashMap::new();
    for name in &names {
        let blob = pkg.read(name).map_err(|e| e.to_string())?;
        let partname = format!("/{name}");
        let parsed = content_types
            .as_ref()
            .and_then(|ct| ct.get(&partname).ok().flatten())
            .is_some_and(|ct| XML_PARTS.contains(&ct));
        if parsed {
            let check = opc::check_xml(&blob, depth, &partname).map_err(|e| e.to_string());
            checks.insert(partname.clone(), check);
        }
        if partname.ends_with(".rels") {
            blobs.insert(partname.clone(), blob);
        }
        present.insert(partname);
    }
    let content_types = content_types.ok_or("the package has no [Content_Types].xml")?;

    // The relationship graph from the package, every reachable part's rels parsed.
    let rels_of = |partname: &str| -> Result<Vec<RelXml>, String> {
        let uri = rels_uri(partname);
        match blobs.get(&uri) {
            Some(xml) => opc::parse_rels(xml, depth, &uri).map_err(|e| e.to_string()),
            None => Ok(Vec::new()),
        }
    };
    let mut xml_rels: Vec<(String, Vec<RelXml>)> = Vec::new();
    let mut visited: HashSet<String> = HashSet::new();
    let mut queue: VecDeque<String> = VecDeque::from(["/".to_string()]);
    visited.insert("/".to_string());
    while let Some(source) = queue.pop_front() {
        let rels = rels_of(&source)?;
        for rel in &rels {
            if rel.is_external() {
                continue;
            }
            let target = rel
                .target
                .as_deref()
                .ok_or("a relationship without a Target")?;
            let partname = from_rel_ref(base_uri(&source), target);
            if visited.insert(partname.clone()) {
                queue.push_back(partname);
            }
        }
        xml_rels.push((source, rels));
    }

    // The parts that exist, each with its content type; XML parts parsed.
    let mut parts: HashMap<String, String> = HashMap::new();
    let mut xml: HashSet<String> = HashSet::new();
    for (partname, _) in xml_rels.iter().filter(|(p, _)| p != "/") {
        if !present.contains(partname) {
            continue;
        }
        let ct = content_types
            .get(partname)?
            .ok_or("a content type without a value")?
            .to_string();
        if XML_PARTS.contains(&ct.as_str()) {
            checks.remove(partname).unwrap_or_else(|| {
                opc::check_xml(&[], depth, partname).map_err(|e| e.to_string())
            })?;
            xml.insert(partname.clone());
        }
        parts.insert(partname.clone(), ct);
    }

    let mut package_rels = Vec::new();
    let mut presentation_rels = HashMap::new();
    let mut loaded_rels: HashMap<String, Vec<(String, String, Target)>> = HashMap::new();
    for (partname, rels) in &xml_rels {
        if partname == "/" {
            package_rels = load_rels("/", rels, &parts)?;
        } else if parts.contains_key(partname) {
            loaded_rels.insert(
                partname.clone(),
                load_rels(base_uri(partname), rels, &parts)?,
            );
        }
    }
    let mut main = package_rels
        .iter()
        .filter(|(_, t, _)| t == RT_OFFICE_DOCUMENT);
    let main = match (main.next(), main.next()) {
        (Some(rel), None) => rel,
        (None, _) => return Err("the package has no officeDocument relationship".into()),
        (Some(_), Some(_)) => {
            return Err("the package has several officeDocument relationships".into())
        }
    };
    let Target::Part(main_name) = &main.2 else {
        return Err("the officeDocument relationship points outside the package".into());
    };
    let ct = parts.get(main_name).map(String::as_str).unwrap_or("");
    if ct != CT_PRESENTATION && ct != CT_PRESENTATION_MACRO {
        return Err(format!(
            "this is not a PowerPoint file: its main part's content type is '{ct}'"
        ));
    }
    for (id, _, target) in loaded_rels.remove(main_name).unwrap_or_default() {
        presentation_rels.insert(id, target);
    }
    let presentation = if xml.remove(main_name) {
        reread(&mut pkg, main_name)?
    } else {
        Vec::new()
    };
    Ok(Loaded {
        pkg,
        presentation,
        presentation_rels,
        content_types: parts,
        xml,
    })
}
