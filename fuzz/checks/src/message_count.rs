//! Message JSON → count: `message::parse_messages`, then
//! `TokenCounter::count_messages`. Input: a JSON array of chat messages.
//!
//! Properties: no input panics; the count of a list is 3 plus its messages'
//! counts; messages survive serialisation (same messages, same count); and
//! the count equals the reference's `_count_tokens_for_messages` (SPEC §1),
//! transcribed here over the raw JSON with tiktoken-rs counting, wherever the
//! reference would not raise.

use crate::input;
use crate::oracle::{self, tiktoken_count};
use ctxguard_core::encoding::Encoding;
use ctxguard_core::message::parse_messages;
use ctxguard_core::pyjson;
use serde_json::Value;

/// Runs one input.
pub fn check(data: &[u8]) {
    let Some(value) = input::text(data).and_then(|t| serde_json::from_str::<Value>(t).ok()) else {
        return;
    };
    let Ok(messages) = parse_messages(&value) else {
        return;
    };
    let again = serde_json::to_value(&messages).expect("messages serialise");
    let reparsed = parse_messages(&again)
        .unwrap_or_else(|e| panic!("serialised messages {again} do not parse: {e}"));
    assert_eq!(reparsed, messages, "messages change through {again}");
    let items = value.as_array().expect("parse_messages accepts arrays only");
    for (encoding, bpe) in oracle::encodings()
        .into_iter()
        .filter(|(e, _)| matches!(e, Encoding::O200kBase | Encoding::Cl100kBase))
    {
        let counter = oracle::counter(encoding);
        let total = counter.count_messages(&messages);
        let sum: i64 = messages.iter().map(|m| counter.count_message(m)).sum();
        assert_eq!(total, sum + 3, "{encoding:?}: the list is not its messages + 3");
        assert_eq!(
            counter.count_messages(&reparsed),
            total,
            "{encoding:?}: the count changes through serialisation"
        );
        if let Some(expected) = reference_count(items, &|s| tiktoken_count(bpe, s)) {
            assert_eq!(
                total, expected as i64,
                "{encoding:?}: core counts {total}, the reference {expected}"
            );
        }
    }
}

/// The reference's count of `messages`, `None` where the reference raises
/// (a non-string where it encodes text, `.get` on a non-dict).
fn reference_count(messages: &[Value], tok: &dyn Fn(&str) -> usize) -> Option<usize> {
    let mut total = 0;
    for message in messages {
        let message = message.as_object()?;
        total += 4;
        total += text_if_truthy(message.get("role"), tok)?;
        match message.get("content") {
            Some(Value::String(s)) => total += tok(s),
            Some(Value::Array(items)) => {
                for item in items {
                    total += match item {
                        Value::Object(part) => match part.get("type").and_then(Value::as_str) {
                            Some("text") => match part.get("text") {
                                None => 0,
                                Some(Value::String(s)) => tok(s),
                                Some(_) => return None,
                            },
                            Some("image_url") => 170,
                            Some("input_video" | "video_url" | "video") => 3600,
                            _ => 0,
                        },
                        Value::String(s) => tok(s),
                        _ => 0,
                    };
                }
            }
            _ => {}
        }
        match message.get("name") {
            Some(Value::String(s)) if !s.is_empty() => total += tok(s) + 1,
            Some(v) if pyjson::is_truthy(v) => return None,
            _ => {}
        }
        match message.get("tool_calls") {
            Some(calls) if pyjson::is_truthy(calls) => {
                for call in calls.as_array()? {
                    let call = call.as_object()?;
                    let function = match call.get("function") {
                        None => continue,
                        Some(f) => f.as_object()?,
                    };
                    total += text_if_truthy(function.get("name"), tok)?;
                    total += match function.get("arguments") {
                        Some(Value::String(s)) => tok(s),
                        Some(v) if pyjson::is_truthy(v) => tok(&pyjson::dumps(v)),
                        _ => 0,
                    };
                }
            }
            _ => {}
        }
    }
    Some(total + 3)
}

/// `if x: total += len(encode(x))`: tokens of a truthy string, 0 for a falsy
/// value, `None` (the reference raises) for a truthy non-string.
fn text_if_truthy(value: Option<&Value>, tok: &dyn Fn(&str) -> usize) -> Option<usize> {
    match value {
        Some(Value::String(s)) => Some(tok(s)),
        Some(v) if pyjson::is_truthy(v) => None,
        _ => Some(0),
    }
}
