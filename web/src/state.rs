//! The toolbar state machine, sans-IO: server snapshots, saved state, stream
//! events and connection changes go in; a [`ToolbarView`] comes out, for a
//! time the caller supplies. No Leptos or browser types appear here, so every
//! rule is tested natively.
//!
//! Rules it enforces:
//! - events apply in id order: an id at or below the last applied one is stale and ignored;
//! - a malformed event (bad id, bad JSON, failed validation) or an unknown one (another event
//!   name) is ignored and counted, and never changes what is shown;
//! - a `/context` snapshot is the server's truth and replaces everything, even at a lower id
//!   (a restarted server numbers its events anew);
//! - `started` and `in_progress` both mean compacting, so a client that first sees a heartbeat
//!   (after a reload or reconnect) still shows the compaction and its elapsed time;
//! - restored state is marked as such until the server confirms it.

use ctxguard_core::metrics::{ContextMetricsSnapshot, UsageBreakdown};
use ctxguard_core::protocol::{
    parse_created_at, CompactionStatus, ContextCompaction, ContextState, Phase, StatusEvent,
    EVENT_NAME,
};

/// Consecutive failed attempts after which the toolbar says `offline` (it keeps retrying).
pub const OFFLINE_AFTER_FAILURES: u32 = 8;

/// A created_at this far ahead of the local clock is treated as clock skew.
const CLOCK_SKEW_TOLERANCE_MS: f64 = 5_000.0;

/// Connection to the session's stream, as the toolbar shows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Connection {
    /// The first attempt is under way.
    Connecting,
    /// The stream is open.
    Live,
    /// The stream dropped (or never opened); a retry is scheduled.
    Reconnecting,
    /// The browser is offline, the session is unknown, or many retries failed.
    Offline,
}

impl Connection {
    /// The `data-state` value.
    pub fn as_str(self) -> &'static str {
        match self {
            Connection::Connecting => "connecting",
            Connection::Live => "live",
            Connection::Reconnecting => "reconnecting",
            Connection::Offline => "offline",
        }
    }
}

/// Why an offline toolbar is offline.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OfflineReason {
    /// The browser reports no network.
    BrowserOffline,
    /// The server does not know the session.
    UnknownSession,
    /// Too many consecutive attempts failed.
    Unreachable,
}

/// What became of one stream event.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EventOutcome {
    /// It was newer and valid, and is now shown.
    Applied,
    /// Its id was at or below the last applied id.
    Stale,
    /// Its id or payload could not be read or failed validation.
    Malformed,
    /// It was not a `response.status.updated` event.
    Unknown,
}

/// Counts of events that were not applied.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct IgnoredEvents {
    /// Unreadable or invalid events.
    pub malformed: u64,
    /// Events of another name.
    pub unknown: u64,
    /// Events older than what is shown.
    pub stale: u64,
}

impl IgnoredEvents {
    /// Malformed plus unknown (stale events are normal after a replay).
    pub fn rejected(&self) -> u64 {
        self.malformed + self.unknown
    }
}

/// The toolbar's state.
#[derive(Debug, Clone, PartialEq)]
pub struct Toolbar {
    last_event_id: Option<u64>,
    phase: Option<Phase>,
    metrics: Option<ContextMetricsSnapshot>,
    compaction: Option<ContextCompaction>,
    /// Local time a running compaction was first seen (elapsed fallback when created_at is unusable).
    compaction_seen_ms: Option<f64>,
    model: Option<String>,
    attachment_limit: Option<i64>,
    connection: Connection,
    offline_reason: Option<OfflineReason>,
    browser_offline: bool,
    failures: u32,
    restored: bool,
    ignored: IgnoredEvents,
}

impl Default for Toolbar {
    fn default() -> Self {
        Toolbar::new()
    }
}

impl Toolbar {
    /// An empty toolbar, connecting.
    pub fn new() -> Self {
        Toolbar {
            last_event_id: None,
            phase: None,
            metrics: None,
            compaction: None,
            compaction_seen_ms: None,
            model: None,
            attachment_limit: None,
            connection: Connection::Connecting,
            offline_reason: None,
            browser_offline: false,
            failures: 0,
            restored: false,
            ignored: IgnoredEvents::default(),
        }
    }

    /// A toolbar showing saved state (marked restored) until the server speaks.
    pub fn restored_from(saved: Option<ContextState>, now_ms: f64) -> Self {
        let mut toolbar = Toolbar::new();
        if let Some(saved) = saved.filter(|s| s.validate().is_ok()) {
            toolbar.replace_with(saved, now_ms);
            toolbar.restored = true;
        }
        toolbar
    }

