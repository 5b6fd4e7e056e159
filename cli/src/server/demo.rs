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
//! Failure injection (`fail_every` = N > 0): the N/2-th compaction of every
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

use super::session::Session;
use super::summarizer::{
    ExtractiveSummarizer, HttpSummarizer, HttpSummarizerConfig, DEFAULT_SUMMARY_TOKENS,
};
use ctxguard_core::attachment::{build_header, preview_messages, HeaderArgs};
use ctxguard_core::budget::{context_limits, ContextLimits, ModelConfig};
use ctxguard_core::guard::{
    current_user_index, sanitize_tool_pairs, AfterError, CompactionEvent, Decision, Guard,
    GuardConfig, Ready, SummaryError, SummaryRequest,
};
use ctxguard_core::ledger::Ledger;
use ctxguard_core::message::FunctionCall;
use ctxguard_core::metrics::{should_emit, EmitState};
use ctxguard_core::protocol::{CompactionStatus, Phase, StatusEvent};
use ctxguard_core::tokens::{TokenCounter, Tokens, TOKENS_PER_REPLY};
use ctxguard_core::tool_output::TruncationPolicy;
use ctxguard_core::{Message, ToolCall};
use serde_json::{json, Map, Value};
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::{mpsc, watch};

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

/// Text of the injected context-too-long error.
pub const INJECTED_TOO_LONG: &str = "This model's maximum context length is 16384 tokens; \
     please reduce the length of the messages (context_length_exceeded, injected by --fail-every)";
/// Text of the injected non-context error.
pub const INJECTED_FAILURE: &str = "summariser unavailable (injected by --fail-every)";

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

/// What failure injection does to one compaction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Injection {
    /// Summaries run as they come.
    None,
    /// Attempt 1 is rejected as too long; the retry runs as it comes.
    TooLongOnce,
    /// Attempt 1 is rejected as too long, attempt 2 with a non-context error.
    TooLongThenFail,
}

impl Injection {
    fn for_compaction(number: u32, every: u32) -> Self {
        if every == 0 {
            Injection::None
        } else if number % every == 0 {
            Injection::TooLongThenFail
        } else if every >= 2 && number % every == every / 2 {
            Injection::TooLongOnce
        } else {
            Injection::None
        }
    }

