//! Property tests of core's invariants on generated inputs.

mod oracle;

use ctxguard_core::attachment::{allocate_budget, preview_messages};
use ctxguard_core::budget::{context_limits, ModelConfig};
use ctxguard_core::conformance::evaluate;
use ctxguard_core::cut::{truncate_body, PolicyKind, TruncationPolicy};
use ctxguard_core::protocol::StatusEvent;
use ctxguard_core::tokens::TokenCounter;
use ctxguard_core::tool_output::{render, ToolOutputInput};
use ctxguard_core::Message;
use proptest::prelude::*;

fn text() -> impl Strategy<Value = String> {
    // Mixed scripts, whitespace runs, emoji with joiners: the hard cases for cuts.
    proptest::string::string_regex("([a-z ]{0,12}|[\\n\\t\\r ]{1,4}|[é한ｱß]{1,3}|😀|👍🏽|🇨🇳|\u{200d}|[0-9]{1,5}|[\\[\\]<>|:/]){0,40}")
        .expect("valid strategy")
}

/// Previews a block of `bodies` and checks every body against its encoding:
/// its size is the number of its tokens, and a cut body is the token cut of
/// those tokens (the preview counts bodies without encoding them, then encodes
/// only what a cut keeps).
fn check_preview_against_encoding(bodies: &[String], limit: i64) -> Result<(), TestCaseError> {
    let counter = TokenCounter::for_model("gpt-4o");
    let mut block = String::from("intro\n<attachment>");
    for (i, b) in bodies.iter().enumerate() {
        block.push_str(&format!(
            "[Attachment: f{i}.txt | ID: {} | Type: text/plain | Size: 1 bytes | URL: /x]\n{b}",
            i + 1
        ));
    }
    block.push_str("</attachment> outro");
    let out = preview_messages(&[Message::user(block)], &counter, limit);
    let text = out.messages[0].text().expect("text content");
    prop_assert_eq!(out.segments.len(), bodies.len());
    for (seg, body) in out.segments.iter().zip(bodies) {
        let ids = counter.encode(body);
        prop_assert_eq!(seg.tokens, ids.len() as i64);
        prop_assert_eq!(seg.chars, body.chars().count());
        if seg.truncated && seg.allocation > 0 {
            let cut = oracle::cut_of_ids(body, &ids, seg.allocation, &counter);
            prop_assert!(cut.truncated);
            let expected = format!("]\n{}\n[Preview truncated.", cut.rendered);
            prop_assert!(
                text.contains(&expected),
                "segment {} not cut as its tokens",
                seg.attachment_id
            );
        } else if !seg.truncated && !body.is_empty() {
            let expected = format!("]\n{body}");
            prop_assert!(
                text.contains(&expected),
                "segment {} not whole",
                seg.attachment_id
            );
        }
    }
    Ok(())
}

