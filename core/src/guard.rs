//! The guard pipeline that runs before every model call (SPEC §8), as a
//! sans-IO state machine: core makes no model call and reads no clock.
//!
//! 1. **Source pass**: every tool message not yet compacted, with an id, and
//!    not a knowledge-base direct injection is re-rendered under its policy
//!    and marked `additional_kwargs.compacted = true`.
//! 2. **Summary compaction** when usage reaches the trigger: the guard hands
//!    the host a [`SummaryRequest`] holding the exact messages for the
//!    summariser ([`summary_request`]: tool pairs sanitised, trimmed to the
//!    target, the reference's instruction turn last); the host answers with
//!    [`SummaryRequest::on_summary`] or [`SummaryRequest::on_error`]
//!    (context-too-long errors, [`is_context_too_long`], shed the oldest
//!    quarter of the removable messages and retry, [`summary_shed`], at most
//!    3 times). The reply becomes the replacement history
//!    ([`summary_replacement`]: system messages, [`recent_user_messages`], one
//!    summary message).
//! 3. **Emergency pass** when still over the trigger ([`emergency_pass`]):
//!    the longest tool outputs are re-cut under the emergency policy until
//!    usage is under the trigger; a knowledge-base payload that keeps it over
//!    fails with [`crate::Error::BypassedPayloadTooLarge`].
//!
//! Each step is a public function named after its conformance kind, and
//! [`Guard`] is built from exactly these functions, so the recorded cases
//! check the code that runs in [`Guard::before_model_call`].
//!
//! The guard counts as the reference does, tool calls included for nothing
//! ([`GuardCounter`]); [`GuardConfig::strict_counting`] counts as the metrics
//! do. The host is told the time (`now_micros`, Unix microseconds) and
//! receives the toolbar's lifecycle events ([`CompactionEvent`]) and
//! protection traces as outputs. The only other input from outside is the
//! randomness of the fresh uuid4 ids the reference gives new messages.
//!
//! ```
//! use ctxguard_core::guard::{AfterError, Decision, Guard, SummaryError};
//! use ctxguard_core::protocol::CompactionStatus;
//! use ctxguard_core::{budget, Message};
//! let guard = Guard::for_model("gpt-4o");
//! let limits = budget::context_limits("gpt-4o", None, Some(300)); // trigger 300, target 299
//! let history = vec![
//!     Message::new("system", "be brief"),
//!     Message::new("user", "first question ".repeat(200)),
//!     Message::new("assistant", "first answer"),
//!     Message::new("user", "and now?"),
//! ];
//! // The host's summariser (a model call); here the first attempt is too long.
//! let mut calls = 0;
//! let mut summarise = |input: &[Message]| {
//!     calls += 1;
//!     if calls == 1 { Err(SummaryError::new("prompt is too long").with_status(400)) }
//!     else { Ok(format!("summary of {} messages", input.len())) }
//! };
//! let now = 1_782_226_534_512_345; // Unix microseconds, from the host's clock
//! let mut events = Vec::new(); // what the toolbar gets, as `summary_compact` status events
//! let ready = match guard.before_model_call(history, &limits, now)? {
//!     Decision::Proceed(ready) => ready,
//!     Decision::NeedSummary(mut request) => {
//!         events.push(request.started().clone());
//!         loop {
//!             // While waiting, the host polls `request.heartbeat(now)` and forwards `Some(event)`.
//!             match summarise(request.messages()) {
//!                 Ok(text) => break request.on_summary(text, now + 2_000_000)?,
//!                 Err(error) => match request.on_error(&error, now + 1_000_000)? {
//!                     AfterError::Retry(next) => request = next,
//!                     AfterError::Fallback(ready) => break ready,
//!                 },
//!             }
//!         }
//!     }
//! };
//! events.extend(ready.events.iter().cloned());
//! let statuses: Vec<_> = events.iter().map(|e| e.compaction.status).collect();
//! assert_eq!(statuses, [CompactionStatus::Started, CompactionStatus::Completed]);
//! let replacement = ready.replacement.as_ref().expect("compacted");
//! assert_eq!(replacement.removed_history_items, 2); // trimmed the long question, then shed the answer
//! assert_eq!(ready.messages.len(), 3); // system, the retained "and now?", the summary
//! assert!(ready.used_tokens < limits.trigger_limit);
//! # Ok::<(), ctxguard_core::Error>(())
//! ```

mod checkpoint;
mod counting;
mod emergency;
mod lifecycle;
mod replacement;
mod request;
mod retained;
mod sanitize;
mod summary;
mod too_long;
mod trim;

#[cfg(test)]
mod proptests;
#[cfg(test)]
mod summary_tests;
#[cfg(test)]
mod testing;
#[cfg(test)]
mod tests;

