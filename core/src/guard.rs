//! The guard pipeline that runs before every model call (SPEC §8), as a
//! sans-IO state machine: core makes no model call and reads no clock.
//!
//! 1. **Source pass**: every tool message not yet compacted (and not a
//!    knowledge-base direct injection) is re-rendered under its policy and
//!    marked `additional_kwargs.compacted = true`.
//! 2. **Summary compaction** when usage reaches the trigger: the guard hands
//!    the host a [`SummaryRequest`] holding the exact messages for the
//!    summariser; the host answers with [`SummaryRequest::on_summary`] or
//!    [`SummaryRequest::on_error`] (context-too-long errors shed the oldest
//!    quarter of removable messages and retry, at most 3 times).
//! 3. **Emergency pass** when still over the trigger: the largest tool
//!    outputs are re-cut under the emergency policy, largest first, until the
//!    total is under the trigger; a remaining knowledge-base payload that
//!    keeps it over fails with [`Error::BypassedPayloadTooLarge`].
//!
//! The host is told the time (`now_micros`, Unix microseconds) and receives
//! the toolbar's lifecycle events ([`CompactionEvent`]) and protection traces
//! as outputs.
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
//!                 Ok(text) => break request.on_summary(&text, now + 2_000_000)?,
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
mod emergency;
mod lifecycle;
mod sanitize;
mod summary;
mod trim;

#[cfg(test)]
mod proptests;
#[cfg(test)]
mod tests;

pub use checkpoint::{latest_checkpoint, reload_messages, Turn, TurnRole};
pub use lifecycle::CompactionEvent;
pub use sanitize::sanitize_tool_pairs;
pub use summary::{
    is_context_too_long_error, select_recent_user_messages, AfterError, Replacement, SummaryError,
    SummaryRequest, CONTEXT_TOO_LONG_MARKERS,
};
pub use trim::{current_user_index, trim_oldest, TrimPlan};

use crate::budget::ContextLimits;
use crate::message::{Content, Message};
use crate::metrics::ContextMetricsSnapshot;
use crate::tokens::{TokenCounter, TOKENS_PER_REPLY};
use crate::tool_output::{self, ToolOutputInput, TruncationPolicy, COMPACTED_FLAG};
use crate::traces::{ProtectionTrace, TraceBuilder};
use crate::{Error, Result};
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
/// First line of every summary message's content (informational; never used to recognise one).
pub const SUMMARY_PREFIX: &str = "[COMPACT SUMMARY] A previous model worked on this conversation and left the summary below; continue from it without redoing finished steps.";
/// The final user turn appended to the summariser's input.
pub const SUMMARY_INSTRUCTION: &str = "You are compacting this conversation into a checkpoint so that another model can resume it.\n\nWrite a concise, structured handoff that covers:\n- the current objective and the task in progress\n- what has been done so far and the decisions taken\n- constraints, preferences and context the user gave\n- facts, file paths, parameters and tool results needed to continue\n- the single most important next step\n\nReply with the summary only: no preamble, no restating of these instructions, no closing remarks.";
/// Most tokens of recent user messages a replacement keeps (further capped at half the target).
pub const DEFAULT_RECENT_USER_TOKEN_LIMIT: usize = 20_000;
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
    pub recent_user_token_limit: usize,
    /// Most retries after context-too-long summary errors.
    pub max_overflow_retries: u32,
    /// Interval between `in_progress` heartbeats.
    pub heartbeat_interval_micros: i64,
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
        }
    }
}

