//! Text and Markdown (`text.py`): lines from the head and the tail, or, for
//! a text with three or more `#` headings, whole sections with every heading
//! kept between them.

use super::{
    distribution, effective_limit, object, units_that_fit, Info, StrategyError, Truncated,
    TruncationKind,
};
use crate::chars;
use crate::text_pass::{PassError, TextPass};
use serde_json::Value;

/// `re.match(r"^#{1,6}\s+", line)`: one to six `#` and a Python whitespace.
pub(super) fn is_heading(line: &str) -> bool {
    let hashes = line.bytes().take_while(|&b| b == b'#').count();
    (1..=6).contains(&hashes)
        && line[hashes..]
            .chars()
            .next()
            .is_some_and(ctxguard_core::pyjson::is_space)
}

/// Truncates a decoded text (or an XMind outline) to `max_length` code points.
pub fn text(text: &str, max_length: i64) -> Result<Truncated, StrategyError> {
    match text_pass(&text, max_length) {
        Ok(truncated) => Ok(truncated),
        Err(PassError::Strategy(e)) => Err(e),
        // A text in memory is read without any other failure.
        Err(_) => text_whole(text, max_length),
    }
}

/// Truncates a text read in passes: streamed for a positive limit, held whole
/// for a negative one (Python's `text[:-n]` cuts from the end).
pub(crate) fn text_pass(pass: &dyn TextPass, max_length: i64) -> Result<Truncated, PassError> {
    if effective_limit(max_length) > 0 {
        return super::text_stream::text_stream(pass, max_length);
    }
    let mut whole = String::new();
    pass.pass(&mut |piece| {
        whole.push_str(piece);
        Ok(())
    })?;
    Ok(text_whole(&whole, max_length)?)
}

/// The strategy over the whole text at once: what a limit of zero or less
/// needs (Python's `text[:-n]` cuts from the end), and the model the streamed
/// strategy is tested against.
pub(super) fn text_whole(text: &str, max_length: i64) -> Result<Truncated, StrategyError> {
    let max_length = effective_limit(max_length);
    let original_length = chars::len(text);
    let lines: Vec<&str> = text.split('\n').collect();
    let headings: Vec<usize> = lines
        .iter()
        .enumerate()
        .filter(|(_, l)| is_heading(l))
        .map(|(i, _)| i)
        .collect();
    let is_markdown = headings.len() >= 2;
    let mut info = Info::new(object([
        ("total_lines", Value::from(lines.len())),
        ("total_length", Value::from(original_length)),
        ("is_markdown", Value::from(is_markdown)),
        ("heading_count", Value::from(headings.len())),
    ]));
    if original_length <= max_length {
        info.truncated_length = Some(original_length);
        return Ok((text.to_string(), info));
    }
    if is_markdown && headings.len() >= 3 {
        markdown(text, &lines, &headings, max_length, info)
    } else {
        plain(text, &lines, max_length, info)
    }
}

/// Lines from the head and the tail with one omission line between.
fn plain(
    text: &str,
    lines: &[&str],
    max_length: i64,
    mut info: Info,
) -> Result<Truncated, StrategyError> {
    let total = lines.len() as i64;
    let original_length = chars::len(text);
    let average = original_length as f64 / total.max(1) as f64;
    if average == 0.0 {
        return Err(StrategyError::ZeroDivision);
    }
    let to_keep = units_that_fit(max_length - 200, average, 3);
    if to_keep >= total {
        let truncated = chars::prefix(text, max_length).to_string();
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
    let head_lines = &lines[..head.clamp(0, total) as usize];
    let tail_lines = if tail > 0 {
        &lines[(total - tail).clamp(0, total) as usize..]
    } else {
        &[][..]
    };
    let mut parts: Vec<String> = Vec::new();
    if !head_lines.is_empty() {
        parts.push(format!("# Head Section (lines 1-{head})"));
        parts.extend(head_lines.iter().map(|l| l.to_string()));
    }
    if !head_lines.is_empty() && !tail_lines.is_empty() {
        let gap = total - tail - head;
        if gap > 0 {
            parts.push(format!("\n... [{gap} lines omitted] ..."));
        }
    }
    if !tail_lines.is_empty() {
        parts.push(format!(
            "\n# Tail Section (lines {}-{total})",
            total - tail + 1
        ));
        parts.extend(tail_lines.iter().map(|l| l.to_string()));
    }
    let mut result = parts.join("\n");
    if chars::len(&result) > max_length {
        result = chars::prefix(&result, max_length).to_string();
        info.kind = TruncationKind::Simple;
    }
    let tail_len = tail_lines.len() as i64;
    let kept = head + tail_len;
    info.is_truncated = true;
    info.original_length = Some(original_length);
    info.truncated_length = Some(chars::len(&result));
    info.kept_structure = object([
        ("head_lines", Value::from(head)),
        ("middle_lines_sampled", Value::from(0)),
        ("tail_lines", Value::from(tail)),
        ("total_kept", Value::from(kept)),
        ("omitted_lines", Value::from(total - kept)),
        ("sampling_method", Value::from("head_tail_contiguous")),
    ]);
    info.summary_message = format!(
        "[Smart Truncation Applied - Head + Tail (contiguous)]\nTotal: {total} lines\nKept: {head} head + 0 middle (sampled) + {tail_len} tail lines\nOmitted: {} lines",
        total - kept
    );
    Ok((result, info))
}

/// One Markdown section: its heading line and the lines up to the next heading.
struct Section<'a> {
    heading: &'a str,
    content: &'a [&'a str],
}

