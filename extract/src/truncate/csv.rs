//! CSV rows (`CSVTruncationStrategy`): one pseudo-sheet named `CSV Data`,
//! cells joined with ` | `, a header row, then head and tail data rows.

use super::{effective_limit, object, Info, Truncated, TruncationKind};
use crate::chars;
use crate::text_pass::{CappedJoin, PassError};
use serde_json::Value;

/// The sheet name the reference gives CSV rows.
const SHEET_NAME: &str = "CSV Data";
/// `excel_max_columns`: cells shown per row.
const MAX_COLUMNS: usize = 50;
/// `excel_header_rows`.
const HEADER_ROWS: i64 = 1;

/// `_format_single_row`: cells joined with ` | `, at most 50 of them.
fn format_row<S: AsRef<str>>(row: &[S]) -> String {
    let cells = |row: &[S]| {
        row.iter()
            .map(AsRef::as_ref)
            .collect::<Vec<&str>>()
            .join(" | ")
    };
    if row.len() > MAX_COLUMNS {
        format!(
            "{} | ... (+{} columns)",
            cells(&row[..MAX_COLUMNS]),
            row.len() - MAX_COLUMNS
        )
    } else {
        cells(row)
    }
}

/// Rows read front to back, as many times as the strategy needs (cells already stripped).
pub(crate) trait RowPass {
    /// Hands every row, in order, to `each`.
    fn pass(&self, each: &mut dyn FnMut(&[&str]) -> Result<(), PassError>)
        -> Result<(), PassError>;
}

impl RowPass for &[Vec<String>] {
    fn pass(
        &self,
        each: &mut dyn FnMut(&[&str]) -> Result<(), PassError>,
    ) -> Result<(), PassError> {
        for row in self.iter() {
            let cells: Vec<&str> = row.iter().map(String::as_str).collect();
            each(&cells)?;
        }
        Ok(())
    }
}

/// The pseudo-sheet's first line.
fn sheet_title() -> String {
    format!("--- Sheet: {SHEET_NAME} ---")
}

/// Truncates CSV rows in memory (cells already stripped) to `max_length` code points.
#[cfg(test)]
fn csv_rows(rows: &[Vec<String>], max_length: i64) -> Truncated {
    csv_stream(&rows, max_length).expect("rows in memory are read without failure")
}

/// The CSV strategy over rows read in passes, holding at most about
/// `max_length` code points: the first pass counts the rows and the text's
/// length and keeps its head; when rows are dropped from the middle a second
/// pass picks the header, head and tail rows.
pub(crate) fn csv_stream(rows: &dyn RowPass, max_length: i64) -> Result<Truncated, PassError> {
    let max_length = effective_limit(max_length);
    let mut full = CappedJoin::new(max_length);
    let mut total: i64 = 0;
    rows.pass(&mut |row| {
        if total == 0 {
            full.part(&sheet_title());
        }
        full.part(&format_row(row));
        total += 1;
        Ok(())
    })?;
    let mut info = Info::new(object([
        ("total_sheets", Value::from(1)),
        ("total_rows", Value::from(total)),
    ]));
    let full_length = full.total_chars();
    info.original_length = Some(full_length);
    if full_length <= max_length {
        info.truncated_length = Some(full_length);
        return Ok((full.into_text(), info));
    }
    let (mut result, mut result_length, mut kept, mut omitted) = (String::new(), 0, 0, 0);
    if total > 0 {
        let plan = SheetPlan::new(total, full_length, max_length);
        match plan {
            None => {
                result = cut_at_row_boundary(full.text(), max_length);
                result_length = chars::len(&result);
                kept = total;
            }
            Some(plan) => {
                drop(full);
                let join = plan.assemble(rows, max_length)?;
                result_length = join.total_chars();
                result = join.into_text();
                kept = plan.kept();
                omitted = total - kept;
            }
        }
    }
    if result_length > max_length {
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
        "[Smart Truncation Applied - Head + Tail (contiguous)]\nTotal: {total} rows across 1 sheet(s)\nKept: {kept} rows (contiguous head + tail; middle dropped by default)\nOmitted: {omitted} rows"
    );
    Ok((result, info))
}

/// `_truncate_sheet_smart`'s choice for a sheet over the limit: the header
/// row, head rows and tail rows.
struct SheetPlan {
    total: i64,
    header_count: i64,
    head: i64,
    tail: i64,
}