/// The pre-model-call guard of one model; cheap to clone.
#[derive(Debug, Clone)]
pub struct Guard {
    counter: TokenCounter,
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
    /// `count_messages(messages)`.
    pub used_tokens: i64,
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
        Guard { counter, config }
    }

    /// The configuration in force.
    pub fn config(&self) -> &GuardConfig {
        &self.config
    }

    /// The token counter in use.
    pub fn counter(&self) -> &TokenCounter {
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
        let mut traces = Vec::new();
        let rendered = self.source_pass(&mut messages);
        if rendered > 0 {
            traces.push(tool_output_trace(rendered, false));
        }
        let counts: Vec<usize> = messages
            .iter()
            .map(|m| self.counter.count_message(m))
            .collect();
        let used = total_tokens(&counts);
        if (used as i64) < limits.trigger_limit {
            return Ok(Decision::Proceed(self.ready(
                messages,
                counts,
                limits,
                rendered > 0,
                traces,
            )));
        }
        if !self.config.summary_enabled {
            return self
                .finish(
                    messages,
                    counts,
                    limits,
                    rendered > 0,
                    None,
                    Vec::new(),
                    traces,
                )
                .map(Decision::Proceed);
        }
        summary::begin(
            self.clone(),
            messages,
            counts,
            *limits,
            now_micros,
            rendered > 0,
            traces,
        )
    }

    /// The normal policy for a tool message (per-tool override, else the default).
    pub fn policy_for(&self, message: &Message) -> TruncationPolicy {
        message
            .name
            .as_deref()
            .map(str::trim)
            .and_then(|n| self.config.tool_policy_overrides.get(n))
            .copied()
            .unwrap_or(self.config.tool_output_policy)
    }

    /// Stage 1: renders every uncompacted, non-bypassed tool message; returns how many.
    fn source_pass(&self, messages: &mut [Message]) -> usize {
        let mut rendered = 0;
        for message in messages.iter_mut() {
            if !message.is_tool()
                || message.has_flag(COMPACTED_FLAG)
                || tool_output::is_bypassed(message)
            {
                continue;
            }
            let text = tool_output::render(
                &source_raw(message),
                self.policy_for(message),
                &self.counter,
            );
            message.content = Some(Content::Text(text));
            message.set_kwarg(COMPACTED_FLAG, Value::Bool(true));
            rendered += 1;
        }
        rendered
    }

    fn ready(
        &self,
        messages: Vec<Message>,
        counts: Vec<usize>,
        limits: &ContextLimits,
        changed: bool,
        traces: Vec<ProtectionTrace>,
    ) -> Ready {
        let used = total_tokens(&counts) as i64;
        Ready {
            messages,
            used_tokens: used,
            metrics: ContextMetricsSnapshot::from_used(used, limits),
            changed,
            replacement: None,
            events: Vec::new(),
            traces,
        }
    }

    /// Stage 3 and the final check, then the result.
    #[allow(clippy::too_many_arguments)]
    fn finish(
        &self,
        mut messages: Vec<Message>,
        mut counts: Vec<usize>,
        limits: &ContextLimits,
        mut changed: bool,
        replacement: Option<Replacement>,
        events: Vec<CompactionEvent>,
        mut traces: Vec<ProtectionTrace>,
    ) -> Result<Ready> {
        let trigger = limits.trigger_limit;
        if total_tokens(&counts) as i64 >= trigger {
            let policy_of = |m: &Message| self.policy_for(m).emergency();
            let recut = emergency::emergency_pass(
                &mut messages,
                &mut counts,
                trigger,
                policy_of,
                &self.counter,
            );
            if recut > 0 {
                changed = true;
                traces.push(tool_output_trace(recut, true));
            }
            let used = total_tokens(&counts) as i64;
            if used >= trigger
                && messages
                    .iter()
                    .any(|m| m.is_tool() && tool_output::is_bypassed(m))
            {
                return Err(Error::BypassedPayloadTooLarge {
                    used_tokens: used,
                    trigger_limit: trigger,
                });
            }
        }
        let mut ready = self.ready(messages, counts, limits, changed, traces);
        ready.replacement = replacement;
        ready.events = events;
        Ok(ready)
    }
}

/// `count_messages` from per-message counts: their sum plus the reply priming once.
pub(crate) fn total_tokens(counts: &[usize]) -> usize {
    counts.iter().sum::<usize>() + TOKENS_PER_REPLY
}

fn tool_output_trace(messages_truncated: usize, emergency: bool) -> ProtectionTrace {
    TraceBuilder::new("tool_output", "applied")
        .attr("messages_truncated", Some(Value::from(messages_truncated)))
        .attr("emergency", Some(Value::Bool(emergency)))
        .build()
}

/// The raw output of a tool message, recovering the body of an earlier rendering
/// (so a re-render never nests headers), with the message's name and
/// `additional_kwargs` exit code / wall time taking precedence.
pub(crate) fn source_raw(message: &Message) -> ToolOutputInput {
    ToolOutputInput::Raw(tool_output::extract_raw(message))
}

/// Whether a message is a summary (by its marker only).
pub fn is_summary(m: &Message) -> bool {
    m.has_flag(SUMMARY_FLAG)
}
