//! The package around the sheets, as openpyxl's `ExcelReader` finds it: the
//! manifest (`[Content_Types].xml`) names the workbook and shared-string
//! parts, `workbook.xml` lists the sheets (checked by the descriptors of
//! `WorkbookPackage`, `ChildSheet`, …), the workbook's relationships map
//! each sheet to its part.

use super::pynum::{parse_float, PyInt};
use super::xml::Node;

/// Content types openpyxl looks for.
pub(crate) const SHARED_STRINGS: &str =
    "application/vnd.openxmlformats-officedocument.spreadsheetml.sharedStrings+xml";
const WORKBOOK_TYPES: [&str; 4] = [
    "application/vnd.ms-excel.template.macroEnabled.main+xml",
    "application/vnd.openxmlformats-officedocument.spreadsheetml.template.main+xml",
    "application/vnd.ms-excel.sheet.macroEnabled.main+xml",
    "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml",
];
const REL_NS: &str = "http://schemas.openxmlformats.org/officeDocument/2006/relationships";
const MC_NS: &str = "http://schemas.openxmlformats.org/markup-compatibility/2006";

/// Why the package is refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct BookError(pub String);

fn fail<T>(what: impl Into<String>) -> Result<T, BookError> {
    Err(BookError(what.into()))
}

/// `[Content_Types].xml`: `Default` and `Override` entries.
#[derive(Debug, Default)]
pub(crate) struct Manifest {
    defaults: Vec<(String, String)>,
    overrides: Vec<(String, String)>,
}

/// Refuses attributes not in `allowed` (namespaced ones are dropped by `from_tree`).
fn only(node: &Node, class: &str, allowed: &[&str]) -> Result<(), BookError> {
    for (k, _) in &node.attrs {
        if !k.starts_with('{') && !allowed.contains(&k.as_str()) {
            return fail(format!("{class} does not take the attribute '{k}'"));
        }
    }
    Ok(())
}

impl Manifest {
    /// `Manifest.from_tree(root)`.
    pub(crate) fn read(root: &Node) -> Result<Self, BookError> {
        only(root, "Manifest", &[])?;
        let mut m = Manifest::default();
        for child in &root.children {
            let pair = |a: &str, b: &str| -> Result<(String, String), BookError> {
                only(child, child.local(), &[a, b])?;
                match (child.get(a), child.get(b)) {
                    (Some(x), Some(y)) => Ok((x.to_string(), y.to_string())),
                    _ => fail(format!("a manifest {} lacks {a} or {b}", child.local())),
                }
            };
            match child.local() {
                "Default" => m.defaults.push(pair("Extension", "ContentType")?),
                "Override" => m.overrides.push(pair("PartName", "ContentType")?),
                "path" | "tagname" | "find" | "findall" | "append" | "from_tree" | "to_tree"
                | "idx_base" => return fail(format!("<{}> in the manifest", child.local())),
                _ => {}
            }
        }
        Ok(m)
    }

    /// `package.find(ct)`: the first override's part name.
    pub(crate) fn find(&self, content_type: &str) -> Option<&str> {
        self.overrides
            .iter()
            .find(|(_, ct)| ct == content_type)
            .map(|(p, _)| p.as_str())
    }

    /// `_find_workbook_part`: by type priority, else a default naming a workbook type.
    pub(crate) fn workbook_part(&self) -> Result<String, BookError> {
        for ct in WORKBOOK_TYPES {
            if let Some(p) = self.find(ct) {
                return Ok(p.to_string());
            }
        }
        if self
            .defaults
            .iter()
            .any(|(_, ct)| WORKBOOK_TYPES.contains(&ct.as_str()))
        {
            return Ok("/xl/workbook.xml".into());
        }
        fail("File contains no valid workbook part")
    }
}

/// `PartName[1:]`: the name without its first character.
pub(crate) fn strip_first(name: &str) -> &str {
    let mut chars = name.chars();
    chars.next();
    chars.as_str()
}

