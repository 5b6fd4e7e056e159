//! One worksheet, streamed as openpyxl's read-only `WorkSheetParser` and
//! `ReadOnlyWorksheet._cells_by_row` walk it after `reset_dimensions()`:
//! every `<row>` anywhere (its `r`, else one past the last), every child of
//! a row as a cell (its `r`, else one column right of the last), rows
//! numbered below the running count dropped, cells right of a row's last
//! cell dropped and later duplicates winning. Each cell is read twice, as
//! the formula pass (`data_only=False`) and the cached-value pass see it, so
//! that Wegent's merge of cached results needs no second walk.

use super::cell_ref::{column_index, column_letter, coordinate_to_tuple};
use super::cell_view::{CellView, FormulaView, Inline};
use super::dates::{from_excel, from_iso8601, Epoch, Serial};
use super::formula::Translator;
use super::pynum::{parse_float, PyInt};
use super::row_scan::{RowScanner, ScannedRow};
use super::strings::SharedStrings;
use super::styles::Formats;
use super::text;
use super::value::Raw;
use super::xml::{Builder, Ev, Reader, XmlError};
use std::collections::HashMap;
use std::rc::Rc;

/// The spreadsheetml namespace every worksheet tag is matched in.
pub(crate) const MAIN: &str = "http://schemas.openxmlformats.org/spreadsheetml/2006/main";

fn tag(local: &str) -> String {
    format!("{{{MAIN}}}{local}")
}

/// What the cells of a workbook are read against.
pub(crate) struct Context<'a> {
    /// The shared string table.
    pub strings: &'a SharedStrings,
    /// Date and timedelta style indices.
    pub formats: &'a Formats,
    /// The date system.
    pub epoch: Epoch,
    /// How the rows of `<sheetData>` are read.
    pub rows: RowPath,
}

/// How the rows of `<sheetData>` are read; both ways give the same rows and errors.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum RowPath {
    /// By the row scanner, each row it can read exactly (no longer than
    /// `max_row_bytes`), the others by the parser.
    Scanned {
        /// The longest row the scanner looks at whole (its window grows to it).
        max_row_bytes: usize,
    },
    /// By the parser only: the reference the scanner is checked against.
    #[cfg_attr(not(test), allow(dead_code))]
    Parsed,
}

/// The longest row the scanner reads (longer ones go to the parser): the
/// window it holds grows to this, so it bounds the scanner's memory.
pub(crate) const MAX_SCANNED_ROW_BYTES: usize = 1 << 20;

impl Default for RowPath {
    fn default() -> Self {
        RowPath::Scanned {
            max_row_bytes: MAX_SCANNED_ROW_BYTES,
        }
    }
}

/// A populated cell of a kept row.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Cell {
    /// The cell's own row (`cell.row`).
    pub row: PyInt,
    /// Its column.
    pub column: u64,
    /// The formula pass's value.
    pub value: Raw,
    /// For formula cells, the cached-value pass's value.
    pub cached: Option<Option<Raw>>,
}

/// What is left of the sheet once its rows were handed out.
#[derive(Debug, Default)]
pub(crate) struct Sheet {
    /// The first error the cached-value pass would raise on this sheet, if any.
    pub cached_error: Option<String>,
    /// How many rows the row scanner read (the others the parser read); the
    /// tests check the scanner is not idle.
    #[cfg_attr(not(test), allow(dead_code))]
    pub scanned_rows: u64,
}

/// A kept row with at least one populated cell, as it is handed out: its
/// number (`row_counter`) and its cells in column order.
pub(crate) type RowSink<'s> = dyn FnMut(&PyInt, Vec<Cell>) -> Result<(), SheetError> + 's;

/// Why the sheet could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SheetError(pub String);

impl From<XmlError> for SheetError {
    fn from(e: XmlError) -> Self {
        SheetError(e.0)
    }
}

/// One cell as `parse_cell` returns it.
struct Parsed {
    row: PyInt,
    column: u64,
    value: Option<Raw>,
    formula: bool,
}

struct Parser<'c, 'a> {
    ctx: &'c Context<'a>,
    part: String,
    row_counter: PyInt,
    col_counter: u64,
    shared: HashMap<Option<String>, Translator>,
}

fn err(part: &str, what: impl std::fmt::Display) -> SheetError {
    SheetError(format!("worksheet '{part}': {what}"))
}