    /// Folds in the server's `/context` snapshot: it replaces what is shown and confirms it.
    pub fn apply_context(&mut self, snapshot: ContextState, now_ms: f64) {
        self.replace_with(snapshot, now_ms);
        self.restored = false;
    }

    fn replace_with(&mut self, snapshot: ContextState, now_ms: f64) {
        let was_compacting = self.is_compacting();
        let same_run = match (&self.compaction, &snapshot.context_compaction) {
            (Some(a), Some(b)) => a.created_at == b.created_at,
            _ => false,
        };
        self.last_event_id = Some(snapshot.event_id);
        self.phase = snapshot.phase;
        self.metrics = snapshot.context_metrics;
        self.compaction = snapshot.context_compaction;
        if snapshot.model.is_some() {
            self.model = snapshot.model;
        }
        if snapshot.attachment_limit.is_some() {
            self.attachment_limit = snapshot.attachment_limit;
        }
        if !(was_compacting && same_run) {
            self.compaction_seen_ms = self.is_compacting().then_some(now_ms);
        }
    }

    /// Handles one stream event: `id` is the SSE id, `name` the SSE event name, `data` its payload.
    pub fn apply_event(
        &mut self,
        id: Option<&str>,
        name: &str,
        data: &str,
        now_ms: f64,
    ) -> EventOutcome {
        let outcome = self.classify_event(id, name, data);
        match outcome {
            Err(outcome) => {
                match outcome {
                    EventOutcome::Malformed => self.ignored.malformed += 1,
                    EventOutcome::Unknown => self.ignored.unknown += 1,
                    EventOutcome::Stale => self.ignored.stale += 1,
                    EventOutcome::Applied => {}
                }
                outcome
            }
            Ok((id, event)) => {
                self.fold_event(id, event, now_ms);
                EventOutcome::Applied
            }
        }
    }

    fn classify_event(
        &self,
        id: Option<&str>,
        name: &str,
        data: &str,
    ) -> Result<(u64, StatusEvent), EventOutcome> {
        if name != EVENT_NAME {
            return Err(EventOutcome::Unknown);
        }
        let id: u64 = id
            .map(str::trim)
            .and_then(|s| s.parse().ok())
            .ok_or(EventOutcome::Malformed)?;
        let event = StatusEvent::parse(data).map_err(|_| EventOutcome::Malformed)?;
        if self.last_event_id.is_some_and(|last| id <= last) {
            return Err(EventOutcome::Stale);
        }
        Ok((id, event))
    }

    fn fold_event(&mut self, id: u64, event: StatusEvent, now_ms: f64) {
        if let Some(next) = &event.context_compaction {
            let same_run = self
                .compaction
                .as_ref()
                .is_some_and(|c| c.created_at == next.created_at && c.status.is_compacting());
            if next.status.is_compacting() && !same_run {
                self.compaction_seen_ms = Some(now_ms);
            }
        }
        self.last_event_id = Some(id);
        self.phase = Some(event.phase);
        self.metrics = Some(event.context_metrics);
        if event.context_compaction.is_some() {
            self.compaction = event.context_compaction;
        }
        self.restored = false;
    }

    /// The stream opened: live, retries reset.
    pub fn stream_opened(&mut self) {
        self.failures = 0;
        self.offline_reason = None;
        self.connection = if self.browser_offline {
            Connection::Offline
        } else {
            Connection::Live
        };
    }

    /// The stream dropped, or `/context` could not be fetched: reconnecting (offline after many failures).
    pub fn connection_lost(&mut self) {
        self.failures = self.failures.saturating_add(1);
        if self.browser_offline {
            self.go_offline(OfflineReason::BrowserOffline);
        } else if self.failures >= OFFLINE_AFTER_FAILURES {
            self.go_offline(OfflineReason::Unreachable);
        } else {
            self.offline_reason = None;
            self.connection = Connection::Reconnecting;
        }
    }

    /// `/context` said the session does not exist.
    pub fn session_not_found(&mut self) {
        self.failures = self.failures.saturating_add(1);
        self.go_offline(OfflineReason::UnknownSession);
    }

    /// The browser went offline or came back.
    pub fn set_browser_offline(&mut self, offline: bool) {
        self.browser_offline = offline;
        if offline {
            self.go_offline(OfflineReason::BrowserOffline);
        } else if self.connection == Connection::Offline {
            self.offline_reason = None;
            self.connection = Connection::Reconnecting;
        }
    }

    fn go_offline(&mut self, reason: OfflineReason) {
        self.connection = Connection::Offline;
        self.offline_reason = Some(reason);
    }

    /// Whether a compaction is running.
    pub fn is_compacting(&self) -> bool {
        self.compaction
            .as_ref()
            .is_some_and(|c| c.status.is_compacting())
    }

