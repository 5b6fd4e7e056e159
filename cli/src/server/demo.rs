//! The built-in demo session: a conversation that grows forever (user turns,
//! assistant turns, tool outputs cut by the tool-output rules, attachments
//! through the preview), measured by core's ledger after every step and
//! emitted under the reference's phases and throttling. When usage crosses
//! the trigger it runs a summary-compaction lifecycle (`started`,
//! `in_progress` heartbeats, then `completed` or, every few times,
//! `fallback`) and goes on.
//!
//! Sans-IO: [`Demo`] is told the time and hands back events; it never sleeps.
//! [`Demo::next_deadline`] says when it next has work, [`Demo::handle_timeout`]
//! does everything due by then. [`drive`] runs it on the tokio clock.

use super::session::Session;
use ctxguard_core::attachment::{build_header, preview_messages, HeaderArgs};
use ctxguard_core::budget::{context_limits, ContextLimits, ModelConfig};
use ctxguard_core::ledger::Ledger;
use ctxguard_core::message::FunctionCall;
use ctxguard_core::metrics::{phase, should_emit, EmitState};
use ctxguard_core::protocol::{
    failure_reason, format_created_at, CompactionStatus, ContextCompaction, StatusEvent,
};
use ctxguard_core::tokens::TokenCounter;
use ctxguard_core::tool_output::{extract_raw, render, TruncationPolicy, COMPACTED_FLAG};
use ctxguard_core::{Message, ToolCall};
use serde_json::{json, Map, Value};
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::watch;

/// Model id of the demo conversation (picks the encoding).
pub const MODEL: &str = "gpt-4o";
/// The demo's small window, so compactions come often.
pub const CONTEXT_WINDOW_TOKENS: i64 = 32_000;
/// The demo model's max output.
pub const MAX_OUTPUT_TOKENS: i64 = 4_096;
/// Tool outputs are cut to this many tokens.
pub const TOOL_OUTPUT_LIMIT_TOKENS: i64 = 1_500;
/// Budget of one attachment block.
pub const ATTACHMENT_LIMIT_TOKENS: i64 = 3_000;

/// Delays at speed 1.
const THINK: Duration = Duration::from_millis(1_200);
const TOOL_MIN: Duration = Duration::from_millis(1_500);
const REPLY: Duration = Duration::from_millis(2_000);
const BETWEEN_TURNS: Duration = Duration::from_millis(3_000);
const SUMMARY: Duration = Duration::from_millis(40_000);

/// How the demo runs.
#[derive(Debug, Clone, PartialEq)]
pub struct DemoConfig {
    /// Time scale: 2.0 runs twice as fast (heartbeats excepted).
    pub speed: f64,
    /// Interval of `in_progress` heartbeats while a summary runs (not scaled by speed).
    pub heartbeat: Duration,
    /// Every Nth compaction falls back; 0 never.
    pub fail_every: u32,
    /// The fallback's failure_reason (default `summary_compact_failed`).
    pub failure_reason: Option<String>,
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

#[derive(Debug, Clone)]
struct Running {
    record: ContextCompaction,
    finish: Duration,
    next_heartbeat: Duration,
    resume: Step,
    fallback: bool,
}

/// The demo conversation's state machine.
#[derive(Debug)]
pub struct Demo {
    config: DemoConfig,
    counter: TokenCounter,
    limits: ContextLimits,
    policy: TruncationPolicy,
    history: Vec<Message>,
    ledger: Ledger,
    rng: u64,
    turn: u64,
    tools_left: u32,
    calls: u64,
    step: Step,
    due: Duration,
    compaction: Option<Running>,
    compactions: u32,
    last_emitted: Option<EmitState>,
    start_unix_micros: i64,
}

impl Demo {
    /// A demo whose virtual time 0 is `start_unix_micros` (for `created_at`).
    pub fn new(config: DemoConfig, start_unix_micros: i64) -> Self {
        let counter = TokenCounter::for_model(MODEL);
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
            policy: TruncationPolicy::tokens(TOOL_OUTPUT_LIMIT_TOKENS),
            history,
            ledger,
            turn: 0,
            tools_left: 0,
            calls: 0,
            step: Step::UserTurn,
            due: Duration::ZERO,
            compaction: None,
            compactions: 0,
            last_emitted: None,
            start_unix_micros,
        }
    }

