//! Fixtures of the guard's unit tests: limits, a clock, message builders and
//! the two ways a guard run can go.

use super::*;
use crate::message::ToolCall;
use crate::tokens::Tokens;
use serde_json::json;

pub(super) const T0: i64 = 1_782_226_534_512_345; // 2026-06-23T14:55:34.512345+00:00

pub(super) fn limits(trigger: Tokens, target: Tokens) -> ContextLimits {
    ContextLimits {
        context_window: 100_000,
        reserved_output_tokens: 16_000,
        available_tokens: 84_000,
        trigger_limit: trigger,
        target_limit: target,
    }
}

pub(super) fn guard() -> Guard {
    Guard::for_model("gpt-4o")
}

pub(super) fn text_of(m: &Message) -> &str {
    m.text().unwrap_or_default()
}

/// A tool result with an id of its own (the source pass only rewrites messages it can upsert).
pub(super) fn tool_result(id: &str, name: &str, body: &str) -> Message {
    let mut m = Message::tool(body);
    m.tool_call_id = Some(id.into());
    m.name = Some(name.into());
    m.set_id(format!("result-{id}"));
    m
}

pub(super) fn is_uuid4(id: &str) -> bool {
    id.len() == 36 && id.as_bytes()[14] == b'4' && id.chars().filter(|c| *c == '-').count() == 4
}

pub(super) fn calling(id: &str, name: &str) -> Message {
    let mut m = Message::assistant("");
    m.tool_calls = Some(vec![serde_json::from_value::<ToolCall>(
        json!({"id": id, "type": "function", "function": {"name": name, "arguments": "{}"}}),
    )
    .expect("valid call")]);
    m
}

pub(super) fn kb_payload(words: usize) -> Message {
    let body = json!({"mode": "direct_injection", "chunks": ["fact ".repeat(words)]}).to_string();
    tool_result("kb", "knowledge_base_search", &body)
}

pub(super) fn spec_history() -> Vec<Message> {
    vec![
        Message::system("You are helpful."),
        Message::user("old question"),
        Message::assistant("old answer"),
        Message::user("latest question"),
    ]
}

pub(super) fn need_summary(history: Vec<Message>, l: &ContextLimits) -> SummaryRequest {
    match guard()
        .before_model_call(history, l, T0)
        .expect("guard runs")
    {
        Decision::NeedSummary(r) => r,
        Decision::Proceed(r) => panic!("expected a summary request, got {:?}", r.events),
    }
}

pub(super) fn proceed(decision: Result<Decision>) -> Ready {
    match decision.expect("guard runs") {
        Decision::Proceed(r) => r,
        Decision::NeedSummary(_) => panic!("expected to proceed"),
    }
}
