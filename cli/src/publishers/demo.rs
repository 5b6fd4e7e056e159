//! The built-in demo session: a conversation that grows forever (user turns,
//! assistant tool calls, raw tool outputs, attachments through the preview),
//! governed by core's [`Guard`] before every simulated model call and
//! measured by core's ledger, emitted under the reference's phases and
//! throttling.
//!
//! Before each model call the guard runs its source pass (the new tool
//! outputs are rendered under a 1 500-token policy and marked `compacted`);
//! over the trigger it asks for a summary, and the demo answers it with the
//! embedded [`ExtractiveSummarizer`] (or, with `--summarizer-url`, the host
//! calls an OpenAI-compatible endpoint). The toolbar's lifecycle (`started`,
//! `in_progress` heartbeats, `completed` or `fallback`) is the guard's
//! [`CompactionEvent`]s, then `after_compaction` with the replacement.
//!
//! Failure injection (`fail_every` = N > 0, `inject.rs`): the N/2-th compaction of every
//! N (N ≥ 2) has its first summary attempt rejected as too long
//! (`context_length_exceeded`), so the guard retries with fewer messages and
//! completes; every N-th has that rejection and then a non-context error
//! (HTTP 503), so it falls back (`summary_compact_failed`). When a fallback
//! leaves the history over the trigger, the demo trims the oldest messages to
//! the target (the legacy fallback, `used_legacy_fallback: true`).
//!
//! Sans-IO: [`Demo`] is told the time and hands back events; it never sleeps.
//! [`Demo::next_deadline`] says when it next has work, [`Demo::handle_timeout`]
//! does everything due by then; an embedded summary takes virtual time
//! (40 s at speed 1), so heartbeats show. With an external summariser the
//! host takes [`Demo::take_summary_call`] and reports back with
//! [`Demo::summary_result`]. [`drive`] runs it all on the tokio clock.

mod driver;
mod inject;
#[cfg(test)]
mod tests;
mod text;

pub use driver::drive;

use super::summarizer::{ExtractiveSummarizer, HttpSummarizerConfig, DEFAULT_SUMMARY_TOKENS};
use ctxguard_core::attachment::{has_block_marker, preview_messages};
use ctxguard_core::budget::{context_limits, ContextLimits, ModelConfig};
use ctxguard_core::cut::TruncationPolicy;
use ctxguard_core::guard::{
    current_user_index, sanitize_tool_pairs, AfterError, CompactionEvent, Decision, Guard,
    GuardConfig, Ready, SummaryError, SummaryRequest,
};
use ctxguard_core::ledger::Ledger;
use ctxguard_core::metrics::{should_emit, EmitState};
use ctxguard_core::protocol::{CompactionStatus, Phase, StatusEvent};
use ctxguard_core::tokens::{TokenCounter, Tokens, TOKENS_PER_REPLY};
use ctxguard_core::Message;
use inject::Injection;
use std::time::Duration;
use text::TextGenerator;

/// Model id of the demo conversation (picks the encoding).
pub const MODEL: &str = "gpt-4o";
/// The demo's small window, so compactions come often.
pub const CONTEXT_WINDOW_TOKENS: i64 = 32_000;
/// The demo model's max output.
pub const MAX_OUTPUT_TOKENS: i64 = 4_096;
/// Tool outputs are cut to this many tokens (the guard's source-pass policy).
pub const TOOL_OUTPUT_LIMIT_TOKENS: i64 = 1_500;
/// Budget of one attachment block.
pub const ATTACHMENT_LIMIT_TOKENS: i64 = 3_000;

/// Delays at speed 1.
const THINK: Duration = Duration::from_millis(1_200);
const TOOL_MIN: Duration = Duration::from_millis(1_500);
const REPLY: Duration = Duration::from_millis(2_000);
const BETWEEN_TURNS: Duration = Duration::from_millis(3_000);
/// An embedded summary attempt.
const SUMMARY: Duration = Duration::from_millis(40_000);
/// An injected failing attempt (a provider rejects quickly).
const REJECTED: Duration = Duration::from_millis(8_000);

/// Which summariser answers the guard's requests.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum SummarizerChoice {
    /// The embedded [`ExtractiveSummarizer`]; each attempt takes 40 s of (scaled) virtual time.
    #[default]
    Extractive,
    /// An OpenAI-compatible endpoint, called by the host ([`drive`]).
    Http(HttpSummarizerConfig),
}

