//! Tool-pair sanitising (kind `sanitize_tool_pairs`): a tool result survives
//! only when an earlier assistant message called it, a call survives only
//! when some result answers it (its `tool_use` block in list content goes
//! with it), and an assistant message left with neither content nor calls is
//! dropped. Used before summarising and when reloading.

use crate::message::{Content, ContentPart, Message};
use serde_json::Value;
use std::collections::HashSet;

/// Drops orphan tool results and unanswered tool calls, keeping message order (SPEC §8, tool pairs).
///
/// Two passes over the list with hash sets of call ids: O(n) in messages and calls.
pub fn sanitize_tool_pairs(messages: Vec<Message>) -> Vec<Message> {
    let mut called: HashSet<&str> = HashSet::new();
    let mut matched: HashSet<String> = HashSet::new();
    let mut keep_result = vec![false; messages.len()];
    for (i, message) in messages.iter().enumerate() {
        if message.is_assistant() {
            for call in message.tool_calls.iter().flatten() {
                if let Some(id) = call.id().filter(|id| !id.is_empty()) {
                    called.insert(id);
                }
            }
        } else if message.is_tool() {
            if let Some(id) = message
                .tool_call_id
                .as_deref()
                .filter(|id| called.contains(id))
            {
                matched.insert(id.to_string());
                keep_result[i] = true;
            }
        }
    }

    let mut out = Vec::with_capacity(messages.len());
    for (i, mut message) in messages.into_iter().enumerate() {
        if message.is_assistant() && message.tool_calls.as_ref().is_some_and(|c| !c.is_empty()) {
            let calls = message.tool_calls.take().unwrap_or_default();
            let before = calls.len();
            let kept: Vec<_> = calls
                .into_iter()
                .filter(|c| c.id().is_some_and(|id| matched.contains(id)))
                .collect();
            if kept.len() == before {
                message.tool_calls = Some(kept);
                out.push(message);
                continue;
            }
            message.tool_calls = (!kept.is_empty()).then_some(kept);
            if let Some(Content::Parts(parts)) = &mut message.content {
                parts.retain(|part| !is_unmatched_tool_use(part, &matched));
            }
            if message.tool_calls.is_some() || has_content(&message) {
                out.push(message);
            }
        } else if message.is_tool() {
            if keep_result[i] {
                out.push(message);
            }
        } else {
            out.push(message);
        }
    }
    out
}

/// A `{"type": "tool_use"}` block whose `id` answered no call (a block without an id included).
fn is_unmatched_tool_use(part: &ContentPart, matched: &HashSet<String>) -> bool {
    let ContentPart::Other(Value::Object(block)) = part else {
        return false;
    };
    block.get("type").and_then(Value::as_str) == Some("tool_use")
        && !block
            .get("id")
            .and_then(Value::as_str)
            .is_some_and(|id| matched.contains(id))
}

/// Python truthiness of a message's content.
fn has_content(message: &Message) -> bool {
    match &message.content {
        None => false,
        Some(Content::Text(t)) => !t.is_empty(),
        Some(Content::Parts(p)) => !p.is_empty(),
        Some(Content::Other(v)) => crate::pyjson::is_truthy(v),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::message::ToolCall;
    use serde_json::json;

    fn assistant_calling(ids: &[&str], text: &str) -> Message {
        let mut m = Message::assistant(text);
        m.tool_calls = Some(
            ids.iter()
                .map(|id| {
                    serde_json::from_value::<ToolCall>(json!({"id": id, "type": "function", "function": {"name": "f", "arguments": "{}"}}))
                        .expect("valid call")
                })
                .collect(),
        );
        m
    }

    fn result(id: &str) -> Message {
        let mut m = Message::tool("out");
        m.tool_call_id = Some(id.into());
        m
    }

    #[test]
    fn keeps_matched_pairs_untouched() {
        let msgs = vec![
            Message::user("q"),
            assistant_calling(&["a"], ""),
            result("a"),
        ];
        assert_eq!(sanitize_tool_pairs(msgs.clone()), msgs);
    }

    #[test]
    fn drops_orphan_results_and_results_before_their_call() {
        let msgs = vec![
            result("early"),
            assistant_calling(&["early"], "x"),
            result("ghost"),
        ];
        let out = sanitize_tool_pairs(msgs);
        // "early" answered nothing (it came first), so the call is stripped too; the text stays.
        assert_eq!(out.len(), 1);
        assert_eq!(out[0].text(), Some("x"));
        assert!(out[0].tool_calls.is_none());
    }

    #[test]
    fn strips_unanswered_calls_and_drops_empty_assistants() {
        let msgs = vec![
            assistant_calling(&["a", "b"], ""),
            result("a"),
            assistant_calling(&["c"], ""),
        ];
        let out = sanitize_tool_pairs(msgs);
        assert_eq!(out.len(), 2);
        let ids: Vec<_> = out[0]
            .tool_calls
            .iter()
            .flatten()
            .filter_map(|c| c.id())
            .collect();
        assert_eq!(ids, ["a"]);
        assert!(out[1].is_tool());
    }

    /// Regression: list content keeps no `tool_use` block for a call that was dropped.
    #[test]
    fn unmatched_tool_use_blocks_leave_list_content() {
        let mut m = assistant_calling(&["a", "b"], "");
        m.content = Some(
            serde_json::from_value(json!([
                {"type": "text", "text": "calling"},
                {"type": "tool_use", "id": "a", "name": "f", "input": {}},
                {"type": "tool_use", "id": "b", "name": "f", "input": {}},
                {"type": "tool_use", "name": "f", "input": {}}
            ]))
            .expect("parts"),
        );
        let out = sanitize_tool_pairs(vec![m.clone(), result("a")]);
        let content = serde_json::to_value(&out[0].content).expect("serialises");
        assert_eq!(
            content,
            json!([{"type": "text", "text": "calling"}, {"type": "tool_use", "id": "a", "name": "f", "input": {}}])
        );
        // Only a copy is filtered: with every call answered the message stays as it is.
        let whole = sanitize_tool_pairs(vec![m.clone(), result("a"), result("b")]);
        assert_eq!(whole[0], m);
        // A copy left with only tool_use blocks of dropped calls is dropped.
        let mut only_blocks = assistant_calling(&["z"], "");
        only_blocks.content = Some(
            serde_json::from_value(
                json!([{"type": "tool_use", "id": "z", "name": "f", "input": {}}]),
            )
            .expect("parts"),
        );
        assert!(sanitize_tool_pairs(vec![only_blocks]).is_empty());
    }

    #[test]
    fn every_repeat_of_a_matched_result_stays() {
        let msgs = vec![assistant_calling(&["a"], ""), result("a"), result("a")];
        assert_eq!(sanitize_tool_pairs(msgs.clone()), msgs);
    }

    #[test]
    fn calls_without_ids_are_removed() {
        let mut m = Message::assistant("");
        m.tool_calls = Some(vec![serde_json::from_value(
            json!({"name": "f", "args": {}}),
        )
        .expect("flat call")]);
        assert!(sanitize_tool_pairs(vec![m]).is_empty());
    }
}
