//! Excel sheets (`ExcelTruncationStrategy`): complete rows only, taken from
//! the head and the tail in turn while they fit, each sheet's budget an
//! even share of what the sheets before it left.
//!
//! [`SheetsStream`] is the strategy as the consumer of a parse: rows arrive
//! one at a time and only what the output can hold is kept. A sheet keeps its
//! head while the rows fit `max_length` (no budget a sheet gets is larger) and
//! its tail in a ring holding the shortest run of last rows longer than
//! `max_length` (no tail it can keep is longer); everything between is
//! counted, not kept. So a sheet holds at most twice `max_length` characters
//! plus one row, whatever its size, and the output is the whole-slice
//! strategy's to the byte (the test module keeps that strategy to prove it).

use super::{effective_limit, object, Info, Truncated};
use crate::chars;
use serde_json::Value;
use std::collections::VecDeque;

/// One populated sheet as the strategy sees it: its header line
/// (`--- Sheet: NAME ---`, or empty for an unnamed sheet) and its rows already
/// rendered (`R1: …`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SheetText {
    /// `format_excel_sheet_header(name)`: empty when the name is blank.
    pub header: String,
    /// `format_excel_row_compact(row)` of every populated row, in order.
    pub rows: Vec<String>,
}

impl SheetText {
    /// `serialize_excel_sheet_compact`: the header line, then the rows.
    pub fn serialize(&self) -> String {
        let rows = self.rows.join("\n");
        if self.header.is_empty() {
            rows
        } else if rows.is_empty() {
            self.header.clone()
        } else {
            format!("{}\n{rows}", self.header)
        }
    }
}

fn omission_marker(omitted: usize) -> String {
    format!("... [{omitted} rows omitted] ...")
}

/// Truncates populated sheets to `max_length` code points without cutting a
/// row, from whole sheets: the reference the stream is checked against.
#[cfg(test)]
pub fn sheets(sheets: &[SheetText], max_length: i64) -> Truncated {
    let max_length = effective_limit(max_length);
    let populated: Vec<&SheetText> = sheets.iter().filter(|s| !s.rows.is_empty()).collect();
    let total_rows: usize = populated.iter().map(|s| s.rows.len()).sum();
    let full = populated
        .iter()
        .map(|s| s.serialize())
        .collect::<Vec<_>>()
        .join("\n\n");
    let mut info = Info::new(object([
        ("total_sheets", Value::from(populated.len())),
        ("total_rows", Value::from(total_rows)),
    ]));
    info.original_length = Some(chars::len(&full));
    if chars::len(&full) <= max_length {
        info.truncated_length = Some(chars::len(&full));
        return (full, info);
    }

    let separators = populated.len().saturating_sub(1) as i64 * 2;
    let budget = (max_length - separators).max(0);
    share_out(&populated, budget, total_rows, info, |sheet, share| {
        truncate_sheet(sheet, share)
    })
}

/// The truncated sheets: each sheet in turn gets an equal share of what the
/// sheets before it left (`remaining // sheets_left`) and is cut to it by
/// `cut`; the parts are joined by a blank line and the report says what was kept.
fn share_out<S>(
    sheets: &[S],
    budget: i64,
    total_rows: usize,
    mut info: Info,
    mut cut: impl FnMut(&S, i64) -> SheetCut,
) -> (String, Info) {
    let mut remaining = budget;
    let mut parts = Vec::new();
    let (mut kept, mut omitted) = (0usize, 0usize);
    let mut markers_complete = true;
    for (index, sheet) in sheets.iter().enumerate() {
        let share = remaining.div_euclid((sheets.len() - index) as i64);
        let cut = cut(sheet, share);
        if !cut.text.is_empty() {
            remaining -= chars::len(&cut.text);
            parts.push(cut.text);
        }
        kept += cut.kept_rows;
        omitted += cut.omitted_rows;
        if cut.omitted_rows > 0 && !cut.marker_complete {
            markers_complete = false;
        }
    }
    let result = parts.join("\n\n");
    info.is_truncated = true;
    info.truncated_length = Some(chars::len(&result));
    info.kept_structure = object([
        ("kept_rows", Value::from(kept)),
        ("omitted_rows", Value::from(omitted)),
        ("sampling_method", Value::from("head_tail_contiguous")),
        ("omission_marker_complete", Value::from(markers_complete)),
    ]);
    info.summary_message = format!(
        "[Smart Truncation Applied - Head + Tail (contiguous)]\nTotal: {total_rows} rows across {} sheet(s)\nKept: {kept} complete rows\nOmitted: {omitted} rows",
        sheets.len()
    );
    (result, info)
}