/// How the demo runs.
#[derive(Debug, Clone, PartialEq)]
pub struct DemoConfig {
    /// Time scale: 2.0 runs twice as fast (heartbeats and external summaries excepted).
    pub speed: f64,
    /// Interval of `in_progress` heartbeats while a summary runs (not scaled by speed).
    pub heartbeat: Duration,
    /// Failure injection period (see the module docs); 0 never injects.
    pub fail_every: u32,
    /// Shown as the failure_reason of fallbacks instead of the guard's reason.
    pub failure_reason: Option<String>,
    /// Who summarises.
    pub summarizer: SummarizerChoice,
    /// Seed of the generated text.
    pub seed: u64,
}

impl Default for DemoConfig {
    fn default() -> Self {
        DemoConfig {
            speed: 1.0,
            heartbeat: Duration::from_secs(15),
            fail_every: 4,
            failure_reason: None,
            summarizer: SummarizerChoice::Extractive,
            seed: 0x5eed_c7a6,
        }
    }
}

/// The model limits the demo runs under.
pub fn demo_limits() -> ContextLimits {
    let config = ModelConfig {
        context_window: Some(CONTEXT_WINDOW_TOKENS),
        max_output_tokens: Some(MAX_OUTPUT_TOKENS),
    };
    context_limits(MODEL, Some(&config), None)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Step {
    UserTurn,
    ToolRun,
    Reply,
}

/// The state of the current summary attempt.
#[derive(Debug)]
enum Attempt {
    /// Its answer is known (embedded summariser or injected error) and lands at `at`.
    Scheduled {
        at: Duration,
        result: Result<String, SummaryError>,
    },
    /// Handed to the host as call `id` (once `taken`); waits for [`Demo::summary_result`].
    External { id: u64, taken: bool },
}

#[derive(Debug)]
struct Compaction {
    request: SummaryRequest,
    attempt: Attempt,
    injection: Injection,
}

/// A summariser call the host must make (external summariser only).
#[derive(Debug, Clone, PartialEq)]
pub struct SummaryCall {
    /// Pass it back to [`Demo::summary_result`].
    pub id: u64,
    /// The guard's request messages, to send as is.
    pub messages: Vec<Message>,
}

/// What the demo has done so far (for tests and the log).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct DemoStats {
    /// Compactions started.
    pub compactions: u32,
    /// Completed ones.
    pub completed: u32,
    /// Fallbacks.
    pub fallbacks: u32,
    /// Retries after context-too-long errors.
    pub retries: u32,
    /// Legacy trims after a fallback left the history over the trigger.
    pub legacy_trims: u32,
}

/// The demo conversation's state machine.
#[derive(Debug)]
pub struct Demo {
    config: DemoConfig,
    counter: TokenCounter,
    limits: ContextLimits,
    guard: Guard,
    extractive: ExtractiveSummarizer,
    history: Vec<Message>,
    ledger: Ledger,
    text: TextGenerator,
    turn: u64,
    tools_left: u32,
    calls: u64,
    step: Step,
    due: Duration,
    compaction: Option<Compaction>,
    next_call_id: u64,
    stats: DemoStats,
    last_emitted: Option<EmitState>,
    start_unix_micros: i64,
    notes: Vec<String>,
}

impl Demo {
    /// A demo whose virtual time 0 is `start_unix_micros` (for `created_at`).
    pub fn new(config: DemoConfig, start_unix_micros: i64) -> Self {
        let counter = TokenCounter::for_model(MODEL);
        let guard = Guard::with_config(
            counter,
            GuardConfig {
                tool_output_policy: TruncationPolicy::tokens(TOOL_OUTPUT_LIMIT_TOKENS),
                heartbeat_interval_micros: config
                    .heartbeat
                    .max(Duration::from_millis(1))
                    .as_micros() as i64,
                // The toolbar's ledger counts tool calls, as the metrics do; so does the guard here.
                strict_counting: true,
                ..GuardConfig::default()
            },
        );
        let system = Message::system("You are a careful build engineer. Use the tools to inspect logs and files before answering, \
             and keep answers short.",
        );
        let history = vec![system];
        let ledger = Ledger::from_messages(counter, &history);
        Demo {
            text: TextGenerator::new(config.seed),
            config,
            counter,
            limits: demo_limits(),
            guard,
            extractive: ExtractiveSummarizer::new(counter, DEFAULT_SUMMARY_TOKENS),
            history,
            ledger,
            turn: 0,
            tools_left: 0,
            calls: 0,
            step: Step::UserTurn,
            due: Duration::ZERO,
            compaction: None,
            next_call_id: 0,
            stats: DemoStats::default(),
            last_emitted: None,
            start_unix_micros,
            notes: Vec::new(),
        }
    }

