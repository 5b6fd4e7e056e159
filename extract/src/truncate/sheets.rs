//! Excel sheets (`ExcelTruncationStrategy`): complete rows only, taken from
//! the head and the tail in turn while they fit, each sheet's budget an
//! even share of what the sheets before it left.

use super::{effective_limit, object, Info, Truncated};
use crate::chars;
use serde_json::Value;

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

/// Truncates populated sheets to `max_length` code points without cutting a row.
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
    let mut remaining = (max_length - separators).max(0);
    let mut parts = Vec::new();
    let (mut kept, mut omitted) = (0usize, 0usize);
    let mut markers_complete = true;
    for (index, sheet) in populated.iter().enumerate() {
        let budget = remaining.div_euclid((populated.len() - index) as i64);
        let cut = truncate_sheet(sheet, budget);
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
        populated.len()
    );
    (result, info)
}

/// One sheet's share of the text.
struct SheetCut {
    text: String,
    kept_rows: usize,
    omitted_rows: usize,
    marker_complete: bool,
}

/// `_truncate_sheet`: rows taken alternately from the head and the tail
/// (head first) while the rendered selection fits `max_length`.
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
    let (mut head, mut tail) = (0, 0);
    let mut prefer_head = true;
    while head + tail < total {
        let order = if prefer_head {
            [true, false]
        } else {
            [false, true]
        };
        let Some(take_head) = order.into_iter().find(|&h| {
            let (h2, t2) = if h {
                (head + 1, tail)
            } else {
                (head, tail + 1)
            };
            length(h2, t2) <= max_length
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
    let omitted = total - head - tail;
    let mut lines: Vec<&str> = vec![&sheet.header];
    lines.extend(sheet.rows[..head].iter().map(String::as_str));
    let marker = omission_marker(omitted);
    if omitted > 0 {
        lines.push(&marker);
    }
    lines.extend(sheet.rows[total - tail..].iter().map(String::as_str));
    SheetCut {
        text: lines.join("\n"),
        kept_rows: head + tail,
        omitted_rows: omitted,
        marker_complete: omitted > 0,
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
}
