//! Reloading a stored conversation from its latest compaction checkpoint:
//! the last completed assistant turn whose stored messages carry the
//! `summary_compacted` marker, plus every turn after it.

use super::is_summary;
use super::sanitize::sanitize_tool_pairs;
use crate::message::Message;
use serde::{Deserialize, Serialize};

/// Who produced a stored turn.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TurnRole {
    /// A user's message.
    User,
    /// The assistant's reply, with the messages its run produced.
    Assistant,
}

/// One stored turn of a conversation, oldest first in a list.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Turn {
    /// Who produced it.
    pub role: TurnRole,
    /// Whether the turn finished (a failed or cancelled reply is never a checkpoint).
    #[serde(default)]
    pub completed: bool,
    /// The messages stored for the turn (for a compacted assistant turn: retained users, summary, reply).
    #[serde(default)]
    pub messages: Vec<Message>,
}

impl Turn {
    /// Whether this turn is a compaction checkpoint.
    pub fn is_checkpoint(&self) -> bool {
        self.role == TurnRole::Assistant && self.completed && self.messages.iter().any(is_summary)
    }
}

/// The turns to reload: from the latest checkpoint on, or all of them without one.
///
/// With `limit`, at most `limit` turns: the checkpoint plus the newest
/// `limit - 1` turns after it (the checkpoint alone for a limit of 0 or 1),
/// or the newest `limit` turns when there is no checkpoint. O(n).
pub fn latest_checkpoint(turns: &[Turn], limit: Option<usize>) -> Vec<&Turn> {
    match turns.iter().rposition(Turn::is_checkpoint) {
        None => {
            let keep = limit.map_or(turns.len(), |l| l.min(turns.len()));
            turns[turns.len() - keep..].iter().collect()
        }
        Some(at) => {
            let after = &turns[at + 1..];
            let keep = limit.map_or(after.len(), |l| l.saturating_sub(1).min(after.len()));
            std::iter::once(&turns[at])
                .chain(&after[after.len() - keep..])
                .collect()
        }
    }
}

/// The model history of [`latest_checkpoint`]: the turns' messages in order, tool pairs sanitised.
pub fn reload_messages(turns: &[Turn], limit: Option<usize>) -> Vec<Message> {
    let messages = latest_checkpoint(turns, limit)
        .into_iter()
        .flat_map(|t| t.messages.iter().cloned())
        .collect();
    sanitize_tool_pairs(messages)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::guard::SUMMARY_FLAG;

    fn user(text: &str) -> Turn {
        Turn {
            role: TurnRole::User,
            completed: true,
            messages: vec![Message::new("user", text)],
        }
    }

    fn reply(text: &str, summary: bool, completed: bool) -> Turn {
        let mut messages = vec![];
        if summary {
            let mut s = Message::new("user", "[COMPACT SUMMARY] ...");
            s.set_kwarg(SUMMARY_FLAG, true.into());
            messages.push(s);
        }
        messages.push(Message::new("assistant", text));
        Turn {
            role: TurnRole::Assistant,
            completed,
            messages,
        }
    }

    fn texts(turns: &[&Turn]) -> Vec<String> {
        turns
            .iter()
            .map(|t| {
                t.messages
                    .last()
                    .map(Message::content_as_text)
                    .unwrap_or_default()
            })
            .collect()
    }

    #[test]
    fn reloads_from_the_last_completed_checkpoint() {
        let turns = vec![
            user("u1"),
            reply("a1", true, true),
            user("u2"),
            reply("a2", true, true),
            user("u3"),
            reply("a3", true, false), // not completed: not a checkpoint
            user("u4"),
        ];
        assert_eq!(
            texts(&latest_checkpoint(&turns, None)),
            ["a2", "u3", "a3", "u4"]
        );
        assert_eq!(
            texts(&latest_checkpoint(&turns, Some(3))),
            ["a2", "a3", "u4"]
        );
        assert_eq!(texts(&latest_checkpoint(&turns, Some(1))), ["a2"]);
        assert_eq!(texts(&latest_checkpoint(&turns, Some(50))).len(), 4);
    }

    #[test]
    fn summaries_are_recognised_by_marker_only() {
        let mut fake = reply("a1", false, true);
        fake.messages
            .insert(0, Message::new("user", "[COMPACT SUMMARY] looks like one"));
        let turns = vec![user("u1"), fake, user("u2")];
        assert_eq!(latest_checkpoint(&turns, None).len(), 3);
        assert_eq!(texts(&latest_checkpoint(&turns, Some(2))), ["a1", "u2"]);
    }

    #[test]
    fn reload_sanitises_tool_pairs() {
        let mut orphan = Message::new("tool", "result");
        orphan.tool_call_id = Some("gone".into());
        let mut checkpoint = reply("a1", true, true);
        checkpoint.messages.insert(1, orphan);
        let messages = reload_messages(&[user("u0"), checkpoint, user("u1")], None);
        let roles: Vec<&str> = messages.iter().map(|m| m.role.as_str()).collect();
        assert_eq!(roles, ["user", "assistant", "user"]);
    }
}
