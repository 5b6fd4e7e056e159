//! Context-metrics snapshots (the 11 wire fields), the provider-usage
//! baseline, and the emit throttling that decides which snapshots reach the
//! toolbar.

use crate::budget::ContextLimits;
use crate::message::{Message, ToolCall};
use crate::protocol::Phase;
use crate::tokens::{TokenCounter, Tokens};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Width of the remaining-percent buckets that throttle updates.
pub const STATUS_UPDATE_STEP_PERCENT: i64 = 5;

pub use crate::protocol::{ContextMetricsSnapshot, UsageBreakdown};

/// The input tokens a provider reported for the messages it saw.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ProviderBaseline {
    /// Input tokens the provider counted.
    pub input_tokens: Tokens,
    /// The messages of that call.
    pub messages: Vec<Message>,
}

/// Tokens used by `messages`: the provider's figure plus the new suffix when
/// the baseline's messages are still a prefix, otherwise a full recount.
pub fn used_tokens(
    counter: &TokenCounter,
    messages: &[Message],
    baseline: Option<&ProviderBaseline>,
) -> Tokens {
    if let Some(base) = baseline {
        if let Some(suffix) = suffix_after_prefix(messages, &base.messages) {
            if suffix.is_empty() {
                return base.input_tokens;
            }
            return base.input_tokens + counter.count_messages(suffix);
        }
    }
    counter.count_messages(messages)
}

/// The part of `messages` after `prefix`, when `prefix` matches on the compared fields.
fn suffix_after_prefix<'a>(messages: &'a [Message], prefix: &[Message]) -> Option<&'a [Message]> {
    if prefix.len() > messages.len() {
        return None;
    }
    let matches = messages
        .iter()
        .zip(prefix)
        .all(|(a, b)| same_for_baseline(a, b));
    matches.then(|| &messages[prefix.len()..])
}

/// Compares role, content, tool calls (normalised), name and tool_call_id.
fn same_for_baseline(a: &Message, b: &Message) -> bool {
    a.role == b.role
        && a.content == b.content
        && a.name.as_deref().unwrap_or("") == b.name.as_deref().unwrap_or("")
        && a.tool_call_id.as_deref().unwrap_or("") == b.tool_call_id.as_deref().unwrap_or("")
        && normalized_calls(a) == normalized_calls(b)
}

fn normalized_calls(m: &Message) -> Vec<Value> {
    m.tool_calls
        .iter()
        .flatten()
        .map(ToolCall::normalized)
        .collect()
}

/// Computes the snapshot of `messages` under `limits` (with an optional provider baseline).
pub fn snapshot(
    counter: &TokenCounter,
    messages: &[Message],
    limits: &ContextLimits,
    baseline: Option<&ProviderBaseline>,
) -> ContextMetricsSnapshot {
    ContextMetricsSnapshot::from_used(used_tokens(counter, messages, baseline), limits)
}

/// What throttling needs of a snapshot.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct EmitState {
    /// The snapshot's remaining_percent.
    pub remaining_percent: i64,
    /// The snapshot's is_over_trigger.
    pub is_over_trigger: bool,
}

impl From<&ContextMetricsSnapshot> for EmitState {
    fn from(s: &ContextMetricsSnapshot) -> Self {
        EmitState {
            remaining_percent: s.remaining_percent,
            is_over_trigger: s.is_over_trigger,
        }
    }
}

/// Whether a status update is sent: always at turn boundaries and compactions,
/// on a trigger crossing, or when remaining falls into a lower 5% bucket.
pub fn should_emit(previous: Option<EmitState>, current: EmitState, phase: Phase) -> bool {
    if phase.always_emits() {
        return true;
    }
    let Some(prev) = previous else {
        return true;
    };
    if prev.is_over_trigger != current.is_over_trigger {
        return true;
    }
    current
        .remaining_percent
        .div_euclid(STATUS_UPDATE_STEP_PERCENT)
        < prev
            .remaining_percent
            .div_euclid(STATUS_UPDATE_STEP_PERCENT)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn st(p: i64, over: bool) -> EmitState {
        EmitState {
            remaining_percent: p,
            is_over_trigger: over,
        }
    }

    #[test]
    fn throttles_to_lower_buckets() {
        assert!(!should_emit(
            Some(st(44, false)),
            st(40, false),
            Phase::AfterToolEnd
        ));
        assert!(should_emit(
            Some(st(40, false)),
            st(39, false),
            Phase::AfterToolEnd
        ));
        assert!(should_emit(
            Some(st(40, false)),
            st(90, true),
            Phase::AfterToolEnd
        ));
        assert!(should_emit(
            Some(st(40, false)),
            st(90, false),
            Phase::Final
        ));
        assert!(should_emit(None, st(90, false), Phase::SummaryCompact));
    }

    #[test]
    fn percent_truncates() {
        let limits = ContextLimits {
            context_window: 3,
            reserved_output_tokens: 0,
            available_tokens: 3,
            trigger_limit: 2,
            target_limit: 1,
        };
        let s = ContextMetricsSnapshot::from_used(1, &limits);
        assert_eq!(s.remaining_percent, 66);
    }
}
