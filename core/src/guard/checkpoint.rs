//! Reloading a stored conversation (kind `checkpoint_reload`): which stored
//! turns a history reload returns, from the latest compaction checkpoint on,
//! as the reference's backend resolves them, and the messages they hold.

use super::sanitize::sanitize_tool_pairs;
use crate::message::{parse_messages, Content, Message};
use crate::pyjson::is_truthy;
use crate::Result;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Who produced a stored turn (`USER` or `ASSISTANT`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "UPPERCASE")]
pub enum TurnRole {
    /// A user's message.
    User,
    /// The assistant's reply, with the messages its run produced.
    Assistant,
}

/// The status of a stored turn, as the backend records its subtasks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum TurnStatus {
    /// Not started.
    Pending,
    /// In progress.
    Running,
    /// Finished.
    Completed,
    /// Ended with an error.
    Failed,
    /// Stopped by the user.
    Cancelled,
    /// Deleted.
    Delete,
    /// A pipeline stage waiting for the user's confirmation.
    PendingConfirmation,
}

/// The statuses the HTTP history endpoint reloads (the default).
pub const HTTP_HISTORY_STATUSES: &[TurnStatus] = &[
    TurnStatus::Completed,
    TurnStatus::Cancelled,
    TurnStatus::Failed,
];

/// The statuses the package-mode loader reloads.
pub const PACKAGE_STATUSES: &[TurnStatus] = &[TurnStatus::Completed, TurnStatus::Failed];

/// One stored turn of a conversation, oldest first in a list.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Turn {
    /// Who produced it.
    pub role: TurnRole,
    /// Its status.
    pub status: TurnStatus,
    /// What an assistant turn stored: `null`, or an object with `value` (the
    /// reply text) and `messages_chain` (the messages of its run).
    #[serde(default)]
    pub result: Option<Value>,
    /// What a user turn said.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompt: Option<String>,
}

impl Turn {
    /// Whether this turn is a compaction checkpoint: a completed assistant
    /// turn whose `result.messages_chain` holds a message marked
    /// `additional_kwargs.summary_compacted` exactly `true`.
    pub fn is_checkpoint(&self) -> bool {
        self.role == TurnRole::Assistant
            && self.status == TurnStatus::Completed
            && self
                .result
                .as_ref()
                .and_then(|r| r.get("messages_chain"))
                .and_then(Value::as_array)
                .is_some_and(|chain| chain.iter().any(carries_summary_marker))
    }

    /// The messages the history loader makes of this turn: the user's prompt;
    /// an assistant's `messages_chain`, or else its `value` as one reply (a
    /// failed turn only ever gives its `value`).
    pub fn messages(&self) -> Result<Vec<Message>> {
        match self.role {
            TurnRole::User => Ok(vec![Message::user(self.prompt.clone().unwrap_or_default())]),
            TurnRole::Assistant => {
                let Some(result) = self.result.as_ref().and_then(Value::as_object) else {
                    return Ok(Vec::new());
                };
                let chain = result
                    .get("messages_chain")
                    .filter(|c| c.as_array().is_some_and(|c| !c.is_empty()));
                match chain {
                    Some(chain) if self.status != TurnStatus::Failed => parse_messages(chain),
                    _ => Ok(result
                        .get("value")
                        .filter(|v| is_truthy(v))
                        .map(|v| reply(v.clone()))
                        .into_iter()
                        .collect()),
                }
            }
        }
    }
}

fn carries_summary_marker(message: &Value) -> bool {
    message
        .get("additional_kwargs")
        .and_then(Value::as_object)
        .and_then(|k| k.get("summary_compacted"))
        == Some(&Value::Bool(true))
}

fn reply(value: Value) -> Message {
    Message {
        role: "assistant".into(),
        content: serde_json::from_value::<Content>(value).ok(),
        ..Message::default()
    }
}

/// The indices of the turns a reload returns, in order (SPEC §8, reload).
///
/// Keeps the turns whose status is in `statuses` (`None` or empty: the HTTP
/// history's [`HTTP_HISTORY_STATUSES`]); with `from_latest_compaction`, starts
/// at the last checkpoint among them (none: nothing is cut). Then `limit`:
/// `None`, 0 or negative is no limit; from a checkpoint, the checkpoint plus
/// the newest `limit − 1` turns after it; otherwise the newest `limit`. O(n).
pub fn checkpoint_reload(
    turns: &[Turn],
    limit: Option<i64>,
    from_latest_compaction: bool,
    statuses: Option<&[TurnStatus]>,
) -> Vec<usize> {
    let statuses = statuses
        .filter(|s| !s.is_empty())
        .unwrap_or(HTTP_HISTORY_STATUSES);
    let mut kept: Vec<usize> = (0..turns.len())
        .filter(|&i| statuses.contains(&turns[i].status))
        .collect();
    let mut from_checkpoint = false;
    if from_latest_compaction {
        if let Some(at) = kept.iter().rposition(|&i| turns[i].is_checkpoint()) {
            kept.drain(..at);
            from_checkpoint = true;
        }
    }
    let Some(limit) = limit.filter(|l| *l > 0) else {
        return kept;
    };
    let limit = usize::try_from(limit).unwrap_or(usize::MAX);
    if from_checkpoint {
        let after = kept.len() - 1;
        let keep_after = (limit - 1).min(after);
        kept.drain(1..1 + after - keep_after);
        return kept;
    }
    kept.drain(..kept.len().saturating_sub(limit));
    kept
}