    /// Id of the latest applied event; the stream resumes after it.
    pub fn last_event_id(&self) -> Option<u64> {
        self.last_event_id
    }

    /// The connection state.
    pub fn connection(&self) -> Connection {
        self.connection
    }

    /// Whether what is shown came from storage and the server has not confirmed it yet.
    pub fn is_restored(&self) -> bool {
        self.restored
    }

    /// Counts of events not applied.
    pub fn ignored(&self) -> IgnoredEvents {
        self.ignored
    }

    /// The state worth saving: present once any metrics are known.
    pub fn snapshot(&self) -> Option<ContextState> {
        let event_id = self.last_event_id?;
        Some(ContextState {
            event_id,
            phase: self.phase,
            context_metrics: Some(self.metrics.clone()?),
            context_compaction: self.compaction.clone(),
            model: self.model.clone(),
            attachment_limit: self.attachment_limit,
        })
    }

    /// The model and per-block budget the attachment preview runs under.
    pub fn attachment_budget(&self) -> AttachmentBudget {
        let model = self
            .model
            .clone()
            .unwrap_or_else(|| DEFAULT_MODEL.to_string());
        let context_window = self
            .metrics
            .as_ref()
            .map(|m| m.context_window)
            .filter(|w| *w > 0)
            .unwrap_or_else(|| {
                ctxguard_core::budget::context_limits(&model, None, None).context_window
            });
        let limit_tokens = self
            .attachment_limit
            .unwrap_or_else(|| ctxguard_core::attachment::default_limit(context_window));
        AttachmentBudget {
            model,
            limit_tokens,
        }
    }

    /// What to show at `now_ms` (Unix milliseconds).
    pub fn view(&self, now_ms: f64) -> ToolbarView {
        let metrics = self.metrics.as_ref().map(MetricsView::of);
        ToolbarView {
            metrics,
            compaction: self.compaction_view(now_ms),
            connection: self.connection,
            offline_reason: (self.connection == Connection::Offline)
                .then_some(self.offline_reason)
                .flatten(),
            restored: self.restored,
            ignored: self.ignored,
            last_event_id: self.last_event_id,
            phase: self.phase,
        }
    }

    fn compaction_view(&self, now_ms: f64) -> CompactionView {
        let trigger_tokens = self.metrics.as_ref().map(|m| m.trigger_limit);
        let Some(c) = &self.compaction else {
            return CompactionView::Idle { trigger_tokens };
        };
        match c.status {
            CompactionStatus::Started | CompactionStatus::InProgress => {
                let started_ms = parse_created_at(&c.created_at)
                    .map(|micros| micros as f64 / 1000.0)
                    .filter(|t| *t <= now_ms + CLOCK_SKEW_TOLERANCE_MS)
                    .or(self.compaction_seen_ms)
                    .unwrap_or(now_ms);
                let elapsed_secs = ((now_ms - started_ms).max(0.0) / 1000.0) as u64;
                CompactionView::Compacting {
                    elapsed_secs,
                    before_tokens: c.before_tokens,
                    target_tokens: c.target_limit,
                }
            }
            CompactionStatus::Completed => CompactionView::Completed {
                before_tokens: c.before_tokens,
                after_tokens: c.after_tokens,
                saved_tokens: c.tokens_saved(),
            },
            CompactionStatus::Fallback => CompactionView::Fallback {
                reason: c.failure_reason.clone().unwrap_or_default(),
            },
        }
    }
}

/// The model the preview assumes when the session does not name one.
pub const DEFAULT_MODEL: &str = "gpt-4o";

/// Model and per-block token budget of the attachment preview.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AttachmentBudget {
    /// Model whose encoding counts the tokens.
    pub model: String,
    /// Tokens one `<attachment>` block may take.
    pub limit_tokens: i64,
}

/// Everything the toolbar renders.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolbarView {
    /// The numbers, once any are known.
    pub metrics: Option<MetricsView>,
    /// The compaction chip.
    pub compaction: CompactionView,
    /// The connection chip.
    pub connection: Connection,
    /// Why it is offline, when it is.
    pub offline_reason: Option<OfflineReason>,
    /// Whether the state shown is restored and not yet confirmed.
    pub restored: bool,
    /// Events not applied.
    pub ignored: IgnoredEvents,
    /// Id of the latest applied event.
    pub last_event_id: Option<u64>,
    /// Phase of the latest applied event.
    pub phase: Option<Phase>,
}

