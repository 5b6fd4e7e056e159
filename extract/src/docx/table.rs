//! `table.rows` / `row.cells` / `cell.text` as python-docx 1.2.0 computes
//! them: a cell spanning `gridSpan` columns is repeated that many times; a
//! `w:vMerge` "continue" cell stands for the cell above it at the same grid
//! offset (found through `tc_at_grid_offset`, repeated as many times as that
//! cell spans), and a missing cell above fails the whole document, as
//! python-docx's `ValueError` does. Attribute values are read lazily in the
//! same places, so a bad `w:val` fails only where python-docx reads it.
//!
//! Linear in the table's size: each row keeps its cells' prefix offsets, so
//! the cell above is found by binary search, and repeated cells are counted,
//! not copied, until their text is written out.

use super::{paragraph_text, BodyError, Output, ROWS, W};
use crate::ooxml::walk::{py_int, skip};
use crate::ooxml::xml::{Element, Event, Reader, XmlError};
use ctxguard_core::pyjson::strip;
use std::rc::Rc;

/// The longest chain of vertical continuations python-docx resolves: it
/// walks up one row per level of recursion (`iter_tc_cells`), and the
/// reference's interpreter runs out of stack (`RecursionError`) past this.
const MAX_MERGE_CHAIN: u32 = 987;

/// An integer attribute as python-docx reads it: `Err` when reading it raises.
type Lazy = Result<i128, ()>;

/// A cell that holds content (not a vertical continuation).
struct Root {
    /// Its stripped text, `None` when blank.
    text: Option<String>,
    /// How many grid cells it yields (`range(grid_span)`).
    span: i128,
}

/// One `w:tc` as read.
struct Tc {
    span: Lazy,
    continues: bool,
    text: String,
}

/// A processed row, as the row below sees it.
struct Row {
    grid_before: Lazy,
    /// `S_j`: the grid offset (before `gridBefore`) at which cell `j` starts,
    /// for the cells reachable before the first unreadable span.
    starts: Vec<i128>,
    /// Running maxima of `starts`, for the binary search.
    maxima: Vec<i128>,
    /// The content cell each `w:tc` yields.
    roots: Vec<Rc<Root>>,
    /// How many continuations lead from each `w:tc` up to its content cell.
    chains: Vec<u32>,
}

impl Row {
    /// `tc_at_grid_offset(offset)`'s cell, resolved to its content cell.
    fn at(&self, offset: i128) -> Option<(Rc<Root>, u32)> {
        let wanted = offset - self.grid_before.ok()?;
        // The scan stops at the first cell that starts at or past `wanted`.
        let j = self.maxima.partition_point(|&m| m < wanted);
        let start = *self.starts.get(j)?;
        (start == wanted).then(|| (Rc::clone(&self.roots[j]), self.chains[j]))
    }
}

/// The `w:val` of the first `{W}name` child of the current element, read lazily.
fn lazy_val(e: &Element<'_>) -> Lazy {
    e.attr(Some(W), "val").and_then(py_int).ok_or(())
}

/// Reads the `w:tbl` just started, adding one line per row with text.
pub(super) fn read_table(reader: &mut Reader<'_>, out: &mut Output<'_>) -> Result<(), BodyError> {
    let mut above: Option<Row> = None;
    loop {
        match reader.next()? {
            Event::Start(e) if e.is(W, "tr") => {
                let (grid_before, tcs) = read_row(reader)?;
                let row = resolve(grid_before, tcs, above.as_ref())?;
                write_row(&row, out)?;
                above = Some(row);
            }
            Event::Start(_) => skip(reader)?,
            Event::End | Event::Eof => return Ok(()),
            Event::Text(_) | Event::Node => {}
        }
    }
}

/// The `w:tr` just started: its `gridBefore` and its cells.
fn read_row(reader: &mut Reader<'_>) -> Result<(Lazy, Vec<Tc>), XmlError> {
    let mut grid_before: Option<Lazy> = None;
    let mut tr_pr_seen = false;
    let mut tcs = Vec::new();
    loop {
        match reader.next()? {
            Event::Start(e) if e.is(W, "trPr") && !tr_pr_seen => {
                tr_pr_seen = true;
                grid_before = first_child_val(reader, "gridBefore")?;
            }
            Event::Start(e) if e.is(W, "tc") => tcs.push(read_cell(reader)?),
            Event::Start(_) => skip(reader)?,
            Event::End | Event::Eof => break,
            Event::Text(_) | Event::Node => {}
        }
    }
    Ok((grid_before.unwrap_or(Ok(0)), tcs))
}

