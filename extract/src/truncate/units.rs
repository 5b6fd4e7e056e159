//! The head + tail strategy over a document's units: Word paragraphs, PDF
//! pages and PowerPoint slides (`word.py`, `pdf.py`, `powerpoint.py`, which
//! differ only in how a unit is labelled).

use super::{
    distribution, effective_limit, object, units_that_fit, Info, StrategyError, Truncated,
    TruncationKind,
};
use crate::chars;
use serde_json::Value;

/// The unit a document is cut into.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unit {
    /// Word paragraphs (and table rows), shown as `[Paragraph N]`.
    Paragraph,
    /// PDF pages, shown as `--- Page N ---`.
    Page,
    /// PowerPoint slides, whose text already starts with `--- Slide N ---`.
    Slide,
}

impl Unit {
    fn plural(self) -> &'static str {
        match self {
            Unit::Paragraph => "paragraphs",
            Unit::Page => "pages",
            Unit::Slide => "slides",
        }
    }

    fn render(self, number: i64, text: &str) -> String {
        match self {
            Unit::Paragraph => format!("[Paragraph {number}]\n{text}"),
            Unit::Page => format!("--- Page {number} ---\n{text}"),
            Unit::Slide => text.to_string(),
        }
    }

    /// One unit as the untruncated text shows it: pages under their label,
    /// paragraphs and slides bare (the whole text joins these with a blank line).
    fn whole_item(self, index: usize, text: &str) -> String {
        match self {
            Unit::Page => Unit::Page.render(index as i64 + 1, text),
            Unit::Paragraph | Unit::Slide => text.to_string(),
        }
    }

    /// Code points [`Unit::whole_item`] adds to a unit of `chars` code points.
    fn whole_item_chars(self, index: usize, chars: i64) -> i64 {
        match self {
            Unit::Page => chars::len(&Unit::Page.render(index as i64 + 1, "")) + chars,
            Unit::Paragraph | Unit::Slide => chars,
        }
    }
}

/// Truncates `items` to `max_length` code points, keeping whole units from
/// the head and the tail.
pub fn units(unit: Unit, items: &[String], max_length: i64) -> Result<Truncated, StrategyError> {
    let item_chars = items.iter().map(|t| chars::len(t)).sum();
    let original_length = whole_length(unit, items.len(), item_chars);
    let plan = Plan::new(unit, items.len(), original_length, max_length)?;
    let item = |i: usize| items.get(i).map(String::as_str);
    Ok(plan
        .assemble(&item)
        .expect("every item of the whole list is at hand"))
}

/// The code points of the untruncated text of `total` units holding `item_chars` code points.
pub(super) fn whole_length(unit: Unit, total: usize, item_chars: i64) -> i64 {
    let labels: i64 = match unit {
        Unit::Page => (0..total).map(|i| unit.whole_item_chars(i, 0)).sum(),
        Unit::Paragraph | Unit::Slide => 0,
    };
    item_chars + labels + 2 * (total as i64 - 1).max(0)
}

/// What the strategy does with a document, decided from its counts alone.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Plan {
    unit: Unit,
    /// The effective limit.
    max_length: i64,
    total: i64,
    original_length: i64,
    pub(super) cut: Cut,
}

/// Which units a [`Plan`] shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Cut {
    /// The whole text fits.
    Whole,
    /// Too few units to drop any: the whole text cut at the limit.
    Prefix,
    /// The first `head` and the last `tail` units.
    HeadTail { head: i64, tail: i64 },
}