/// The numbers of the context window.
#[derive(Debug, Clone, PartialEq)]
pub struct MetricsView {
    /// display_remaining_percent clamped to 0–100.
    pub remaining_percent: i64,
    /// Tokens the history uses.
    pub used_tokens: i64,
    /// The context window.
    pub window_tokens: i64,
    /// Usage at which compaction triggers.
    pub trigger_tokens: i64,
    /// Usage compaction aims for.
    pub target_tokens: i64,
    /// Whether usage is at or over the trigger.
    pub over_trigger: bool,
    /// Used part of the window, 0–100 (for the bar).
    pub used_percent: f64,
    /// Trigger as a share of the window, 0–100.
    pub trigger_percent: f64,
    /// Target as a share of the window, 0–100.
    pub target_percent: f64,
    /// The per-source split, when the event carried one.
    pub breakdown: Option<Vec<BreakdownPart>>,
}

impl MetricsView {
    fn of(m: &ContextMetricsSnapshot) -> Self {
        let share = |tokens: i64| {
            if m.context_window <= 0 {
                0.0
            } else {
                (tokens as f64 / m.context_window as f64 * 100.0).clamp(0.0, 100.0)
            }
        };
        MetricsView {
            remaining_percent: m.display_remaining_percent.clamp(0, 100),
            used_tokens: m.used_input_tokens,
            window_tokens: m.context_window,
            trigger_tokens: m.trigger_limit,
            target_tokens: m.target_limit,
            over_trigger: m.is_over_trigger,
            used_percent: share(m.used_input_tokens),
            trigger_percent: share(m.trigger_limit),
            target_percent: share(m.target_limit),
            breakdown: m.breakdown.as_ref().map(|b| BreakdownPart::split(b, share)),
        }
    }
}

/// Where used tokens come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    /// System prompts.
    System,
    /// User turns.
    User,
    /// Assistant turns and tool calls.
    Assistant,
    /// Tool results.
    ToolOutputs,
    /// Attachment blocks.
    Attachments,
    /// Message overhead and anything unattributed.
    Overhead,
}

impl Source {
    /// Every source, in display order.
    pub const ALL: [Source; 6] = [
        Source::System,
        Source::User,
        Source::Assistant,
        Source::ToolOutputs,
        Source::Attachments,
        Source::Overhead,
    ];

    /// The `data-source` value (and CSS class suffix).
    pub fn as_str(self) -> &'static str {
        match self {
            Source::System => "system",
            Source::User => "user",
            Source::Assistant => "assistant",
            Source::ToolOutputs => "tool_outputs",
            Source::Attachments => "attachments",
            Source::Overhead => "overhead",
        }
    }

    fn tokens(self, b: &UsageBreakdown) -> i64 {
        match self {
            Source::System => b.system,
            Source::User => b.user,
            Source::Assistant => b.assistant,
            Source::ToolOutputs => b.tool_outputs,
            Source::Attachments => b.attachments,
            Source::Overhead => b.overhead,
        }
    }
}

/// One source's share of the window.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BreakdownPart {
    /// The source.
    pub source: Source,
    /// Its tokens (negative values shown as 0).
    pub tokens: i64,
    /// Its share of the window, 0–100.
    pub percent: f64,
}

impl BreakdownPart {
    fn split(b: &UsageBreakdown, share: impl Fn(i64) -> f64) -> Vec<BreakdownPart> {
        Source::ALL
            .iter()
            .map(|&source| {
                let tokens = source.tokens(b).max(0);
                BreakdownPart {
                    source,
                    tokens,
                    percent: share(tokens),
                }
            })
            .collect()
    }
}

/// The compaction chip.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CompactionView {
    /// No compaction known; compaction starts at `trigger_tokens`.
    Idle {
        /// The trigger, once metrics are known.
        trigger_tokens: Option<i64>,
    },
    /// A summary compaction is running.
    Compacting {
        /// Seconds since it started.
        elapsed_secs: u64,
        /// Tokens before it.
        before_tokens: i64,
        /// Tokens it aims for.
        target_tokens: i64,
    },
    /// The latest compaction replaced the history.
    Completed {
        /// Tokens before it.
        before_tokens: i64,
        /// Tokens after it, when reported.
        after_tokens: Option<i64>,
        /// before − after (at least 0), when after is known.
        saved_tokens: Option<i64>,
    },
    /// The latest compaction fell back.
    Fallback {
        /// The failure reason as sent (may be empty).
        reason: String,
    },
}

impl CompactionView {
    /// The `data-state` value.
    pub fn state(&self) -> &'static str {
        match self {
            CompactionView::Idle { .. } => "idle",
            CompactionView::Compacting { .. } => "compacting",
            CompactionView::Completed { .. } => "completed",
            CompactionView::Fallback { .. } => "fallback",
        }
    }
}

#[cfg(test)]
#[path = "state_tests.rs"]
mod tests;
