//! The text strategy (`text.py`) over a text read in passes, so a text far
//! over the limit is never held: the first pass counts what the strategy's
//! choice needs (lines, code points, headings, each section's length) and
//! keeps the first `max_length` code points; when the text is over the limit
//! and whole lines or sections are kept, a second pass assembles them, again
//! keeping only the first `max_length` code points of the result (all the
//! reference keeps) while counting the rest. The choices and reports are
//! [`super::text`]'s, which the tests hold this against.

use super::text::is_heading;
use super::{
    distribution, effective_limit, object, units_that_fit, Info, StrategyError, Truncated,
    TruncationKind,
};
use crate::text_pass::{CappedJoin, LineEvent, LineSplit, PassError, TextPass};
use serde_json::Value;

/// Bytes of a line's start enough to tell a heading (six `#`, a 3-byte space).
const HEADING_PROBE_BYTES: usize = 16;

/// `"\n".join(lines)`'s length from the lines' lengths.
fn joined_length(chars: i64, lines: i64) -> i64 {
    if lines > 0 {
        chars + lines - 1
    } else {
        0
    }
}

/// What the first pass learns of a text.
struct Scan {
    /// The text's first `max_length` code points, and its whole length.
    head: CappedJoin,
    line_chars: i64,
    line_probe: Vec<u8>,
    total_lines: i64,
    heading_count: i64,
    heading_chars: i64,
    /// Heading line numbers while the headings fit the limit (past it the
    /// Markdown strategy cannot be chosen, so they are not needed).
    heading_lines: Option<Vec<i64>>,
    preamble_chars: i64,
    preamble_lines: i64,
    section_chars: i64,
    section_lines: i64,
    content_length: i64,
}

impl Scan {
    fn new(max_length: i64) -> Self {
        Scan {
            head: CappedJoin::new(max_length),
            line_chars: 0,
            line_probe: Vec::with_capacity(HEADING_PROBE_BYTES),
            total_lines: 0,
            heading_count: 0,
            heading_chars: 0,
            heading_lines: Some(Vec::new()),
            preamble_chars: 0,
            preamble_lines: 0,
            section_chars: 0,
            section_lines: 0,
            content_length: 0,
        }
    }

    fn piece(&mut self, piece: &str) {
        self.line_chars += crate::text_pass::chars_of(piece);
        let room = HEADING_PROBE_BYTES - self.line_probe.len();
        let bytes = piece.as_bytes();
        self.line_probe
            .extend_from_slice(&bytes[..room.min(bytes.len())]);
    }

    fn end_line(&mut self, index: i64, max_length: i64) {
        let probe = match std::str::from_utf8(&self.line_probe) {
            Ok(text) => text,
            Err(e) => std::str::from_utf8(&self.line_probe[..e.valid_up_to()]).unwrap_or(""),
        };
        let chars = std::mem::take(&mut self.line_chars);
        if is_heading(probe) {
            if self.heading_count > 0 {
                self.close_section();
            }
            self.heading_count += 1;
            self.heading_chars += chars;
            if self.heading_chars > max_length {
                self.heading_lines = None;
            }
            if let Some(lines) = &mut self.heading_lines {
                lines.push(index);
            }
        } else if self.heading_count == 0 {
            self.preamble_chars += chars;
            self.preamble_lines += 1;
        } else {
            self.section_chars += chars;
            self.section_lines += 1;
        }
        self.line_probe.clear();
    }

    fn close_section(&mut self) {
        self.content_length += joined_length(self.section_chars, self.section_lines);
        self.section_chars = 0;
        self.section_lines = 0;
    }
}

/// Which lines the second pass keeps, and the parts around them.
enum Plan {
    /// Lines `..head` and `tail_start..` of `total`.
    Plain { head: i64, tail: i64, total: i64 },
    /// The preamble, sections `..head` and `tail_start..` of `total`.
    Markdown {
        head: i64,
        tail: i64,
        total: i64,
        headings: Vec<i64>,
    },
}