/// `_cast_number`: a float when the text has `.`, `e` or `E`, else an int.
fn cast_number(text: &str) -> Option<Raw> {
    if text.contains(['.', 'e', 'E']) {
        parse_float(text).map(Raw::Float)
    } else {
        PyInt::parse(text).map(Raw::Int)
    }
}

/// A Python list index (negative from the end).
fn py_index(len: usize, idx: &PyInt) -> Option<usize> {
    let i = idx.to_i64()?;
    let len = i64::try_from(len).ok()?;
    let i = if i < 0 { i + len } else { i };
    (0..len).contains(&i).then_some(i as usize)
}

impl Parser<'_, '_> {
    fn err(&self, what: impl std::fmt::Display) -> SheetError {
        err(&self.part, what)
    }

    /// `parse_row`'s row number: `int(r)`, else an integral `float(r)`, else one past the last.
    fn start_row(&mut self, r: Option<&str>) -> Result<(), SheetError> {
        if let Some(r) = r {
            self.row_counter = match PyInt::parse(r) {
                Some(i) => i,
                None => match parse_float(r) {
                    Some(f) if f.is_finite() && f.fract() == 0.0 => PyInt::from_integral_float(f),
                    _ => return Err(self.err(format!("'{r}' is not a valid row number"))),
                },
            };
        } else {
            self.row_counter = self.row_counter.incremented();
        }
        self.col_counter = 0;
        Ok(())
    }

    /// `parse_formula`.
    fn formula(&mut self, cell: &CellView<'_>, f: &FormulaView<'_>) -> Result<Raw, SheetError> {
        let coordinate = cell.r;
        let mut value = String::from("=");
        if let Some(t) = f.text {
            value.push_str(t);
        }
        match f.t {
            Some("array") => Ok(Raw::Array {
                reference: f.reference.map(str::to_string),
                text: value,
            }),
            Some("shared") => {
                let idx = f.si.map(str::to_string);
                if let Some(t) = self.shared.get(&idx) {
                    let moved = t.translate(coordinate).map_err(|e| self.err(e.0))?;
                    return Ok(Raw::Str(moved));
                }
                if value != "=" {
                    let origin = coordinate
                        .filter(|c| !c.is_empty())
                        .ok_or_else(|| self.err("a shared formula's master has no coordinate"))?;
                    let t = Translator::new(&value, origin).map_err(|e| self.err(e.0))?;
                    self.shared.insert(idx, t);
                }
                Ok(Raw::Str(value))
            }
            Some("dataTable") => {
                if f.reference.is_none() {
                    return Err(self.err("a data table formula without ref"));
                }
                Ok(Raw::DataTable(f.attrs.to_vec()))
            }
            _ => Ok(Raw::Str(value)),
        }
    }

