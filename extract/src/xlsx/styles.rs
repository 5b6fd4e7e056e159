//! `xl/styles.xml` as `openpyxl.styles.stylesheet.apply_stylesheet` reads
//! it, for the one thing cell values need: which cell formats (`cellXfs`
//! indices) are dates and which of those are elapsed times. The whole
//! stylesheet goes through the reference's descriptor checks
//! (`Serialisable.from_tree` then each class's constructor), because how
//! it fails decides the outcome: a `TypeError` naming an `openpyxl.styles`
//! class makes Wegent retry with an empty stylesheet ([`Outcome::Repair`]);
//! any other error refuses the workbook ([`Outcome::Fail`]).

mod classes;
mod engine;

use super::numfmt::{builtin, is_date_format, is_timedelta_format};
use super::pynum::PyInt;
use super::xml::Node;
use classes::Class;
use engine::{fail, from_tree, Obj, PyValue, StyleError, StyleResult};
use std::collections::{BTreeMap, BTreeSet};

/// What reading the stylesheet came to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Outcome {
    /// Read: the date and timedelta formats (empty sets when it defines no cell formats).
    Styles(Formats),
    /// A `TypeError` mentioning `openpyxl.styles`: Wegent retries with an empty stylesheet.
    Repair(String),
    /// Any other error: the workbook is refused.
    Fail(String),
}

/// `wb._date_formats` and `wb._timedelta_formats`: `cellXfs` indices.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct Formats {
    /// Indices whose number format is a date or time.
    pub dates: BTreeSet<i64>,
    /// Indices whose number format is an elapsed time (`[h]:mm`).
    pub timedeltas: BTreeSet<i64>,
}

/// An integer field (absent or `None` as `default`).
fn int_field(obj: &Obj, key: &str, default: i64) -> StyleResult<Option<i64>> {
    match obj.get(key) {
        PyValue::None => Ok(Some(default)),
        PyValue::Str(s) => Ok(PyInt::parse(s).and_then(|i| i.to_i64())),
        PyValue::True => Ok(Some(1)),
        _ => Ok(Some(default)),
    }
}

fn list<'a>(obj: &'a Obj, key: &str) -> &'a [PyValue] {
    match obj.get(key) {
        PyValue::List(items) => items,
        _ => &[],
    }
}

fn sub<'a>(obj: &'a Obj, key: &str) -> Option<&'a Obj> {
    match obj.get(key) {
        PyValue::Obj(o) => Some(o),
        _ => None,
    }
}

/// The objects of the list `field` of the sub-object `key` (`sheet.key.field`), none when it is absent.
fn objects<'a>(obj: &'a Obj, key: &str, field: &str) -> Vec<&'a Obj> {
    sub(obj, key)
        .map(|l| {
            list(l, field)
                .iter()
                .filter_map(|v| match v {
                    PyValue::Obj(o) => Some(o),
                    _ => None,
                })
                .collect()
        })
        .unwrap_or_default()
}

/// A Python list index (negative from the end).
fn py_index(len: usize, idx: i64) -> Option<usize> {
    let len = i64::try_from(len).ok()?;
    let i = if idx < 0 { idx + len } else { idx };
    (0..len).contains(&i).then_some(i as usize)
}

/// The constructed stylesheet's post-processing: style arrays, number formats, named styles.
fn finish(sheet: &Obj) -> StyleResult<Formats> {
    let cell_xfs: Vec<&Obj> = objects(sheet, "cellXfs", "xf");
    // StyleArray is an array of C ints.
    for xf in &cell_xfs {
        for key in ["fontId", "fillId", "borderId", "numFmtId", "xfId"] {
            if let PyValue::Str(s) = xf.get(key) {
                let fits = PyInt::parse(s)
                    .and_then(|i| i.to_i64())
                    .is_some_and(|v| i32::try_from(v).is_ok());
                if !fits {
                    return fail(format!("cell format {key} {s} does not fit a C int"));
                }
            }
        }
    }
    let mut custom: BTreeMap<i64, String> = BTreeMap::new();
    if let Some(numfmts) = sub(sheet, "numFmts") {
        for nf in list(numfmts, "numFmt") {
            if let PyValue::Obj(nf) = nf {
                let id = int_field(nf, "numFmtId", 0)?;
                if let (Some(id), PyValue::Str(code)) = (id, nf.get("formatCode")) {
                    custom.insert(id, code.clone());
                }
            }
        }
    }
    let mut formats = Formats::default();
    for (idx, xf) in cell_xfs.iter().enumerate() {
        let id = int_field(xf, "numFmtId", 0)?.unwrap_or(0);
        let fmt = custom.get(&id).map(String::as_str).or_else(|| builtin(id));
        if let Some(fmt) = fmt {
            let idx = idx as i64;
            if is_date_format(fmt) {
                formats.dates.insert(idx);
            }
            if is_timedelta_format(fmt) {
                formats.timedeltas.insert(idx);
            }
        }
    }
    // _merge_named_styles: every named style's xf, font, fill and border must exist.
    let style_xfs: Vec<&Obj> = objects(sheet, "cellStyleXfs", "xf");
    let named: Vec<&Obj> = objects(sheet, "cellStyles", "cellStyle");
    let mut refs: Vec<(i64, String)> = Vec::new();
    for n in &named {
        let xf_id = int_field(n, "xfId", 0)?.unwrap_or(0);
        let name = match n.get("name") {
            PyValue::Str(s) => s.clone(),
            _ => String::new(),
        };
        refs.push((xf_id, name));
    }
    refs.sort_by_key(|(id, _)| *id);
    let (mut ids, mut names) = (BTreeSet::new(), BTreeSet::new());
    let count = |key: &str| list(sheet, key).len();
    for (xf_id, name) in refs {
        if ids.contains(&xf_id) || names.contains(&name) {
            continue;
        }
        ids.insert(xf_id);
        names.insert(name);
        let xf = py_index(style_xfs.len(), xf_id)
            .and_then(|i| style_xfs.get(i))
            .ok_or_else(|| {
                StyleError::Fail(format!("named style refers to missing cell style {xf_id}"))
            })?;
        for (key, part) in [
            ("fontId", "fonts"),
            ("fillId", "fills"),
            ("borderId", "borders"),
        ] {
            let id = int_field(xf, key, 0)?.unwrap_or(0);
            if py_index(count(part), id).is_none() {
                return fail(format!("named style refers to missing {part} entry {id}"));
            }
        }
    }
    if cell_xfs.is_empty() {
        return Ok(Formats::default());
    }
    Ok(formats)
}