    /// The current history.
    #[cfg(test)]
    pub fn history(&self) -> &[Message] {
        &self.history
    }

    /// Tokens the history uses now.
    #[cfg(test)]
    pub fn used_tokens(&self) -> i64 {
        self.ledger.used_tokens()
    }

    /// Whether a summary is running.
    #[cfg(test)]
    pub fn is_compacting(&self) -> bool {
        self.compaction.is_some()
    }

    /// What happened so far.
    #[cfg(test)]
    pub fn stats(&self) -> DemoStats {
        self.stats
    }

    /// Log lines since the last call (retries, fallbacks, external errors).
    pub fn take_notes(&mut self) -> Vec<String> {
        std::mem::take(&mut self.notes)
    }

    /// Virtual time of the next piece of work (a heartbeat, a summary answer, a step).
    pub fn next_deadline(&self) -> Duration {
        match &self.compaction {
            Some(c) => {
                let beat = self.virtual_time(c.request.next_heartbeat_at());
                match &c.attempt {
                    Attempt::Scheduled { at, .. } => beat.min(*at),
                    Attempt::External { .. } => beat,
                }
            }
            None => self.due,
        }
    }

    /// Does everything due at or before `now`; returns the events to send, in order.
    pub fn handle_timeout(&mut self, now: Duration) -> Vec<StatusEvent> {
        let mut out = Vec::new();
        while self.next_deadline() <= now {
            let at = self.next_deadline();
            self.step_at(at, &mut out);
        }
        out
    }

    /// The summariser call the host should make now, once (external summariser only).
    pub fn take_summary_call(&mut self) -> Option<SummaryCall> {
        let c = self.compaction.as_mut()?;
        match &mut c.attempt {
            Attempt::External { id, taken } if !*taken => {
                *taken = true;
                Some(SummaryCall {
                    id: *id,
                    messages: c.request.messages().to_vec(),
                })
            }
            _ => None,
        }
    }

    /// The host's summariser call `id` ended at `now`: runs what was due
    /// before, then hands the answer to the guard. A stale id is ignored.
    pub fn summary_result(
        &mut self,
        id: u64,
        result: Result<String, SummaryError>,
        now: Duration,
    ) -> Vec<StatusEvent> {
        let mut out = Vec::new();
        while self.next_deadline() < now {
            let at = self.next_deadline();
            self.step_at(at, &mut out);
        }
        let current = matches!(
            self.compaction.as_ref().map(|c| &c.attempt),
            Some(Attempt::External { id: i, .. }) if *i == id
        );
        if current {
            self.answer(now, result, &mut out);
        }
        out
    }

    fn virtual_time(&self, unix_micros: i64) -> Duration {
        Duration::from_micros(unix_micros.saturating_sub(self.start_unix_micros).max(0) as u64)
    }

    fn unix_micros(&self, at: Duration) -> i64 {
        self.start_unix_micros + at.as_micros() as i64
    }

    fn scaled(&self, d: Duration) -> Duration {
        let speed = if self.config.speed.is_finite() && self.config.speed > 0.0 {
            self.config.speed
        } else {
            1.0
        };
        Duration::from_secs_f64(d.as_secs_f64() / speed)
    }

    fn step_at(&mut self, at: Duration, out: &mut Vec<StatusEvent>) {
        if let Some(c) = &self.compaction {
            // The answer wins a tie with a heartbeat.
            let answer_due = matches!(&c.attempt, Attempt::Scheduled { at: t, .. } if *t <= at);
            if answer_due {
                let attempt = self.compaction.as_mut().map(|c| {
                    std::mem::replace(&mut c.attempt, Attempt::External { id: 0, taken: true })
                });
                if let Some(Attempt::Scheduled { result, .. }) = attempt {
                    self.answer(at, result, out);
                }
            } else {
                let now = self.unix_micros(at);
                let beat = self
                    .compaction
                    .as_mut()
                    .and_then(|c| c.request.heartbeat(now));
                if let Some(beat) = beat {
                    let event = self.compaction_event(&beat);
                    out.push(event);
                }
            }
            return;
        }
        match self.step {
            Step::UserTurn => {
                self.turn += 1;
                let message = self.user_message();
                self.push(message);
                self.tools_left = 1 + (self.text.next_u64() % 3) as u32;
                self.model_call(at, Phase::BuildMessages, Step::ToolRun, THINK, out);
            }
            Step::ToolRun => {
                self.calls += 1;
                let (call, result) = self.text.tool_exchange(self.calls);
                self.push(call);
                self.push(result);
                self.tools_left = self.tools_left.saturating_sub(1);
                let (next, delay) = if self.tools_left > 0 {
                    (Step::ToolRun, TOOL_MIN)
                } else {
                    (Step::Reply, REPLY)
                };
                self.model_call(at, Phase::AfterToolEnd, next, delay, out);
            }
            Step::Reply => {
                let reply = Message::assistant(self.text.words_between(40, 80));
                self.push(reply);
                self.emit(Phase::Final, out);
                self.step = Step::UserTurn;
                self.due = at + self.scaled(BETWEEN_TURNS);
            }
        }
    }

