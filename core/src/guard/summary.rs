//! Summary compaction as a state machine the host drives: a [`SummaryRequest`]
//! carries the exact summariser input; the host answers with the summary text
//! ([`SummaryRequest::on_summary`]) or the error the call ended with
//! ([`SummaryRequest::on_error`]), and heartbeats while it waits.

use super::lifecycle::{CompactionEvent, Lifecycle};
use super::sanitize::sanitize_tool_pairs;
use super::trim::{shed_oldest_quarter, trim_oldest};
use super::{
    is_summary, total_tokens, Decision, Guard, Ready, CHECKPOINT_RETAINED_FLAG,
    OVERFLOW_TRIM_FRACTION, SUMMARY_COMPACT_VERSION, SUMMARY_FLAG, SUMMARY_INSTRUCTION,
    SUMMARY_PREFIX, SUMMARY_VERSION_KEY,
};
use crate::budget::ContextLimits;
use crate::message::{Content, ContentPart, Message};
use crate::protocol::{failure_reason, format_created_at, CompactionStatus, ContextCompaction};
use crate::tokens::{TokenCounter, TOKENS_PER_REPLY};
use crate::tool_output::COMPACTED_FLAG;
use crate::traces::{ProtectionTrace, TraceBuilder};
use crate::Result;
use serde_json::Value;

/// Lower-cased markers of a context-too-long error message (English and Chinese provider phrasings).
pub const CONTEXT_TOO_LONG_MARKERS: &[&str] = &[
    "context_length_exceeded",
    "context length exceeded",
    "prompt is too long",
    "input is too long",
    "maximum context length",
    "request too large",
    "maximum number of tokens",
    "token limit exceeded",
    "输入长度超过",
    "输入过长",
    "请求体过大",
    "token 数量超过",
    "上下文长度",
];

/// Whether a failed model call was rejected for being too long: HTTP 413, or
/// a message containing one of [`CONTEXT_TOO_LONG_MARKERS`]; a bare 400 is not one.
pub fn is_context_too_long_error(message: &str, status: Option<u16>) -> bool {
    if status == Some(413) {
        return true;
    }
    let lower = message.to_lowercase();
    CONTEXT_TOO_LONG_MARKERS.iter().any(|m| lower.contains(m))
}

/// How the summariser call failed, as the host saw it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct SummaryError {
    /// The provider's or transport's error text.
    pub message: String,
    /// The HTTP status, when there was one.
    pub status: Option<u16>,
}

impl SummaryError {
    /// An error with a message and no status.
    pub fn new(message: impl Into<String>) -> Self {
        SummaryError {
            message: message.into(),
            status: None,
        }
    }

    /// The same error with an HTTP status.
    pub fn with_status(mut self, status: u16) -> Self {
        self.status = Some(status);
        self
    }

    /// Whether it is a context-too-long error ([`is_context_too_long_error`]).
    pub fn is_context_too_long(&self) -> bool {
        is_context_too_long_error(&self.message, self.status)
    }
}

/// What follows a failed summary call.
#[derive(Debug)]
pub enum AfterError {
    /// Context too long: ask again with the (shorter) [`SummaryRequest::messages`].
    Retry(SummaryRequest),
    /// Gave up (`summary_compact_failed`): proceed with the uncompacted history.
    Fallback(Ready),
}

/// A completed compaction: what replaced the history.
#[derive(Debug, Clone, PartialEq)]
pub struct Replacement {
    /// The summary body as the summariser returned it, trimmed.
    pub summary_text: String,
    /// The `id` given to the summary message.
    pub summary_message_id: String,
    /// Messages trimmed or shed from the summariser's input.
    pub removed_history_items: usize,
    /// The `completed` record, as also sent in [`Ready::events`].
    pub record: ContextCompaction,
}

/// A pending summary compaction: the summariser input and the state to finish it.
#[derive(Debug)]
pub struct SummaryRequest {
    guard: Guard,
    lifecycle: Lifecycle,
    /// The source-passed history, kept for the fallback.
    history: Vec<Message>,
    history_counts: Vec<usize>,
    history_changed: bool,
    /// Sanitised and trimmed history the summary is made from.
    working: Vec<Message>,
    request: Vec<Message>,
    removed: usize,
    retries: u32,
    started: CompactionEvent,
    next_heartbeat_micros: i64,
    traces: Vec<ProtectionTrace>,
}

