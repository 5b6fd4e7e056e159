//! The worksheet's other elements (`pageMargins`, `sheetViews`,
//! `hyperlinks`, `mergeCells`, …), which openpyxl's worksheet parser builds
//! with `Serialisable.from_tree` even in read-only mode: a keyword its
//! constructor does not take, a number that does not convert or a value
//! outside its set refuses the workbook. The classes are described in
//! `sheet_classes.tsv` (parameters, descriptors), taken from openpyxl 3.1.5
//! by introspection.

use super::pynum::{parse_float, PyInt};
use super::xml::Node;
use std::collections::HashMap;
use std::sync::OnceLock;

const TABLE: &str = include_str!("sheet_classes.tsv");
const REL_NS: &str = "http://schemas.openxmlformats.org/officeDocument/2006/relationships";

/// One class: its constructor's parameters and its descriptors.
struct Class {
    params: Vec<&'static str>,
    kwargs: bool,
    needs_args: bool,
    namespaced: Vec<&'static str>,
    custom: bool,
    descs: HashMap<&'static str, &'static str>,
}

struct Classes {
    classes: HashMap<&'static str, Class>,
    roots: HashMap<&'static str, &'static str>,
}

fn classes() -> &'static Classes {
    static CLASSES: OnceLock<Classes> = OnceLock::new();
    CLASSES.get_or_init(|| {
        let mut classes = HashMap::new();
        let mut roots = HashMap::new();
        for line in TABLE.lines() {
            let cols: Vec<&'static str> = line.split('\t').collect();
            if cols.first() == Some(&"ROOTS") {
                for pair in cols.get(1).unwrap_or(&"").split_whitespace() {
                    if let Some((tag, class)) = pair.split_once(':') {
                        roots.insert(tag, class);
                    }
                }
                continue;
            }
            let [name, params, kw, needs, ns, custom, descs] = cols[..] else {
                continue;
            };
            let split = |s: &'static str| s.split(',').filter(|p| !p.is_empty()).collect();
            classes.insert(
                name,
                Class {
                    params: split(params),
                    kwargs: kw == "1",
                    needs_args: needs == "1",
                    namespaced: split(ns),
                    custom: custom == "1",
                    descs: descs
                        .split_whitespace()
                        .filter_map(|d| d.split_once(':'))
                        .collect(),
                },
            );
        }
        Classes { classes, roots }
    })
}

/// The class a worksheet element of this local name is read into, if any.
pub(crate) fn root_class(local: &str) -> Option<&'static str> {
    classes().roots.get(local).copied()
}

/// A value handed to a constructor.
enum V<'a> {
    None,
    Str(&'a str),
    Obj,
}

fn python_name(name: &str) -> String {
    match name {
        "and" | "or" | "not" | "in" | "is" | "if" | "else" | "for" | "from" | "class" | "def"
        | "del" | "global" | "import" | "pass" | "raise" | "return" | "try" | "while" | "with"
        | "yield" | "lambda" | "assert" | "break" | "continue" | "elif" | "except" | "finally"
        | "nonlocal" | "as" | "async" | "await" | "True" | "False" | "None" => {
            format!("_{name}")
        }
        _ => name.replace('-', "_"),
    }
}

/// `desc.__set__(value)` for a descriptor kind string.
fn valid(kind: &str, value: &V<'_>) -> bool {
    let kind = kind
        .strip_prefix('n')
        .filter(|k| k.starts_with(|c: char| c.is_ascii_uppercase()))
        .unwrap_or(kind);
    let (head, values) = kind.split_once('=').unwrap_or((kind, ""));
    let optional = head.ends_with('?');
    let head = head.trim_end_matches('?');
    match (head, value) {
        ("skip" | "text" | "empty" | "nbool" | "Bool", _) => true,
        (_, V::None) => optional || head.starts_with('*') || head.starts_with('+'),
        ("Integer", V::Str(s)) => PyInt::parse(s).is_some(),
        ("Float", V::Str(s)) => parse_float(s).is_some(),
        ("String", V::Str(_)) => true,
        ("Set" | "NoneSet", V::Str(s)) => {
            (head == "NoneSet" && *s == "none") || values.split('|').any(|v| v == *s)
        }
        ("Range", V::Str(s)) => {
            let (lo, hi) = values.split_once('|').unwrap_or(("-inf", "inf"));
            let bound = |b: &str| parse_float(b).unwrap_or(f64::NAN);
            parse_float(s).is_some_and(|f| !(f < bound(lo) || f > bound(hi)))
        }
        (h, V::Obj) => h.starts_with('@') || h.starts_with('*') || h.starts_with('+'),
        _ => false,
    }
}