/// `sections[i]` with Python's indexing (negative from the end).
fn section_at<'s, 'a>(
    sections: &'s [Section<'a>],
    i: i64,
) -> Result<&'s Section<'a>, StrategyError> {
    let n = sections.len() as i64;
    let index = if i < 0 { i + n } else { i };
    if (0..n).contains(&index) {
        Ok(&sections[index as usize])
    } else {
        Err(StrategyError::IndexOutOfRange)
    }
}

/// Whole sections from the head and the tail, the preamble before the first heading first.
fn markdown(
    text: &str,
    lines: &[&str],
    headings: &[usize],
    max_length: i64,
    info: Info,
) -> Result<Truncated, StrategyError> {
    let sections: Vec<Section> = headings
        .iter()
        .enumerate()
        .map(|(i, &start)| {
            let end = headings.get(i + 1).copied().unwrap_or(lines.len());
            Section {
                heading: lines[start],
                content: &lines[start + 1..end],
            }
        })
        .collect();
    let preamble = &lines[..headings[0]];
    let total = sections.len() as i64;
    let headings_length: i64 =
        sections.iter().map(|s| chars::len(s.heading)).sum::<i64>() + (total - 1).max(0);
    let preamble_length = if preamble.is_empty() {
        0
    } else {
        chars::len(&preamble.join("\n"))
    };
    let available = max_length - (headings_length + preamble_length + 300);
    if available <= 0 {
        return plain(text, lines, max_length, info);
    }
    let content_length: i64 = sections
        .iter()
        .map(|s| chars::len(&s.content.join("\n")))
        .sum();
    let average = content_length as f64 / total.max(1) as f64;
    let to_keep = units_that_fit(available, average.max(1.0), 3);
    let (mut head, mut tail) = distribution(total, to_keep);
    if total - tail - head <= 0 {
        head = to_keep.div_euclid(2);
        tail = to_keep - head;
    }

    let mut parts: Vec<String> = Vec::new();
    if !preamble.is_empty() {
        parts.push("# Document Preamble".into());
        parts.extend(preamble.iter().map(|l| l.to_string()));
    }
    let push_section = |parts: &mut Vec<String>, i: i64| -> Result<(), StrategyError> {
        let section = section_at(&sections, i)?;
        parts.push(section.heading.to_string());
        parts.extend(section.content.iter().map(|l| l.to_string()));
        Ok(())
    };
    if head > 0 {
        parts.push(format!("\n# Head Sections (sections 1-{head})"));
        for i in 0..head {
            push_section(&mut parts, i)?;
        }
    }
    if head > 0 && tail > 0 {
        let gap = total - tail - head;
        if gap > 0 {
            parts.push(format!("\n... [{gap} sections omitted] ..."));
        }
    }
    if tail > 0 {
        parts.push(format!(
            "\n# Tail Sections (sections {}-{total})",
            total - tail + 1
        ));
        for i in total - tail..total {
            push_section(&mut parts, i)?;
        }
    }
    let mut info = info;
    let mut result = parts.join("\n");
    if chars::len(&result) > max_length {
        result = chars::prefix(&result, max_length).to_string();
        info.kind = TruncationKind::Simple;
    }
    let kept = head + tail;
    info.is_truncated = true;
    info.original_length = Some(chars::len(text));
    info.truncated_length = Some(chars::len(&result));
    info.kept_structure = object([
        ("total_sections", Value::from(total)),
        ("head_sections", Value::from(head)),
        ("middle_sections_sampled", Value::from(0)),
        ("tail_sections", Value::from(tail)),
        ("total_kept", Value::from(kept)),
        ("omitted_sections", Value::from(total - kept)),
        ("sampling_method", Value::from("head_tail_contiguous")),
        ("structure_preserved", Value::from("markdown_headings")),
    ]);
    info.summary_message = format!(
        "[Smart Truncation Applied - Markdown Structure Preserved]\nTotal: {total} sections (with {} headings)\nKept: {head} head + 0 middle (sampled) + {tail} tail sections\nOmitted: {} sections",
        headings.len(),
        total - kept
    );
    Ok((result, info))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headings_need_one_to_six_hashes_and_a_space() {
        assert!(is_heading("# a") && is_heading("###### a") && is_heading("#\t"));
        assert!(
            is_heading("#\u{3000}x"),
            "Python's \\s is Unicode whitespace"
        );
        assert!(!is_heading("####### seven") && !is_heading("#not") && !is_heading(" # a"));
        assert!(!is_heading("#"));
    }

    #[test]
    fn plain_text_keeps_head_and_tail_lines() {
        let body: Vec<String> = (0..300).map(|i| format!("line {i:03}")).collect();
        let (out, info) = text(&body.join("\n"), 1200).expect("cuts");
        assert!(info.is_truncated);
        assert!(out.starts_with("# Head Section (lines 1-"));
        assert!(out.contains("lines omitted] ...\n\n# Tail Section (lines "));
        assert!(out.ends_with("line 299"));
        assert_eq!(
            info.kept_structure["sampling_method"],
            "head_tail_contiguous"
        );
    }

    #[test]
    fn markdown_keeps_whole_sections() {
        let doc: String = (0..40)
            .map(|i| format!("## Section {i}\n{}\n", "word ".repeat(20)))
            .collect();
        let (out, info) = text(&doc, 1500).expect("cuts");
        assert!(out.starts_with("\n# Head Sections (sections 1-"));
        assert!(out.contains("sections omitted] ..."));
        assert!(info.summary_message.starts_with("[Smart Truncation Applied - Markdown Structure Preserved]\nTotal: 40 sections (with 40 headings)"));
    }

    #[test]
    fn fitting_text_is_returned_as_is() {
        let (out, info) = text("short", 0).expect("0 means the default limit");
        assert_eq!(out, "short");
        assert!(!info.is_truncated);
        assert_eq!(info.into_truncation(), None);
    }
}