impl SheetPlan {
    /// The choice, or `None` when every data row is kept (the text is then cut at a row boundary).
    fn new(total: i64, full_length: i64, max_length: i64) -> Option<Self> {
        let average = full_length as f64 / total.max(1) as f64;
        let to_keep = (((max_length - 300) as f64 / average) as i64).max(5);
        let header_count = HEADER_ROWS.min(total);
        let data_total = total - header_count;
        let mut data_keep = to_keep - header_count;
        if data_keep <= 0 {
            data_keep = 3;
        }
        if data_keep >= data_total {
            return None;
        }
        let half = ((data_keep as f64) * 0.5) as i64;
        let mut head = half.max(1);
        let mut tail = half.max(1);
        head += (data_keep - head - tail).max(0);
        if total - tail - (header_count + head) <= 0 {
            head = data_keep.div_euclid(2);
            tail = data_keep - head;
        }
        Some(SheetPlan {
            total,
            header_count,
            head,
            tail,
        })
    }

    fn head_end(&self) -> i64 {
        (self.header_count + self.head).clamp(self.header_count, self.total)
    }

    fn tail_start(&self) -> i64 {
        if self.tail > 0 {
            (self.total - self.tail).clamp(0, self.total)
        } else {
            self.total
        }
    }

    fn kept(&self) -> i64 {
        self.header_count + (self.head_end() - self.header_count) + (self.total - self.tail_start())
    }

    /// The second pass: the sheet's parts joined by `\n`, capped at `max_length`.
    fn assemble(&self, rows: &dyn RowPass, max_length: i64) -> Result<CappedJoin, PassError> {
        let (total, header_count, head, tail) =
            (self.total, self.header_count, self.head, self.tail);
        let (head_end, tail_start) = (self.head_end(), self.tail_start());
        let has_head = head_end > header_count;
        let mut join = CappedJoin::new(max_length);
        join.part(&sheet_title());
        let mut index: i64 = 0;
        rows.pass(&mut |row| {
            let i = index;
            index += 1;
            if i < header_count {
                if i == 0 {
                    join.part("# Header");
                }
            } else if i < head_end {
                if i == header_count {
                    join.part(&format!(
                        "\n# Head Data (rows {}-{})",
                        header_count + 1,
                        head_end
                    ));
                }
            } else if i >= tail_start {
                if i == tail_start {
                    let gap = total - tail - (header_count + head);
                    if has_head && gap > 0 {
                        join.part(&format!("\n... [{gap} rows omitted] ..."));
                    }
                    join.part(&format!(
                        "\n# Tail Data (rows {}-{total})",
                        total - tail + 1
                    ));
                }
            } else {
                return Ok(());
            }
            join.part(&format_row(row));
            Ok(())
        })?;
        Ok(join)
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

/// The strategy over every row in memory: the model the streamed strategy is tested against.
#[cfg(test)]
fn csv_rows_whole(rows: &[Vec<String>], max_length: i64) -> Truncated {
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
#[cfg(test)]
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

    /// A small deterministic generator, so the cases are the same on every run.
    fn lcg(seed: &mut u64) -> u64 {
        *seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        *seed >> 33
    }

    #[test]
    fn streamed_csv_truncation_equals_the_whole_rows_strategy() {
        let cells = ["a", "héllo", "注释", "", "1234567", "x y z", "🦀"];
        let mut seed = 11;
        for round in 0..200 {
            let rows: Vec<Vec<String>> = (0..(round * 5) % 300)
                .map(|_| {
                    (0..1 + lcg(&mut seed) % 60)
                        .map(|_| cells[(lcg(&mut seed) % cells.len() as u64) as usize].to_string())
                        .collect()
                })
                .collect();
            for max in [-5, 1, 20, 30, 310, 900, 4000, 50_000] {
                let (st, si) = csv_rows(&rows, max);
                let (wt, wi) = csv_rows_whole(&rows, max);
                assert_eq!(st, wt, "text, {} rows, max {max}", rows.len());
                assert_eq!(si, wi, "report, {} rows, max {max}", rows.len());
            }
        }
    }

    #[test]
    fn wide_rows_show_fifty_cells() {
        let row: Vec<String> = (0..52).map(|i| i.to_string()).collect();
        assert!(format_row(&row).ends_with("49 | ... (+2 columns)"));
    }
}
