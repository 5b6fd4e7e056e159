//! Smart truncation at `MAX_EXTRACTED_TEXT_LENGTH`, as the reference's
//! `truncation_strategies/` apply it: whole units (lines, Markdown sections,
//! paragraphs, pages, slides, rows) from the head and the tail, one omission
//! marker between them, a summary message, and a plain cut at the limit when
//! the units do not fit. Every length is in code points.

mod csv;
mod sheets;
mod text;
mod text_stream;
mod units;
mod units_stream;

pub(crate) use csv::{csv_stream, RowPass};
pub use sheets::{SheetText, SheetsStream};
pub use text::text;
pub(crate) use text::text_pass;
pub use units::{units, Unit};
pub(crate) use units_stream::{units_streamed, UnitSink};

use serde::Serialize;
use serde_json::{Map, Value};
use thiserror::Error;

/// A Python exception a strategy raises on degenerate input, which the
/// reference reports as the failing parser's `parse_failed` reason.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Error)]
pub enum StrategyError {
    /// An average of zero units (an empty document over a negative limit).
    #[error("float division by zero")]
    ZeroDivision,
    /// A section index past the end (Markdown with more sections kept than exist).
    #[error("list index out of range")]
    IndexOutOfRange,
}

/// How a text was cut: structurally (`smart`) or, in the end, at the limit (`simple`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum TruncationKind {
    /// Whole units kept, the middle dropped behind a marker.
    Smart,
    /// The result was cut at the limit (the units did not fit, or the assembled text was too long).
    Simple,
}

/// The truncation report of a truncated text (the reference's `TruncationInfo`
/// of a parse result); absent when nothing was cut.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Truncation {
    /// `smart` or `simple`.
    pub truncation_type: TruncationKind,
    /// Code points before truncation.
    pub original_length: Option<i64>,
    /// Code points after truncation.
    pub truncated_length: Option<i64>,
    /// The strategy's human-readable summary (which units were kept).
    pub summary_message: String,
    /// The strategy's counts of the whole document, in its key order.
    pub original_structure: Map<String, Value>,
    /// The strategy's counts of what was kept, in its key order.
    pub kept_structure: Map<String, Value>,
}

/// A strategy's working report (`SmartTruncationInfo`): whether it cut, and how.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Info {
    pub kind: TruncationKind,
    pub is_truncated: bool,
    pub original_length: Option<i64>,
    pub truncated_length: Option<i64>,
    pub original_structure: Map<String, Value>,
    pub kept_structure: Map<String, Value>,
    pub summary_message: String,
}

impl Info {
    /// A fresh report, `smart` and not truncated, as strategies start one.
    pub(crate) fn new(original_structure: Map<String, Value>) -> Self {
        Info {
            kind: TruncationKind::Smart,
            is_truncated: false,
            original_length: None,
            truncated_length: None,
            original_structure,
            kept_structure: Map::new(),
            summary_message: String::new(),
        }
    }

    /// The report a parse result carries: present only when the text was cut.
    pub(crate) fn into_truncation(self) -> Option<Truncation> {
        self.is_truncated.then(|| Truncation {
            truncation_type: self.kind,
            original_length: self.original_length,
            truncated_length: self.truncated_length,
            summary_message: self.summary_message,
            original_structure: self.original_structure,
            kept_structure: self.kept_structure,
        })
    }
}

/// A truncated text and its report.
pub(crate) type Truncated = (String, Info);

/// `max_length or config.max_length`: the managers treat 0 as "use the default".
pub(crate) fn effective_limit(max_length: i64) -> i64 {
    if max_length == 0 {
        crate::DEFAULT_MAX_TEXT_LENGTH
    } else {
        max_length
    }
}

/// Builds a JSON object from `(key, value)` pairs in order.
pub(crate) fn object<const N: usize>(pairs: [(&str, Value); N]) -> Map<String, Value> {
    pairs.into_iter().map(|(k, v)| (k.to_string(), v)).collect()
}

/// `BaseTruncationStrategy._calculate_distribution` with the default ratios
/// (head 0.5, middle 0, tail 0.5): how many units the head and the tail keep.
pub(crate) fn distribution(total_items: i64, items_to_keep: i64) -> (i64, i64) {
    if items_to_keep >= total_items {
        return (total_items, 0);
    }
    let half = |n: i64| ((n as f64) * 0.5) as i64;
    let mut head = half(items_to_keep).max(1);
    let mut tail = half(items_to_keep).max(1);
    let middle = (items_to_keep - head - tail).max(0);
    head += middle;
    if head + tail >= total_items {
        head = items_to_keep.div_euclid(2);
        tail = items_to_keep - head;
    }
    (head, tail)
}

/// `max(n, int(available / average))` with Python's float division and
/// truncation toward zero.
pub(crate) fn units_that_fit(available: i64, average: f64, floor: i64) -> i64 {
    ((available as f64 / average) as i64).max(floor)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distribution_folds_the_remainder_into_the_head() {
        assert_eq!(distribution(10, 20), (10, 0));
        assert_eq!(distribution(100, 7), (4, 3));
        assert_eq!(distribution(100, 3), (2, 1));
        assert_eq!(distribution(4, 3), (2, 1));
        // head + tail reaching the total (each at least 1) falls back to halves.
        assert_eq!(distribution(2, 1), (0, 1));
    }

    #[test]
    fn zero_means_the_default_limit() {
        assert_eq!(effective_limit(0), 500_000);
        assert_eq!(effective_limit(-3), -3);
        assert_eq!(units_that_fit(-150, 12.5, 3), 3);
        assert_eq!(units_that_fit(1000, 12.5, 3), 80);
    }
}