/// One attribute rule: `name:Kind[?][=a|b]`.
fn check_attrs(node: &Node, class: &str, spec: &str) -> Result<(), BookError> {
    let rules: Vec<(&str, &str)> = spec
        .split_whitespace()
        .filter_map(|r| r.split_once(':'))
        .collect();
    for (k, v) in &node.attrs {
        if k.starts_with('{') {
            continue;
        }
        let Some((_, rule)) = rules.iter().find(|(n, _)| n == k) else {
            return fail(format!("{class} does not take the attribute '{k}'"));
        };
        let (kind, values) = rule.split_once('=').unwrap_or((rule, ""));
        let kind = kind.trim_end_matches('?');
        let ok = match kind {
            "Integer" => PyInt::parse(v).is_some(),
            "Float" => parse_float(v).is_some(),
            "NoneSet" => v == "none" || values.split('|').any(|x| x == v),
            _ => true,
        };
        if !ok {
            return fail(format!("{class}.{k} '{v}' is invalid"));
        }
    }
    for (name, rule) in &rules {
        let required = !rule.contains('?') && matches!(*rule, "String" | "Integer");
        if required && node.get(name).is_none() {
            return fail(format!("{class} requires '{name}'"));
        }
    }
    Ok(())
}

const WORKBOOK_PR: &str = "date1904:Bool? dateCompatibility:Bool? showObjects:NoneSet=all|placeholders showBorderUnselectedTables:Bool? filterPrivacy:Bool? promptedSolutions:Bool? showInkAnnotation:Bool? backupFile:Bool? saveExternalLinkValues:Bool? updateLinks:NoneSet=always|never|userSet codeName:String? hidePivotFieldList:Bool? showPivotChartFilter:Bool? allowRefreshQuery:Bool? publishItems:Bool? checkCompatibility:Bool? autoCompressPictures:Bool? refreshAllConnections:Bool? defaultThemeVersion:Integer?";
const CALC_PR: &str = "calcId:Integer? calcMode:NoneSet=auto|autoNoTable|manual fullCalcOnLoad:Bool? refMode:NoneSet=A1|R1C1 iterate:Bool? iterateCount:Integer? iterateDelta:Float? fullPrecision:Bool? calcCompleted:Bool? calcOnSave:Bool? concurrentCalc:Bool? concurrentManualCount:Integer? forceFullCalc:Bool?";
const FILE_VERSION: &str =
    "appName:String? lastEdited:String? lowestEdited:String? rupBuild:String? codeName:Guid?";
const CHILD_SHEET: &str =
    "name:String sheetId:Integer state:NoneSet=hidden|veryHidden|visible id:Relation?";
const BOOK_VIEW: &str = "visibility:NoneSet=hidden|veryHidden|visible minimized:Bool? showHorizontalScroll:Bool? showVerticalScroll:Bool? showSheetTabs:Bool? xWindow:Integer? yWindow:Integer? windowWidth:Integer? windowHeight:Integer? tabRatio:Integer? firstSheet:Integer? activeTab:Integer? autoFilterDateGrouping:Bool? extLst:Typed?";
const DEFINED_NAME: &str = "name:String comment:String? customMenu:String? description:String? help:String? statusBar:String? localSheetId:Integer? hidden:Bool? function:Bool? vbProcedure:Bool? xlm:Bool? functionGroupId:Integer? shortcutKey:String? publishToServer:Bool? workbookParameter:Bool?";
const PROTECTION: &str = "workbookPassword:property workbookPasswordCharacterSet:String? revisionsPassword:property revisionsPasswordCharacterSet:String? lockStructure:Bool? lockWindows:Bool? lockRevision:Bool? revisionsAlgorithmName:String? revisionsHashValue:Base64Binary? revisionsSaltValue:Base64Binary? revisionsSpinCount:Integer? workbookAlgorithmName:String? workbookHashValue:Base64Binary? workbookSaltValue:Base64Binary? workbookSpinCount:Integer?";

