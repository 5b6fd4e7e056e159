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
//!     Message::system("be brief"),
//!     Message::user("first question ".repeat(200)),
//!     Message::assistant("first answer"),
//!     Message::user("and now?"),
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
mod config;
mod counting;
mod emergency;
mod instruction;
mod lifecycle;
mod markers;
mod pipeline;
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
pub use config::{
    GuardConfig, DEFAULT_RECENT_USER_TOKEN_LIMIT, HEARTBEAT_INTERVAL_MICROS,
    MAX_SUMMARY_OVERFLOW_RETRIES,
};
pub use counting::{CountedHistory, GuardCounter};
pub use emergency::{emergency_pass, EmergencyOutcome};
pub use instruction::{instruction_turn, SUMMARY_INSTRUCTION};
pub use lifecycle::CompactionEvent;
pub use markers::{
    is_summary, CHECKPOINT_RETAINED_FLAG, SUMMARY_COMPACT_VERSION, SUMMARY_FLAG,
    SUMMARY_VERSION_KEY,
};
pub use pipeline::Ready;
pub use replacement::{summary_replacement, Replacement, SummaryReplacement, SUMMARY_PREFIX};
pub use request::{request_messages, summary_request, SummaryInput};
pub use retained::recent_user_messages;
pub use sanitize::sanitize_tool_pairs;
pub use summary::{AfterError, Decision, SummaryRequest};
pub use too_long::{is_context_too_long, SummaryError, CONTEXT_TOO_LONG_MARKERS};
pub use trim::{
    current_user_index, removable_indices, summary_shed, summary_trim, Trimmed,
    OVERFLOW_TRIM_FRACTION,
};

use crate::budget::ContextLimits;
use crate::cut::TruncationPolicy;
use crate::message::Message;
use crate::tokens::TokenCounter;
use crate::Result;
use pipeline::{Compaction, Pass, Pipeline};

/// The pre-model-call guard of one model; cheap to clone.
#[derive(Debug, Clone)]
pub struct Guard {
    pipeline: Pipeline,
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
            pipeline: Pipeline {
                counter: GuardCounter::new(counter, config.strict_counting),
                config,
            },
        }
    }

    /// The configuration in force.
    pub fn config(&self) -> &GuardConfig {
        &self.pipeline.config
    }

    /// The token counter in use.
    pub fn counter(&self) -> &TokenCounter {
        self.pipeline.counter.token_counter()
    }

    /// How the guard counts (the reference's way unless `strict_counting`).
    pub fn guard_counter(&self) -> &GuardCounter {
        &self.pipeline.counter
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
        let rendered = self.pipeline.source_pass(&mut messages);
        let pass = Pass {
            history: CountedHistory::new(messages, &self.pipeline.counter),
            changed: rendered > 0,
            traces: (rendered > 0)
                .then(|| pipeline::tool_output_trace(rendered, false))
                .into_iter()
                .collect(),
        };
        if pass.history.used_tokens() < limits.trigger_limit {
            return Ok(Decision::Proceed(self.pipeline.ready(
                pass,
                limits,
                Compaction::default(),
            )));
        }
        if !self.pipeline.config.summary_enabled {
            return self
                .pipeline
                .finish(pass, limits, Compaction::default())
                .map(Decision::Proceed);
        }
        summary::begin(self.pipeline.clone(), pass, *limits, now_micros)
    }

    /// The normal policy for a tool message (per-tool override by its stripped name, else the default).
    pub fn policy_for(&self, message: &Message) -> TruncationPolicy {
        self.pipeline.policy_for(message)
    }

    /// Step 1: renders every tool message that is not compacted, has an id and
    /// is not bypassed, marking it `compacted`; returns how many.
    pub fn source_pass(&self, messages: &mut [Message]) -> usize {
        self.pipeline.source_pass(messages)
    }
}