/// One sheet's share of the text.
#[derive(Debug, PartialEq, Eq)]
struct SheetCut {
    text: String,
    kept_rows: usize,
    omitted_rows: usize,
    marker_complete: bool,
}

/// `_truncate_sheet` over a whole sheet (the reference for [`SheetRows::cut`]).
#[cfg(test)]
fn truncate_sheet(sheet: &SheetText, max_length: i64) -> SheetCut {
    let total = sheet.rows.len();
    let header_length = chars::len(&sheet.header);
    if header_length > max_length {
        return SheetCut {
            text: String::new(),
            kept_rows: 0,
            omitted_rows: total,
            marker_complete: false,
        };
    }
    let mut prefix = Vec::with_capacity(total + 1);
    prefix.push(0i64);
    for row in &sheet.rows {
        let last = *prefix.last().unwrap_or(&0);
        prefix.push(last + chars::len(row));
    }
    let length = |head: usize, tail: usize| -> i64 {
        let omitted = total - head - tail;
        let lines = 1 + head + tail + usize::from(omitted > 0);
        let mut content = header_length + prefix[head];
        if tail > 0 {
            content += prefix[total] - prefix[total - tail];
        }
        if omitted > 0 {
            content += chars::len(&omission_marker(omitted));
        }
        content + lines as i64 - 1
    };
    if length(0, 0) > max_length {
        return SheetCut {
            text: sheet.header.clone(),
            kept_rows: 0,
            omitted_rows: total,
            marker_complete: false,
        };
    }
    let (head, tail) = head_and_tail(total, |h, t| length(h, t) <= max_length);
    let tail_rows = sheet.rows[total - tail..].iter().map(String::as_str);
    let head_rows = sheet.rows[..head].iter().map(String::as_str);
    assemble(&sheet.header, head_rows, tail_rows, head + tail, total)
}

/// How many first and last rows a sheet keeps: rows are taken alternately
/// from the head and the tail (the other end when one does not fit) while
/// `fits(head, tail)`.
fn head_and_tail(total: usize, fits: impl Fn(usize, usize) -> bool) -> (usize, usize) {
    let (mut head, mut tail) = (0, 0);
    let mut prefer_head = true;
    while head + tail < total {
        let order = if prefer_head {
            [true, false]
        } else {
            [false, true]
        };
        let Some(take_head) = order.into_iter().find(|&h| {
            if h {
                fits(head + 1, tail)
            } else {
                fits(head, tail + 1)
            }
        }) else {
            break;
        };
        if take_head {
            head += 1;
        } else {
            tail += 1;
        }
        prefer_head = !take_head;
    }
    (head, tail)
}

/// A sheet's text: its header, the head rows, the omission marker when rows
/// were left out, the tail rows; `kept` of the sheet's `total` rows.
fn assemble<'a>(
    header: &'a str,
    head: impl Iterator<Item = &'a str>,
    tail: impl IntoIterator<Item = &'a str>,
    kept: usize,
    total: usize,
) -> SheetCut {
    let omitted = total - kept;
    let marker = omission_marker(omitted);
    // Pushed one by one: the rows outlive the marker, and a push shortens their lifetime to its.
    let mut lines: Vec<&str> = vec![header];
    for row in head {
        lines.push(row);
    }
    if omitted > 0 {
        lines.push(&marker);
    }
    for row in tail {
        lines.push(row);
    }
    SheetCut {
        text: lines.join("\n"),
        kept_rows: kept,
        omitted_rows: omitted,
        marker_complete: omitted > 0,
    }
}

