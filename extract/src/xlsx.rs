//! Excel (.xlsx) as openpyxl 3.1.5 reads it (`load_workbook(read_only=True)`,
//! a formula pass then a cached-value pass), serialised as Wegent's
//! `knowledge_engine/excel.py` does (`read_excel_sheets`,
//! `format_excel_row_compact`, `format_excel_sheet_header`), with its retry
//! on an unreadable stylesheet.
//!
//! Memory: the upload is read where it lies ([`Source`]). Worksheets and the
//! shared strings are pull-parsed as they inflate (`xml_stream.rs`); the rows
//! of a worksheet's `<sheetData>` are scanned straight from the inflated
//! bytes where they take the forms writers emit (`row_scan.rs`, the parser
//! reading any other row, with the same results); each row is
//! handed to the [`SheetsStream`] as it closes, which keeps only what the
//! output can hold. Held whole: the shared strings as openpyxl holds them (one
//! arena, their UTF-8 bytes plus four bytes each), and the small parts read as
//! trees (`[Content_Types].xml`, the workbook, relationships, styles, document
//! properties, chartsheets and drawings), each bounded by the document's
//! inflation budget (`Limits::max_inflated_bytes`) and in practice a few KiB.
//! A sheet whose cells name rows other than their own (no writer makes one)
//! is read a second time, whole, because Wegent's merge of formula results
//! then crosses rows.

mod book;
mod cell_ref;
mod cell_view;
mod dates;
mod formula;
mod numfmt;
mod props;
mod pynum;
mod row_scan;
mod sheet;
mod strings;
mod styles;
mod text;
mod value;
mod xml;
mod xml_decl;
mod xml_stream;

#[cfg(test)]
mod tests;

use crate::error::{DocumentError, Subject};
use crate::limits::Limits;
use crate::package::Package;
use crate::source::Source;
use crate::truncate::SheetsStream;
use book::{relationships, rels_path, strip_first, Manifest, Rel, Workbook, SHARED_STRINGS};
use pynum::PyInt;
use std::collections::{HashMap, HashSet};
use value::{compact_row, sheet_header, CompactRow, Norm};
use xml_stream::with_part_stream;

fn failed(reason: impl std::fmt::Display) -> DocumentError {
    DocumentError::failed(Subject::Excel, reason)
}

/// The fixed path openpyxl reads styles from.
const STYLES: &str = "xl/styles.xml";

/// A worksheet to read: its title and part.
struct SheetPart {
    title: String,
    path: String,
}

/// The workbook as loaded, before its sheets are walked.
struct Loaded {
    strings: strings::SharedStrings,
    epoch: dates::Epoch,
    sheets: Vec<SheetPart>,
}

/// Parses a part as lxml does, mapping failures to the refusal.
fn tree(pkg: &mut Package<'_>, name: &str, limits: &Limits) -> Result<xml::Node, DocumentError> {
    let bytes = pkg.read(name).map_err(failed)?;
    xml::parse_tree(name, &bytes, limits.max_xml_depth).map_err(|e| failed(e.0))
}

