//! Summary compaction as a state machine the host drives: a [`SummaryRequest`]
//! carries the exact summariser input; the host answers with the reply
//! ([`SummaryRequest::on_summary`]) or the error the call ended with
//! ([`SummaryRequest::on_error`]), and heartbeats while it waits. Each
//! answer runs the guard's public steps: [`summary_request`] to start,
//! [`summary_shed`] and [`request_messages`] to retry,
//! [`summary_replacement`] to finish.

use super::counting::CountedHistory;
use super::lifecycle::{CompactionEvent, Lifecycle};
use super::pipeline::{Compaction, Pass, Pipeline, Ready};
use super::replacement::Replacement;
use super::replacement::{apply_replacement, summary_replacement};
use super::request::{request_messages, summary_request};
use super::too_long::{is_context_too_long, SummaryError};
use super::trim::summary_shed;
use crate::budget::ContextLimits;
use crate::message::{Content, Message};
use crate::protocol::{failure_reason, format_created_at, CompactionStatus};
use crate::tokens::Tokens;
use crate::traces::{ProtectionTrace, TraceBuilder};
use crate::Result;
use serde_json::Value;

/// What the host does next after [`Guard::before_model_call`].
#[derive(Debug)]
pub enum Decision {
    /// Send `Ready::messages` to the model.
    Proceed(Ready),
    /// Ask the summariser with [`SummaryRequest::messages`], then report back.
    NeedSummary(SummaryRequest),
}

/// What follows a failed summary call.
#[derive(Debug)]
pub enum AfterError {
    /// Context too long: ask again with the (shorter) [`SummaryRequest::messages`].
    Retry(SummaryRequest),
    /// Gave up (`summary_compact_failed`): proceed with the uncompacted history.
    Fallback(Ready),
}

/// A pending summary compaction: the summariser input and the state to finish it.
#[derive(Debug)]
pub struct SummaryRequest {
    pipeline: Pipeline,
    lifecycle: Lifecycle,
    /// The source-passed history: what a fallback keeps.
    pass: Pass,
    /// Sanitised and trimmed history the summary is made from (orphans of the trim included).
    working: Vec<Message>,
    request: Vec<Message>,
    removed: usize,
    retries: u32,
    started: CompactionEvent,
    next_heartbeat_micros: i64,
}

/// The summariser's view of a history: the reference rebuilds its messages
/// for the summariser without the `name` of user, system and assistant messages.
fn summariser_view(history: &[Message]) -> Vec<Message> {
    history
        .iter()
        .map(|m| {
            let mut m = m.clone();
            if !m.is_tool() {
                m.name = None;
            }
            m
        })
        .collect()
}

/// Starts a compaction of an over-trigger history: the first request, or a
/// not-applicable fallback when even the floor does not fit the target.
pub(crate) fn begin(
    pipeline: Pipeline,
    mut pass: Pass,
    limits: ContextLimits,
    now_micros: i64,
) -> Result<Decision> {
    let lifecycle = Lifecycle {
        before_tokens: pass.history.used_tokens(),
        limits,
        created_at: format_created_at(now_micros),
        started_micros: now_micros,
    };
    let started = lifecycle.running(CompactionStatus::Started);
    let input = summary_request(
        summariser_view(pass.history.messages()),
        Some(limits.target_limit),
        &pipeline.counter,
    );
    let Some(input) = input else {
        let reason = failure_reason::NOT_APPLICABLE;
        pass.traces
            .push(fallback_trace(&lifecycle, reason, now_micros));
        let compaction = Compaction {
            replacement: None,
            events: vec![started, lifecycle.fallback(reason)],
        };
        return pipeline
            .finish(pass, &limits, compaction)
            .map(Decision::Proceed);
    };
    let next_heartbeat_micros =
        now_micros.saturating_add(pipeline.config.heartbeat_interval_micros);
    Ok(Decision::NeedSummary(SummaryRequest {
        pipeline,
        lifecycle,
        pass,
        working: input.working,
        request: input.request,
        removed: input.removed,
        retries: 0,
        started,
        next_heartbeat_micros,
    }))
}

fn fallback_trace(lifecycle: &Lifecycle, reason: &str, now_micros: i64) -> ProtectionTrace {
    TraceBuilder::new("summary_compact", "fallback")
        .duration_ms(Some(lifecycle.elapsed_ms(now_micros)))
        .tokens(Some(lifecycle.before_tokens), None)
        .attr("failure_reason", Some(Value::from(reason)))
        .attr("used_legacy_fallback", Some(Value::Bool(false)))
        .build()
}

impl SummaryRequest {
    /// The exact messages to send to the summariser: the working history, tool
    /// pairs sanitised, then the instruction turn.
    pub fn messages(&self) -> &[Message] {
        &self.request
    }

    /// The history this compaction started from, after the source pass: what
    /// a fallback keeps, and what a host stores and measures while it waits.
    pub fn history(&self) -> &[Message] {
        self.pass.history.messages()
    }

