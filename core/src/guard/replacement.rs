//! The history that replaces a summarised one (kind `summary_replacement`):
//! the system messages, the retained users, and one summary message.

use super::counting::GuardCounter;
use super::markers::{fresh_id, SUMMARY_COMPACT_VERSION, SUMMARY_FLAG, SUMMARY_VERSION_KEY};
use super::retained::recent_user_messages;
use crate::message::{Content, Message};
use crate::protocol::ContextCompaction;
use crate::pyjson;
use crate::tokens::Tokens;
use crate::tool_output::COMPACTED_FLAG;
use serde_json::Value;
use std::collections::HashSet;

/// A completed compaction: what replaced the history.
#[derive(Debug, Clone, PartialEq)]
pub struct Replacement {
    /// The summary body as the summariser returned it, stripped.
    pub summary_text: String,
    /// The `id` given to the summary message.
    pub summary_message_id: String,
    /// Messages trimmed or shed from the summariser's input.
    pub removed_history_items: usize,
    /// The `completed` record, as also sent in [`super::Ready::events`].
    pub record: ContextCompaction,
}
/// First line of every summary message (never used to recognise one: a user may type it).
pub const SUMMARY_PREFIX: &str = "[COMPACT SUMMARY] Another model worked on this task and produced the summary below. Use it to continue the work and avoid repeating completed steps.";

/// A summary and the history it replaces the old one with.
#[derive(Debug, Clone, PartialEq)]
pub struct SummaryReplacement {
    /// The reply's message text, stripped as Python's `str.strip()` strips.
    pub summary_text: String,
    /// Every system message, the retained users, then the summary message (which has no id yet).
    pub messages: Vec<Message>,
}

/// Builds the replacement of the summariser's `working` list from its
/// `reply` (SPEC §8 f–g); `None` (not applicable) when the reply's text is empty.
///
/// System messages come first, in order, wherever they stood; then the
/// retained users of [`recent_user_messages`] under `recent_user_limit`; then
/// the summary message, `additional_kwargs` `{compacted, summary_compacted,
/// summary_compact_version}`.
pub fn summary_replacement(
    working: &[Message],
    reply: &Content,
    recent_user_limit: Tokens,
    counter: &GuardCounter,
) -> Option<SummaryReplacement> {
    let summary_text = pyjson::strip(&reply.message_text()).to_string();
    if summary_text.is_empty() {
        return None;
    }
    let mut messages: Vec<Message> = working.iter().filter(|m| m.is_system()).cloned().collect();
    messages.extend(recent_user_messages(working, recent_user_limit, counter));
    let mut summary = Message::user(format!("{SUMMARY_PREFIX}\n\n{summary_text}"));
    summary.set_kwarg(COMPACTED_FLAG, Value::Bool(true));
    summary.set_kwarg(SUMMARY_FLAG, Value::Bool(true));
    summary.set_kwarg(SUMMARY_VERSION_KEY, Value::from(SUMMARY_COMPACT_VERSION));
    messages.push(summary);
    Some(SummaryReplacement {
        summary_text,
        messages,
    })
}

/// The state after the replacement is applied to `history`, as the reference's
/// message reducer leaves it: each replacement message without an id gets a
/// fresh uuid4; messages whose id the history already held (system messages
/// that had one) keep their place ahead of the new ones.
pub(crate) fn apply_replacement(history: &[Message], replacement: Vec<Message>) -> Vec<Message> {
    let old_ids: HashSet<&str> = history.iter().filter_map(Message::id).collect();
    let (mut kept, mut added): (Vec<Message>, Vec<Message>) = replacement
        .into_iter()
        .map(|mut m| {
            if m.id().is_none_or(str::is_empty) {
                m.set_id(fresh_id());
            }
            m
        })
        .partition(|m| m.id().is_some_and(|id| old_ids.contains(id)));
    kept.append(&mut added);
    kept
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::guard::{is_summary, CHECKPOINT_RETAINED_FLAG};
    use serde_json::json;

    fn counter() -> GuardCounter {
        GuardCounter::for_model("gpt-4o")
    }

    #[test]
    fn systems_first_then_retained_users_then_the_summary() {
        let mut late_rules = Message::system("late rules");
        late_rules.set_id("s2");
        let working = vec![
            Message::user("first"),
            Message::system("rules"),
            Message::assistant("answer"),
            late_rules,
            Message::user("second"),
        ];
        let reply = Content::Text("\u{1c}  the summary\n".into());
        let out = summary_replacement(&working, &reply, 1_000, &counter()).expect("applicable");
        assert_eq!(out.summary_text, "the summary");
        let texts: Vec<String> = out.messages.iter().map(Message::message_text).collect();
        assert_eq!(texts[..4], ["rules", "late rules", "first", "second"]);
        let summary = &out.messages[4];
        assert!(is_summary(summary));
        assert_eq!(texts[4], format!("{SUMMARY_PREFIX}\n\nthe summary"));
        assert_eq!(
            serde_json::to_value(&summary.additional_kwargs).expect("json"),
            json!({"compacted": true, "summary_compacted": true, "summary_compact_version": 1})
        );
        assert_eq!(summary.id(), None, "the guard gives it an id afterwards");
        assert!(out.messages[2..4]
            .iter()
            .all(|m| m.has_flag(CHECKPOINT_RETAINED_FLAG)));
    }

    #[test]
    fn the_reply_text_joins_text_and_thinking_parts() {
        let reply: Content = serde_json::from_value(json!([
            {"type": "thinking", "thinking": "plan. "},
            {"type": "text", "text": "done"},
            {"type": "image_url", "image_url": {"url": "x"}},
            " tail "
        ]))
        .expect("parts");
        let out = summary_replacement(&[], &reply, 10, &counter()).expect("applicable");
        assert_eq!(out.summary_text, "plan. done tail");
        let blank = Content::Text(" \n\t".into());
        assert_eq!(summary_replacement(&[], &blank, 10, &counter()), None);
    }

    /// Reference quirk: the reducer keeps an old id in its place, ahead of the new messages.
    #[test]
    fn applying_keeps_old_ids_first_and_gives_fresh_ones() {
        let mut with_id = Message::system("b");
        with_id.set_id("s1");
        let history = vec![Message::system("a"), with_id.clone()];
        let replacement = vec![Message::system("a"), with_id, Message::user("summary")];
        let applied = apply_replacement(&history, replacement);
        let texts: Vec<String> = applied.iter().map(Message::message_text).collect();
        assert_eq!(texts, ["b", "a", "summary"]);
        assert_eq!(applied[0].id(), Some("s1"));
        assert!(applied[1..]
            .iter()
            .all(|m| m.id().is_some_and(|id| id.len() == 36)));
    }
}