/// `load_workbook` up to the worksheets: manifest, strings, workbook, properties, styles.
fn load(
    pkg: &mut Package<'_>,
    limits: &Limits,
    repaired: bool,
) -> Result<Result<(Loaded, styles::Formats), String>, DocumentError> {
    let manifest =
        Manifest::read(&tree(pkg, "[Content_Types].xml", limits)?).map_err(|e| failed(e.0))?;
    let strings = match manifest.find(SHARED_STRINGS) {
        Some(part) => {
            let path = strip_first(part).to_string();
            let mut stream = pkg.stream(&path).map_err(failed)?;
            with_part_stream(&path, &mut stream, limits.max_xml_depth, |r| {
                strings::read(r).map_err(|e| xml::XmlError(e.0))
            })
            .map_err(failed)?
        }
        None => strings::SharedStrings::default(),
    };
    let wb_part = manifest.workbook_part().map_err(|e| failed(e.0))?;
    let wb_path = strip_first(&wb_part).to_string();
    let workbook = Workbook::read(&tree(pkg, &wb_path, limits)?).map_err(|e| failed(e.0))?;
    let mut wb_rels: Option<HashMap<String, Rel>> = None;
    let mut rels_of_book = |pkg: &mut Package<'_>| -> Result<HashMap<String, Rel>, DocumentError> {
        if let Some(r) = &wb_rels {
            return Ok(r.clone());
        }
        let path = rels_path(&wb_path);
        let root = tree(pkg, &path, limits)?;
        let map: HashMap<String, Rel> = relationships(&path, &root)
            .into_iter()
            .filter_map(|r| r.id.clone().map(|id| (id, r)))
            .collect();
        wb_rels = Some(map.clone());
        Ok(map)
    };
    for ext in &workbook.external {
        let rels = rels_of_book(pkg)?;
        let rel = ext
            .as_ref()
            .and_then(|id| rels.get(id))
            .ok_or_else(|| failed("an external reference names no relationship"))?;
        tree(pkg, &rel.target, limits)?;
    }
    for optional in ["docProps/core.xml", "docProps/custom.xml"] {
        if pkg.contains(optional) {
            tree(pkg, optional, limits)?;
        }
    }
    if pkg.contains("xl/theme/theme1.xml") {
        pkg.read("xl/theme/theme1.xml").map_err(failed)?;
    }
    let formats = if repaired || !pkg.contains(STYLES) {
        styles::Formats::default()
    } else {
        match styles::read(&tree(pkg, STYLES, limits)?) {
            styles::Outcome::Styles(f) => f,
            styles::Outcome::Fail(m) => {
                return Err(failed(format!("the stylesheet is invalid: {m}")))
            }
            styles::Outcome::Repair(m) => return Ok(Err(m)),
        }
    };
    let names: HashSet<String> = pkg.names().into_iter().collect();
    let mut sheets = Vec::new();
    let mut all_sheets = 0usize;
    for s in &workbook.sheets {
        let Some(id) = s.id.as_deref().filter(|id| !id.is_empty()) else {
            continue;
        };
        let rels = rels_of_book(pkg)?;
        let rel = rels
            .get(id)
            .ok_or_else(|| failed(format!("the workbook has no relationship '{id}'")))?;
        if !names.contains(&rel.target) {
            continue;
        }
        let own_rels = rels_path(&rel.target);
        let own = if names.contains(&own_rels) {
            Some(relationships(&own_rels, &tree(pkg, &own_rels, limits)?))
        } else {
            None
        };
        all_sheets += 1;
        if rel.kind.contains("chartsheet") {
            tree(pkg, &rel.target, limits)?;
            let own = own.ok_or_else(|| failed("a chartsheet without relationships"))?;
            for r in own.iter().filter(|r| r.kind.ends_with("/drawing")) {
                tree(pkg, &r.target, limits)?;
            }
            continue;
        }
        sheets.push(SheetPart {
            title: s.name.clone(),
            path: rel.target.clone(),
        });
    }
    // assign_names: a sheet-local print-titles name must parse (PrintTitles.from_string).
    for (name, local, value) in &workbook.names {
        let Some(idx) = *local else { continue };
        let idx = if idx < 0 {
            idx + all_sheets as i64
        } else {
            idx
        };
        if !(0..all_sheets as i64).contains(&idx) {
            continue;
        }
        if name.starts_with("_xlnm.Print_Titles") && !print_titles_ok(value) {
            return Err(failed(format!(
                "'{value}' is not a valid print titles definition"
            )));
        }
    }
    let epoch = if workbook.date1904 {
        dates::Epoch::Mac
    } else {
        dates::Epoch::Windows
    };
    Ok(Ok((
        Loaded {
            strings,
            epoch,
            sheets,
        },
        formats,
    )))
}

/// Whether `TITLES_REGEX` finds anything in a print-titles value: a sheet
/// title or a row or column range before or after a `!`.
fn print_titles_ok(value: &str) -> bool {
    value.split('!').count() > 1 && value != "!"
}

/// Every member read once, as `_repair_stylesheet` copies the archive
/// (as streams: nothing is kept).
fn repair_copy(pkg: &mut Package<'_>) -> Result<(), DocumentError> {
    for name in pkg.names() {
        if name.ends_with('/') {
            continue;
        }
        if let Some(e) = pkg.stream(&name).map_err(failed)?.drain() {
            return Err(failed(e));
        }
    }
    Ok(())
}

/// The populated sheets read as streams, each row rendered and handed to
/// `sink` as it closes; the parse fails as a whole (after every sheet is
/// read, as the reference's two passes order it) when a sheet with formulas
/// has a cell the cached-value pass cannot read.
pub(crate) fn sheets(
    source: &dyn Source,
    limits: &Limits,
    sink: &mut SheetsStream,
) -> Result<(), DocumentError> {
    let mut pkg = Package::open(source, limits).map_err(failed)?;
    let (loaded, formats) = match load(&mut pkg, limits, false)? {
        Ok(done) => done,
        Err(_) => {
            repair_copy(&mut pkg)?;
            match load(&mut pkg, limits, true)? {
                Ok(done) => done,
                Err(m) => return Err(failed(m)),
            }
        }
    };
    let ctx = sheet::Context {
        strings: &loaded.strings,
        formats: &formats,
        epoch: loaded.epoch,
        rows: sheet::RowPath::default(),
    };
    let mut cached_error = None;
    for part in &loaded.sheets {
        sink.begin_sheet(sheet_header(&part.title));
        let left = pkg.budget_left();
        let error = match stream_sheet(&mut pkg, part, &ctx, limits, sink)? {
            Some(error) => error,
            None => {
                // A row naming cells of other rows: read the sheet again, whole.
                pkg.restore_budget(left);
                sink.restart_sheet();
                whole_sheet(&mut pkg, part, &ctx, limits, sink)?
            }
        };
        if cached_error.is_none() {
            cached_error = error;
        }
    }
    sink.end_sheet();
    match cached_error {
        Some(e) => Err(failed(e)),
        None => Ok(()),
    }
}

