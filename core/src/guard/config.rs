//! The guard's tunables and their production values.

use crate::cut::TruncationPolicy;
use crate::tokens::Tokens;
use crate::tool_output;
use std::collections::BTreeMap;

/// Most tokens of recent user messages a replacement keeps (further capped at half the target).
pub const DEFAULT_RECENT_USER_TOKEN_LIMIT: Tokens = 20_000;
/// Most summary retries after context-too-long errors.
pub const MAX_SUMMARY_OVERFLOW_RETRIES: u32 = 3;
/// Interval between `in_progress` heartbeats while a summary runs.
pub const HEARTBEAT_INTERVAL_MICROS: i64 = 15_000_000;

/// Tunables of a [`super::Guard`]; `Default` is the production configuration.
#[derive(Debug, Clone, PartialEq)]
pub struct GuardConfig {
    /// Policy of the source pass for tool outputs (emergency: [`TruncationPolicy::emergency`]).
    pub tool_output_policy: TruncationPolicy,
    /// Per-tool policies by tool name, overriding `tool_output_policy`.
    pub tool_policy_overrides: BTreeMap<String, TruncationPolicy>,
    /// Whether over-trigger histories are summarised (off: straight to the emergency pass).
    pub summary_enabled: bool,
    /// Cap of the recent user messages kept in a replacement, before the `target / 2` cap.
    pub recent_user_token_limit: Tokens,
    /// Most retries after context-too-long summary errors.
    pub max_overflow_retries: u32,
    /// Interval between `in_progress` heartbeats.
    pub heartbeat_interval_micros: i64,
    /// Count as the metrics do instead of reproducing the reference's guard
    /// (off by default): tool calls count in the usage, the trim and the
    /// emergency pass, and retained users are measured without a reply
    /// priming each and cut so that they fit their limit.
    pub strict_counting: bool,
}

impl Default for GuardConfig {
    fn default() -> Self {
        GuardConfig {
            tool_output_policy: tool_output::DEFAULT_POLICY,
            tool_policy_overrides: BTreeMap::new(),
            summary_enabled: true,
            recent_user_token_limit: DEFAULT_RECENT_USER_TOKEN_LIMIT,
            max_overflow_retries: MAX_SUMMARY_OVERFLOW_RETRIES,
            heartbeat_interval_micros: HEARTBEAT_INTERVAL_MICROS,
            strict_counting: false,
        }
    }
}