/// Starts a compaction of an over-trigger history: trims the summariser input
/// to the target, or falls back when even the floor does not fit.
pub(crate) fn begin(
    guard: Guard,
    history: Vec<Message>,
    history_counts: Vec<usize>,
    limits: ContextLimits,
    now_micros: i64,
    history_changed: bool,
    mut traces: Vec<ProtectionTrace>,
) -> Result<Decision> {
    let lifecycle = Lifecycle {
        before_tokens: total_tokens(&history_counts) as i64,
        limits,
        created_at: format_created_at(now_micros),
        started_micros: now_micros,
    };
    let started = lifecycle.running(CompactionStatus::Started);
    let counter = guard.counter;
    let working = sanitize_tool_pairs(history.clone());
    let framing = counter.count_message(&instruction()) + TOKENS_PER_REPLY;
    let Some(plan) = trim_oldest(&working, limits.target_limit, framing, |m| {
        counter.count_message(m)
    }) else {
        traces.push(fallback_trace(
            &lifecycle,
            failure_reason::NOT_APPLICABLE,
            now_micros,
        ));
        let events = vec![started, lifecycle.fallback(failure_reason::NOT_APPLICABLE)];
        return guard
            .finish(
                history,
                history_counts,
                &limits,
                history_changed,
                None,
                events,
                traces,
            )
            .map(Decision::Proceed);
    };
    let working = plan.apply(working);
    let next_heartbeat_micros = now_micros.saturating_add(guard.config.heartbeat_interval_micros);
    let mut request = SummaryRequest {
        guard,
        lifecycle,
        history,
        history_counts,
        history_changed,
        working,
        request: Vec::new(),
        removed: plan.removed,
        retries: 0,
        started,
        next_heartbeat_micros,
        traces,
    };
    request.rebuild();
    Ok(Decision::NeedSummary(request))
}