/// One sheet read as a stream, each row rendered on its own: right when every
/// cell of a row is in that row (what every writer produces), since a formula
/// result then belongs to its own cell only. `None` when a cell names another
/// row; else the cached-value pass's error when the sheet has formulas.
fn stream_sheet(
    pkg: &mut Package<'_>,
    part: &SheetPart,
    ctx: &sheet::Context<'_>,
    limits: &Limits,
    sink: &mut SheetsStream,
) -> Result<Option<Option<String>>, DocumentError> {
    let mut stream = pkg.stream(&part.path).map_err(failed)?;
    let mut irregular = false;
    let mut formulas = false;
    let outcome = with_part_stream(&part.path, &mut stream, limits.max_xml_depth, |r| {
        sheet::read(&part.path, r, ctx, &mut |number, cells| {
            if cells.iter().any(|c| &c.row != number) {
                irregular = true;
                return Err(sheet::SheetError("a cell outside its row".into()));
            }
            let (row, has_formulas) = render_row(number, cells);
            formulas |= has_formulas;
            sink.push_row(row);
            Ok(())
        })
        .map_err(|e| xml::XmlError(e.0))
    });
    if irregular {
        return Ok(None);
    }
    let read = outcome.map_err(failed)?;
    Ok(Some(if formulas { read.cached_error } else { None }))
}

/// `format_excel_row_compact` of a row whose cells are all its own, with each
/// formula cell's cached result merged as Wegent merges the two passes; and
/// whether the row has a formula.
fn render_row(number: &PyInt, cells: Vec<sheet::Cell>) -> (String, bool) {
    let mut formulas = false;
    let mut row = CompactRow::new(number);
    for c in cells {
        let out = row.cell(c.column);
        let formula = c.cached.is_some() || is_formula_object(&c.value);
        if !formula {
            c.value.dump_normalized(out);
            continue;
        }
        formulas = true;
        let v = c.value.into_normalized();
        let cached = match c.cached {
            Some(Some(k)) => Some(k.into_normalized()),
            Some(None) => None,
            None => Some(v.clone()),
        };
        match cached {
            Some(k) => Norm::Obj(vec![("formula", v), ("value", k)]).dump(out),
            None => v.dump(out),
        }
    }
    (row.finish(), formulas)
}

/// One sheet read whole, its formula results looked up by (row, column)
/// across the sheet as Wegent's merge does; only for a sheet whose cells
/// name other rows (no writer makes one), so its size is the upload's.
fn whole_sheet(
    pkg: &mut Package<'_>,
    part: &SheetPart,
    ctx: &sheet::Context<'_>,
    limits: &Limits,
    sink: &mut SheetsStream,
) -> Result<Option<String>, DocumentError> {
    let mut rows: Vec<Vec<sheet::Cell>> = Vec::new();
    let mut stream = pkg.stream(&part.path).map_err(failed)?;
    let s = with_part_stream(&part.path, &mut stream, limits.max_xml_depth, |r| {
        sheet::read(&part.path, r, ctx, &mut |_, cells| {
            rows.push(cells);
            Ok(())
        })
        .map_err(|e| xml::XmlError(e.0))
    })
    .map_err(failed)?;
    let coords: HashSet<(PyInt, u64)> = rows
        .iter()
        .flatten()
        .filter(|c| c.cached.is_some() || is_formula_object(&c.value))
        .map(|c| (c.row.clone(), c.column))
        .collect();
    let mut cached: HashMap<(PyInt, u64), value::Raw> = HashMap::new();
    if !coords.is_empty() {
        for c in rows.iter().flatten() {
            let key = (c.row.clone(), c.column);
            if !coords.contains(&key) {
                continue;
            }
            let v = match &c.cached {
                Some(v) => v.clone(),
                None => Some(c.value.clone()),
            };
            if let Some(v) = v {
                cached.insert(key, v);
            }
        }
    }
    for r in &rows {
        let Some(first) = r.first() else { continue };
        let source_row = first.row.clone();
        let cells: Vec<(u64, Norm)> = r
            .iter()
            .map(|c| {
                let v = c.value.normalize();
                let v = match cached.get(&(source_row.clone(), c.column)) {
                    Some(k) => Norm::Obj(vec![("formula", v), ("value", k.normalize())]),
                    None => v,
                };
                (c.column, v)
            })
            .collect();
        sink.push_row(compact_row(&source_row, &cells));
    }
    Ok(if coords.is_empty() {
        None
    } else {
        s.cached_error
    })
}

/// `ArrayFormula` / `DataTableFormula` values count as formulas whatever the cell type.
fn is_formula_object(v: &value::Raw) -> bool {
    matches!(v, value::Raw::Array { .. } | value::Raw::DataTable(_))
}