    /// The current history.
    #[cfg(test)]
    pub fn history(&self) -> &[Message] {
        &self.history
    }

    /// Tokens the history uses now.
    pub fn used_tokens(&self) -> i64 {
        self.ledger.used_tokens() as i64
    }

    /// Whether a summary is running.
    #[cfg(test)]
    pub fn is_compacting(&self) -> bool {
        self.compaction.is_some()
    }

    /// Virtual time of the next piece of work.
    pub fn next_deadline(&self) -> Duration {
        match &self.compaction {
            Some(c) => c.next_heartbeat.min(c.finish),
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

    fn scaled(&self, d: Duration) -> Duration {
        let speed = if self.config.speed.is_finite() && self.config.speed > 0.0 {
            self.config.speed
        } else {
            1.0
        };
        Duration::from_secs_f64(d.as_secs_f64() / speed)
    }

    fn step_at(&mut self, at: Duration, out: &mut Vec<StatusEvent>) {
        if let Some(mut c) = self.compaction.take() {
            if c.next_heartbeat < c.finish {
                c.record.status = CompactionStatus::InProgress;
                out.push(self.compaction_event(&c.record));
                c.next_heartbeat += self.config.heartbeat.max(Duration::from_millis(1));
                self.compaction = Some(c);
            } else {
                self.finish_compaction(c, out);
                self.due = at + self.scaled(THINK);
            }
            return;
        }
        match self.step {
            Step::UserTurn => {
                self.turn += 1;
                let message = self.user_message();
                self.push(message);
                self.emit(phase::BUILD_MESSAGES, out);
                self.tools_left = 1 + (self.next_u64() % 3) as u32;
                self.before_model_call(at, Step::ToolRun, THINK, out);
            }
            Step::ToolRun => {
                let (call, result) = self.tool_exchange();
                self.push(call);
                self.push(result);
                self.emit(phase::AFTER_TOOL_END, out);
                self.tools_left = self.tools_left.saturating_sub(1);
                let next = if self.tools_left > 0 {
                    Step::ToolRun
                } else {
                    Step::Reply
                };
                let delay = if next == Step::ToolRun {
                    TOOL_MIN
                } else {
                    REPLY
                };
                self.before_model_call(at, next, delay, out);
            }
            Step::Reply => {
                let reply = Message::new("assistant", self.words_between(40, 80));
                self.push(reply);
                self.emit(phase::FINAL, out);
                self.step = Step::UserTurn;
                self.due = at + self.scaled(BETWEEN_TURNS);
            }
        }
    }

    /// The guard point before a model call: compacts when over the trigger, else schedules `next`.
    fn before_model_call(
        &mut self,
        at: Duration,
        next: Step,
        delay: Duration,
        out: &mut Vec<StatusEvent>,
    ) {
        self.step = next;
        if self.used_tokens() < self.limits.trigger_limit {
            self.due = at + self.scaled(delay);
            return;
        }
        self.compactions += 1;
        let fallback = self.config.fail_every > 0 && self.compactions % self.config.fail_every == 0;
        let record = ContextCompaction {
            kind: "summary_compact".into(),
            status: CompactionStatus::Started,
            before_tokens: self.used_tokens(),
            trigger_limit: self.limits.trigger_limit,
            target_limit: self.limits.target_limit,
            used_legacy_fallback: false,
            created_at: format_created_at(self.start_unix_micros + at.as_micros() as i64),
            after_tokens: None,
            summary_message_id: None,
            failure_reason: None,
        };
        out.push(self.compaction_event(&record));
        self.compaction = Some(Running {
            record,
            finish: at + self.scaled(SUMMARY),
            next_heartbeat: at + self.config.heartbeat.max(Duration::from_millis(1)),
            resume: next,
            fallback,
        });
    }

    fn finish_compaction(&mut self, mut c: Running, out: &mut Vec<StatusEvent>) {
        self.step = c.resume;
        if c.fallback {
            c.record.status = CompactionStatus::Fallback;
            c.record.used_legacy_fallback = true;
            c.record.failure_reason = Some(
                self.config
                    .failure_reason
                    .clone()
                    .unwrap_or_else(|| failure_reason::FAILED.into()),
            );
            out.push(self.compaction_event(&c.record));
            self.legacy_trim();
        } else {
            let id = format!("msg_summary_{}", self.compactions);
            self.replace_with_summary(&id);
            c.record.status = CompactionStatus::Completed;
            c.record.after_tokens = Some(self.used_tokens());
            c.record.summary_message_id = Some(id);
            out.push(self.compaction_event(&c.record));
        }
        self.emit(phase::AFTER_COMPACTION, out);
    }

    fn compaction_event(&mut self, record: &ContextCompaction) -> StatusEvent {
        let snapshot = self.ledger.snapshot(&self.limits);
        self.last_emitted = Some(EmitState::from(&snapshot));
        let mut event = StatusEvent::new(self.response_id(), phase::SUMMARY_COMPACT, snapshot);
        event.context_compaction = Some(record.clone());
        event
    }

    fn emit(&mut self, phase: &str, out: &mut Vec<StatusEvent>) {
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

    fn rebuild(&mut self, history: Vec<Message>) {
        self.ledger = Ledger::from_messages(self.counter, &history);
        self.history = history;
    }

    /// The summary replacement: system messages, recent user messages (marked
    /// `checkpoint_retained`) within min(20000, target / 2) tokens, and one summary message.
    fn replace_with_summary(&mut self, id: &str) {
        let budget = (self.limits.target_limit / 2).min(20_000);
        let mut retained = Vec::new();
        let mut spent = 0i64;
        for m in self.history.iter().rev() {
            if m.role != "user" || m.has_flag("summary_compacted") {
                continue;
            }
            let tokens = self.counter.count_message(m) as i64;
            if spent + tokens > budget {
                break;
            }
            spent += tokens;
            let mut kept = m.clone();
            kept.set_kwarg("checkpoint_retained", Value::Bool(true));
            retained.push(kept);
            if retained.len() == 2 {
                break;
            }
        }
        retained.reverse();
        let mut points: Vec<String> = self
            .history
            .iter()
            .filter(|m| m.role == "user" || (m.role == "assistant" && m.tool_calls.is_none()))
            .map(|m| {
                let text = m.content_as_text();
                let first: Vec<&str> = text.split_whitespace().take(14).collect();
                format!("- {}: {}", m.role, first.join(" "))
            })
            .collect();
        if points.len() > 16 {
            points.drain(..points.len() - 16);
        }
        let mut summary = Message::new(
            "user",
            format!(
                "[Summary of the earlier conversation (extractive)]\n{}",
                points.join("\n")
            ),
        );
        summary.set_kwarg(COMPACTED_FLAG, Value::Bool(true));
        summary.set_kwarg("summary_compacted", Value::Bool(true));
        summary.set_kwarg("summary_version", json!(1));
        summary.set_kwarg("message_id", json!(id));
        let mut history: Vec<Message> = self
            .history
            .iter()
            .filter(|m| m.role == "system")
            .cloned()
            .collect();
        history.extend(retained);
        history.push(summary);
        self.rebuild(history);
    }

    /// The legacy path after a fallback: drop the oldest non-system messages
    /// (and any tool result left without its call) until under the target,
    /// never the current user message.
    fn legacy_trim(&mut self) {
        let last_user = self.history.iter().rposition(|m| m.role == "user");
        let mut used = self.used_tokens();
        let mut trimming = true;
        let mut kept = Vec::with_capacity(self.history.len());
        for (i, m) in self.history.iter().enumerate() {
            if m.role != "system" {
                if Some(i) == last_user || (used <= self.limits.target_limit && !m.is_tool()) {
                    trimming = false;
                }
                if trimming {
                    used -= self.counter.count_message(m) as i64;
                    continue;
                }
            }
            kept.push(m.clone());
        }
        self.rebuild(kept);
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
        output.set_kwarg(
            "exit_code",
            json!(if self.next_u64() % 5 == 0 { 1 } else { 0 }),
        );
        output.set_kwarg(
            "wall_time",
            json!((self.next_u64() % 90) as f64 / 10.0 + 0.1),
        );
        let rendered = render(&extract_raw(&output), self.policy, &self.counter);
        output.content = Some(ctxguard_core::Content::Text(rendered));
        output.set_kwarg(COMPACTED_FLAG, Value::Bool(true));
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

/// Runs `demo` on the tokio clock, publishing into `session`, until shutdown.
pub async fn drive(mut demo: Demo, session: Arc<Session>, mut shutdown: watch::Receiver<bool>) {
    let start = tokio::time::Instant::now();
    loop {
        let deadline = start + demo.next_deadline();
        tokio::select! {
            _ = tokio::time::sleep_until(deadline) => {}
            _ = shutdown.changed() => return,
        }
        for event in demo.handle_timeout(start.elapsed()) {
            session.publish(&event);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Steps the demo on a virtual clock until `until`, recording each event with its time.
    fn run(config: DemoConfig, until: Duration) -> Vec<(Duration, StatusEvent)> {
        let mut demo = Demo::new(config, 1_782_226_534_512_345);
        let mut out = Vec::new();
        while demo.next_deadline() <= until {
            let at = demo.next_deadline();
            for e in demo.handle_timeout(at) {
                out.push((at, e));
            }
        }
        out
    }

    #[test]
    fn events_are_valid_and_phases_follow_the_reference() {
        let events = run(DemoConfig::default(), Duration::from_secs(900));
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
                e.phase == phase::SUMMARY_COMPACT
            );
        }
        let count = |p: &str| events.iter().filter(|(_, e)| e.phase == p).count();
        let turns = count(phase::BUILD_MESSAGES);
        assert!(turns > 20);
        assert!(count(phase::FINAL) >= turns - 1);
        assert!(count(phase::AFTER_TOOL_END) > 0);
        assert!(count(phase::AFTER_COMPACTION) >= 3);
        assert!(events.iter().any(|(_, e)| e
            .context_metrics
            .breakdown
            .is_some_and(|b| b.attachments > 0)));
    }

    #[test]
    fn after_tool_end_is_throttled_like_the_reference() {
        let events = run(DemoConfig::default(), Duration::from_secs(600));
        let mut prev: Option<EmitState> = None;
        for (_, e) in &events {
            let cur = EmitState::from(&e.context_metrics);
            if e.phase == phase::AFTER_TOOL_END {
                assert!(
                    should_emit(prev, cur, phase::AFTER_TOOL_END),
                    "{e:?} after {prev:?}"
                );
            }
            prev = Some(cur);
        }
    }

    #[test]
    fn compactions_run_their_lifecycle_with_heartbeats() {
        let config = DemoConfig {
            fail_every: 3,
            ..DemoConfig::default()
        };
        let events = run(config, Duration::from_secs(1_500));
        let mut i = 0;
        let (mut completed, mut fallbacks) = (0, 0);
        let limits = demo_limits();
        while i < events.len() {
            let Some(c) = &events[i].1.context_compaction else {
                i += 1;
                continue;
            };
            assert_eq!(c.status, CompactionStatus::Started);
            assert!(c.before_tokens >= limits.trigger_limit);
            let started_at = events[i].0;
            let mut beats = 0;
            i += 1;
            while i < events.len()
                && events[i].1.context_compaction.as_ref().map(|x| x.status)
                    == Some(CompactionStatus::InProgress)
            {
                beats += 1;
                assert_eq!(events[i].0 - started_at, Duration::from_secs(15) * beats);
                assert_eq!(
                    events[i]
                        .1
                        .context_compaction
                        .as_ref()
                        .expect("c")
                        .created_at,
                    c.created_at
                );
                i += 1;
            }
            if i + 1 >= events.len() {
                break; // the run ended inside this lifecycle
            }
            assert_eq!(beats, 2, "40 s summary, a heartbeat every 15 s");
            let end = events[i]
                .1
                .context_compaction
                .as_ref()
                .expect("end of lifecycle");
            assert_eq!(events[i].0 - started_at, Duration::from_secs(40));
            assert_eq!(end.created_at, c.created_at);
            match end.status {
                CompactionStatus::Completed => {
                    completed += 1;
                    let after = end.after_tokens.expect("after_tokens");
                    assert!(after < limits.target_limit, "{after}");
                    assert_eq!(events[i].1.context_metrics.used_input_tokens, after);
                    assert!(end
                        .summary_message_id
                        .as_deref()
                        .is_some_and(|s| s.starts_with("msg_summary_")));
                    assert!(end.failure_reason.is_none());
                }
                CompactionStatus::Fallback => {
                    fallbacks += 1;
                    assert_eq!(end.failure_reason.as_deref(), Some(failure_reason::FAILED));
                    assert!(end.after_tokens.is_none());
                }
                other => panic!("lifecycle ended with {other:?}"),
            }
            assert_eq!(events[i + 1].1.phase, phase::AFTER_COMPACTION);
            assert!(events[i + 1].1.context_metrics.used_input_tokens <= limits.target_limit);
            i += 2;
        }
        assert!(
            completed >= 2 && fallbacks >= 1,
            "{completed} completed, {fallbacks} fallbacks"
        );
    }

    #[test]
    fn speed_and_heartbeat_shape_a_fast_script() {
        let config = DemoConfig {
            speed: 20.0,
            heartbeat: Duration::from_millis(200),
            fail_every: 1,
            failure_reason: Some("<img src=x onerror=alert(1)>".into()),
            ..DemoConfig::default()
        };
        let events = run(config, Duration::from_secs(60));
        let first = events
            .iter()
            .position(|(_, e)| e.context_compaction.is_some())
            .expect("a compaction within a minute at speed 20");
        let lifecycle: Vec<_> = events[first..]
            .iter()
            .take_while(|(_, e)| e.context_compaction.is_some())
            .collect();
        // summary 40 s / 20 = 2 s: heartbeats at 0.2 … 1.8 s
        assert_eq!(lifecycle.len(), 1 + 9 + 1);
        let end = lifecycle[10].1.context_compaction.as_ref().expect("end");
        assert_eq!(end.status, CompactionStatus::Fallback);
        assert_eq!(
            end.failure_reason.as_deref(),
            Some("<img src=x onerror=alert(1)>")
        );
        assert_eq!(lifecycle[10].0 - lifecycle[0].0, Duration::from_secs(2));
    }

    #[test]
    fn the_summary_keeps_system_and_marks_its_messages() {
        let mut demo = Demo::new(DemoConfig::default(), 0);
        while !demo.is_compacting() {
            let at = demo.next_deadline();
            demo.handle_timeout(at);
        }
        let at = demo.next_deadline() + Duration::from_secs(60);
        demo.handle_timeout(at);
        let h = demo.history();
        assert_eq!(h[0].role, "system");
        let summary: Vec<_> = h
            .iter()
            .filter(|m| m.has_flag("summary_compacted"))
            .collect();
        assert!(!summary.is_empty());
        assert!(summary.iter().all(|m| m.has_flag(COMPACTED_FLAG)));
        assert!(h.iter().any(|m| m.has_flag("checkpoint_retained")));
        assert_eq!(demo.used_tokens(), demo.counter.count_messages(h) as i64);
    }
}
