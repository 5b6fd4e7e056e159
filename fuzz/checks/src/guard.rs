//! The guard (`guard::Guard`, SPEC §8) over any history, driven to the end
//! as a host drives it. Input: JSON `{"history": [messages], "limit"?,
//! "model"?, "replies"?}`: `limit` is the `auto_compact_token_limit` (the
//! trigger; default 300), and each summary request takes the next reply: a
//! string is the summariser's text, `{"error", "status"?}` a failed call,
//! `{"fall_back": reason}` the host giving up; past the last reply the
//! summary is `"summary"`.
//!
//! Properties: no history panics (errors, such as a protected payload over
//! the limit, are answers); the current user message (the last user message
//! that is not a summary) survives every path: as it was, or, when a
//! replacement keeps it over the recent-user limit, as its text's first
//! tokens; and a history whose tool calls and results are matched comes out
//! matched.

use crate::input;
use ctxguard_core::budget::context_limits;
use ctxguard_core::guard::{
    current_user_index, sanitize_tool_pairs, AfterError, Decision, Guard, Ready, SummaryError,
};
use ctxguard_core::message::parse_messages;
use ctxguard_core::{Content, ContentPart, Message};
use serde_json::Value;

/// Most summary requests one input answers (the guard retries at most 3 times).
const MAX_ROUNDS: usize = 8;

/// Runs one input.
pub fn check(data: &[u8]) {
    let Some(value) = input::text(data).and_then(|t| serde_json::from_str::<Value>(t).ok()) else {
        return;
    };
    let Some(Ok(history)) = value.get("history").map(parse_messages) else {
        return;
    };
    let model = value.get("model").and_then(Value::as_str).unwrap_or("gpt-4o");
    let limit = value.get("limit").and_then(Value::as_i64).unwrap_or(300);
    let replies: Vec<Value> = value
        .get("replies")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let limits = context_limits(model, None, Some(limit));
    let guard = Guard::for_model(model);
    let now = 1_782_226_534_512_345;

    let current = current_user_index(&history).map(|i| history[i].clone());
    let matched = sanitize_tool_pairs(history.clone()) == history;
    let Ok(decision) = guard.before_model_call(history, &limits, now) else {
        return;
    };
    let ready = match decision {
        Decision::Proceed(ready) => ready,
        Decision::NeedSummary(mut request) => {
            let mut replies = replies.iter();
            let mut rounds = 0;
            loop {
                rounds += 1;
                assert!(rounds <= MAX_ROUNDS, "the guard asked for more than {MAX_ROUNDS} summaries");
                let at = now + rounds as i64 * 1_000_000;
                let answer = match replies.next() {
                    Some(Value::Object(o)) if o.contains_key("fall_back") => {
                        let reason = o.get("fall_back").and_then(Value::as_str).unwrap_or_default();
                        request.fall_back(reason, at)
                    }
                    Some(Value::Object(o)) => {
                        let mut error = SummaryError::new(o.get("error").and_then(Value::as_str).unwrap_or_default());
                        if let Some(status) = o.get("status").and_then(Value::as_u64).and_then(|s| u16::try_from(s).ok()) {
                            error = error.with_status(status);
                        }
                        match request.on_error(&error, at) {
                            Ok(AfterError::Retry(next)) => {
                                request = next;
                                continue;
                            }
                            Ok(AfterError::Fallback(ready)) => Ok(ready),
                            Err(e) => Err(e),
                        }
                    }
                    Some(Value::String(text)) => request.on_summary(text, at),
                    _ => request.on_summary("summary", at),
                };
                match answer {
                    Ok(ready) => break ready,
                    Err(_) => return,
                }
            }
        }
    };
    check_ready(&ready, current.as_ref(), matched);
}

fn check_ready(ready: &Ready, current: Option<&Message>, matched: bool) {
    if let Some(current) = current {
        let want = text(current);
        let survives = ready.messages.iter().filter(|m| m.is_user()).any(|m| {
            m.content == current.content || {
                let kept = text(m);
                let kept = kept.strip_suffix('\u{fffd}').unwrap_or(&kept);
                m.has_flag("checkpoint_retained") && want.starts_with(kept)
            }
        });
        assert!(survives, "the current user message {want:?} is gone");
    }
    if matched {
        assert_eq!(
            sanitize_tool_pairs(ready.messages.clone()),
            ready.messages,
            "the guard unmatched a tool pair"
        );
    }
}

/// A message's text (SPEC §8): a string as is; a list, its bare strings and
/// each object part's `text` (else its non-empty `thinking`), joined.
fn text(m: &Message) -> String {
    match &m.content {
        Some(Content::Text(t)) => t.clone(),
        Some(Content::Parts(parts)) => parts
            .iter()
            .map(|p| match p {
                ContentPart::Text { text, .. } | ContentPart::Bare(text) => text.clone(),
                ContentPart::Image(o) | ContentPart::Video(o) => field(o),
                ContentPart::Other(Value::Object(o)) => field(o),
                ContentPart::Other(_) => String::new(),
            })
            .collect(),
        _ => String::new(),
    }
}

/// `part.get("text") or part.get("thinking")`: the text unless it is empty.
fn field(o: &serde_json::Map<String, Value>) -> String {
    let get = |key: &str| o.get(key).and_then(Value::as_str).filter(|t| !t.is_empty());
    get("text").or_else(|| get("thinking")).unwrap_or_default().to_string()
}