#[test]
fn preview_of_long_bodies_cuts_their_tokens() {
    let words = "The context window of 上下文 naïve it's 123 tokens 👍🏽 — “quoted” code(x) {}\n";
    let long = |n: usize| words.repeat(n / words.len() + 1);
    let bodies = vec![
        long(60_000),
        "short".to_string(),
        format!("{}{}{}", long(9000), " ".repeat(20_000), long(7000)),
        long(5000),
        String::new(),
        long(200_000),
    ];
    for limit in [1, 50, 3000, 15_000, 200_000] {
        check_preview_against_encoding(&bodies, limit)
            .unwrap_or_else(|e| panic!("limit {limit}: {e}"));
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn preview_cuts_generated_long_bodies_as_their_tokens(parts in proptest::collection::vec(proptest::collection::vec(text(), 1..80), 1..4), limit in 1i64..3000) {
        let bodies: Vec<String> = parts.iter().map(|p| p.concat()).collect();
        check_preview_against_encoding(&bodies, limit)?;
    }

    #[test]
    fn allocations_fit_budget_and_sizes(sizes in proptest::collection::vec(0i64..5000, 0..12), budget in -10i64..20000) {
        let alloc = allocate_budget(&sizes, budget);
        prop_assert_eq!(alloc.len(), sizes.len());
        prop_assert!(alloc.iter().sum::<i64>() <= budget.max(0));
        for (a, s) in alloc.iter().zip(&sizes) {
            prop_assert!(*a >= 0 && a <= s);
        }
    }

    #[test]
    fn token_cut_keeps_at_most_its_allocation(body in text(), limit in 1i64..40) {
        let counter = TokenCounter::for_model("gpt-4o");
        let cut = truncate_body(&body, TruncationPolicy::tokens(limit), &counter);
        if cut.truncated {
            let marker = format!("\u{2026}{} tokens truncated\u{2026}", cut.dropped);
            let kept = cut.rendered.replacen(&format!("{marker}\n"), "", 1).replacen(&format!("\n{marker}\n"), "", 1);
            // Lossy decoding can re-encode a split character to a few more tokens; bound it loosely.
            prop_assert!(counter.count_text(&kept) <= limit + 2 * 3);
            prop_assert_eq!(cut.kept + cut.dropped, cut.total_tokens);
        } else {
            prop_assert_eq!(&cut.rendered, &body);
        }
    }

    #[test]
    fn rendering_never_nests_and_is_a_fixed_point_when_nothing_is_cut(body in text(), limit in 1i64..60, bytes in any::<bool>()) {
        let counter = TokenCounter::for_model("gpt-4");
        let kind = if bytes { PolicyKind::Bytes } else { PolicyKind::Tokens };
        let policy = TruncationPolicy { kind, limit };
        let once = render(&ToolOutputInput::Text(body.clone()), policy, &counter);
        prop_assert!(once.starts_with("[tool_output "));
        let twice = render(&ToolOutputInput::Text(once.clone()), policy, &counter);
        prop_assert_eq!(twice.matches("[tool_output ").count(), once.matches("[tool_output ").count());
        if once.contains("truncated=false]") {
            prop_assert_eq!(twice, once);
        }
    }

    #[test]
    fn preview_never_grows_a_block_past_its_budget_by_more_than_headers(bodies in proptest::collection::vec(text(), 1..4), limit in 1i64..200) {
        let counter = TokenCounter::for_model("gpt-4o");
        let mut block = String::from("<attachment>");
        for (i, b) in bodies.iter().enumerate() {
            block.push_str(&format!("[Attachment: f{i}.txt | ID: {} | Type: text/plain | Size: 1 bytes | URL: /x]\n{b}", i + 1));
        }
        block.push_str("</attachment>");
        let out = preview_messages(&[Message::user(block)], &counter, limit);
        prop_assert_eq!(out.traces.len(), 1);
        for seg in &out.segments {
            prop_assert!(seg.allocation <= limit);
            prop_assert_eq!(seg.truncated, seg.tokens > seg.allocation);
        }
    }

    #[test]
    fn limits_are_ordered(window in -100i64..3_000_000, out in proptest::option::of(-10i64..200_000), auto in proptest::option::of(-100i64..3_000_000)) {
        let cfg = ModelConfig { context_window: Some(window), max_output_tokens: out };
        let l = context_limits("m", Some(&cfg), auto);
        prop_assert!(l.available_tokens >= 0);
        prop_assert!(l.trigger_limit <= l.available_tokens.max(0));
        if auto.is_some() { prop_assert!(l.target_limit <= l.trigger_limit.max(0)); }
    }

    #[test]
    fn no_input_panics(json in "\\PC{0,200}", kind in prop::sample::select(ctxguard_core::conformance::kinds().collect::<Vec<_>>())) {
        // Arbitrary text as a status event, and arbitrary fields for every case kind.
        let _ = StatusEvent::parse(&json);
        let value: serde_json::Value = serde_json::from_str(&json).unwrap_or(serde_json::Value::String(json.clone()));
        let case = serde_json::json!({"kind": kind, "model": "gpt-4o", "text": value, "messages": value, "raw": value,
            "policy": value, "sizes": value, "budget": value, "doc": value, "args": value, "mime": value,
            "previous": value, "current": value, "phase": value, "limit": value, "attachments": value,
            "inject_max_chars": value, "inline_attachment_content": value, "expected": {}});
        let _ = evaluate(&case);
    }
}

#[test]
fn generated_messages_of_every_shape_count_without_panicking() {
    let counter = TokenCounter::for_model("gpt-4o");
    let raw = serde_json::json!([
        {"role": "assistant", "content": null, "tool_calls": [{"id": "1", "type": "function", "function": {"name": "f", "arguments": {"a": [1, 2.5, null]}}}, {"name": "g", "args": {}}, 7]},
        {"role": "user", "content": [{"type": "text", "text": "hi"}, {"type": "image_url", "image_url": {"url": "x"}}, "bare", {"type": "video"}, 3]},
        {"content": 5}
    ]);
    let msgs = ctxguard_core::message::parse_messages(&raw).expect("accepted");
    assert!(counter.count_messages(&msgs) > 3);
}