/// What the stream keeps of one sheet: its head while it fits, a ring of its
/// last rows, and the counts of everything.
#[derive(Debug)]
struct SheetRows {
    header: String,
    header_chars: i64,
    /// Rows seen.
    total: usize,
    /// Code points of all rows seen.
    row_chars: i64,
    head: Vec<String>,
    /// `head_prefix[i]`: code points of `head[..i]`.
    head_prefix: Vec<i64>,
    /// Whether every row so far is in `head`.
    head_open: bool,
    /// The last rows not in `head`, with their lengths.
    ring: VecDeque<(String, i64)>,
    ring_chars: i64,
    /// Whether a row ever left the ring (then not every row is kept).
    ring_dropped: bool,
}

impl SheetRows {
    fn new(header: String) -> Self {
        SheetRows {
            header_chars: chars::len(&header),
            header,
            total: 0,
            row_chars: 0,
            head: Vec::new(),
            head_prefix: vec![0],
            head_open: true,
            ring: VecDeque::new(),
            ring_chars: 0,
            ring_dropped: false,
        }
    }

    fn push(&mut self, row: String, max_length: i64) {
        let len = chars::len(&row);
        self.total += 1;
        self.row_chars += len;
        let head_chars = *self.head_prefix.last().unwrap_or(&0);
        if self.head_open && head_chars + len <= max_length {
            self.head.push(row);
            self.head_prefix.push(head_chars + len);
            return;
        }
        self.head_open = false;
        self.ring.push_back((row, len));
        self.ring_chars += len;
        while self.ring.len() > 1 {
            let oldest = self.ring.front().map_or(0, |r| r.1);
            if self.ring_chars - oldest <= max_length {
                break;
            }
            self.ring.pop_front();
            self.ring_chars -= oldest;
            self.ring_dropped = true;
        }
    }

    /// `serialize_excel_sheet_compact`'s length.
    fn serialized_chars(&self) -> i64 {
        let header = if self.header.is_empty() {
            0
        } else {
            self.header_chars + 1
        };
        header + self.row_chars + self.total as i64 - 1
    }

    /// The last `tail` rows, when they are kept (none past the ring once a row left it).
    fn tail_rows(&self, tail: usize) -> Option<Vec<&str>> {
        let ring: Vec<&str> = self.ring.iter().map(|(r, _)| r.as_str()).collect();
        if tail <= ring.len() {
            return Some(ring[ring.len() - tail..].to_vec());
        }
        if self.ring_dropped {
            return None;
        }
        let from_head = tail - ring.len();
        let mut rows: Vec<&str> = self.head[self.head.len() - from_head..]
            .iter()
            .map(String::as_str)
            .collect();
        rows.extend(ring);
        Some(rows)
    }