/// Truncates the text `pass` reads to `max_length` (> 0) code points, as
/// [`super::text`] does, holding at most about `max_length` code points.
pub(crate) fn text_stream(pass: &dyn TextPass, max_length: i64) -> Result<Truncated, PassError> {
    let max_length = effective_limit(max_length);
    let mut scan = Scan::new(max_length);
    scan.head.part("");
    let mut split = LineSplit::new();
    {
        // The `\n` before a line is counted when the line starts (the last line has none after it).
        let mut newline_pending = false;
        let mut on = |event: LineEvent<'_>| {
            if std::mem::take(&mut newline_pending) {
                scan.head.extend("\n");
            }
            match event {
                LineEvent::Piece(_, piece) => {
                    scan.head.extend(piece);
                    scan.piece(piece);
                }
                LineEvent::End(index) => {
                    scan.end_line(index, max_length);
                    newline_pending = true;
                }
            }
            Ok(())
        };
        pass.pass(&mut |piece| {
            split.feed(piece, &mut on)?;
            Ok(())
        })?;
        scan.total_lines = split.finish(&mut on)?;
    }
    let original_length = scan.head_length();
    if scan.heading_count > 0 {
        scan.close_section();
    }
    let is_markdown = scan.heading_count >= 2;
    let mut info = Info::new(object([
        ("total_lines", Value::from(scan.total_lines)),
        ("total_length", Value::from(original_length)),
        ("is_markdown", Value::from(is_markdown)),
        ("heading_count", Value::from(scan.heading_count)),
    ]));
    if original_length <= max_length {
        info.truncated_length = Some(original_length);
        return Ok((scan.head.into_text(), info));
    }
    let plan = if is_markdown && scan.heading_count >= 3 {
        markdown_plan(&mut scan, max_length)
    } else {
        None
    };
    let plan = match plan {
        Some(plan) => plan,
        None => {
            let total = scan.total_lines;
            let average = original_length as f64 / total.max(1) as f64;
            if average == 0.0 {
                return Err(StrategyError::ZeroDivision.into());
            }
            let to_keep = units_that_fit(max_length - 200, average, 3);
            if to_keep >= total {
                let truncated = scan.head.into_text();
                info.kind = TruncationKind::Simple;
                info.is_truncated = true;
                info.original_length = Some(original_length);
                info.truncated_length = Some(crate::chars::len(&truncated));
                info.summary_message = format!("Content truncated to {max_length} characters");
                return Ok((truncated, info));
            }
            let (mut head, mut tail) = distribution(total, to_keep);
            if total - tail - head <= 0 {
                head = to_keep.div_euclid(2);
                tail = to_keep - head;
            }
            Plan::Plain { head, tail, total }
        }
    };
    let heading_count = scan.heading_count;
    drop(scan);
    let mut result = assemble(pass, &plan, max_length)?;
    let result_length = result.total_chars();
    if result_length > max_length {
        info.kind = TruncationKind::Simple;
    }
    let text = std::mem::replace(&mut result, CappedJoin::new(0)).into_text();
    info.is_truncated = true;
    info.original_length = Some(original_length);
    info.truncated_length = Some(result_length.min(max_length));
    match plan {
        Plan::Plain { head, tail, total } => {
            let tail_len = if tail > 0 {
                total - (total - tail).clamp(0, total)
            } else {
                0
            };
            let kept = head + tail_len;
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
        }
        Plan::Markdown {
            head, tail, total, ..
        } => {
            let kept = head + tail;
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
                "[Smart Truncation Applied - Markdown Structure Preserved]\nTotal: {total} sections (with {heading_count} headings)\nKept: {head} head + 0 middle (sampled) + {tail} tail sections\nOmitted: {} sections",
                total - kept
            );
        }
    }
    Ok((text, info))
}

impl Scan {
    /// The text's length in code points (the head counts every piece).
    fn head_length(&self) -> i64 {
        self.head.total_chars()
    }
}

/// The Markdown strategy's choice, or `None` when its sections leave no room (the plain strategy then).
fn markdown_plan(scan: &mut Scan, max_length: i64) -> Option<Plan> {
    let total = scan.heading_count;
    let headings_length = scan.heading_chars + (total - 1).max(0);
    let preamble_length = joined_length(scan.preamble_chars, scan.preamble_lines);
    let available = max_length - (headings_length + preamble_length + 300);
    if available <= 0 {
        return None;
    }
    // Headings within the limit were all recorded (their total is under `available`).
    let headings = scan.heading_lines.take()?;
    let average = scan.content_length as f64 / total.max(1) as f64;
    let to_keep = units_that_fit(available, average.max(1.0), 3);
    let (mut head, mut tail) = distribution(total, to_keep);
    if total - tail - head <= 0 {
        head = to_keep.div_euclid(2);
        tail = to_keep - head;
    }
    Some(Plan::Markdown {
        head,
        tail,
        total,
        headings,
    })
}