pub use checkpoint::{
    checkpoint_reload, reload_messages, Turn, TurnRole, TurnStatus, HTTP_HISTORY_STATUSES,
    PACKAGE_STATUSES,
};
pub use counting::{CountedHistory, GuardCounter};
pub use emergency::{emergency_pass, EmergencyOutcome};
pub use lifecycle::CompactionEvent;
pub use replacement::{summary_replacement, SummaryReplacement, SUMMARY_PREFIX};
pub use request::{
    instruction_turn, request_messages, summary_request, SummaryInput, SUMMARY_INSTRUCTION,
};
pub use retained::recent_user_messages;
pub use sanitize::sanitize_tool_pairs;
pub use summary::{AfterError, Replacement, SummaryRequest};
pub use too_long::{is_context_too_long, SummaryError, CONTEXT_TOO_LONG_MARKERS};
pub use trim::{current_user_index, removable_indices, summary_shed, summary_trim, Trimmed};

use crate::budget::ContextLimits;
use crate::message::{Content, Message};
use crate::metrics::ContextMetricsSnapshot;
use crate::tokens::{TokenCounter, Tokens};
use crate::tool_output::{self, TruncationPolicy, COMPACTED_FLAG};
use crate::traces::{ProtectionTrace, TraceBuilder};
use crate::Result;
use serde_json::Value;
use std::collections::BTreeMap;

/// `additional_kwargs` flag of a summary message; summaries are recognised by it alone.
pub const SUMMARY_FLAG: &str = "summary_compacted";
/// `additional_kwargs` flag of a user message retained into a compaction checkpoint.
pub const CHECKPOINT_RETAINED_FLAG: &str = "checkpoint_retained";
/// `additional_kwargs` key holding the summary format version.
pub const SUMMARY_VERSION_KEY: &str = "summary_compact_version";
/// The summary format version this guard writes.
pub const SUMMARY_COMPACT_VERSION: i64 = 1;
/// Most tokens of recent user messages a replacement keeps (further capped at half the target).
pub const DEFAULT_RECENT_USER_TOKEN_LIMIT: Tokens = 20_000;
/// Most summary retries after context-too-long errors.
pub const MAX_SUMMARY_OVERFLOW_RETRIES: u32 = 3;
/// Share of the removable messages each overflow retry sheds (rounded up, at least one).
pub const OVERFLOW_TRIM_FRACTION: f64 = 0.25;
/// Interval between `in_progress` heartbeats while a summary runs.
pub const HEARTBEAT_INTERVAL_MICROS: i64 = 15_000_000;

/// Tunables of a [`Guard`]; `Default` is the production configuration.
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

/// The pre-model-call guard of one model; cheap to clone.
#[derive(Debug, Clone)]
pub struct Guard {
    counter: GuardCounter,
    config: GuardConfig,
}

/// What the host does next after [`Guard::before_model_call`].
#[derive(Debug)]
pub enum Decision {
    /// Send `Ready::messages` to the model.
    Proceed(Ready),
    /// Ask the summariser with [`SummaryRequest::messages`], then report back.
    NeedSummary(SummaryRequest),
}

/// A history the model may be called with, and what the guard did to it.
#[derive(Debug, Clone, PartialEq)]
pub struct Ready {
    /// The governed history, to send and to store (it replaces the input).
    pub messages: Vec<Message>,
    /// The guard's usage of `messages` (`count_messages`, tool calls as [`GuardCounter`] counts them).
    pub used_tokens: Tokens,
    /// Metrics of `messages` (send with phase `after_compaction` when `changed`).
    pub metrics: ContextMetricsSnapshot,
    /// Whether any message differs from the input.
    pub changed: bool,
    /// Set when a summary compaction completed: `messages` starts from a new checkpoint.
    pub replacement: Option<Replacement>,
    /// Lifecycle events to emit, in order: `completed` or `fallback` (preceded by
    /// `started` when the compaction ended before any request, as not applicable).
    pub events: Vec<CompactionEvent>,
    /// Protection traces of this step.
    pub traces: Vec<ProtectionTrace>,
}

/// What one guard run carries from stage to stage.
#[derive(Debug, Clone)]
pub(crate) struct Pass {
    /// The history as it stands, with its counts.
    pub history: CountedHistory,
    /// Whether any message differs from the input.
    pub changed: bool,
    /// Protection traces so far.
    pub traces: Vec<ProtectionTrace>,
}

/// How a summary compaction ended, for the result.
#[derive(Debug, Default)]
pub(crate) struct Compaction {
    /// Set when it completed.
    pub replacement: Option<Replacement>,
    /// Its lifecycle events still to emit.
    pub events: Vec<CompactionEvent>,
}

impl Guard {
    /// A guard with the production configuration.
    pub fn new(counter: TokenCounter) -> Self {
        Self::with_config(counter, GuardConfig::default())
    }

    /// A guard for `model`'s encoding with the production configuration.
    pub fn for_model(model: &str) -> Self {
        Self::new(TokenCounter::for_model(model))
    }

