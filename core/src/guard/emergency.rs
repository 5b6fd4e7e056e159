//! The emergency pass (kind `emergency_pass`): when a history is still over
//! the trigger, the longest tool outputs are re-cut under their emergency
//! policy, longest first (earlier first among equals), stopping as soon as
//! usage is under the trigger; a knowledge-base payload that must not be cut
//! and keeps it over ends the call with the reference's fail-fast error.

use super::counting::{CountedHistory, GuardCounter};
use crate::cut::TruncationPolicy;
use crate::message::{Content, Message};
use crate::tokens::Tokens;
use crate::tool_output::{self, COMPACTED_FLAG};
use crate::Error;
use serde_json::Value;

/// What the emergency pass did.
#[derive(Debug, Clone, PartialEq)]
pub struct EmergencyOutcome {
    /// Indices of the messages re-cut, in the order they were re-cut.
    pub rewritten: Vec<usize>,
    /// The fail-fast error ([`Error::BypassedPayloadTooLarge`]) when usage is
    /// still at or over the trigger and a payload that must not be cut remains.
    pub error: Option<Error>,
}

/// Runs the emergency pass over `history` when its usage is at or over
/// `trigger_limit` (SPEC §8 step 3); `policy_of` gives a message's normal
/// policy, whose emergency variant the re-cut uses.
///
/// Candidates are tool messages with an id that are not bypassed, ordered by
/// content length in code points (non-string content: Python's
/// `len(str(content))`). A re-cut identical to the content is skipped; any
/// other replaces the content and sets `compacted`. Sorting is O(k log k);
/// each re-cut recounts only its message.
pub fn emergency_pass(
    history: &mut CountedHistory,
    trigger_limit: Tokens,
    policy_of: impl Fn(&Message) -> TruncationPolicy,
    counter: &GuardCounter,
) -> EmergencyOutcome {
    let mut rewritten = Vec::new();
    if history.used_tokens() < trigger_limit {
        return EmergencyOutcome {
            rewritten,
            error: None,
        };
    }
    let mut candidates: Vec<(usize, usize)> = history
        .messages()
        .iter()
        .enumerate()
        .filter(|(_, m)| {
            m.is_tool() && m.id().is_some_and(|id| !id.is_empty()) && !tool_output::is_bypassed(m)
        })
        .map(|(i, m)| (i, tool_output::content_str(m).chars().count()))
        .collect();
    candidates.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    for (i, _) in candidates {
        let message = &history.messages()[i];
        let raw = tool_output::extract_raw(message);
        let policy = policy_of(message).emergency();
        let text = tool_output::render_raw(&raw, policy, counter.token_counter());
        if message.text() == Some(text.as_str()) {
            continue;
        }
        let mut recut = message.clone();
        recut.content = Some(Content::Text(text));
        recut.set_kwarg(COMPACTED_FLAG, Value::Bool(true));
        history.replace(i, recut, counter);
        rewritten.push(i);
        if history.used_tokens() < trigger_limit {
            break;
        }
    }
    let used_tokens = history.used_tokens();
    let protected = history.messages().iter().any(tool_output::is_bypassed);
    let error =
        (used_tokens >= trigger_limit && protected).then_some(Error::BypassedPayloadTooLarge {
            used_tokens,
            trigger_limit,
        });
    EmergencyOutcome { rewritten, error }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tool(id: &str, words: usize) -> Message {
        let mut m = Message::tool("word ".repeat(words));
        m.name = Some(id.into());
        m.tool_call_id = Some(id.into());
        m.set_id(id);
        m
    }

    fn counter() -> GuardCounter {
        GuardCounter::for_model("gpt-4o")
    }

    #[test]
    fn longest_first_and_stops_under_the_trigger() {
        let c = counter();
        let msgs = vec![
            Message::user("q"),
            tool("small", 200),
            tool("big", 2000),
            tool("mid", 1000),
        ];
        let mut history = CountedHistory::new(msgs, &c);
        // Re-cutting "big" to 300 tokens alone gets under a trigger of before - 1500.
        let trigger = history.used_tokens() - 1500;
        let out = emergency_pass(
            &mut history,
            trigger,
            |_| TruncationPolicy::tokens(1000),
            &c,
        );
        assert_eq!(
            out,
            EmergencyOutcome {
                rewritten: vec![2],
                error: None
            }
        );
        let big = &history.messages()[2];
        assert!(big.text().is_some_and(
            |t| t.starts_with("[tool_output name=big ") && t.contains(" kept_tokens=300 ")
        ));
        assert!(big.has_flag(COMPACTED_FLAG));
        assert_eq!(history.used_tokens(), c.count(history.messages()));
        assert!(history.used_tokens() < trigger);
        let under = history.clone();
        let again = emergency_pass(
            &mut history,
            trigger,
            |_| TruncationPolicy::tokens(1000),
            &c,
        );
        assert!(
            again.rewritten.is_empty() && history == under,
            "under the trigger it does nothing"
        );
    }

    #[test]
    fn id_less_and_bypassed_messages_are_never_cut_and_identical_recuts_are_skipped() {
        let c = counter();
        let mut id_less = tool("x", 500);
        id_less.extra.remove("id");
        let mut kb = Message::tool(r#"{"mode": "direct_injection", "chunks": ["fact"]}"#);
        kb.name = Some(" knowledge_base_search ".into());
        kb.set_id("kb");
        let short = tool("short", 3);
        let rendered = tool_output::render_raw(
            &tool_output::extract_raw(&short),
            TruncationPolicy::tokens(1000).emergency(),
            c.token_counter(),
        );
        let mut already = short.clone();
        already.content = Some(Content::Text(rendered));
        let mut history =
            CountedHistory::new(vec![id_less.clone(), kb.clone(), already.clone()], &c);
        let out = emergency_pass(&mut history, 0, |_| TruncationPolicy::tokens(1000), &c);
        assert!(out.rewritten.is_empty());
        assert_eq!(history.messages(), [id_less, kb, already]);
        let Some(Error::BypassedPayloadTooLarge {
            used_tokens,
            trigger_limit,
        }) = out.error
        else {
            panic!("a protected payload keeps it over: {:?}", out.error);
        };
        assert_eq!((used_tokens, trigger_limit), (history.used_tokens(), 0));
        assert_eq!(
            Error::BypassedPayloadTooLarge { used_tokens, trigger_limit }.to_string(),
            "Current context still exceeds the safe input budget after compaction, and at least one protected payload cannot be truncated safely. Narrow the request or avoid direct injection for this turn."
        );
    }

    #[test]
    fn re_cuts_recover_the_raw_output_without_nesting() {
        let c = counter();
        let mut grep = tool("grep", 1000);
        grep.set_kwarg("exit_code", Value::from(2));
        let first = tool_output::render_raw(
            &tool_output::extract_raw(&grep),
            TruncationPolicy::tokens(500),
            c.token_counter(),
        );
        grep.content = Some(Content::Text(first));
        let mut history = CountedHistory::new(vec![grep], &c);
        let out = emergency_pass(&mut history, 0, |_| TruncationPolicy::tokens(500), &c);
        assert_eq!(out.rewritten, [0]);
        let text = history.messages()[0].text().unwrap_or_default();
        assert_eq!(
            text.matches("[tool_output ").count(),
            1,
            "headers never nest: {text}"
        );
        assert!(text.starts_with("[tool_output name=grep total_tokens="));
        assert!(
            text.contains(" kept_tokens=150 "),
            "cut again, to 0.3 of 500: {text}"
        );
        assert!(text.ends_with("\n[exit_code=2]"));
    }
}
