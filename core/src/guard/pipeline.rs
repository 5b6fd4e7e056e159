//! The guard's stages over one history (the source pass, the emergency pass
//! and the result) and what a run carries from stage to stage; the summary
//! step ([`super::summary`]) and [`super::Guard`] both run on it.

use super::config::GuardConfig;
use super::counting::{CountedHistory, GuardCounter};
use super::emergency::emergency_pass;
use super::lifecycle::CompactionEvent;
use super::replacement::Replacement;
use crate::budget::ContextLimits;
use crate::cut::TruncationPolicy;
use crate::message::{Content, Message};
use crate::metrics::ContextMetricsSnapshot;
use crate::tokens::Tokens;
use crate::tool_output::{self, COMPACTED_FLAG};
use crate::traces::{ProtectionTrace, TraceBuilder};
use crate::Result;
use serde_json::Value;

/// How one guard counts and cuts: its counter and configuration.
#[derive(Debug, Clone)]
pub(crate) struct Pipeline {
    pub counter: GuardCounter,
    pub config: GuardConfig,
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

impl Pipeline {
    /// The normal policy for a tool message (per-tool override by its stripped name, else the default).
    pub(crate) fn policy_for(&self, message: &Message) -> TruncationPolicy {
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
    pub(crate) fn source_pass(&self, messages: &mut [Message]) -> usize {
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
            let text = tool_output::render_raw(
                &raw,
                self.policy_for(message),
                self.counter.token_counter(),
            );
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

    pub(crate) fn ready(
        &self,
        pass: Pass,
        limits: &ContextLimits,
        compaction: Compaction,
    ) -> Ready {
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

/// The `tool_output` protection trace of a pass that rendered `messages_truncated` messages.
pub(crate) fn tool_output_trace(messages_truncated: usize, emergency: bool) -> ProtectionTrace {
    TraceBuilder::new("tool_output", "applied")
        .attr("messages_truncated", Some(Value::from(messages_truncated)))
        .attr("emergency", Some(Value::Bool(emergency)))
        .build()
}
