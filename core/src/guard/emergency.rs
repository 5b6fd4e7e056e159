//! The emergency pass: when a history is still over the trigger, the largest
//! tool outputs are re-cut under their emergency policy, largest first (oldest
//! first among equals), stopping as soon as the total is under the trigger.

use super::{source_raw, total_tokens};
use crate::message::{Content, Message};
use crate::tokens::TokenCounter;
use crate::tool_output::{self, TruncationPolicy, COMPACTED_FLAG};
use serde_json::Value;

/// Re-cuts tool outputs in place, keeping `counts` (per-message tokens) in step; returns how many changed.
///
/// Sorting the candidates is O(k log k); each re-cut updates the running
/// total by its own delta, so the history is never recounted.
pub(crate) fn emergency_pass(
    messages: &mut [Message],
    counts: &mut [usize],
    trigger_limit: i64,
    emergency_policy: impl Fn(&Message) -> TruncationPolicy,
    counter: &TokenCounter,
) -> usize {
    let mut candidates: Vec<(usize, usize)> = messages
        .iter()
        .enumerate()
        .filter(|(_, m)| m.is_tool() && !tool_output::is_bypassed(m))
        .map(|(i, m)| (i, m.content_as_text().chars().count()))
        .collect();
    candidates.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    let mut total = total_tokens(counts);
    let mut recut = 0;
    for (i, _) in candidates {
        if (total as i64) < trigger_limit {
            break;
        }
        let message = &mut messages[i];
        let text = tool_output::render(&source_raw(message), emergency_policy(message), counter);
        if message.text() == Some(text.as_str()) {
            continue;
        }
        message.content = Some(Content::Text(text));
        message.set_kwarg(COMPACTED_FLAG, Value::Bool(true));
        let new_count = counter.count_message(message);
        total = total - counts[i] + new_count;
        counts[i] = new_count;
        recut += 1;
    }
    recut
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tool(name: &str, words: usize) -> Message {
        let mut m = Message::new("tool", "word ".repeat(words));
        m.name = Some(name.into());
        m.tool_call_id = Some(name.into());
        m
    }

    #[test]
    fn largest_first_and_stops_under_the_trigger() {
        let counter = TokenCounter::for_model("gpt-4o");
        let mut msgs = vec![
            Message::new("user", "q"),
            tool("small", 200),
            tool("big", 2000),
            tool("mid", 1000),
        ];
        let mut counts: Vec<usize> = msgs.iter().map(|m| counter.count_message(m)).collect();
        let before = total_tokens(&counts);
        // Re-cutting "big" to 300 tokens alone gets under a trigger of before - 1500.
        let trigger = (before - 1500) as i64;
        let n = emergency_pass(
            &mut msgs,
            &mut counts,
            trigger,
            |_| TruncationPolicy::tokens(300),
            &counter,
        );
        assert_eq!(n, 1);
        assert!(msgs[2].text().is_some_and(
            |t| t.starts_with("[tool_output name=big ") && t.contains(" kept_tokens=300 ")
        ));
        assert!(msgs[2].has_flag(COMPACTED_FLAG));
        assert!(
            msgs[3]
                .text()
                .is_some_and(|t| !t.starts_with("[tool_output")),
            "mid was not needed"
        );
        let recount: Vec<usize> = msgs.iter().map(|m| counter.count_message(m)).collect();
        assert_eq!(recount, counts, "running counts match a recount");
        assert!((total_tokens(&counts) as i64) < trigger);
    }

    #[test]
    fn re_cuts_rendered_outputs_without_nesting_and_skips_bypassed() {
        let counter = TokenCounter::for_model("gpt-4o");
        let mut kb = Message::new("tool", r#"{"mode": "direct_injection", "chunks": ["x"]}"#);
        kb.name = Some("knowledge_base_search".into());
        let mut rendered = tool("grep", 1000);
        let first = tool_output::render(
            &source_raw(&rendered),
            TruncationPolicy::tokens(500),
            &counter,
        );
        rendered.content = Some(Content::Text(first));
        let mut msgs = vec![kb.clone(), rendered];
        let mut counts: Vec<usize> = msgs.iter().map(|m| counter.count_message(m)).collect();
        let n = emergency_pass(
            &mut msgs,
            &mut counts,
            0,
            |_| TruncationPolicy::tokens(150),
            &counter,
        );
        assert_eq!(n, 1);
        assert_eq!(msgs[0], kb);
        let text = msgs[1].text().unwrap_or_default();
        assert_eq!(
            text.matches("[tool_output ").count(),
            1,
            "headers never nest: {text}"
        );
        assert!(text.starts_with("[tool_output name=grep "));
    }
}