/// A `<sheet>` of the workbook.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SheetRef {
    /// Its title.
    pub name: String,
    /// Its relationship id (`r:id`, or a plain `id`), if any.
    pub id: Option<String>,
}

/// `workbook.xml` as `WorkbookParser.parse` keeps it.
#[derive(Debug, Default)]
pub(crate) struct Workbook {
    /// `workbookPr date1904`.
    pub date1904: bool,
    /// The sheets in order.
    pub sheets: Vec<SheetRef>,
    /// `externalReference` relationship ids.
    pub external: Vec<Option<String>>,
    /// Defined names: (name, localSheetId, value).
    pub names: Vec<(String, Option<i64>, String)>,
}

/// `Bool` of an attribute: `false`/`f`/`0` are false, any other string true.
fn py_bool(v: &str) -> bool {
    !matches!(v, "false" | "f" | "0" | "")
}

impl Workbook {
    /// `WorkbookPackage.from_tree(root)`.
    pub(crate) fn read(root: &Node) -> Result<Self, BookError> {
        let mut wb = Workbook::default();
        for (k, v) in &root.attrs {
            if k.starts_with('{') {
                continue;
            }
            match k.as_str() {
                "conformance" if matches!(v.as_str(), "strict" | "transitional" | "none") => {}
                "Ignorable" => {}
                _ => return fail(format!("workbook attribute '{k}'")),
            }
        }
        let _ = MC_NS;
        for child in &root.children {
            match child.local() {
                "workbookPr" => {
                    check_attrs(child, "WorkbookProperties", WORKBOOK_PR)?;
                    wb.date1904 = child.get("date1904").is_some_and(py_bool);
                }
                "calcPr" => check_attrs(child, "CalcProperties", CALC_PR)?,
                "fileVersion" => check_attrs(child, "FileVersion", FILE_VERSION)?,
                "workbookProtection" => check_attrs(child, "WorkbookProtection", PROTECTION)?,
                "bookViews" => {
                    for view in &child.children {
                        check_attrs(view, "BookView", BOOK_VIEW)?;
                    }
                }
                "sheets" => {
                    for sheet in &child.children {
                        check_attrs(sheet, "ChildSheet", CHILD_SHEET)?;
                        let id = sheet
                            .get(&format!("{{{REL_NS}}}id"))
                            .or_else(|| sheet.get("id"))
                            .map(str::to_string);
                        wb.sheets.push(SheetRef {
                            name: sheet.get("name").unwrap_or_default().to_string(),
                            id,
                        });
                    }
                }
                "externalReferences" => {
                    for ext in &child.children {
                        only(ext, "ExternalReference", &["id"])?;
                        let id = ext
                            .get(&format!("{{{REL_NS}}}id"))
                            .or_else(|| ext.get("id"))
                            .map(str::to_string);
                        wb.external.push(id);
                    }
                }
                "definedNames" => {
                    only(child, "DefinedNameList", &[])?;
                    for name in child.children.iter().filter(|c| c.local() == "definedName") {
                        check_attrs(name, "DefinedName", DEFINED_NAME)?;
                        let local = name
                            .get("localSheetId")
                            .and_then(PyInt::parse)
                            .and_then(|i| i.to_i64());
                        wb.names.push((
                            name.get("name").unwrap_or_default().to_string(),
                            local,
                            name.text.clone().unwrap_or_default(),
                        ));
                    }
                }
                "tagname" | "from_tree" | "to_tree" | "idx_base" | "active" => {
                    return fail(format!("<{}> in the workbook", child.local()))
                }
                _ => {}
            }
        }
        Ok(wb)
    }
}

/// A relationship, its target made absolute as `get_dependents` does.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Rel {
    /// `Id`.
    pub id: Option<String>,
    /// `Type`.
    pub kind: String,
    /// The normalised target.
    pub target: String,
}