    /// `parse_cell` in one pass's mode; the counters move only in the formula pass.
    fn cell(&mut self, el: &CellView<'_>, data_only: bool) -> Result<Parsed, SheetError> {
        let data_type = el.t.unwrap_or("n");
        // `element.get('s', 0)`, int()-ed when truthy: absent is 0, empty matches nothing.
        let style: Option<i64> = match el.s {
            None => Some(0),
            Some("") => None,
            Some(s) => Some(
                PyInt::parse(s)
                    .ok_or_else(|| self.err(format!("style '{s}' is not an integer")))?
                    .to_i64()
                    .unwrap_or(i64::MIN),
            ),
        };
        let value: Option<&str> = if data_type == "inlineStr" {
            None
        } else {
            el.v.filter(|t| !t.is_empty())
        };
        let (row, column) = match el.r.filter(|c| !c.is_empty()) {
            Some(c) => {
                let (row, col) = coordinate_to_tuple(c)
                    .ok_or_else(|| self.err(format!("'{c}' is not a cell coordinate")))?;
                if !data_only {
                    self.col_counter = u64::from(col);
                }
                (row, u64::from(col))
            }
            None => {
                let column = self.col_counter + 1;
                if !data_only {
                    self.col_counter = column;
                }
                (self.row_counter.clone(), column)
            }
        };
        let mut out = Parsed {
            row,
            column,
            value: None,
            formula: false,
        };
        if !data_only {
            if let Some(f) = &el.f {
                out.formula = true;
                out.value = Some(self.formula(el, f)?);
                return Ok(out);
            }
        }
        if let Some(text) = value {
            out.value = Some(match data_type {
                "n" => {
                    let number = cast_number(text)
                        .ok_or_else(|| self.err(format!("'{text}' is not a number")))?;
                    match style {
                        Some(s) if self.ctx.formats.dates.contains(&s) => {
                            let serial = match &number {
                                Raw::Int(i) => i.to_i64().map_or(Serial::HugeInt, Serial::Int),
                                Raw::Float(f) => Serial::Float(*f),
                                _ => Serial::HugeInt,
                            };
                            let delta = self.ctx.formats.timedeltas.contains(&s);
                            match from_excel(serial, self.ctx.epoch, delta) {
                                Some(m) => Raw::Moment(m),
                                None => Raw::Str("#VALUE!".into()),
                            }
                        }
                        _ => number,
                    }
                }
                "s" => {
                    let idx = PyInt::parse(text)
                        .ok_or_else(|| self.err(format!("shared string index '{text}'")))?;
                    let i = py_index(self.ctx.strings.len(), &idx)
                        .ok_or_else(|| self.err(format!("no shared string {idx}")))?;
                    Raw::Str(self.ctx.strings.get(i).unwrap_or_default().to_string())
                }
                "b" => {
                    let i = PyInt::parse(text)
                        .ok_or_else(|| self.err(format!("'{text}' is not a boolean")))?;
                    Raw::Bool(!i.is_zero())
                }
                "d" => Raw::Moment(from_iso8601(text).map_err(|e| self.err(e.0))?),
                _ => Raw::Str(text.to_string()),
            });
        } else if data_type == "inlineStr" {
            match &el.is {
                Some(Inline::Node(is)) => {
                    out.value = Some(Raw::Str(text::content(is).map_err(|e| self.err(e.0))?));
                }
                Some(Inline::Text(content)) => out.value = Some(Raw::Str((*content).to_string())),
                None => {}
            }
        }
        Ok(out)
    }
}

/// `SheetDimension.from_tree(el).boundaries`: `ref` must be a valid range.
fn check_dimension(part: &str, attrs: &[(String, String)]) -> Result<(), SheetError> {
    for (k, _) in attrs {
        if !k.starts_with('{') && k != "ref" {
            return Err(err(part, format!("<dimension> does not take '{k}'")));
        }
    }
    let Some((_, r)) = attrs.iter().find(|(k, _)| k == "ref") else {
        return Err(err(part, "<dimension> without ref"));
    };
    if range_ok(r) {
        Ok(())
    } else {
        Err(err(
            part,
            format!("'{r}' is not a valid coordinate or range"),
        ))
    }
}

/// `range_boundaries(r)`: `(min_col, min_row, max_col, max_row)`, a missing end
/// repeating the start; `None` where it raises.
pub(crate) fn range_boundaries(r: &str) -> Option<[Option<i64>; 4]> {
    fn part(s: &str) -> (Option<&str>, Option<&str>, &str) {
        let s = s.strip_prefix('$').unwrap_or(s);
        let letters = s
            .bytes()
            .take(3)
            .take_while(u8::is_ascii_alphabetic)
            .count();
        let (col, s) = s.split_at(letters);
        let s = s.strip_prefix('$').unwrap_or(s);
        let digits = s
            .char_indices()
            .find(|(_, c)| ctxguard_core::pyjson::digit_value(*c).is_none())
            .map_or(s.len(), |(i, _)| i);
        let (row, rest) = s.split_at(digits);
        (
            (!col.is_empty()).then_some(col),
            (!row.is_empty()).then_some(row),
            rest,
        )
    }
    let (c1, r1, rest) = part(r);
    let (c2, r2, sep) = match rest.strip_prefix(':') {
        Some(after) => match part(after) {
            (c2, r2, "") => (c2, r2, true),
            _ => return None,
        },
        None if rest.is_empty() || rest == "\n" => (None, None, false),
        None => return None,
    };
    if sep {
        let all = c1.is_some() && c2.is_some() && r1.is_some() && r2.is_some();
        let cols = c1.is_some() && c2.is_some() && r1.is_none() && r2.is_none();
        let rows = r1.is_some() && r2.is_some() && c1.is_none() && c2.is_none();
        if !(all || cols || rows) {
            return None;
        }
    }
    let col = |c: Option<&str>| -> Option<Option<i64>> {
        c.map_or(Some(None), |c| column_index(c).map(|i| Some(i64::from(i))))
    };
    let row = |r: Option<&str>| -> Option<Option<i64>> {
        r.map_or(Some(None), |r| {
            PyInt::parse(r).map(|i| Some(i.to_i64().unwrap_or(i64::MAX)))
        })
    };
    let (min_col, min_row) = (col(c1)?, row(r1)?);
    let max_col = if sep { col(c2)? } else { min_col };
    let max_row = if sep { row(r2)? } else { min_row };
    Some([min_col, min_row, max_col, max_row])
}

