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

/// One context usage snapshot, fields in wire order.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ContextMetricsSnapshot {
    /// Context window in tokens.
    pub context_window: Tokens,
    /// Tokens kept free for the answer.
    pub reserved_output_tokens: Tokens,
    /// Window minus reserved.
    pub available_input_tokens: Tokens,
    /// Tokens the current history uses.
    pub used_input_tokens: Tokens,
    /// max(0, available − used).
    pub remaining_input_tokens: Tokens,
    /// int(remaining / available × 100).
    pub remaining_percent: Tokens,
    /// max(0, window − used).
    pub display_remaining_tokens: Tokens,
    /// int(display_remaining / window × 100).
    pub display_remaining_percent: Tokens,
    /// Usage at which compaction triggers.
    pub trigger_limit: Tokens,
    /// Usage compaction aims for.
    pub target_limit: Tokens,
    /// used ≥ trigger.
    pub is_over_trigger: bool,
    /// Optional per-source split of `used_input_tokens` (ctxguard extension; absent on the reference's wire).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub breakdown: Option<UsageBreakdown>,
}

/// Where the used tokens come from; the parts sum to `used_input_tokens`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct UsageBreakdown {
    /// System prompts.
    pub system: Tokens,
    /// User turns, without their attachment blocks.
    pub user: Tokens,
    /// Assistant turns and their tool calls.
    pub assistant: Tokens,
    /// Tool results.
    pub tool_outputs: Tokens,
    /// `<attachment>` blocks inside messages.
    pub attachments: Tokens,
    /// Per-message and reply-priming overhead, images and anything unattributed.
    pub overhead: Tokens,
}

impl ContextMetricsSnapshot {
    /// The snapshot for `used` tokens under `limits`.
    pub fn from_used(used: Tokens, limits: &ContextLimits) -> Self {
        let available = limits.available_tokens.max(0);
        let remaining = (available - used).max(0);
        let window = limits.context_window;
        let display_remaining = (window - used).max(0);
        ContextMetricsSnapshot {
            context_window: window,
            reserved_output_tokens: limits.reserved_output_tokens,
            available_input_tokens: available,
            used_input_tokens: used,
            remaining_input_tokens: remaining,
            remaining_percent: percent(remaining, available),
            display_remaining_tokens: display_remaining,
            display_remaining_percent: percent(display_remaining, window),
            trigger_limit: limits.trigger_limit,
            target_limit: limits.target_limit,
            is_over_trigger: used >= limits.trigger_limit,
            breakdown: None,
        }
    }

    /// The same snapshot carrying a breakdown.
    pub fn with_breakdown(mut self, breakdown: UsageBreakdown) -> Self {
        self.breakdown = Some(breakdown);
        self
    }
}

/// `int(part / whole * 100)` in f64 as Python computes it; 0 when `whole` ≤ 0.
fn percent(part: Tokens, whole: Tokens) -> i64 {
    if whole <= 0 {
        return 0;
    }
    (part as f64 / whole as f64 * 100.0) as i64
}

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