fn instruction() -> Message {
    Message::new("user", SUMMARY_INSTRUCTION)
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
    /// The exact messages to send to the summariser: the kept history, tool
    /// pairs sanitised, then the final instruction turn.
    pub fn messages(&self) -> &[Message] {
        &self.request
    }

    /// The history this compaction started from, after the source pass: what
    /// a fallback keeps, and what a host stores and measures while it waits.
    pub fn history(&self) -> &[Message] {
        &self.history
    }

    /// Tokens of [`SummaryRequest::messages`] (at most the target limit on the first attempt).
    pub fn input_tokens(&self) -> i64 {
        self.guard.counter.count_messages(&self.request) as i64
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
            now_micros.saturating_add(self.guard.config.heartbeat_interval_micros);
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
    pub fn before_tokens(&self) -> i64 {
        self.lifecycle.before_tokens
    }

    /// The summariser answered: replaces the history (system messages, recent
    /// user messages marked `checkpoint_retained`, one summary message) and
    /// runs the emergency pass; an empty summary falls back (`summary_compact_not_applicable`).
    pub fn on_summary(self, text: &str, now_micros: i64) -> Result<Ready> {
        let body = text.trim();
        if body.is_empty() {
            return self.fall_back(failure_reason::NOT_APPLICABLE, now_micros);
        }
        let SummaryRequest {
            guard,
            lifecycle,
            working,
            removed,
            mut traces,
            ..
        } = self;
        let counter = guard.counter;
        let summary_id = format!("cg-summary-{}", lifecycle.started_micros);
        let target = lifecycle.limits.target_limit;
        let half_target = ((target as f64 * 0.5) as i64).max(1) as usize;
        let user_budget = guard.config.recent_user_token_limit.min(half_target);

        let mut messages: Vec<Message> =
            working.iter().filter(|m| m.is_system()).cloned().collect();
        for (k, mut retained) in select_recent_user_messages(&working, user_budget, &counter)
            .into_iter()
            .enumerate()
        {
            if retained.extra.contains_key("id") {
                retained.extra.insert(
                    "id".into(),
                    Value::from(format!("{summary_id}-retained-{k}")),
                );
            }
            messages.push(retained);
        }
        let mut summary = Message::new("user", format!("{SUMMARY_PREFIX}\n\n{body}"));
        summary.set_kwarg(COMPACTED_FLAG, Value::Bool(true));
        summary.set_kwarg(SUMMARY_FLAG, Value::Bool(true));
        summary.set_kwarg(SUMMARY_VERSION_KEY, Value::from(SUMMARY_COMPACT_VERSION));
        summary
            .extra
            .insert("id".into(), Value::from(summary_id.clone()));
        messages.push(summary);

        let counts: Vec<usize> = messages.iter().map(|m| counter.count_message(m)).collect();
        let after = total_tokens(&counts) as i64;
        let completed = lifecycle.completed(after, &summary_id);
        traces.push(
            TraceBuilder::new("summary_compact", "completed")
                .duration_ms(Some(lifecycle.elapsed_ms(now_micros)))
                .tokens(Some(lifecycle.before_tokens), Some(after))
                .attr("removed_history_items", Some(Value::from(removed)))
                .build(),
        );
        let replacement = Replacement {
            summary_text: body.to_string(),
            summary_message_id: summary_id,
            removed_history_items: removed,
            record: completed.compaction.clone(),
        };
        guard.finish(
            messages,
            counts,
            &lifecycle.limits,
            true,
            Some(replacement),
            vec![completed],
            traces,
        )
    }

    /// The summariser failed: a context-too-long error sheds the oldest quarter
    /// (at least one) of the removable messages and retries, at most 3 times;
    /// anything else falls back (`summary_compact_failed`).
    pub fn on_error(mut self, error: &SummaryError, now_micros: i64) -> Result<AfterError> {
        if error.is_context_too_long() && self.retries < self.guard.config.max_overflow_retries {
            let dropped = shed_oldest_quarter(&mut self.working, OVERFLOW_TRIM_FRACTION);
            if dropped > 0 {
                self.retries += 1;
                self.removed += dropped;
                self.rebuild();
                return Ok(AfterError::Retry(self));
            }
        }
        self.fall_back(failure_reason::FAILED, now_micros)
            .map(AfterError::Fallback)
    }

    /// Gives up on summarising: emits `fallback` and runs the emergency pass on the history.
    pub fn fall_back(self, reason: &str, now_micros: i64) -> Result<Ready> {
        let SummaryRequest {
            guard,
            lifecycle,
            history,
            history_counts,
            history_changed,
            mut traces,
            ..
        } = self;
        traces.push(fallback_trace(&lifecycle, reason, now_micros));
        let events = vec![lifecycle.fallback(reason)];
        guard.finish(
            history,
            history_counts,
            &lifecycle.limits,
            history_changed,
            None,
            events,
            traces,
        )
    }

    fn rebuild(&mut self) {
        let mut request = sanitize_tool_pairs(self.working.clone());
        request.push(instruction());
        self.request = request;
    }
}

/// The most recent user messages (summaries excepted) within `token_limit`
/// tokens, newest first, the last one cut to the remaining budget, each
/// marked `checkpoint_retained`; returned oldest first.
pub fn select_recent_user_messages(
    messages: &[Message],
    token_limit: usize,
    counter: &TokenCounter,
) -> Vec<Message> {
    let mut selected = Vec::new();
    let mut used = 0usize;
    for message in messages.iter().rev() {
        if !message.is_user() || is_summary(message) {
            continue;
        }
        let remaining = token_limit.saturating_sub(used);
        if remaining == 0 {
            break;
        }
        let tokens = counter.count_message(message) + TOKENS_PER_REPLY;
        if tokens <= remaining {
            selected.push(retained(message.clone()));
            used += tokens;
            continue;
        }
        selected.push(retained(cut_user_message(message, remaining, counter)));
        break;
    }
    selected.reverse();
    selected
}

fn retained(mut message: Message) -> Message {
    message.set_kwarg(CHECKPOINT_RETAINED_FLAG, Value::Bool(true));
    message
}

/// The message with its text cut to its first `token_budget` tokens (unchanged when they fit).
fn cut_user_message(message: &Message, token_budget: usize, counter: &TokenCounter) -> Message {
    let text = extract_text(message);
    let mut out = message.clone();
    if text.is_empty() {
        out.content = Some(Content::Text(String::new()));
        return out;
    }
    let ids = counter.encode(&text);
    if ids.len() <= token_budget {
        return out;
    }
    out.content = Some(Content::Text(counter.decode_lossy(&ids[..token_budget])));
    out
}

/// The text of a message for cutting: a string, or its text (and `thinking`) parts joined without separator.
fn extract_text(message: &Message) -> String {
    match &message.content {
        None => String::new(),
        Some(Content::Text(t)) => t.clone(),
        Some(Content::Parts(parts)) => parts
            .iter()
            .filter_map(|p| match p {
                ContentPart::Text { text, .. } | ContentPart::Bare(text) => Some(text.clone()),
                ContentPart::Other(Value::Object(o)) => ["text", "thinking"]
                    .iter()
                    .find_map(|k| o.get(*k).filter(|v| is_truthy(v)))
                    .map(|v| v.as_str().map_or_else(|| v.to_string(), str::to_string)),
                _ => None,
            })
            .collect(),
        Some(Content::Other(Value::Null)) => String::new(),
        Some(Content::Other(v)) => v.to_string(),
    }
}

fn is_truthy(v: &Value) -> bool {
    match v {
        Value::Null => false,
        Value::Bool(b) => *b,
        Value::String(s) => !s.is_empty(),
        _ => true,
    }
}