    fn error(self, attempt: u32) -> Option<SummaryError> {
        match (self, attempt) {
            (Injection::TooLongOnce | Injection::TooLongThenFail, 1) => {
                Some(SummaryError::new(INJECTED_TOO_LONG).with_status(400))
            }
            (Injection::TooLongThenFail, 2) => {
                Some(SummaryError::new(INJECTED_FAILURE).with_status(503))
            }
            _ => None,
        }
    }
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
    rng: u64,
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
        let system = Message::new(
            "system",
            "You are a careful build engineer. Use the tools to inspect logs and files before answering, \
             and keep answers short.",
        );
        let history = vec![system];
        let ledger = Ledger::from_messages(counter, &history);
        Demo {
            rng: config.seed | 1,
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
                self.tools_left = 1 + (self.next_u64() % 3) as u32;
                self.model_call(at, Phase::BuildMessages, Step::ToolRun, THINK, out);
            }
            Step::ToolRun => {
                let (call, result) = self.tool_exchange();
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
                let reply = Message::new("assistant", self.words_between(40, 80));
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

    fn user_message(&mut self) -> Message {
        let prompt = PROMPTS[(self.turn as usize - 1) % PROMPTS.len()];
        if self.turn % 3 != 0 {
            return Message::new("user", format!("{prompt} {}", self.words_between(10, 30)));
        }
        let files = 1 + (self.next_u64() % 2) as usize;
        let mut block = String::from("<attachment>");
        for f in 0..files {
            let (name, mime) = ATTACHMENTS[(self.turn as usize + f) % ATTACHMENTS.len()];
            let body = self.words_between(600, 3_000);
            let header = build_header(&HeaderArgs {
                attachment_id: (self.turn * 10 + f as u64) as i64,
                filename: name.into(),
                mime_type: Some(mime.into()),
                file_size: body.len() as i64,
                sandbox_path: Some(format!("/home/user/uploads/{name}")),
                is_image: false,
            });
            block.push_str(&header);
            block.push('\n');
            block.push_str(&body);
            block.push('\n');
        }
        block.push_str("</attachment>");
        let message = Message::new("user", format!("{prompt} The files are attached.\n{block}"));
        let outcome = preview_messages(
            std::slice::from_ref(&message),
            &self.counter,
            ATTACHMENT_LIMIT_TOKENS,
        );
        outcome.messages.into_iter().next().unwrap_or(message)
    }

    /// An assistant tool call and its raw result (the guard renders it before the next call).
    fn tool_exchange(&mut self) -> (Message, Message) {
        self.calls += 1;
        let (tool, args) = TOOLS[(self.next_u64() as usize) % TOOLS.len()];
        let call_id = format!("call_{:05}", self.calls);
        let call = ToolCall::Function {
            id: Some(call_id.clone()),
            function: FunctionCall {
                name: tool.into(),
                arguments: Value::String(args.into()),
                extra: Map::new(),
            },
            extra: Map::from_iter([("type".to_string(), json!("function"))]),
        };
        let mut assistant = Message::new("assistant", "");
        assistant.tool_calls = Some(vec![call]);
        let words = 80 + (self.next_u64() % 2_400) as usize;
        let mut output = Message::new("tool", self.log_lines(words));
        output.name = Some(tool.into());
        output.tool_call_id = Some(call_id);
        // The guard only rewrites tool messages it can upsert by id.
        output.set_id(format!("tool_{:05}", self.calls));
        output.set_kwarg(
            "exit_code",
            json!(if self.next_u64() % 5 == 0 { 1 } else { 0 }),
        );
        output.set_kwarg(
            "wall_time",
            json!((self.next_u64() % 90) as f64 / 10.0 + 0.1),
        );
        (assistant, output)
    }

    fn next_u64(&mut self) -> u64 {
        // xorshift64*
        self.rng ^= self.rng >> 12;
        self.rng ^= self.rng << 25;
        self.rng ^= self.rng >> 27;
        self.rng.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// Between `min` and `min + span - 1` words.
    fn words_between(&mut self, min: usize, span: u64) -> String {
        let n = min + (self.next_u64() % span) as usize;
        self.sentence(n)
    }

    fn sentence(&mut self, words: usize) -> String {
        let mut out = String::with_capacity(words * 7);
        for i in 0..words {
            if i > 0 {
                out.push(if i % 13 == 0 { '.' } else { ' ' });
                if i % 13 == 0 {
                    out.push(' ');
                }
            }
            out.push_str(WORDS[(self.next_u64() as usize) % WORDS.len()]);
        }
        out.push('.');
        out
    }

    fn log_lines(&mut self, words: usize) -> String {
        let mut out = String::new();
        let mut line = 0;
        let mut left = words;
        while left > 0 {
            let n = left.min(9);
            line += 1;
            let level = ["INFO", "WARN", "DEBUG", "ERROR"][(self.next_u64() % 4) as usize];
            out.push_str(&format!("{line:04} {level} {}\n", self.sentence(n)));
            left -= n;
        }
        out
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

const PROMPTS: &[&str] = &[
    "Why does the nightly build fail on the ARM runners?",
    "Check whether the cache key changed between the last two releases.",
    "Summarise what the integration tests complain about.",
    "Find where the timeout for the upload step is configured.",
    "Compare the flaky test's logs from Monday and today.",
    "Is the linker error related to the new allocator?",
    "What would it take to split the release job in two?",
];

const ATTACHMENTS: &[(&str, &str)] = &[
    ("build-notes.md", "text/markdown"),
    ("runner-metrics.csv", "text/csv"),
    ("pipeline.yaml", "application/x-yaml"),
    ("failure-report.txt", "text/plain"),
];

const TOOLS: &[(&str, &str)] = &[
    ("shell", r#"{"cmd": "grep -n error build.log"}"#),
    ("read_file", r#"{"path": "ci/release.yml"}"#),
    ("shell", r#"{"cmd": "cargo test --workspace"}"#),
    (
        "web_search",
        r#"{"query": "linker relocation overflow aarch64"}"#,
    ),
];

const WORDS: &[&str] = &[
    "cache",
    "runner",
    "artifact",
    "linker",
    "timeout",
    "retry",
    "stage",
    "upload",
    "worker",
    "queue",
    "token",
    "manifest",
    "checksum",
    "release",
    "branch",
    "commit",
    "build",
    "target",
    "profile",
    "allocator",
    "thread",
    "socket",
    "deadline",
    "fixture",
    "snapshot",
    "pipeline",
    "module",
    "symbol",
    "overflow",
    "config",
    "budget",
    "window",
    "context",
    "summary",
    "shard",
    "cluster",
    "node",
    "image",
    "layer",
    "registry",
    "mirror",
    "proxy",
];

/// Runs `demo` on the tokio clock, publishing into `session`, until shutdown;
/// makes the demo's summariser calls with `summarizer` when it has one
/// (calls still running at shutdown are dropped).
pub async fn drive(
    mut demo: Demo,
    summarizer: Option<HttpSummarizer>,
    session: Arc<Session>,
    mut shutdown: watch::Receiver<bool>,
) {
    let start = tokio::time::Instant::now();
    let summarizer = summarizer.map(Arc::new);
    let (tx, mut rx) = mpsc::unbounded_channel::<(u64, Result<String, SummaryError>)>();
    let mut calls = tokio::task::JoinSet::new();
    loop {
        while let Some(call) = demo.take_summary_call() {
            match &summarizer {
                Some(s) => {
                    let (s, tx) = (s.clone(), tx.clone());
                    calls.spawn(async move {
                        let result = s.summarize(&call.messages).await;
                        let _ = tx.send((call.id, result));
                    });
                }
                None => {
                    let error = SummaryError::new("no summariser configured");
                    for event in demo.summary_result(call.id, Err(error), start.elapsed()) {
                        session.publish(&event);
                    }
                }
            }
        }
        for note in demo.take_notes() {
            eprintln!("ctxguard serve: demo: {note}");
        }
        while calls.try_join_next().is_some() {}
        let deadline = start + demo.next_deadline();
        tokio::select! {
            _ = tokio::time::sleep_until(deadline) => {
                for event in demo.handle_timeout(start.elapsed()) {
                    session.publish(&event);
                }
            }
            Some((id, result)) = rx.recv() => {
                for event in demo.summary_result(id, result, start.elapsed()) {
                    session.publish(&event);
                }
            }
            _ = shutdown.changed() => return,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::server::summarizer::tests::{completion, http, stub};
    use ctxguard_core::guard::{is_summary, SUMMARY_INSTRUCTION};
    use ctxguard_core::protocol::failure_reason;
    use ctxguard_core::tool_output::COMPACTED_FLAG;

    const START: i64 = 1_782_226_534_512_345;

    /// Steps the demo on a virtual clock until `until`, recording each event with its time.
    fn run(config: DemoConfig, until: Duration) -> Vec<(Duration, StatusEvent)> {
        let mut demo = Demo::new(config, START);
        let mut out = Vec::new();
        while demo.next_deadline() <= until {
            let at = demo.next_deadline();
            for e in demo.handle_timeout(at) {
                out.push((at, e));
            }
        }
        out
    }

    /// One compaction as the toolbar saw it.
    #[derive(Debug)]
    struct Lifecycle {
        started_at: Duration,
        beats: Vec<Duration>,
        end: Option<(Duration, StatusEvent)>,
        then: Option<StatusEvent>,
        started: StatusEvent,
    }

    fn lifecycles(events: &[(Duration, StatusEvent)]) -> Vec<Lifecycle> {
        let mut out: Vec<Lifecycle> = Vec::new();
        for (at, e) in events {
            let Some(c) = &e.context_compaction else {
                if let Some(last) = out.last_mut() {
                    if last.end.is_some() && last.then.is_none() {
                        last.then = Some(e.clone());
                    }
                }
                continue;
            };
            match c.status {
                CompactionStatus::Started => out.push(Lifecycle {
                    started_at: *at,
                    beats: Vec::new(),
                    end: None,
                    then: None,
                    started: e.clone(),
                }),
                CompactionStatus::InProgress => {
                    let l = out.last_mut().expect("a heartbeat inside a lifecycle");
                    assert!(l.end.is_none(), "heartbeat after the end: {e:?}");
                    l.beats.push(*at - l.started_at);
                }
                _ => {
                    let l = out.last_mut().expect("an end inside a lifecycle");
                    assert!(l.end.is_none(), "two ends");
                    l.end = Some((*at - l.started_at, e.clone()));
                }
            }
            let l = out.last().expect("lifecycle");
            let first = l.started.context_compaction.as_ref().expect("c");
            assert_eq!(
                c.created_at, first.created_at,
                "one created_at per lifecycle"
            );
            assert_eq!(c.before_tokens, first.before_tokens);
        }
        out
    }

    fn secs(s: u64) -> Duration {
        Duration::from_secs(s)
    }

    #[test]
    fn events_are_valid_and_phases_follow_the_reference() {
        let events = run(DemoConfig::default(), secs(900));
        assert!(
            events.len() > 100,
            "a quarter hour of demo emits plenty ({})",
            events.len()
        );
        let limits = demo_limits();
        for (_, e) in &events {
            e.validate().expect("valid event");
            assert_eq!(e.context_metrics.context_window, CONTEXT_WINDOW_TOKENS);
            assert_eq!(e.context_metrics.trigger_limit, limits.trigger_limit);
            let b = e.context_metrics.breakdown.expect("breakdown");
            let sum = b.system + b.user + b.assistant + b.tool_outputs + b.attachments + b.overhead;
            assert_eq!(sum, e.context_metrics.used_input_tokens);
            assert_eq!(
                e.context_compaction.is_some(),
                e.phase == Phase::SummaryCompact
            );
        }
        let count = |p: Phase| events.iter().filter(|(_, e)| e.phase == p).count();
        let turns = count(Phase::BuildMessages);
        assert!(turns > 20);
        assert!(count(Phase::Final) >= turns - 1);
        assert!(count(Phase::AfterToolEnd) > 0);
        assert!(count(Phase::AfterCompaction) >= 3);
        assert!(events.iter().any(|(_, e)| e
            .context_metrics
            .breakdown
            .is_some_and(|b| b.attachments > 0)));
    }

    #[test]
    fn after_tool_end_is_throttled_like_the_reference() {
        let events = run(DemoConfig::default(), secs(600));
        let mut prev: Option<EmitState> = None;
        for (_, e) in &events {
            let cur = EmitState::from(&e.context_metrics);
            if e.phase == Phase::AfterToolEnd {
                assert!(
                    should_emit(prev, cur, Phase::AfterToolEnd),
                    "{e:?} after {prev:?}"
                );
            }
            prev = Some(cur);
        }
    }

    #[test]
    fn a_compaction_runs_started_in_progress_completed_through_the_guard() {
        let config = DemoConfig {
            fail_every: 0,
            ..DemoConfig::default()
        };
        let events = run(config, secs(1_500));
        let limits = demo_limits();
        let all = lifecycles(&events);
        let done: Vec<_> = all.iter().filter(|l| l.end.is_some()).collect();
        assert!(done.len() >= 3, "{} compactions", done.len());
        for l in done {
            let start = l.started.context_compaction.as_ref().expect("c");
            assert!(start.before_tokens >= limits.trigger_limit);
            assert_eq!(
                start.before_tokens,
                l.started.context_metrics.used_input_tokens
            );
            assert_eq!(
                l.beats,
                vec![secs(15), secs(30)],
                "40 s summary, a heartbeat every 15 s"
            );
            let (took, end_event) = l.end.as_ref().expect("end");
            assert_eq!(*took, secs(40));
            let end = end_event.context_compaction.as_ref().expect("c");
            assert_eq!(end.status, CompactionStatus::Completed);
            let after = end.after_tokens.expect("after_tokens");
            assert!(
                after < end.before_tokens && after < limits.target_limit,
                "{after}"
            );
            assert_eq!(end_event.context_metrics.used_input_tokens, after);
            assert!(end
                .summary_message_id
                .as_deref()
                .is_some_and(|s| s.len() == 36 && s.as_bytes()[14] == b'4'));
            assert!(end.failure_reason.is_none() && !end.used_legacy_fallback);
            let then = l.then.as_ref().expect("after_compaction");
            assert_eq!(then.phase, Phase::AfterCompaction);
            assert_eq!(then.context_metrics.used_input_tokens, after);
        }
    }

    #[test]
    fn injected_errors_exercise_the_retry_and_the_fallback() {
        // fail_every 4: #2 is rejected as too long once and retried, #4 falls back.
        let mut demo = Demo::new(DemoConfig::default(), START);
        let mut events = Vec::new();
        let mut sizes: Vec<(u32, u32, usize)> = Vec::new();
        while demo.stats().compactions < 5 {
            let at = demo.next_deadline();
            for e in demo.handle_timeout(at) {
                events.push((at, e));
            }
            if let Some(c) = &demo.compaction {
                let key = (demo.stats().compactions, c.request.attempt());
                if sizes.last().map(|s| (s.0, s.1)) != Some(key) {
                    sizes.push((key.0, key.1, c.request.messages().len()));
                }
            }
            assert!(at < secs(20_000), "five compactions take less than that");
        }
        let all = lifecycles(&events);
        assert_eq!(all.len(), 5);
        let ends: Vec<_> = all[..4]
            .iter()
            .map(|l| {
                let (took, e) = l.end.as_ref().expect("ended");
                (*took, e.context_compaction.clone().expect("c"))
            })
            .collect();
        let statuses: Vec<_> = ends.iter().map(|(_, c)| c.status).collect();
        use CompactionStatus::{Completed, Fallback};
        assert_eq!(statuses, [Completed, Completed, Completed, Fallback]);
        // The retry: rejected after 8 s, then a 40 s summary of fewer messages; heartbeats go on.
        assert_eq!(ends[1].0, secs(48));
        assert_eq!(all[1].beats, vec![secs(15), secs(30), secs(45)]);
        let of =
            |n: u32| -> Vec<usize> { sizes.iter().filter(|s| s.0 == n).map(|s| s.2).collect() };
        let retried = of(2);
        assert_eq!(retried.len(), 2, "{sizes:?}");
        assert!(
            retried[1] < retried[0],
            "the retry sends fewer messages: {retried:?}"
        );
        assert!(ends[1].1.after_tokens.expect("after") < ends[1].1.before_tokens);
        // The fallback: rejected as too long, then a 503 → summary_compact_failed.
        assert_eq!(ends[3].0, secs(16));
        assert_eq!(of(4).len(), 2);
        let fallback = &ends[3].1;
        assert_eq!(
            fallback.failure_reason.as_deref(),
            Some(failure_reason::FAILED)
        );
        assert!(fallback.after_tokens.is_none() && fallback.summary_message_id.is_none());
        let then = all[3].then.as_ref().expect("after_compaction");
        assert_eq!(then.phase, Phase::AfterCompaction);
        assert!(then.context_metrics.used_input_tokens < demo_limits().trigger_limit);
        let stats = demo.stats();
        assert_eq!((stats.completed, stats.fallbacks), (3, 1));
        assert!(stats.retries >= 2, "{stats:?}");
        let notes = demo.take_notes().join("\n");
        assert!(notes.contains("context_length_exceeded"), "{notes}");
        assert!(notes.contains("summariser unavailable"), "{notes}");
    }

    #[test]
    fn speed_heartbeat_and_failure_reason_shape_a_fast_script() {
        let config = DemoConfig {
            speed: 20.0,
            heartbeat: Duration::from_millis(200),
            fail_every: 1,
            failure_reason: Some("<img src=x onerror=alert(1)>".into()),
            ..DemoConfig::default()
        };
        let events = run(config, secs(60));
        let all = lifecycles(&events);
        let first = all
            .first()
            .expect("a compaction within a minute at speed 20");
        // Rejected as too long at 8 s / 20, failed at 16 s / 20: heartbeats every 200 ms between.
        let (took, end) = first.end.as_ref().expect("ended");
        assert_eq!(*took, Duration::from_millis(800));
        assert_eq!(first.beats.len(), 3, "{:?}", first.beats);
        let c = end.context_compaction.as_ref().expect("c");
        assert_eq!(c.status, CompactionStatus::Fallback);
        assert_eq!(
            c.failure_reason.as_deref(),
            Some("<img src=x onerror=alert(1)>")
        );
        // Every compaction falls back, yet the demo goes on under the window.
        assert!(all.len() >= 2);
        for (_, e) in &events {
            assert!(e.context_metrics.used_input_tokens < CONTEXT_WINDOW_TOKENS);
        }
    }

    #[test]
    fn the_replacement_keeps_system_and_marks_its_messages() {
        let mut demo = Demo::new(
            DemoConfig {
                fail_every: 0,
                ..DemoConfig::default()
            },
            0,
        );
        while !demo.is_compacting() {
            let at = demo.next_deadline();
            demo.handle_timeout(at);
        }
        // The source pass rendered every tool output before the guard measured it.
        assert!(demo
            .history()
            .iter()
            .filter(|m| m.is_tool())
            .all(|m| m.has_flag(COMPACTED_FLAG)));
        let request = &demo.compaction.as_ref().expect("c").request;
        assert_eq!(
            request.messages().last().and_then(Message::text),
            Some(SUMMARY_INSTRUCTION)
        );
        let at = demo.next_deadline() + secs(60);
        demo.handle_timeout(at);
        assert!(!demo.is_compacting());
        let h = demo.history();
        assert_eq!(h[0].role, "system");
        let summaries: Vec<_> = h.iter().filter(|m| is_summary(m)).collect();
        assert_eq!(summaries.len(), 1);
        let summary = summaries[0];
        assert!(summary.has_flag(COMPACTED_FLAG));
        let text = summary.content_as_text();
        assert!(
            text.contains("Objective: ") && text.contains("- user asked: "),
            "{text}"
        );
        assert!(h.iter().any(|m| m.has_flag("checkpoint_retained")));
        assert_eq!(demo.used_tokens(), demo.counter.count_messages(h));
    }

    fn external_config() -> DemoConfig {
        DemoConfig {
            fail_every: 0,
            summarizer: SummarizerChoice::Http(HttpSummarizerConfig {
                url: "http://127.0.0.1:9/v1/chat/completions".into(),
                model: "m".into(),
                timeout: secs(5),
                api_key: None,
            }),
            ..DemoConfig::default()
        }
    }

    #[test]
    fn an_external_summary_waits_for_the_host_with_heartbeats_and_retries() {
        let mut demo = Demo::new(external_config(), START);
        let mut events = Vec::new();
        while !demo.is_compacting() {
            let at = demo.next_deadline();
            events.extend(demo.handle_timeout(at));
        }
        let call = demo.take_summary_call().expect("a call for the host");
        assert!(demo.take_summary_call().is_none(), "handed out once");
        assert_eq!(
            call.messages.last().and_then(Message::text),
            Some(SUMMARY_INSTRUCTION)
        );
        let started = events.last().expect("started").clone();
        let t0 = demo.next_deadline() - secs(15);
        // A slow summariser: heartbeats keep coming, nothing else happens.
        let beats = demo.handle_timeout(t0 + secs(100));
        assert_eq!(beats.len(), 6);
        assert!(beats.iter().all(|e| e
            .context_compaction
            .as_ref()
            .is_some_and(|c| c.status == CompactionStatus::InProgress)));
        assert!(demo
            .summary_result(call.id + 7, Ok("stale".into()), t0 + secs(101))
            .is_empty());
        // 413: the guard retries with fewer messages.
        let too_long = SummaryError::new("HTTP 413: request too large").with_status(413);
        assert!(demo
            .summary_result(call.id, Err(too_long), t0 + secs(102))
            .is_empty());
        let retry = demo.take_summary_call().expect("the retry");
        assert!(retry.id > call.id && retry.messages.len() < call.messages.len());
        let out = demo.summary_result(retry.id, Ok("the external summary".into()), t0 + secs(103));
        let end = out[0].context_compaction.as_ref().expect("c");
        assert_eq!(end.status, CompactionStatus::Completed);
        assert_eq!(
            end.created_at,
            started.context_compaction.as_ref().expect("c").created_at
        );
        assert!(end.after_tokens.expect("after") < end.before_tokens);
        assert_eq!(out[1].phase, Phase::AfterCompaction);
        let summary = demo
            .history()
            .iter()
            .find(|m| is_summary(m))
            .expect("summary");
        assert!(summary.content_as_text().ends_with("the external summary"));
        assert_eq!(demo.stats().retries, 1);
    }

    /// The demo driven on tokio with `--summarizer-url` pointing at a loopback stub
    /// that first says `context_length_exceeded`, then summarises.
    #[tokio::test]
    async fn drive_calls_the_summarizer_url() {
        let too_long = r#"{"error":{"message":"maximum context length exceeded","code":"context_length_exceeded"}}"#;
        let s = stub(
            vec![(400, too_long.into()), (200, completion("stub summary"))],
            Duration::from_millis(50),
        )
        .await;
        let mut config = external_config();
        config.speed = 400.0;
        config.heartbeat = Duration::from_millis(20);
        let SummarizerChoice::Http(h) = &mut config.summarizer else {
            unreachable!()
        };
        h.url = s.url.clone();
        let session = Arc::new(Session::new("demo", 1, 4_096));
        let mut live = session.subscribe(None).live;
        let (stop_tx, stop_rx) = watch::channel(false);
        let demo = Demo::new(config, START);
        let task = tokio::spawn(drive(
            demo,
            Some(http(&s.url, secs(5))),
            session.clone(),
            stop_rx,
        ));
        let mut seen = Vec::new();
        let completed = tokio::time::timeout(secs(60), async {
            loop {
                match live.recv().await {
                    Ok(stored) => {
                        let Some(e) = stored.event.clone() else {
                            continue;
                        };
                        if let Some(c) = &e.context_compaction {
                            seen.push(c.status);
                            if c.status == CompactionStatus::Completed {
                                return c.clone();
                            }
                        }
                    }
                    Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => continue,
                    Err(e) => panic!("stream ended: {e}"),
                }
            }
        })
        .await
        .expect("a completed compaction within a minute");
        let _ = stop_tx.send(true);
        tokio::time::timeout(secs(5), task)
            .await
            .expect("drive stops")
            .expect("no panic");
        assert_eq!(seen.first(), Some(&CompactionStatus::Started));
        assert!(seen.contains(&CompactionStatus::InProgress), "{seen:?}");
        assert!(completed.after_tokens.expect("after") < completed.before_tokens);
        let requests = s.requests.lock().expect("lock");
        assert_eq!(requests.len(), 2);
        let len = |i: usize| {
            requests[i]["messages"]
                .as_array()
                .map(Vec::len)
                .unwrap_or(0)
        };
        assert!(len(1) < len(0), "the retry sends fewer messages");
        assert_eq!(requests[0]["model"], "stub-model");
    }
}