    /// The guard's count of [`SummaryRequest::messages`] (at most the target limit on the first attempt).
    pub fn input_tokens(&self) -> Tokens {
        self.pipeline.counter.count(&self.request)
    }

    /// The `started` event (emit it before calling the summariser).
    pub fn started(&self) -> &CompactionEvent {
        &self.started
    }

    /// An `in_progress` event when a heartbeat is due at `now_micros` (every 15 s, same `created_at`).
    pub fn heartbeat(&mut self, now_micros: i64) -> Option<CompactionEvent> {
        if now_micros < self.next_heartbeat_micros {
            return None;
        }
        self.next_heartbeat_micros =
            now_micros.saturating_add(self.pipeline.config.heartbeat_interval_micros);
        Some(self.lifecycle.running(CompactionStatus::InProgress))
    }

    /// When the next heartbeat is due (Unix microseconds), for the host's timer.
    pub fn next_heartbeat_at(&self) -> i64 {
        self.next_heartbeat_micros
    }

    /// 1 for the first summary call, then one more per retry.
    pub fn attempt(&self) -> u32 {
        self.retries + 1
    }

    /// Messages trimmed or shed from the summariser's input so far.
    pub fn removed_history_items(&self) -> usize {
        self.removed
    }

    /// Tokens of the history when the compaction started.
    pub fn before_tokens(&self) -> Tokens {
        self.lifecycle.before_tokens
    }

    /// The summariser replied (a string, or a list of content parts): the
    /// history is replaced by [`summary_replacement`] of the working list (every
    /// message without an id given a fresh uuid4), then the emergency pass
    /// runs; an empty reply falls back (`summary_compact_not_applicable`).
    pub fn on_summary(self, reply: impl Into<Content>, now_micros: i64) -> Result<Ready> {
        let SummaryRequest {
            pipeline,
            lifecycle,
            mut pass,
            working,
            removed,
            ..
        } = self;
        let target = lifecycle.limits.target_limit;
        let half_target = ((target as f64 * 0.5) as Tokens).max(1);
        let user_limit = pipeline.config.recent_user_token_limit.min(half_target);
        let Some(built) =
            summary_replacement(&working, &reply.into(), user_limit, &pipeline.counter)
        else {
            return fall_back(
                pipeline,
                lifecycle,
                pass,
                failure_reason::NOT_APPLICABLE,
                now_micros,
            );
        };
        let messages = apply_replacement(pass.history.messages(), built.messages);
        let summary_message_id = messages
            .last()
            .and_then(Message::id)
            .unwrap_or_default()
            .to_string();
        let history = CountedHistory::new(messages, &pipeline.counter);
        let after = history.used_tokens();
        let completed = lifecycle.completed(after, &summary_message_id);
        pass.traces.push(
            TraceBuilder::new("summary_compact", "completed")
                .duration_ms(Some(lifecycle.elapsed_ms(now_micros)))
                .tokens(Some(lifecycle.before_tokens), Some(after))
                .attr("removed_history_items", Some(Value::from(removed)))
                .build(),
        );
        let replacement = Replacement {
            summary_text: built.summary_text,
            summary_message_id,
            removed_history_items: removed,
            record: completed.compaction.clone(),
        };
        let pass = Pass {
            history,
            changed: true,
            traces: pass.traces,
        };
        let compaction = Compaction {
            replacement: Some(replacement),
            events: vec![completed],
        };
        pipeline.finish(pass, &lifecycle.limits, compaction)
    }

    /// The summariser failed: a context-too-long error ([`is_context_too_long`])
    /// sheds the oldest quarter of the removable messages ([`summary_shed`]) and
    /// retries, at most `max_overflow_retries` times; anything else, or nothing
    /// left to shed, falls back (`summary_compact_failed`).
    pub fn on_error(mut self, error: &SummaryError, now_micros: i64) -> Result<AfterError> {
        if is_context_too_long(error) {
            let max = self.pipeline.config.max_overflow_retries;
            if let Some(dropped) = summary_shed(&mut self.working, self.retries, max) {
                self.retries += 1;
                self.removed += dropped;
                self.request = request_messages(&self.working);
                return Ok(AfterError::Retry(self));
            }
        }
        self.fall_back(failure_reason::FAILED, now_micros)
            .map(AfterError::Fallback)
    }

    /// Gives up on summarising: emits `fallback` and runs the emergency pass on the history.
    pub fn fall_back(self, reason: &str, now_micros: i64) -> Result<Ready> {
        fall_back(self.pipeline, self.lifecycle, self.pass, reason, now_micros)
    }
}

fn fall_back(
    pipeline: Pipeline,
    lifecycle: Lifecycle,
    mut pass: Pass,
    reason: &str,
    now_micros: i64,
) -> Result<Ready> {
    pass.traces
        .push(fallback_trace(&lifecycle, reason, now_micros));
    let compaction = Compaction {
        replacement: None,
        events: vec![lifecycle.fallback(reason)],
    };
    pipeline.finish(pass, &lifecycle.limits, compaction)
}