/// Within the element just started: the lazy `w:val` of its first `{W}name` child.
fn first_child_val(reader: &mut Reader<'_>, name: &str) -> Result<Option<Lazy>, XmlError> {
    let mut found = None;
    loop {
        match reader.next()? {
            Event::Start(e) => {
                if found.is_none() && e.is(W, name) {
                    found = Some(lazy_val(&e));
                }
                skip(reader)?;
            }
            Event::End | Event::Eof => return Ok(found),
            Event::Text(_) | Event::Node => {}
        }
    }
}

/// The `w:tc` just started: its span, whether it continues a vertical merge, its text.
fn read_cell(reader: &mut Reader<'_>) -> Result<Tc, XmlError> {
    let mut span: Lazy = Ok(1);
    let mut continues = false;
    let mut tc_pr_seen = false;
    let mut paragraphs: Vec<String> = Vec::new();
    loop {
        match reader.next()? {
            Event::Start(e) if e.is(W, "tcPr") && !tc_pr_seen => {
                tc_pr_seen = true;
                let (mut grid_span, mut v_merge) = (None, None);
                loop {
                    match reader.next()? {
                        Event::Start(e) => {
                            if grid_span.is_none() && e.is(W, "gridSpan") {
                                grid_span = Some(lazy_val(&e));
                            }
                            if v_merge.is_none() && e.is(W, "vMerge") {
                                v_merge = Some(
                                    e.attr(Some(W), "val").unwrap_or("continue") == "continue",
                                );
                            }
                            skip(reader)?;
                        }
                        Event::End | Event::Eof => break,
                        Event::Text(_) | Event::Node => {}
                    }
                }
                span = grid_span.unwrap_or(Ok(1));
                continues = v_merge.unwrap_or(false);
            }
            Event::Start(e) if e.is(W, "p") => paragraphs.push(paragraph_text(reader)?),
            Event::Start(_) => skip(reader)?,
            Event::End | Event::Eof => break,
            Event::Text(_) | Event::Node => {}
        }
    }
    Ok(Tc {
        span,
        continues,
        text: paragraphs.join("\n"),
    })
}

fn unreadable(what: &str) -> BodyError {
    BodyError::Shape(format!("a table cell's {what} cannot be read"))
}

/// `row.cells` for one row, given the row above.
fn resolve(grid_before: Lazy, tcs: Vec<Tc>, above: Option<&Row>) -> Result<Row, BodyError> {
    let mut starts = Vec::with_capacity(tcs.len());
    let mut maxima = Vec::with_capacity(tcs.len());
    let mut roots = Vec::with_capacity(tcs.len());
    let mut chains = Vec::with_capacity(tcs.len());
    let mut offset: Option<i128> = Some(0);
    for tc in tcs {
        if let Some(s) = offset {
            starts.push(s);
            maxima.push(maxima.last().map_or(s, |&m: &i128| m.max(s)));
        }
        let root = if tc.continues {
            let before = grid_before.map_err(|()| unreadable("gridBefore"))?;
            let own = offset.ok_or_else(|| unreadable("gridSpan"))?;
            let above = above.ok_or_else(|| {
                BodyError::Shape("a vertically merged cell in a table's first row".into())
            })?;
            let (root, chain) = above.at(before + own).ok_or_else(|| {
                BodyError::Shape("a vertically merged cell has no cell above it".into())
            })?;
            if chain >= MAX_MERGE_CHAIN {
                return Err(BodyError::Shape(
                    "a vertical merge too long for python-docx (maximum recursion depth exceeded)"
                        .into(),
                ));
            }
            chains.push(chain + 1);
            root
        } else {
            chains.push(0);
            let span = tc.span.map_err(|()| unreadable("gridSpan"))?;
            let text = strip(&tc.text);
            Rc::new(Root {
                text: (!text.is_empty()).then(|| text.to_string()),
                span,
            })
        };
        roots.push(root);
        offset = match (offset, tc.span) {
            (Some(s), Ok(span)) => Some(s + span),
            _ => None,
        };
    }
    Ok(Row {
        grid_before,
        starts,
        maxima,
        roots,
        chains,
    })
}

/// The row's line: non-blank cells joined with ` | `, each repeated as python-docx repeats it.
fn write_row(row: &Row, out: &mut Output<'_>) -> Result<(), BodyError> {
    let mut line = String::new();
    for root in &row.roots {
        let Some(text) = &root.text else { continue };
        let times = root.span.max(0);
        if times == 0 {
            continue;
        }
        out.charge((text.len() as u128 + 3) * times as u128)?;
        for _ in 0..times {
            if !line.is_empty() {
                line.push_str(" | ");
            }
            line.push_str(text);
        }
    }
    if !line.is_empty() {
        out.sink.unit(ROWS, &line);
    }
    Ok(())
}