impl Plan {
    /// The strategy's decision for `total` units whose untruncated text has
    /// `original_length` code points.
    pub(super) fn new(
        unit: Unit,
        total: usize,
        original_length: i64,
        max_length: i64,
    ) -> Result<Plan, StrategyError> {
        let max_length = effective_limit(max_length);
        let total = total as i64;
        let plan = |cut| Plan {
            unit,
            max_length,
            total,
            original_length,
            cut,
        };
        if original_length <= max_length {
            return Ok(plan(Cut::Whole));
        }
        let average = original_length as f64 / total.max(1) as f64;
        if average == 0.0 {
            return Err(StrategyError::ZeroDivision);
        }
        let to_keep = units_that_fit(max_length - 200, average, 3);
        if to_keep >= total {
            return Ok(plan(Cut::Prefix));
        }
        let (mut head, mut tail) = distribution(total, to_keep);
        if total - tail - head <= 0 {
            head = to_keep.div_euclid(2);
            tail = to_keep - head;
        }
        Ok(plan(Cut::HeadTail { head, tail }))
    }

    /// The units the output may show, as ranges of indices: what a reader
    /// must keep (each up to the output's length) to assemble it.
    pub(super) fn shown(&self) -> [std::ops::Range<usize>; 2] {
        let total = self.total.max(0) as usize;
        match self.cut {
            Cut::Whole | Cut::Prefix => [0..total, total..total],
            Cut::HeadTail { head, tail } => {
                let head = head.clamp(0, self.total) as usize;
                let tail_start = if tail > 0 {
                    (self.total - tail).clamp(0, self.total) as usize
                } else {
                    total
                };
                [0..head, tail_start..total]
            }
        }
    }

    /// The truncated text and its report, reading unit `i` through `item`;
    /// `None` when a unit the output shows is not at hand. A unit may be
    /// given cut short when its cut part would lie past the limit anyway.
    pub(super) fn assemble<'t>(
        &self,
        item: &dyn Fn(usize) -> Option<&'t str>,
    ) -> Option<Truncated> {
        let unit = self.unit;
        let plural = unit.plural();
        let (total, max_length, original_length) =
            (self.total, self.max_length, self.original_length);
        let mut info = Info::new(object([
            (&format!("total_{plural}"), Value::from(total)),
            ("total_length", Value::from(original_length)),
        ]));
        let whole = |out: &mut Written| -> Option<()> {
            for i in 0..total.max(0) as usize {
                if out.full() {
                    break;
                }
                out.part(&unit.whole_item(i, item(i)?));
            }
            Some(())
        };
        let (head, tail) = match self.cut {
            Cut::Whole => {
                let mut out = Written::new(None);
                whole(&mut out)?;
                info.truncated_length = Some(original_length);
                return Some((out.text, info));
            }
            Cut::Prefix => {
                let mut out = Written::new(Some(max_length));
                whole(&mut out)?;
                let truncated = chars::prefix(&out.text, max_length).to_string();
                info.kind = TruncationKind::Simple;
                info.is_truncated = true;
                info.original_length = Some(original_length);
                info.truncated_length = Some(chars::len(&truncated));
                info.summary_message = format!("Content truncated to {max_length} characters");
                return Some((truncated, info));
            }
            Cut::HeadTail { head, tail } => (head, tail),
        };
        let [head_items, tail_items] = self.shown();
        let tail_len = tail_items.len() as i64;

        let mut out = Written::new(Some(max_length));
        if !head_items.is_empty() {
            out.part(&format!("# Head Section ({plural} 1-{head})"));
            for i in head_items.clone() {
                if out.full() {
                    break;
                }
                out.part(&unit.render(i as i64 + 1, item(i)?));
            }
        }
        if !head_items.is_empty() && !tail_items.is_empty() {
            let gap = total - tail - head;
            if gap > 0 {
                out.part(&format!("\n... [{gap} {plural} omitted] ..."));
            }
        }
        if !tail_items.is_empty() {
            out.part(&format!(
                "\n# Tail Section ({plural} {}-{total})",
                total - tail + 1
            ));
            for i in tail_items {
                if out.full() {
                    break;
                }
                out.part(&unit.render(i as i64 + 1, item(i)?));
            }
        }
        let mut result = out.text;
        if out.chars > max_length {
            result = chars::prefix(&result, max_length).to_string();
            info.kind = TruncationKind::Simple;
        }

        let kept = head + tail_len;
        info.is_truncated = true;
        info.original_length = Some(original_length);
        info.truncated_length = Some(chars::len(&result));
        info.kept_structure = object([
            (&format!("head_{plural}"), Value::from(head)),
            (&format!("middle_{plural}_sampled"), Value::from(0)),
            (&format!("tail_{plural}"), Value::from(tail)),
            ("total_kept", Value::from(kept)),
            (&format!("omitted_{plural}"), Value::from(total - kept)),
            ("sampling_method", Value::from("head_tail_contiguous")),
        ]);
        info.summary_message = format!(
            "[Smart Truncation Applied - Head + Tail (contiguous)]\nTotal: {total} {plural}\nKept: {head} head + 0 middle (sampled) + {tail_len} tail {plural}\nOmitted: {} {plural}",
            total - kept
        );
        Some((result, info))
    }
}