    /// A guard with an explicit configuration.
    pub fn with_config(counter: TokenCounter, config: GuardConfig) -> Self {
        Guard {
            counter: GuardCounter::new(counter, config.strict_counting),
            config,
        }
    }

    /// The configuration in force.
    pub fn config(&self) -> &GuardConfig {
        &self.config
    }

    /// The token counter in use.
    pub fn counter(&self) -> &TokenCounter {
        self.counter.token_counter()
    }

    /// How the guard counts (the reference's way unless `strict_counting`).
    pub fn guard_counter(&self) -> &GuardCounter {
        &self.counter
    }

    /// Runs the source pass, measures, and either proceeds or asks for a summary.
    ///
    /// Counts every message once; O(n) in the history besides the renders.
    pub fn before_model_call(
        &self,
        history: Vec<Message>,
        limits: &ContextLimits,
        now_micros: i64,
    ) -> Result<Decision> {
        let mut messages = history;
        let rendered = self.source_pass(&mut messages);
        let pass = Pass {
            history: CountedHistory::new(messages, &self.counter),
            changed: rendered > 0,
            traces: (rendered > 0)
                .then(|| tool_output_trace(rendered, false))
                .into_iter()
                .collect(),
        };
        if pass.history.used_tokens() < limits.trigger_limit {
            return Ok(Decision::Proceed(self.ready(
                pass,
                limits,
                Compaction::default(),
            )));
        }
        if !self.config.summary_enabled {
            return self
                .finish(pass, limits, Compaction::default())
                .map(Decision::Proceed);
        }
        summary::begin(self.clone(), pass, *limits, now_micros)
    }

    /// The normal policy for a tool message (per-tool override by its stripped name, else the default).
    pub fn policy_for(&self, message: &Message) -> TruncationPolicy {
        message
            .name
            .as_deref()
            .map(crate::pyjson::strip)
            .and_then(|n| self.config.tool_policy_overrides.get(n))
            .copied()
            .unwrap_or(self.config.tool_output_policy)
    }

    /// Step 1: renders every tool message that is not compacted, has an id and
    /// is not bypassed, marking it `compacted`; returns how many.
    pub fn source_pass(&self, messages: &mut [Message]) -> usize {
        let mut rendered = 0;
        for message in messages.iter_mut() {
            if !message.is_tool()
                || message.has_flag(COMPACTED_FLAG)
                || message.id().is_none_or(str::is_empty)
                || tool_output::is_bypassed(message)
            {
                continue;
            }
            let raw = tool_output::extract_raw(message);
            let text = tool_output::render_raw(&raw, self.policy_for(message), self.counter());
            message.content = Some(Content::Text(text));
            message.set_kwarg(COMPACTED_FLAG, Value::Bool(true));
            rendered += 1;
        }
        rendered
    }

    /// The emergency pass under this guard's policies, with its trace.
    pub(crate) fn emergency(&self, pass: &mut Pass, limits: &ContextLimits) -> Result<()> {
        let outcome = emergency_pass(
            &mut pass.history,
            limits.trigger_limit,
            |m| self.policy_for(m),
            &self.counter,
        );
        if !outcome.rewritten.is_empty() {
            pass.changed = true;
            pass.traces
                .push(tool_output_trace(outcome.rewritten.len(), true));
        }
        outcome.error.map_or(Ok(()), Err)
    }

    fn ready(&self, pass: Pass, limits: &ContextLimits, compaction: Compaction) -> Ready {
        let used = pass.history.used_tokens();
        Ready {
            messages: pass.history.into_messages(),
            used_tokens: used,
            metrics: ContextMetricsSnapshot::from_used(used, limits),
            changed: pass.changed,
            replacement: compaction.replacement,
            events: compaction.events,
            traces: pass.traces,
        }
    }

    /// Step 3 and the final check, then the result.
    pub(crate) fn finish(
        &self,
        mut pass: Pass,
        limits: &ContextLimits,
        compaction: Compaction,
    ) -> Result<Ready> {
        self.emergency(&mut pass, limits)?;
        Ok(self.ready(pass, limits, compaction))
    }
}

/// A fresh random (version 4) uuid, as the reference gives new messages.
pub(crate) fn fresh_id() -> String {
    uuid::Uuid::new_v4().to_string()
}

fn tool_output_trace(messages_truncated: usize, emergency: bool) -> ProtectionTrace {
    TraceBuilder::new("tool_output", "applied")
        .attr("messages_truncated", Some(Value::from(messages_truncated)))
        .attr("emergency", Some(Value::Bool(emergency)))
        .build()
}

/// Whether a message is a summary: `additional_kwargs.summary_compacted` is exactly `true`.
pub fn is_summary(m: &Message) -> bool {
    m.has_flag(SUMMARY_FLAG)
}