/// `Class.from_tree(node)` succeeds (bounded by `depth`).
pub(crate) fn check(node: &Node, class: &str, depth: usize) -> Result<(), String> {
    if depth > 32 {
        return Err("worksheet properties nested too deeply".into());
    }
    let Some(c) = classes().classes.get(class) else {
        return Ok(());
    };
    // The one custom `from_tree` (PrintPageSetup's) calls the generic one first.
    let _ = c.custom;
    let mut given: Vec<(String, V<'_>)> = Vec::new();
    for (k, v) in &node.attrs {
        let key = match k.strip_prefix(&format!("{{{REL_NS}}}")) {
            Some(local) if c.namespaced.contains(&local) => local.to_string(),
            _ if k.starts_with('{') => continue,
            _ => python_name(k),
        };
        given.retain(|(g, _)| *g != key);
        given.push((key, V::Str(v)));
    }
    for child in &node.children {
        let tag = python_name(child.local());
        let Some(kind) = c.descs.get(tag.as_str()) else {
            continue;
        };
        let value = if let Some(inner) = kind.strip_prefix('@') {
            check(child, inner.trim_end_matches('?'), depth + 1)?;
            V::Obj
        } else if let Some(inner) = kind.strip_prefix('*') {
            check(child, inner, depth + 1)?;
            V::Obj
        } else if let Some(inner) = kind.strip_prefix('+') {
            for grandchild in &child.children {
                check(grandchild, inner, depth + 1)?;
            }
            V::Obj
        } else if kind.starts_with('n') && !kind.starts_with("nbool") {
            child.get("val").map_or(V::None, V::Str)
        } else if kind.starts_with(|ch: char| ch.is_ascii_uppercase()) {
            child.text.as_deref().map_or(V::None, V::Str)
        } else {
            V::Obj
        };
        given.retain(|(g, _)| *g != tag);
        given.push((tag, value));
    }
    for (k, v) in &given {
        if !c.kwargs && !c.params.contains(&k.as_str()) {
            return Err(format!(
                "{class}() got an unexpected keyword argument '{k}'"
            ));
        }
        if let Some(kind) = c.descs.get(k.as_str()) {
            if !valid(kind, v) {
                return Err(format!("{class}.{k} is invalid"));
            }
        }
    }
    // CellRange and MultiCellRange parse their coordinates.
    let range_attr = match class {
        "MergeCell" => Some("ref"),
        "DataValidation" => Some("sqref"),
        _ => None,
    };
    if let Some(key) = range_attr {
        if let Some((_, V::Str(r))) = given.iter().find(|(k, _)| k == key) {
            let ok = if key == "ref" {
                super::sheet::cell_range_ok(r)
            } else {
                r.split_whitespace().all(super::sheet::cell_range_ok)
            };
            if !ok {
                return Err(format!("{r} is not a valid coordinate or range"));
            }
        }
    }
    if c.needs_args {
        for p in &c.params {
            if given.iter().any(|(k, _)| k == p) {
                continue;
            }
            if let Some(kind) = c.descs.get(p) {
                if !valid(kind, &V::None) {
                    return Err(format!("{class}() requires '{p}'"));
                }
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::super::xml::parse_tree;
    use super::*;

    fn ok(xml: &str, class: &str) -> bool {
        check(&parse_tree("t", xml.as_bytes(), 32).expect("xml"), class, 0).is_ok()
    }

    #[test]
    fn worksheet_elements_are_checked_as_their_classes() {
        assert_eq!(root_class("pageMargins"), Some("PageMargins"));
        assert!(ok(
            r#"<pageMargins left="0.7" right="0.7" top="0.75" bottom="0.75" header="0.3" footer="0.3"/>"#,
            "PageMargins"
        ));
        assert!(!ok(r#"<pageMargins left="wide"/>"#, "PageMargins"));
        assert!(!ok(
            r#"<hyperlinks><hyperlink ref="A1" f="1"/></hyperlinks>"#,
            "HyperlinkList"
        ));
        assert!(!ok(
            r#"<hyperlinks><hyperlink display="x"/></hyperlinks>"#,
            "HyperlinkList"
        ));
        assert!(ok(
            r#"<sheetViews><sheetView tabSelected="1" workbookViewId="0"><selection activeCell="A1" sqref="A1"/></sheetView></sheetViews>"#,
            "SheetViewList"
        ));
        assert!(!ok(
            r#"<sheetViews><sheetView workbookViewId="0"><pane state="melted"/></sheetView></sheetViews>"#,
            "SheetViewList"
        ));
    }
}