/// `range_boundaries` succeeds.
fn range_ok(r: &str) -> bool {
    range_boundaries(r).is_some()
}

/// `CellRange(r)`: a bounded range with every coordinate on the sheet.
pub(crate) fn cell_range_ok(r: &str) -> bool {
    let Some([c1, r1, c2, r2]) = range_boundaries(r) else {
        return false;
    };
    let rows = |v: Option<i64>| v.is_some_and(|v| (1..=1_048_576).contains(&v));
    let cols = |v: Option<i64>| v.is_some_and(|v| (1..=18_278).contains(&v));
    cols(c1) && cols(c2) && rows(r1) && rows(r2)
}

/// An element still open in the sheet: its tag and attributes (a cell's are its builder's).
type OpenElement = (Rc<str>, Vec<(String, String)>);

/// A formula cell's value in the cached-value pass (or the error that pass raises).
type Cached = Option<Result<Option<Raw>, SheetError>>;

/// A row's cells as `_get_row` keeps them: right of the last cell dropped,
/// the last of a column winning, in column order.
fn keep_cells(cells: &mut Vec<(Parsed, Cached)>) {
    let Some(last) = cells.last().map(|c| c.0.column) else {
        return;
    };
    // Strictly increasing columns (what writers emit): all kept, in order.
    if cells[0].0.column >= 1 && cells.windows(2).all(|w| w[0].0.column < w[1].0.column) {
        return;
    }
    let mut kept: Vec<(usize, (Parsed, Cached))> = cells
        .drain(..)
        .enumerate()
        .filter(|(_, (c, _))| c.column >= 1 && c.column <= last)
        .collect();
    kept.sort_by(|(ia, a), (ib, b)| a.0.column.cmp(&b.0.column).then(ib.cmp(ia)));
    kept.dedup_by(|later, earlier| later.1 .0.column == earlier.1 .0.column);
    cells.extend(kept.into_iter().map(|(_, c)| c));
}

/// The walk's row state: the running count rows are kept against, the open
/// row's cells, and what the sheet's rows leave.
struct Rows {
    counter: PyInt,
    keep: bool,
    cells: Vec<(Parsed, Cached)>,
    sheet: Sheet,
}

impl Rows {
    /// A row opens (`r`, its number attribute): rows numbered below the count are dropped.
    fn begin(&mut self, p: &mut Parser<'_, '_>, r: Option<&str>) -> Result<(), SheetError> {
        p.start_row(r)?;
        self.keep = p.row_counter >= self.counter;
        if self.keep {
            self.counter = p.row_counter.incremented();
        }
        Ok(())
    }

    /// A cell of the open row, read as both passes see it.
    fn cell(&mut self, p: &mut Parser<'_, '_>, cell: &CellView<'_>) -> Result<(), SheetError> {
        let parsed = p.cell(cell, false)?;
        let cached = parsed.formula.then(|| p.cell(cell, true).map(|c| c.value));
        self.cells.push((parsed, cached));
        Ok(())
    }

    /// The open row closes: its populated cells go to `on_row` when it is kept.
    fn finish(&mut self, p: &Parser<'_, '_>, on_row: &mut RowSink<'_>) -> Result<(), SheetError> {
        // The cells' list keeps its buffer for the next row.
        let mut cells = std::mem::take(&mut self.cells);
        for (_, cached) in &cells {
            if let Some(Err(e)) = cached {
                self.sheet.cached_error.get_or_insert_with(|| e.0.clone());
            }
        }
        if !self.keep {
            cells.clear();
        } else {
            keep_cells(&mut cells);
            let populated: Vec<Cell> = cells
                .drain(..)
                .filter_map(|(c, k)| {
                    Some(Cell {
                        row: c.row,
                        column: c.column,
                        value: c.value?,
                        cached: k.map(|r| r.unwrap_or(None)),
                    })
                })
                .collect();
            if !populated.is_empty() {
                on_row(&p.row_counter, populated)?;
            }
        }
        self.cells = cells;
        Ok(())
    }