    /// `_truncate_sheet` over the kept rows: exactly the whole sheet's cut,
    /// since a selection needing a row that was not kept cannot fit.
    fn cut(&self, max_length: i64) -> SheetCut {
        let total = self.total;
        let header_length = self.header_chars;
        let dropped = |marker_complete| SheetCut {
            text: String::new(),
            kept_rows: 0,
            omitted_rows: total,
            marker_complete,
        };
        if header_length > max_length {
            return dropped(false);
        }
        let mut ring_suffix = Vec::with_capacity(self.ring.len() + 1);
        ring_suffix.push(0i64);
        for (_, len) in self.ring.iter().rev() {
            let last = *ring_suffix.last().unwrap_or(&0);
            ring_suffix.push(last + len);
        }
        let head_chars = |head: usize| self.head_prefix.get(head).copied();
        let tail_chars = |tail: usize| -> Option<i64> {
            if let Some(&s) = ring_suffix.get(tail) {
                return Some(s);
            }
            if self.ring_dropped {
                return None;
            }
            let kept = self.head.len();
            let from_head = tail - self.ring.len();
            Some(self.ring_chars + self.head_prefix[kept] - self.head_prefix[kept - from_head])
        };
        let length = |head: usize, tail: usize| -> Option<i64> {
            let omitted = total - head - tail;
            let lines = 1 + head + tail + usize::from(omitted > 0);
            let mut content = header_length + head_chars(head)?;
            if tail > 0 {
                content += tail_chars(tail)?;
            }
            if omitted > 0 {
                content += chars::len(&omission_marker(omitted));
            }
            Some(content + lines as i64 - 1)
        };
        let fits = |head: usize, tail: usize| length(head, tail).is_some_and(|l| l <= max_length);
        if !fits(0, 0) {
            return SheetCut {
                text: self.header.clone(),
                kept_rows: 0,
                omitted_rows: total,
                marker_complete: false,
            };
        }
        let (head, tail) = head_and_tail(total, fits);
        let tail_rows = self.tail_rows(tail).unwrap_or_default();
        let head_rows = self.head[..head].iter().map(String::as_str);
        assemble(&self.header, head_rows, tail_rows, head + tail, total)
    }
}

/// `ExcelTruncationStrategy` as the consumer of a parse: sheets begun,
/// rows pushed one at a time, the result at [`SheetsStream::finish`].
#[derive(Debug)]
pub struct SheetsStream {
    max_length: i64,
    done: Vec<SheetRows>,
    current: Option<SheetRows>,
}

impl SheetsStream {
    /// A stream cutting at `max_length` code points (0: the default).
    pub fn new(max_length: i64) -> Self {
        SheetsStream {
            max_length: effective_limit(max_length),
            done: Vec::new(),
            current: None,
        }
    }

    /// A sheet starts, with its header line (`--- Sheet: NAME ---`, or empty).
    pub fn begin_sheet(&mut self, header: String) {
        self.end_sheet();
        self.current = Some(SheetRows::new(header));
    }

    /// Forgets the current sheet's rows (its parse starts over).
    pub fn restart_sheet(&mut self) {
        if let Some(current) = self.current.as_mut() {
            *current = SheetRows::new(std::mem::take(&mut current.header));
        }
    }

    /// The current sheet's next populated row, rendered (`R1: …`).
    pub fn push_row(&mut self, row: String) {
        if let Some(current) = self.current.as_mut() {
            current.push(row, self.max_length);
        }
    }

    /// The current sheet is complete (a sheet without rows is left out).
    pub fn end_sheet(&mut self) {
        if let Some(sheet) = self.current.take() {
            if sheet.total > 0 {
                self.done.push(sheet);
            }
        }
    }

