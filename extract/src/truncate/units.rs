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

    /// The untruncated text: paragraphs and slides joined by a blank line,
    /// pages each under their `--- Page N ---` label.
    fn whole(self, items: &[String]) -> String {
        match self {
            Unit::Page => items
                .iter()
                .enumerate()
                .map(|(i, t)| Unit::Page.render(i as i64 + 1, t))
                .collect::<Vec<_>>()
                .join("\n\n"),
            Unit::Paragraph | Unit::Slide => items.join("\n\n"),
        }
    }
}

/// Truncates `items` to `max_length` code points, keeping whole units from
/// the head and the tail.
pub fn units(unit: Unit, items: &[String], max_length: i64) -> Result<Truncated, StrategyError> {
    let max_length = effective_limit(max_length);
    let plural = unit.plural();
    let total = items.len() as i64;
    let original = unit.whole(items);
    let original_length = chars::len(&original);
    let mut info = Info::new(object([
        (&format!("total_{plural}"), Value::from(total)),
        ("total_length", Value::from(original_length)),
    ]));
    if original_length <= max_length {
        info.truncated_length = Some(original_length);
        return Ok((original, info));
    }

    let average = original_length as f64 / total.max(1) as f64;
    if average == 0.0 {
        return Err(StrategyError::ZeroDivision);
    }
    let to_keep = units_that_fit(max_length - 200, average, 3);
    if to_keep >= total {
        let truncated = chars::prefix(&original, max_length).to_string();
        info.kind = TruncationKind::Simple;
        info.is_truncated = true;
        info.original_length = Some(original_length);
        info.truncated_length = Some(chars::len(&truncated));
        info.summary_message = format!("Content truncated to {max_length} characters");
        return Ok((truncated, info));
    }

    let (mut head, mut tail) = distribution(total, to_keep);
    if total - tail - head <= 0 {
        head = to_keep.div_euclid(2);
        tail = to_keep - head;
    }
    let head_items = &items[..head.clamp(0, total) as usize];
    let tail_items = if tail > 0 {
        &items[(total - tail).clamp(0, total) as usize..]
    } else {
        &[][..]
    };
    let tail_len = tail_items.len() as i64;

    let mut parts = Vec::new();
    if !head_items.is_empty() {
        parts.push(format!("# Head Section ({plural} 1-{head})"));
        for (i, text) in head_items.iter().enumerate() {
            parts.push(unit.render(i as i64 + 1, text));
        }
    }
    if !head_items.is_empty() && !tail_items.is_empty() {
        let gap = total - tail - head;
        if gap > 0 {
            parts.push(format!("\n... [{gap} {plural} omitted] ..."));
        }
    }
    if !tail_items.is_empty() {
        parts.push(format!(
            "\n# Tail Section ({plural} {}-{total})",
            total - tail + 1
        ));
        for (i, text) in tail_items.iter().enumerate() {
            parts.push(unit.render(total - tail + 1 + i as i64, text));
        }
    }
    let mut result = parts.join("\n\n");
    if chars::len(&result) > max_length {
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
    Ok((result, info))
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
