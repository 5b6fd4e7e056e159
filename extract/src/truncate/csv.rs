//! CSV rows (`CSVTruncationStrategy`): one pseudo-sheet named `CSV Data`,
//! cells joined with ` | `, a header row, then head and tail data rows.

use super::{effective_limit, object, Info, Truncated, TruncationKind};
use crate::chars;
use serde_json::Value;

/// The sheet name the reference gives CSV rows.
const SHEET_NAME: &str = "CSV Data";
/// `excel_max_columns`: cells shown per row.
const MAX_COLUMNS: usize = 50;
/// `excel_header_rows`.
const HEADER_ROWS: i64 = 1;

/// `_format_single_row`: cells joined with ` | `, at most 50 of them.
fn format_row(row: &[String]) -> String {
    if row.len() > MAX_COLUMNS {
        format!(
            "{} | ... (+{} columns)",
            row[..MAX_COLUMNS].join(" | "),
            row.len() - MAX_COLUMNS
        )
    } else {
        row.join(" | ")
    }
}

/// `_cut_at_row_boundary`: cut at the last line break that fits and add a marker.
fn cut_at_row_boundary(text: &str, max_length: i64) -> String {
    const MARKER: &str = "\n... [truncated] ...";
    let budget = (max_length - chars::len(MARKER)).max(0);
    let boundary = chars::rfind_before(text, '\n', budget);
    let head = if boundary > 0 {
        chars::prefix(text, boundary)
    } else {
        chars::prefix(text, budget)
    };
    format!("{head}{MARKER}")
}

/// Truncates CSV rows (cells already stripped) to `max_length` code points.
pub fn csv_rows(rows: &[Vec<String>], max_length: i64) -> Truncated {
    let max_length = effective_limit(max_length);
    let total_rows = rows.len() as i64;
    let mut info = Info::new(object([
        ("total_sheets", Value::from(1)),
        ("total_rows", Value::from(total_rows)),
    ]));
    let formatted: Vec<String> = rows.iter().map(|r| format_row(r)).collect();
    let full = if rows.is_empty() {
        String::new()
    } else {
        format!("--- Sheet: {SHEET_NAME} ---\n{}", formatted.join("\n"))
    };
    info.original_length = Some(chars::len(&full));
    if chars::len(&full) <= max_length {
        info.truncated_length = Some(chars::len(&full));
        return (full, info);
    }

    let (mut kept, mut omitted) = (0, 0);
    let mut parts = Vec::new();
    if !rows.is_empty() {
        let (text, k, o) = sheet(&formatted, &full, max_length);
        parts.push(text);
        kept += k;
        omitted += o;
    }
    let mut result = parts.join("\n\n");
    if chars::len(&result) > max_length {
        result = cut_at_row_boundary(&result, max_length);
        info.kind = TruncationKind::Simple;
    }
    info.is_truncated = true;
    info.truncated_length = Some(chars::len(&result));
    info.kept_structure = object([
        ("kept_rows", Value::from(kept)),
        ("omitted_rows", Value::from(omitted)),
        ("sampling_method", Value::from("head_tail_contiguous")),
    ]);
    info.summary_message = format!(
        "[Smart Truncation Applied - Head + Tail (contiguous)]\nTotal: {total_rows} rows across 1 sheet(s)\nKept: {kept} rows (contiguous head + tail; middle dropped by default)\nOmitted: {omitted} rows"
    );
    (result, info)
}

/// `_truncate_sheet_smart` for the one sheet: its text, rows kept, rows omitted.
fn sheet(rows: &[String], full: &str, max_length: i64) -> (String, i64, i64) {
    let total = rows.len() as i64;
    if chars::len(full) <= max_length {
        return (full.to_string(), total, 0);
    }
    let average = chars::len(full) as f64 / total.max(1) as f64;
    let to_keep = (((max_length - 300) as f64 / average) as i64).max(5);
    let header_count = HEADER_ROWS.min(total);
    let data_total = total - header_count;
    let mut data_keep = to_keep - header_count;
    if data_keep <= 0 {
        data_keep = 3;
    }
    if data_keep >= data_total {
        return (cut_at_row_boundary(full, max_length), total, 0);
    }
    let half = ((data_keep as f64) * 0.5) as i64;
    let mut head = half.max(1);
    let mut tail = half.max(1);
    head += (data_keep - head - tail).max(0);
    if total - tail - (header_count + head) <= 0 {
        head = data_keep.div_euclid(2);
        tail = data_keep - head;
    }
    let header_rows = &rows[..header_count as usize];
    let head_end = (header_count + head).clamp(header_count, total) as usize;
    let head_rows = &rows[header_count as usize..head_end];
    let tail_rows = if tail > 0 {
        &rows[(total - tail).clamp(0, total) as usize..]
    } else {
        &[][..]
    };

    let mut parts = vec![format!("--- Sheet: {SHEET_NAME} ---")];
    if !header_rows.is_empty() {
        parts.push("# Header".into());
        parts.extend(header_rows.iter().cloned());
    }
    if !head_rows.is_empty() {
        parts.push(format!(
            "\n# Head Data (rows {}-{})",
            header_count + 1,
            header_count + head_rows.len() as i64
        ));
        parts.extend(head_rows.iter().cloned());
    }
    if !head_rows.is_empty() && !tail_rows.is_empty() {
        let gap = total - tail - (header_count + head);
        if gap > 0 {
            parts.push(format!("\n... [{gap} rows omitted] ..."));
        }
    }
    if !tail_rows.is_empty() {
        parts.push(format!("\n# Tail Data (rows {}-{total})", total - tail + 1));
        parts.extend(tail_rows.iter().cloned());
    }
    let kept = header_count + head_rows.len() as i64 + tail_rows.len() as i64;
    (parts.join("\n"), kept, total - kept)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rows(n: usize) -> Vec<Vec<String>> {
        (0..n)
            .map(|i| vec![format!("name{i}"), format!("{}", i * 7), "city".into()])
            .collect()
    }

    #[test]
    fn small_files_are_one_sheet() {
        let (text, info) = csv_rows(&rows(2), 1000);
        assert_eq!(
            text,
            "--- Sheet: CSV Data ---\nname0 | 0 | city\nname1 | 7 | city"
        );
        assert!(!info.is_truncated);
    }

    #[test]
    fn large_files_keep_header_head_and_tail() {
        let (text, info) = csv_rows(&rows(500), 1000);
        assert!(info.is_truncated);
        assert!(text.starts_with(
            "--- Sheet: CSV Data ---\n# Header\nname0 | 0 | city\n\n# Head Data (rows 2-"
        ));
        assert!(text.contains("rows omitted] ...\n\n# Tail Data (rows "));
        assert!(text.ends_with("name499 | 3493 | city"));
    }

    #[test]
    fn cuts_end_on_a_row_boundary_with_a_marker() {
        assert_eq!(
            cut_at_row_boundary("ab\ncd\nefgh", 25),
            "ab\n... [truncated] ..."
        );
        assert_eq!(
            cut_at_row_boundary("ab\ncd\nefgh", 27),
            "ab\ncd\n... [truncated] ..."
        );
        assert_eq!(cut_at_row_boundary("abcdef", 22), "ab\n... [truncated] ...");
    }

    #[test]
    fn wide_rows_show_fifty_cells() {
        let row: Vec<String> = (0..52).map(|i| i.to_string()).collect();
        assert!(format_row(&row).ends_with("49 | ... (+2 columns)"));
    }
}