    /// A row the scanner read, whole.
    fn scanned(
        &mut self,
        p: &mut Parser<'_, '_>,
        row: &ScannedRow<'_>,
        on_row: &mut RowSink<'_>,
    ) -> Result<(), SheetError> {
        self.sheet.scanned_rows += 1;
        self.begin(p, row.r())?;
        for cell in row.cells() {
            self.cell(p, &cell)?;
        }
        self.finish(p, on_row)
    }
}

/// Reads the rows right after a `<sheetData>` start tag or a row's end tag
/// with the scanner, while it can read them exactly; the parser takes over
/// where it stops.
fn scan_rows(
    scanner: &mut RowScanner,
    reader: &mut Reader<'_>,
    p: &mut Parser<'_, '_>,
    rows: &mut Rows,
    on_row: &mut RowSink<'_>,
) -> Result<(), SheetError> {
    let Some(input) = reader.input_after_tag() else {
        return Ok(());
    };
    scanner.run(input, &mut |row| rows.scanned(p, row, on_row))
}

/// Reads one worksheet part, handing each populated row to `on_row` as it closes.
pub(crate) fn read(
    part: &str,
    reader: &mut Reader<'_>,
    ctx: &Context<'_>,
    on_row: &mut RowSink<'_>,
) -> Result<Sheet, SheetError> {
    let mut p = Parser {
        ctx,
        part: part.to_string(),
        row_counter: PyInt::from_i64(0),
        col_counter: 0,
        shared: HashMap::new(),
    };
    let cell_tags = [tag("v"), tag("f"), tag("is")];
    let (row_tag, col_tag, ext_tag) = (tag("row"), tag("col"), tag("extLst"));
    let (dim_tag, data_tag) = (tag("dimension"), tag("sheetData"));
    let main_prefix = format!("{{{MAIN}}}");
    let mut rows = Rows {
        counter: PyInt::from_i64(1),
        keep: false,
        cells: Vec::new(),
        sheet: Sheet::default(),
    };
    // Open elements; the depth of the open row and of an open extLst.
    let mut open: Vec<OpenElement> = Vec::new();
    let no_tag: Rc<str> = Rc::from("");
    let mut row_depth: Option<usize> = None;
    let mut ext_depth: Option<usize> = None;
    let mut dimension_done = false;
    // The open `<sheetData>` the scanner reads rows of: how many elements are
    // open inside it (itself included), and the scanner.
    let mut scanned_data: Option<(usize, RowScanner)> = None;
    // A cell, or a property element (`pageMargins`, …) with its class, being built
    // (by one builder, its buffers handed back to the reader's pool once read).
    let mut builder = Builder::new(false);
    let mut cell: Option<Option<&'static str>> = None;
    while let Some(ev) = reader.next()? {
        if let Some(props) = cell {
            if let Some(node) = builder.feed_pooled(ev, reader.pool()) {
                cell = None;
                open.pop();
                if let Some(class) = props {
                    super::props::check(&node, class, 0).map_err(|e| err(part, e))?;
                    reader.pool().put_node(node);
                    continue;
                }
                rows.cell(&mut p, &CellView::of(&node, &cell_tags))?;
                reader.pool().put_node(node);
            }
            continue;
        }
        match ev {
            Ev::Start { tag, attrs } => {
                let depth = open.len();
                let in_cell = row_depth.is_some_and(|d| depth == d + 1);
                let class = if in_cell {
                    None
                } else {
                    tag.strip_prefix(main_prefix.as_str())
                        .and_then(super::props::root_class)
                };
                if in_cell || class.is_some() {
                    // The builder takes the element; `open` only needs its place.
                    builder.feed_pooled(Ev::Start { tag, attrs }, reader.pool());
                    cell = Some(class);
                    open.push((no_tag.clone(), Vec::new()));
                    continue;
                }
                let mut data_opens = false;
                if *tag == *row_tag && row_depth.is_none() {
                    let r = attrs
                        .iter()
                        .find(|(k, _)| k == "r")
                        .map(|(_, v)| v.as_str());
                    rows.begin(&mut p, r)?;
                    row_depth = Some(depth);
                } else if ext_depth.is_some_and(|d| depth == d + 1) {
                    check_extension(part, &tag, &attrs)?;
                } else if *tag == *ext_tag {
                    for (k, _) in &attrs {
                        if !k.starts_with('{') && k != "ext" {
                            return Err(err(part, format!("<extLst> does not take '{k}'")));
                        }
                    }
                    ext_depth = Some(depth);
                } else if *tag == *data_tag && row_depth.is_none() && scanned_data.is_none() {
                    data_opens = true;
                }
                open.push((tag, attrs));
                if data_opens {
                    scanned_data = match ctx.rows {
                        RowPath::Scanned { max_row_bytes } => {
                            RowScanner::new(reader, MAIN, max_row_bytes)
                        }
                        RowPath::Parsed => None,
                    }
                    .map(|scanner| (open.len(), scanner));
                    if let Some((_, scanner)) = &mut scanned_data {
                        scan_rows(scanner, reader, &mut p, &mut rows, on_row)?;
                    }
                }
            }
            Ev::End => {
                let Some((tag, attrs)) = open.pop() else {
                    continue;
                };
                let depth = open.len();
                if row_depth == Some(depth) {
                    row_depth = None;
                    rows.finish(&p, on_row)?;
                    if let Some((level, scanner)) = &mut scanned_data {
                        if *level == depth {
                            scan_rows(scanner, reader, &mut p, &mut rows, on_row)?;
                        }
                    }
                } else if *tag == *col_tag {
                    let min = attrs
                        .iter()
                        .find(|(k, _)| k == "min")
                        .map(|(_, v)| v.as_str());
                    let ok = min
                        .and_then(PyInt::parse)
                        .and_then(|i| i.to_i64())
                        .and_then(column_letter)
                        .is_some();
                    if !ok {
                        return Err(err(part, "a <col> without a valid min"));
                    }
                } else if ext_depth == Some(depth) {
                    ext_depth = None;
                } else if *tag == *dim_tag && !dimension_done {
                    dimension_done = true;
                    check_dimension(part, &attrs)?;
                } else if *tag == *data_tag {
                    dimension_done = true;
                }
                if scanned_data
                    .as_ref()
                    .is_some_and(|(level, _)| *level == depth + 1)
                {
                    scanned_data = None;
                }
                reader.pool().put_attrs(attrs);
            }
            Ev::Text(t) => reader.pool().put_string(t),
            Ev::Comment => {}
        }
    }
    Ok(rows.sheet)
}

