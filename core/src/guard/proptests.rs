//! Property tests of the guard: the summariser's first input fits the
//! target, the retained users fit their limit (up to the reference's
//! whole-text allowance; exactly under strict counting), the current user
//! message always survives, and tool pairs stay matched.

use super::*;
use crate::message::ToolCall;
use crate::tokens::Tokens;
use proptest::prelude::*;
use serde_json::json;

/// One generated message: (kind, words, call id).
type Spec = (u8, usize, u8);

fn build(systems: usize, body: &[Spec], current_words: usize) -> Vec<Message> {
    let words = |n: usize, w: &str| format!("{w} ").repeat(n);
    let mut msgs: Vec<Message> = (0..systems)
        .map(|i| Message::system(words(5 + i, "rule")))
        .collect();
    for &(kind, n, id) in body {
        let id = format!("c{id}");
        msgs.push(match kind {
            0 => Message::user(words(n, "ask")),
            1 => Message::assistant(words(n, "answer")),
            2 => {
                let mut m = Message::assistant(if n % 3 == 0 { String::new() } else { words(n, "thinking") });
                let call = json!({"id": id, "type": "function", "function": {"name": "grep", "arguments": "{}"}});
                m.tool_calls = Some(vec![serde_json::from_value::<ToolCall>(call).expect("valid call")]);
                m
            }
            3 => {
                let mut m = Message::tool(words(n * 4, "output"));
                m.tool_call_id = Some(id);
                m.name = Some("grep".into());
                m
            }
            _ => Message::system(words(n, "note")),
        });
    }
    msgs.push(Message::user(format!(
        "current {}",
        words(current_words, "question")
    )));
    msgs
}

fn history() -> impl Strategy<Value = Vec<Message>> {
    (
        0usize..3,
        proptest::collection::vec((0u8..5, 0usize..120, 0u8..6), 0..40),
        0usize..400,
    )
        .prop_map(|(s, body, current)| build(s, &body, current))
}

/// Every tool result follows a call with its id; every call has a result with its id.
fn pairs_matched(msgs: &[Message]) -> bool {
    let mut called = std::collections::HashSet::new();
    let mut results = std::collections::HashSet::new();
    for m in msgs {
        if m.is_tool() {
            match m.tool_call_id.as_deref() {
                Some(id) if called.contains(id) => {
                    results.insert(id.to_string());
                }
                _ => return false,
            }
        }
        for call in m.tool_calls.iter().flatten() {
            if let Some(id) = call.id() {
                called.insert(id.to_string());
            }
        }
    }
    msgs.iter()
        .flat_map(|m| m.tool_calls.iter().flatten())
        .all(|c| c.id().is_some_and(|id| results.contains(id)))
}

fn limits(target: Tokens) -> ContextLimits {
    ContextLimits {
        context_window: 100_000,
        reserved_output_tokens: 16_000,
        available_tokens: 84_000,
        trigger_limit: 1,
        target_limit: target,
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn sanitised_pairs_are_matched_and_stable(msgs in history()) {
        let once = sanitize_tool_pairs(msgs);
        prop_assert!(pairs_matched(&once));
        prop_assert_eq!(sanitize_tool_pairs(once.clone()), once);
    }

    #[test]
    fn compaction_invariants(msgs in history(), target in 60i64..4000, fail_first in any::<bool>(), strict in any::<bool>()) {
        let config = GuardConfig { strict_counting: strict, ..GuardConfig::default() };
        let guard = Guard::with_config(TokenCounter::for_model("gpt-4o"), config);
        let counter = *guard.guard_counter();
        let current = msgs[msgs.len() - 1].clone();
        let decision = guard.before_model_call(msgs, &limits(target), 0).expect("no bypassed payloads");
        let mut request = match decision {
            Decision::NeedSummary(r) => r,
            Decision::Proceed(ready) => {
                // Only when the floor (systems + current user + instruction) is over the target.
                let statuses: Vec<_> = ready.events.iter().map(|e| e.compaction.status).collect();
                prop_assert_eq!(statuses, vec![crate::protocol::CompactionStatus::Started, crate::protocol::CompactionStatus::Fallback]);
                prop_assert!(ready.messages.contains(&current));
                return Ok(());
            }
        };
        prop_assert!(request.input_tokens() <= target);
        if fail_first {
            request = match request.on_error(&SummaryError::new("context_length_exceeded"), 1).expect("runs") {
                AfterError::Retry(r) => r,
                AfterError::Fallback(ready) => {
                    prop_assert!(ready.messages.contains(&current));
                    return Ok(());
                }
            };
        }
        let sent = request.messages();
        prop_assert_eq!(&sent[sent.len() - 2], &current, "the current user message is sent");
        prop_assert!(pairs_matched(sent));

        let ready = request.on_summary("a short summary of the work", 2).expect("no bypassed payloads");
        let summary = ready.messages.last().expect("summary message");
        prop_assert!(is_summary(summary));
        prop_assert!(pairs_matched(&ready.messages));
        let retained: Vec<&Message> = ready.messages.iter().filter(|m| m.has_flag(CHECKPOINT_RETAINED_FLAG)).collect();
        let limit = DEFAULT_RECENT_USER_TOKEN_LIMIT.min(((target as f64 * 0.5) as Tokens).max(1));
        if strict {
            let spent: Tokens = retained.iter().map(|m| counter.cost(m)).sum();
            prop_assert!(spent <= limit, "{} > {}", spent, limit);
        } else {
            // Each costs count_messages([m]); the last may keep a whole text that fits, overhead aside.
            let spent: Tokens = retained.iter().map(|m| counter.count(std::slice::from_ref(*m))).sum();
            prop_assert!(spent <= limit + 8, "{} > {} + 8", spent, limit);
        }
        let kept = retained.last().expect("the current user message is retained");
        let kept_text = kept.text().unwrap_or_default();
        prop_assert!(!kept_text.is_empty() && current.text().unwrap_or_default().starts_with(kept_text));
    }
}