/// `posixpath.normpath`.
fn normpath(path: &str) -> String {
    let absolute = path.starts_with('/');
    let mut parts: Vec<&str> = Vec::new();
    for part in path.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                if parts.last().is_some_and(|p| *p != "..") {
                    parts.pop();
                } else if !absolute {
                    parts.push("..");
                }
            }
            p => parts.push(p),
        }
    }
    let joined = parts.join("/");
    match (absolute, joined.is_empty()) {
        (true, _) => format!("/{joined}"),
        (false, true) => ".".into(),
        (false, false) => joined,
    }
}

/// `get_rels_path(path)`: `dir/_rels/name.rels`.
pub(crate) fn rels_path(path: &str) -> String {
    match path.rsplit_once('/') {
        Some((dir, name)) => format!("{dir}/_rels/{name}.rels"),
        None => format!("_rels/{path}.rels"),
    }
}

/// `get_dependents(archive, filename)` over the parsed rels part: a list that does not
/// construct is dropped whole (the reference warns and goes on with none).
pub(crate) fn relationships(filename: &str, root: &Node) -> Vec<Rel> {
    let mut rels = Vec::new();
    for r in &root.children {
        let allowed = ["Id", "Type", "type", "Target", "TargetMode"];
        if r.attrs
            .iter()
            .any(|(k, _)| !k.starts_with('{') && !allowed.contains(&k.as_str()))
        {
            return Vec::new();
        }
        let kind = match (r.get("type"), r.get("Type")) {
            (Some(t), _) => format!("{REL_NS}/{t}"),
            (None, Some(t)) => t.to_string(),
            (None, None) => return Vec::new(),
        };
        let Some(target) = r.get("Target") else {
            return Vec::new();
        };
        let folder = filename.rsplit_once('/').map_or("", |(d, _)| d);
        let parent = folder.rsplit_once('/').map_or("", |(d, _)| d);
        let target = if r.get("TargetMode") == Some("External") {
            target.to_string()
        } else if let Some(abs) = target.strip_prefix('/') {
            abs.to_string()
        } else if parent.is_empty() {
            normpath(target)
        } else if target.is_empty() {
            normpath(&format!("{parent}/"))
        } else {
            normpath(&format!("{parent}/{target}"))
        };
        rels.push(Rel {
            id: r.get("Id").map(str::to_string),
            kind,
            target,
        });
    }
    rels
}

#[cfg(test)]
mod tests {
    use super::super::xml::parse_tree;
    use super::*;

    #[test]
    fn relationship_targets_are_made_absolute() {
        let xml = r#"<Relationships><Relationship Id="rId1" Type="t" Target="worksheets/sheet1.xml"/><Relationship Id="rId2" Type="t" Target="/xl/x.xml"/><Relationship Id="rId3" Type="t" Target="../a/./b.xml"/></Relationships>"#;
        let rels = relationships(
            "xl/_rels/workbook.xml.rels",
            &parse_tree("r", xml.as_bytes(), 9).expect("xml"),
        );
        let targets: Vec<&str> = rels.iter().map(|r| r.target.as_str()).collect();
        assert_eq!(targets, ["xl/worksheets/sheet1.xml", "xl/x.xml", "a/b.xml"]);
        assert_eq!(rels_path("xl/workbook.xml"), "xl/_rels/workbook.xml.rels");
    }

    #[test]
    fn workbook_sheets_and_checks() {
        let xml = r#"<workbook xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><workbookPr date1904="FALSE"/><sheets><sheet name="A" sheetId="1" r:id="rId1"/></sheets></workbook>"#;
        let wb = Workbook::read(&parse_tree("w", xml.as_bytes(), 9).expect("xml")).expect("valid");
        assert!(wb.date1904, "Bool('FALSE') is true");
        assert_eq!(wb.sheets[0].id.as_deref(), Some("rId1"));
        let bad = xml.replace("sheetId=\"1\"", "sheetId=\"x\"");
        assert!(Workbook::read(&parse_tree("w", bad.as_bytes(), 9).expect("xml")).is_err());
    }
}