/// `ExtensionList.from_tree`'s `<ext>` children: `uri` required, no other plain attribute.
fn check_extension(part: &str, tag: &str, attrs: &[(String, String)]) -> Result<(), SheetError> {
    let local = tag.rsplit('}').next().unwrap_or(tag);
    if local != "ext" {
        return Ok(());
    }
    let mut uri = false;
    for (k, _) in attrs {
        if k == "uri" {
            uri = true;
        } else if !k.starts_with('{') {
            return Err(err(part, format!("<ext> does not take '{k}'")));
        }
    }
    if uri {
        Ok(())
    } else {
        Err(err(part, "<ext> without uri"))
    }
}

#[cfg(test)]
pub(crate) fn keep_for_tests(columns: &[u64]) -> Vec<u64> {
    let cells = columns
        .iter()
        .map(|&c| {
            let p = Parsed {
                row: PyInt::from_i64(1),
                column: c,
                value: None,
                formula: false,
            };
            (p, None)
        })
        .collect();
    let mut cells: Vec<(Parsed, Cached)> = cells;
    keep_cells(&mut cells);
    cells.into_iter().map(|c| c.0.column).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cells_right_of_the_last_are_dropped_and_later_duplicates_win() {
        assert_eq!(keep_for_tests(&[1, 5, 3]), [1, 3]);
        assert_eq!(keep_for_tests(&[2, 2, 4]), [2, 4]);
        assert!(keep_for_tests(&[]).is_empty());
    }

    #[test]
    fn ranges_as_range_boundaries_accepts_them() {
        for ok in ["A1", "A1:D5", "$A$1:$B$2", "A:C", "1:3", "", "XFD1048576"] {
            assert!(range_ok(ok), "{ok}");
        }
        for bad in ["A1:", "A1:B", "AAAA1", "A1 B2", ":"] {
            assert!(!range_ok(bad), "{bad}");
        }
    }
}