    /// The guard point before a model call: the guard's source pass, then
    /// (over the trigger) a summary compaction, then its emergency pass; emits
    /// `phase` with the governed history and schedules `next` after `delay`.
    fn model_call(
        &mut self,
        at: Duration,
        phase: Phase,
        next: Step,
        delay: Duration,
        out: &mut Vec<StatusEvent>,
    ) {
        self.step = next;
        let decision =
            self.guard
                .before_model_call(self.history.clone(), &self.limits, self.unix_micros(at));
        match decision {
            Ok(Decision::Proceed(ready)) => {
                if ready.events.is_empty() {
                    self.adopt(ready.messages);
                    self.emit(phase, out);
                } else {
                    // Not applicable (even the floor is over the target): `started` and `fallback` at once.
                    self.emit(phase, out);
                    self.stats.compactions += 1;
                    self.complete(ready, out);
                }
                self.due = at + self.scaled(delay);
            }
            Ok(Decision::NeedSummary(request)) => {
                self.adopt(request.history().to_vec());
                self.emit(phase, out);
                let started = request.started().clone();
                let event = self.compaction_event(&started);
                out.push(event);
                self.stats.compactions += 1;
                let injection =
                    Injection::for_compaction(self.stats.compactions, self.config.fail_every);
                let mut c = Compaction {
                    request,
                    attempt: Attempt::External { id: 0, taken: true },
                    injection,
                };
                c.attempt = self.begin_attempt(&c, at);
                self.compaction = Some(c);
            }
            Err(e) => {
                self.notes.push(format!("guard: {e}"));
                self.emit(phase, out);
                self.legacy_trim();
                self.due = at + self.scaled(delay);
            }
        }
    }

    /// Starts the request's current attempt at `at`.
    fn begin_attempt(&mut self, c: &Compaction, at: Duration) -> Attempt {
        if let Some(error) = c.injection.error(c.request.attempt()) {
            return Attempt::Scheduled {
                at: at + self.scaled(REJECTED),
                result: Err(error),
            };
        }
        match self.config.summarizer {
            SummarizerChoice::Extractive => Attempt::Scheduled {
                at: at + self.scaled(SUMMARY),
                result: self.extractive.summarize(c.request.messages()),
            },
            SummarizerChoice::Http(_) => {
                self.next_call_id += 1;
                Attempt::External {
                    id: self.next_call_id,
                    taken: false,
                }
            }
        }
    }

    /// Hands a summary answer to the guard: completed, a retry, or a fallback.
    fn answer(
        &mut self,
        at: Duration,
        result: Result<String, SummaryError>,
        out: &mut Vec<StatusEvent>,
    ) {
        let Some(mut c) = self.compaction.take() else {
            return;
        };
        let now = self.unix_micros(at);
        let outcome = match result {
            Ok(text) => c.request.on_summary(&text, now),
            Err(error) => match c.request.on_error(&error, now) {
                Ok(AfterError::Retry(next)) => {
                    self.stats.retries += 1;
                    self.notes.push(format!(
                        "summary attempt {} rejected as too long ({}); retrying with {} messages, {} removed so far",
                        next.attempt() - 1,
                        clip(&error.message),
                        next.messages().len(),
                        next.removed_history_items()
                    ));
                    c.request = next;
                    c.attempt = self.begin_attempt(&c, at);
                    self.compaction = Some(c);
                    return;
                }
                Ok(AfterError::Fallback(ready)) => {
                    self.notes
                        .push(format!("summary failed ({}); falling back", error.message));
                    Ok(ready)
                }
                Err(e) => Err(e),
            },
        };
        match outcome {
            Ok(ready) => self.complete(ready, out),
            Err(e) => {
                // The guard gave up without a result (the demo carries no bypassed payloads).
                self.notes.push(format!("guard: {e}"));
                self.legacy_trim();
                self.emit(Phase::AfterCompaction, out);
            }
        }
        self.due = at + self.scaled(THINK);
    }