/// The second pass: the parts the plan keeps, joined by `\n`, capped at `max_length`.
fn assemble(pass: &dyn TextPass, plan: &Plan, max_length: i64) -> Result<CappedJoin, PassError> {
    let mut join = CappedJoin::new(max_length);
    let mut split = LineSplit::new();
    let mut started: Option<i64> = None;
    let mut keeping = false;
    // Markdown: the next heading to meet, and the current section (-1: preamble).
    let mut next_heading = 0usize;
    let mut section = -1i64;
    let mut start_line = |join: &mut CappedJoin, line: i64| -> bool {
        match plan {
            Plan::Plain { head, tail, total } => {
                let (head, tail, total) = (*head, *tail, *total);
                let head_len = head.clamp(0, total);
                let tail_start = if tail > 0 {
                    (total - tail).clamp(0, total)
                } else {
                    total
                };
                if line == 0 && head_len > 0 {
                    join.part(&format!("# Head Section (lines 1-{head})"));
                }
                if line == tail_start && tail_start < total {
                    let gap = total - tail - head;
                    if head_len > 0 && gap > 0 {
                        join.part(&format!("\n... [{gap} lines omitted] ..."));
                    }
                    join.part(&format!(
                        "\n# Tail Section (lines {}-{total})",
                        total - tail + 1
                    ));
                }
                line < head_len || line >= tail_start
            }
            Plan::Markdown {
                head,
                tail,
                total,
                headings,
            } => {
                let (head, tail, total) = (*head, *tail, *total);
                if headings.get(next_heading) == Some(&line) {
                    section = next_heading as i64;
                    next_heading += 1;
                    if section == 0 && head > 0 {
                        join.part(&format!("\n# Head Sections (sections 1-{head})"));
                    }
                    if tail > 0 && section == total - tail {
                        let gap = total - tail - head;
                        if head > 0 && gap > 0 {
                            join.part(&format!("\n... [{gap} sections omitted] ..."));
                        }
                        join.part(&format!(
                            "\n# Tail Sections (sections {}-{total})",
                            total - tail + 1
                        ));
                    }
                } else if line == 0 {
                    join.part("# Document Preamble");
                }
                section < 0 || section < head || (tail > 0 && section >= total - tail)
            }
        }
    };
    let mut on = |event: LineEvent<'_>| {
        let line = match event {
            LineEvent::Piece(line, _) | LineEvent::End(line) => line,
        };
        if started != Some(line) {
            started = Some(line);
            keeping = start_line(&mut join, line);
            if keeping {
                join.part("");
            }
        }
        if let (LineEvent::Piece(_, piece), true) = (event, keeping) {
            join.extend(piece);
        }
        Ok(())
    };
    pass.pass(&mut |piece| split.feed(piece, &mut on))?;
    split.finish(&mut on)?;
    Ok(join)
}

#[cfg(test)]
mod tests {
    use super::super::text::text_whole;
    use super::*;

    /// A text handed over in pieces of `step` bytes (cut at char boundaries).
    struct Pieces<'a> {
        text: &'a str,
        step: usize,
    }

    impl TextPass for Pieces<'_> {
        fn pass(
            &self,
            each: &mut dyn FnMut(&str) -> Result<(), PassError>,
        ) -> Result<(), PassError> {
            let mut rest = self.text;
            while !rest.is_empty() {
                let mut end = self.step.min(rest.len());
                while !rest.is_char_boundary(end) {
                    end += 1;
                }
                each(&rest[..end])?;
                rest = &rest[end..];
            }
            Ok(())
        }
    }

    fn same_as_whole(text: &str, max: i64) {
        let whole = text_whole(text, max);
        for step in [1, 3, 7, 64, 1 << 20] {
            let streamed = text_stream(&Pieces { text, step }, max);
            match (&whole, &streamed) {
                (Ok((wt, wi)), Ok((st, si))) => {
                    assert_eq!(wt, st, "text, max {max}, step {step}");
                    assert_eq!(wi, si, "report, max {max}, step {step}");
                }
                (Err(we), Err(PassError::Strategy(se))) => assert_eq!(we, se),
                _ => panic!("whole {whole:?} vs streamed {streamed:?} (max {max}, step {step})"),
            }
        }
    }

    /// A small deterministic generator, so the cases are the same on every run.
    fn lcg(seed: &mut u64) -> u64 {
        *seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        *seed >> 33
    }

    fn random_text(seed: &mut u64, lines: usize) -> String {
        let words = [
            "word",
            "héllo",
            "注释",
            "🦀",
            "",
            " ",
            "#",
            "## Title",
            "#######",
            "#\u{3000}x",
            "# a",
        ];
        let mut out = String::new();
        for _ in 0..lines {
            let n = lcg(seed) % 6;
            for _ in 0..n {
                out.push_str(words[(lcg(seed) % words.len() as u64) as usize]);
                if lcg(seed) % 3 == 0 {
                    out.push(' ');
                }
            }
            out.push('\n');
        }
        if lcg(seed) % 2 == 0 {
            out.pop();
        }
        out
    }

    #[test]
    fn streamed_text_truncation_equals_the_whole_text_strategy() {
        let mut seed = 7;
        for round in 0..300 {
            let text = random_text(&mut seed, 1 + (round * 7) % 400);
            for max in [1, 5, 40, 201, 350, 700, 2000, 100_000] {
                same_as_whole(&text, max);
            }
        }
    }

    #[test]
    fn markdown_and_plain_documents_match_the_whole_text_strategy() {
        let markdown: String = (0..300)
            .map(|i| format!("## Section {i}\n{}\nmore\n", "wörd ".repeat(i % 17)))
            .collect();
        let preamble = format!("intro line\nsecond\n{markdown}");
        let plain: String = (0..5000).map(|i| format!("line {i}\n")).collect();
        for text in [&markdown, &preamble, &plain] {
            for max in [50, 400, 1500, 3000, 20_000, 60_000] {
                same_as_whole(text, max);
            }
        }
    }
}
