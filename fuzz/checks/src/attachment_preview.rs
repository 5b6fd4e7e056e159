//! The attachment preview pass: `attachment::preview_messages` (SPEC §6).
//! Input: a first line holding the per-block limit in tokens (any other first
//! line: a limit from 1 to 64 taken from its length), then the message text.
//! The text runs as a string content and as a one-part list, under o200k.
//!
//! Properties: no input panics; both content shapes give the same text and
//! reports; text outside the blocks is untouched and the output holds as many
//! complete `<attachment>` blocks as the input; segments are those of the
//! reference's header pattern (the regex crate as the oracle), each
//! allocation is at most the limit, all of a block's at most its body budget,
//! and a body is cut exactly when it has more tokens than its allocation; a
//! block where nothing is cut is unchanged but for what SPEC §6 always adds
//! (the id line, the `Chars/Tokens/Truncated` note of each non-empty
//! segment), and a header-less block within the limit is unchanged.

use crate::input;
use crate::oracle;
use ctxguard_core::attachment::{find_blocks, has_block_marker, preview_messages, SegmentReport};
use ctxguard_core::encoding::Encoding;
use ctxguard_core::tokens::TokenCounter;
use ctxguard_core::{Content, ContentPart, Message};
use regex::Regex;
use std::sync::LazyLock;

/// The reference's segment pattern.
static HEADER: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\[(?:Image )?Attachment: [^\n]*? \| ID: (\d+) \|")
        .expect("the reference's header pattern compiles")
});

/// Runs one input.
pub fn check(data: &[u8]) {
    let Some(all) = input::text(data) else {
        return;
    };
    let (params, text) = input::params_and_text(all);
    let limit = input::ints(params)
        .next()
        .flatten()
        .unwrap_or(1 + params.len() as i64 % 64);
    let counter = oracle::counter(Encoding::O200kBase);

    let out = preview_messages(&[Message::user(text)], &counter, limit);
    let new = out.messages[0]
        .text()
        .expect("string content stays a string");
    let as_part = Message {
        role: "user".into(),
        content: Some(Content::Parts(vec![ContentPart::text(text)])),
        ..Message::default()
    };
    let part_out = preview_messages(&[as_part], &counter, limit);
    match &part_out.messages[0].content {
        Some(Content::Parts(parts)) => match parts.as_slice() {
            [ContentPart::Text { text: part, .. }] => {
                assert_eq!(part, new, "a text part and a string are previewed differently");
            }
            other => panic!("a one-part list became {other:?}"),
        },
        other => panic!("a part list became {other:?}"),
    }
    assert_eq!(part_out.segments, out.segments);
    assert_eq!(part_out.traces, out.traces);

    if limit <= 0 || !has_block_marker(text) {
        assert_eq!(new, text, "the pass changed text it must leave alone");
        assert!(out.segments.is_empty());
        assert!(out.traces.is_empty());
        return;
    }
    assert_eq!(out.traces.len(), 1, "one trace per pass that saw a block");

    let before: Vec<_> = find_blocks(text).collect();
    let after: Vec<_> = find_blocks(new).collect();
    assert_eq!(before.len(), after.len(), "the number of blocks changed");
    let gaps = |t: &str, spans: &[ctxguard_core::attachment::BlockSpan]| -> Vec<String> {
        let mut from = 0;
        let mut gaps = Vec::new();
        for s in spans {
            gaps.push(t[from..s.outer.start].to_string());
            from = s.outer.end;
        }
        gaps.push(t[from..].to_string());
        gaps
    };
    assert_eq!(
        gaps(text, &before),
        gaps(new, &after),
        "text outside the blocks changed"
    );

    let mut reports = out.segments.iter();
    let mut any_cut = false;
    for (b, a) in before.iter().zip(&after) {
        let body = &text[b.body.clone()];
        let body_out = &new[a.body.clone()];
        let headers: Vec<(usize, &str)> = HEADER
            .captures_iter(body)
            .map(|c| {
                let m = c.get(0).expect("group 0 is the match");
                (m.start(), c.get(1).expect("the id group").as_str())
            })
            .collect();
        if headers.is_empty() {
            let report = reports.next().expect("a report per header-less block");
            let tokens = counter.count_text(body);
            assert_eq!(report.attachment_id, "");
            assert_eq!(report.tokens, tokens);
            assert_eq!(report.allocation, limit);
            assert_eq!(report.truncated, tokens > limit);
            any_cut |= report.truncated;
            if !report.truncated {
                assert_eq!(body_out, body, "a header-less block within the limit changed");
            }
            continue;
        }
        let block_reports: Vec<&SegmentReport> = reports.by_ref().take(headers.len()).collect();
        assert_eq!(block_reports.len(), headers.len(), "a report per segment");
        any_cut |= check_segments(body, body_out, &headers, &block_reports, limit, &counter);
    }
    assert!(reports.next().is_none(), "more reports than segments");
    let status = out.traces[0].attributes.get("status").and_then(|s| s.as_str());
    assert_eq!(status, Some(if any_cut { "applied" } else { "noop" }));
}

/// Checks one block with headers; returns whether some segment was cut.
fn check_segments(
    body: &str,
    body_out: &str,
    headers: &[(usize, &str)],
    reports: &[&SegmentReport],
    limit: i64,
    counter: &TokenCounter,
) -> bool {
    let preamble = &body[..headers[0].0];
    let id_line = if headers.len() > 1 {
        let ids: Vec<&str> = headers.iter().map(|h| h.1).collect();
        format!("[Attachment IDs in this message: {}]\n", ids.join(", "))
    } else {
        String::new()
    };
    let mut reserved = counter.count_text(preamble) + counter.count_text(&id_line);
    let mut expected = format!("{preamble}{id_line}");
    let mut allocated = 0;
    let mut any_cut = false;
    for (i, (&(start, id), report)) in headers.iter().zip(reports).enumerate() {
        let end = headers.get(i + 1).map_or(body.len(), |h| h.0);
        let (header, seg_body) = body[start..end].split_once('\n').unwrap_or((&body[start..end], ""));
        reserved += counter.count_text(header);
        let tokens = counter.count_text(seg_body);
        assert_eq!(report.attachment_id, id);
        assert_eq!(report.chars, seg_body.chars().count());
        assert_eq!(report.tokens, tokens);
        assert!(
            (0..=limit).contains(&report.allocation),
            "allocation {} outside 0..={limit}",
            report.allocation
        );
        assert_eq!(report.truncated, tokens > report.allocation);
        allocated += report.allocation;
        any_cut |= report.truncated;
        if seg_body.is_empty() {
            expected.push_str(header);
        } else {
            let note = format!(" | Chars: {} | Tokens: {tokens} | Truncated: no", report.chars);
            match header.rfind(']') {
                Some(pos) => expected.push_str(&format!("{}{note}{}", &header[..pos], &header[pos..])),
                None => expected.push_str(&format!("{header}{note}")),
            }
            expected.push('\n');
            expected.push_str(seg_body);
        }
    }
    let budget = (limit - reserved as i64).max(0);
    assert!(allocated <= budget, "allocations {allocated} over the body budget {budget}");
    if !any_cut {
        assert_eq!(body_out, expected, "a block where nothing is cut changed");
    }
    any_cut
}
