//! The context-metrics snapshot (SPEC §3): the 11 wire fields in wire order,
//! computed from the used tokens and the limits.

use crate::budget::ContextLimits;
use crate::tokens::Tokens;
use serde::{Deserialize, Serialize};

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