/// The model history of a reload from the latest checkpoint with the HTTP
/// history's statuses: the selected turns' messages in order, tool pairs
/// sanitised. Fails when a stored `messages_chain` holds something that is not a message.
pub fn reload_messages(turns: &[Turn], limit: Option<i64>) -> Result<Vec<Message>> {
    let mut messages = Vec::new();
    for i in checkpoint_reload(turns, limit, true, None) {
        messages.extend(turns[i].messages()?);
    }
    Ok(sanitize_tool_pairs(messages))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn turns(spec: &[(&str, &str, Value)]) -> Vec<Turn> {
        spec.iter()
            .map(|(role, status, result)| {
                serde_json::from_value(json!({"role": role, "status": status, "result": result}))
                    .expect("a turn")
            })
            .collect()
    }

    fn marked(flag: Value) -> Value {
        json!({"value": "v", "messages_chain": [
            {"role": "user", "content": "[COMPACT SUMMARY] s", "additional_kwargs": {"summary_compacted": flag}},
            {"role": "assistant", "content": "a"}
        ]})
    }

    fn history() -> Vec<Turn> {
        turns(&[
            ("USER", "COMPLETED", Value::Null),
            ("ASSISTANT", "COMPLETED", marked(json!(true))), // 1: checkpoint
            ("USER", "COMPLETED", Value::Null),
            ("ASSISTANT", "COMPLETED", marked(json!(1))), // 3: not exactly true
            ("USER", "FAILED", Value::Null),
            ("ASSISTANT", "FAILED", marked(json!(true))), // 5: failed: never the checkpoint
            ("USER", "DELETE", Value::Null),
            ("ASSISTANT", "COMPLETED", json!({"value": "last"})),
        ])
    }

    #[test]
    fn from_the_last_completed_checkpoint_with_limits() {
        let t = history();
        assert_eq!(checkpoint_reload(&t, None, true, None), [1, 2, 3, 4, 5, 7]);
        assert_eq!(checkpoint_reload(&t, Some(3), true, None), [1, 5, 7]);
        assert_eq!(checkpoint_reload(&t, Some(1), true, None), [1]);
        assert_eq!(
            checkpoint_reload(&t, Some(50), true, None),
            [1, 2, 3, 4, 5, 7]
        );
        assert_eq!(checkpoint_reload(&t, Some(2), false, None), [5, 7]);
        let package = checkpoint_reload(&t, None, false, Some(PACKAGE_STATUSES));
        assert_eq!(package, [0, 1, 2, 3, 4, 5, 7]);
    }

    /// The limit-0 rule: null, 0 and negative limits are no limit (not "the checkpoint alone").
    #[test]
    fn zero_and_negative_limits_are_no_limit() {
        let t = history();
        for limit in [None, Some(0), Some(-3)] {
            assert_eq!(checkpoint_reload(&t, limit, true, None), [1, 2, 3, 4, 5, 7]);
        }
        assert_eq!(
            checkpoint_reload(&t, Some(0), true, Some(&[])),
            [1, 2, 3, 4, 5, 7],
            "empty statuses are the default"
        );
    }

    #[test]
    fn without_a_checkpoint_nothing_is_cut() {
        let t = turns(&[
            ("USER", "COMPLETED", Value::Null),
            ("ASSISTANT", "CANCELLED", marked(json!(true))),
            ("ASSISTANT", "COMPLETED", json!("text")),
        ]);
        assert_eq!(checkpoint_reload(&t, None, true, None), [0, 1, 2]);
        assert_eq!(checkpoint_reload(&t, Some(2), true, None), [1, 2]);
        assert!(checkpoint_reload(&[], Some(2), true, None).is_empty());
    }

    #[test]
    fn reload_builds_messages_as_the_loader_does() {
        let mut t = history();
        t[2].prompt = Some("second question".into());
        t[3].result = Some(json!({"value": "v", "messages_chain": [
            {"role": "tool", "tool_call_id": "gone", "content": "orphan"},
            {"role": "assistant", "content": "a3"}
        ]}));
        let texts: Vec<String> = reload_messages(&t, None)
            .expect("valid chains")
            .iter()
            .map(Message::message_text)
            .collect();
        // 4 (a failed user turn) has no prompt; 5 (failed) gives only its value.
        assert_eq!(
            texts,
            [
                "[COMPACT SUMMARY] s",
                "a",
                "second question",
                "a3",
                "",
                "v",
                "last"
            ]
        );
        let bad = turns(&[("ASSISTANT", "COMPLETED", json!({"messages_chain": [5]}))]);
        assert!(reload_messages(&bad, None).is_err());
    }
}