    /// A compaction ended with `ready`: sends its closing events (a fallback
    /// measured before the compaction, a completion after it), adopts its
    /// history, trims when a fallback left it over the trigger, then
    /// `after_compaction`.
    fn complete(&mut self, ready: Ready, out: &mut Vec<StatusEvent>) {
        let Ready {
            messages, events, ..
        } = ready;
        let over = self.counter.count_messages(&messages) >= self.limits.trigger_limit;
        let mut messages = Some(messages);
        let mut legacy = false;
        for mut event in events {
            match event.compaction.status {
                CompactionStatus::Completed => {
                    self.stats.completed += 1;
                    if let Some(m) = messages.take() {
                        self.adopt(m);
                    }
                }
                CompactionStatus::Fallback => {
                    self.stats.fallbacks += 1;
                    if let Some(reason) = &self.config.failure_reason {
                        event.compaction.failure_reason = Some(reason.clone());
                    }
                    if over {
                        event.compaction.used_legacy_fallback = true;
                        legacy = true;
                    }
                }
                _ => {}
            }
            let status = self.compaction_event(&event);
            out.push(status);
        }
        if let Some(m) = messages {
            self.adopt(m);
        }
        if legacy {
            self.notes.push(
                "the fallback left the history over the trigger: legacy trim to the target".into(),
            );
            self.legacy_trim();
        }
        self.emit(Phase::AfterCompaction, out);
    }

    /// A guard event as a status event, with the ledger's breakdown when the
    /// ledger measures the same history (before the compaction for running
    /// and fallback events, the replacement for a completion).
    fn compaction_event(&mut self, event: &CompactionEvent) -> StatusEvent {
        let mut status = event.to_status_event(self.response_id());
        let snapshot = self.ledger.snapshot(&self.limits);
        if snapshot.used_input_tokens == status.context_metrics.used_input_tokens {
            status.context_metrics = snapshot;
        }
        self.last_emitted = Some(EmitState::from(&status.context_metrics));
        status
    }

    fn emit(&mut self, phase: Phase, out: &mut Vec<StatusEvent>) {
        let snapshot = self.ledger.snapshot(&self.limits);
        let state = EmitState::from(&snapshot);
        if should_emit(self.last_emitted, state, phase) {
            self.last_emitted = Some(state);
            out.push(StatusEvent::new(self.response_id(), phase, snapshot));
        }
    }

    fn response_id(&self) -> String {
        format!("resp_demo_{:04}", self.turn)
    }

    fn push(&mut self, message: Message) {
        self.ledger.push(&message);
        self.history.push(message);
    }

    /// Makes `messages` the history, recounting only the messages that changed.
    fn adopt(&mut self, messages: Vec<Message>) {
        if messages.len() == self.history.len() {
            for (i, (new, old)) in messages.iter().zip(&self.history).enumerate() {
                if new != old {
                    self.ledger.replace(i, new);
                }
            }
        } else {
            self.ledger = Ledger::from_messages(self.counter, &messages);
        }
        self.history = messages;
    }

    /// The legacy fallback: drops the oldest messages (never system messages
    /// or the current user message) until the history fits the target, then
    /// sanitises the tool pairs.
    fn legacy_trim(&mut self) {
        self.stats.legacy_trims += 1;
        let costs: Vec<Tokens> = self
            .history
            .iter()
            .map(|m| self.counter.count_message(m))
            .collect();
        let mut total = costs.iter().sum::<Tokens>() + TOKENS_PER_REPLY;
        let current = current_user_index(&self.history);
        let mut kept = Vec::with_capacity(self.history.len());
        for (i, m) in self.history.iter().enumerate() {
            if total > self.limits.target_limit && !m.is_system() && Some(i) != current {
                total -= costs[i];
                continue;
            }
            kept.push(m.clone());
        }
        self.adopt(sanitize_tool_pairs(kept));
    }

    /// The next user turn; attachment blocks cut by the preview pass to the block budget.
    fn user_message(&mut self) -> Message {
        let message = self.text.user_message(self.turn);
        if !has_block_marker(&message.content_as_text()) {
            return message;
        }
        let outcome = preview_messages(
            std::slice::from_ref(&message),
            &self.counter,
            ATTACHMENT_LIMIT_TOKENS,
        );
        outcome.messages.into_iter().next().unwrap_or(message)
    }
}

/// An error message for the log, on one line and at most 160 characters.
fn clip(message: &str) -> String {
    let line = message.lines().next().unwrap_or("");
    match line.char_indices().nth(160) {
        Some((i, _)) => format!("{}…", &line[..i]),
        None => line.to_string(),
    }
}