/// Reads a parsed `xl/styles.xml`.
pub(crate) fn read(root: &Node) -> Outcome {
    let result = from_tree(root, Class::Stylesheet, 0).and_then(|v| match v {
        PyValue::Obj(o) => finish(&o),
        _ => fail("the stylesheet did not construct"),
    });
    match result {
        Ok(formats) => Outcome::Styles(formats),
        Err(StyleError::Repair(m)) => Outcome::Repair(m),
        Err(StyleError::Fail(m)) => Outcome::Fail(m),
    }
}

#[cfg(test)]
mod tests {
    use super::super::xml::parse_tree;
    use super::*;

    const NS: &str = "http://schemas.openxmlformats.org/spreadsheetml/2006/main";

    fn outcome(inner: &str) -> Outcome {
        let xml = format!(r#"<styleSheet xmlns="{NS}">{inner}</styleSheet>"#);
        read(&parse_tree("xl/styles.xml", xml.as_bytes(), 64).expect("xml"))
    }

    const BASE: &str = r#"<fonts count="1"><font><sz val="11"/><name val="Calibri"/></font></fonts><fills count="1"><fill><patternFill/></fill></fills><borders count="1"><border/></borders><cellStyleXfs count="1"><xf numFmtId="0" fontId="0" fillId="0" borderId="0"/></cellStyleXfs><cellStyles count="1"><cellStyle name="Normal" xfId="0" builtinId="0"/></cellStyles>"#;

    #[test]
    fn date_formats_are_indexed() {
        let o = outcome(&format!(
            r#"<numFmts count="1"><numFmt numFmtId="164" formatCode="[h]:mm"/></numFmts>{BASE}<cellXfs count="4"><xf numFmtId="0"/><xf numFmtId="14"/><xf numFmtId="164"/><xf numFmtId="30"/></cellXfs>"#
        ));
        let Outcome::Styles(f) = o else {
            panic!("{o:?}")
        };
        assert_eq!(f.dates, BTreeSet::from([1, 2]));
        assert_eq!(f.timedeltas, BTreeSet::from([2]));
    }

    #[test]
    fn damage_is_classified_as_the_reference_raises() {
        let xfs = r#"<cellXfs count="1"><xf numFmtId="0"/></cellXfs>"#;
        let empty_fill = BASE.replace("<fill><patternFill/></fill>", "<fill/>");
        assert!(matches!(
            outcome(&format!("{empty_fill}{xfs}")),
            Outcome::Repair(_)
        ));
        let no_code = r#"<numFmts><numFmt numFmtId="164"/></numFmts>"#;
        assert!(matches!(
            outcome(&format!("{no_code}{BASE}{xfs}")),
            Outcome::Repair(_)
        ));
        let bad_id = r#"<cellXfs count="1"><xf numFmtId="x"/></cellXfs>"#;
        assert!(matches!(
            outcome(&format!("{BASE}{bad_id}")),
            Outcome::Fail(_)
        ));
        let bad_color = BASE.replace("<sz val=\"11\"/>", "<color rgb=\"nope\"/>");
        assert!(matches!(
            outcome(&format!("{bad_color}{xfs}")),
            Outcome::Fail(_)
        ));
        let missing_xf = BASE.replace("xfId=\"0\" builtinId", "xfId=\"3\" builtinId");
        assert!(matches!(
            outcome(&format!("{missing_xf}{xfs}")),
            Outcome::Fail(_)
        ));
    }

    #[test]
    fn no_cell_formats_means_defaults() {
        assert_eq!(outcome(""), Outcome::Styles(Formats::default()));
    }
}