    /// The truncated text and its report.
    pub fn finish(mut self) -> Truncated {
        self.end_sheet();
        let max_length = self.max_length;
        let populated = &self.done;
        let total_rows: usize = populated.iter().map(|s| s.total).sum();
        let separators = populated.len().saturating_sub(1) as i64 * 2;
        let full_length: i64 = populated
            .iter()
            .map(SheetRows::serialized_chars)
            .sum::<i64>()
            + separators;
        let mut info = Info::new(object([
            ("total_sheets", Value::from(populated.len())),
            ("total_rows", Value::from(total_rows)),
        ]));
        info.original_length = Some(full_length);
        if full_length <= max_length {
            let full = populated
                .iter()
                .map(|s| {
                    let rows = s.head.join("\n");
                    if s.header.is_empty() {
                        rows
                    } else {
                        format!("{}\n{rows}", s.header)
                    }
                })
                .collect::<Vec<_>>()
                .join("\n\n");
            info.truncated_length = Some(full_length);
            return (full, info);
        }
        let budget = (max_length - separators).max(0);
        share_out(populated, budget, total_rows, info, |sheet, share| {
            sheet.cut(share)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sheet(name: &str, n: usize) -> SheetText {
        SheetText {
            header: format!("--- Sheet: {name} ---"),
            rows: (1..=n).map(|i| format!("R{i}: {}", i * 11)).collect(),
        }
    }

    #[test]
    fn fitting_sheets_are_serialised_whole() {
        let (text, info) = sheets(&[sheet("A", 2), sheet("B", 1)], 1000);
        assert_eq!(
            text,
            "--- Sheet: A ---\nR1: 11\nR2: 22\n\n--- Sheet: B ---\nR1: 11"
        );
        assert!(!info.is_truncated);
    }

    #[test]
    fn rows_alternate_head_and_tail_within_the_budget() {
        let (text, info) = sheets(&[sheet("A", 100)], 80);
        assert!(info.is_truncated);
        assert!(chars::len(&text) <= 80, "{text}");
        assert!(text.starts_with("--- Sheet: A ---\nR1: 11\n"));
        assert!(text.contains("rows omitted] ...\n"));
        assert!(text.ends_with("R100: 1100"));
        assert_eq!(info.kept_structure["omission_marker_complete"], true);
    }

    #[test]
    fn a_budget_below_the_header_drops_the_sheet() {
        let (text, info) = sheets(&[sheet("A", 10), sheet("B", 10)], 20);
        assert_eq!(info.kept_structure["kept_rows"], 0);
        assert_eq!(info.kept_structure["omission_marker_complete"], false);
        assert!(chars::len(&text) <= 20);
    }

    fn streamed(sheets: &[SheetText], max_length: i64) -> Truncated {
        let mut stream = SheetsStream::new(max_length);
        for sheet in sheets {
            stream.begin_sheet(sheet.header.clone());
            for row in &sheet.rows {
                stream.push_row(row.clone());
            }
        }
        stream.finish()
    }

    #[test]
    fn the_stream_cuts_exactly_as_the_whole_sheets_do() {
        // Rows of uneven lengths (some multi-byte), sheets empty, unnamed and long.
        let mut seed = 0x9e37_79b9_u64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        for round in 0..300 {
            let count = 1 + (next() % 4) as usize;
            let book: Vec<SheetText> = (0..count)
                .map(|s| SheetText {
                    header: if next() % 5 == 0 {
                        String::new()
                    } else {
                        format!("--- Sheet: S{s} ---")
                    },
                    rows: (0..(next() % 60) as usize)
                        .map(|i| {
                            let width = (next() % 40) as usize;
                            format!("R{}: {}", i + 1, "é".repeat(width % 7) + &"x".repeat(width))
                        })
                        .collect(),
                })
                .collect();
            for max in [0, -3, 1, 15, 40, 90, 200, 700, 2_000, 50_000] {
                let max = if round % 2 == 0 {
                    max
                } else {
                    max + (next() % 30) as i64
                };
                assert_eq!(
                    streamed(&book, max),
                    sheets(&book, max),
                    "round {round}, max {max}"
                );
            }
        }
    }

    #[test]
    fn the_stream_keeps_a_bounded_share_of_a_long_sheet() {
        let mut stream = SheetsStream::new(1_000);
        stream.begin_sheet("--- Sheet: A ---".into());
        for i in 0..100_000 {
            stream.push_row(format!("R{i}: {}", "v".repeat(i % 50)));
        }
        let kept: usize = stream.current.as_ref().map_or(0, |s| {
            s.head.iter().map(String::len).sum::<usize>()
                + s.ring.iter().map(|r| r.0.len()).sum::<usize>()
        });
        assert!(kept <= 2_100, "{kept} bytes kept");
        let (text, info) = stream.finish();
        assert!(chars::len(&text) <= 1_000);
        assert_eq!(info.original_structure["total_rows"], 100_000);
        assert!(text.ends_with(&format!("R99999: {}", "v".repeat(99_999 % 50))));
    }
}