/// Parts joined by a blank line, written until they pass a limit of code
/// points (past it the text is only ever cut there, so nothing more is needed).
struct Written {
    text: String,
    chars: i64,
    parts: usize,
    /// `None`: everything is written. A negative limit cuts from the end (Python's
    /// `s[:-n]`), so it needs everything too.
    limit: Option<i64>,
}

impl Written {
    fn new(limit: Option<i64>) -> Self {
        Written {
            text: String::new(),
            chars: 0,
            parts: 0,
            limit: limit.filter(|&l| l >= 0),
        }
    }

    /// Whether the text already passes the limit.
    fn full(&self) -> bool {
        self.limit.is_some_and(|l| self.chars > l)
    }

    /// Appends one part (after a blank line when it is not the first).
    fn part(&mut self, part: &str) {
        if self.full() {
            return;
        }
        if self.parts > 0 {
            self.text.push_str("\n\n");
            self.chars += 2;
        }
        self.parts += 1;
        self.text.push_str(part);
        self.chars += chars::len(part);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn paragraphs(n: usize, len: usize) -> Vec<String> {
        (0..n).map(|i| format!("{i:0>len$}")).collect()
    }

    #[test]
    fn short_documents_are_joined_whole() {
        let (text, info) = units(Unit::Page, &["a".into(), "b".into()], 100).expect("fits");
        assert_eq!(text, "--- Page 1 ---\na\n\n--- Page 2 ---\nb");
        assert!(!info.is_truncated);
        assert_eq!(info.original_structure["total_pages"], 2);
    }

    #[test]
    fn long_documents_keep_head_and_tail_paragraphs() {
        let items = paragraphs(100, 20);
        let (text, info) = units(Unit::Paragraph, &items, 1000).expect("cuts");
        assert!(info.is_truncated);
        // 2 198 chars over 100 paragraphs: 21.98 a paragraph, (1000 - 200) / 21.98 = 36 kept.
        assert_eq!(info.kept_structure["head_paragraphs"], 18);
        assert_eq!(info.kept_structure["tail_paragraphs"], 18);
        assert!(text.starts_with("# Head Section (paragraphs 1-18)\n\n[Paragraph 1]\n"));
        assert!(text.contains(
            "\n\n\n... [64 paragraphs omitted] ...\n\n\n# Tail Section (paragraphs 83-100)"
        ));
        assert_eq!(
            info.kind,
            TruncationKind::Simple,
            "the labels push it over 1000"
        );
        assert_eq!(chars::len(&text), 1000);
    }

    #[test]
    fn too_few_units_fall_back_to_a_plain_cut() {
        let items = paragraphs(2, 600);
        let (text, info) = units(Unit::Slide, &items, 700).expect("cuts");
        assert_eq!(info.kind, TruncationKind::Simple);
        assert_eq!(info.summary_message, "Content truncated to 700 characters");
        assert!(info.kept_structure.is_empty());
        assert_eq!(chars::len(&text), 700);
    }

    #[test]
    fn an_empty_document_over_a_negative_limit_divides_by_zero_like_python() {
        assert_eq!(units(Unit::Page, &[], -1), Err(StrategyError::ZeroDivision));
    }
}
