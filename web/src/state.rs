//! The toolbar state machine, sans-IO: server snapshots, saved state, stream
//! or host events and connection changes go in; a [`ToolbarView`] comes out,
//! for a time the caller supplies. No Leptos or browser types appear here, so
//! every rule is tested natively.
//!
//! Rules it enforces:
//! - events apply in id order: an id at or below the last applied one is stale and ignored;
//!   implausible ids (beyond 2^53 − 1, a far jump the next events contradict) never freeze it
//!   ([`crate::ids`]);
//! - a malformed event (bad id, bad JSON, failed validation) or an unknown one (another event
//!   name or type) is ignored and counted, and never changes what is shown;
//! - a `/context` snapshot is the server's truth and replaces everything, even at a lower id
//!   (a restarted server numbers its events anew);
//! - `started` and `in_progress` both mean compacting, so a client that first sees a heartbeat
//!   (after a reload or reconnect) still shows the compaction and its elapsed time, measured in
//!   the browser's clock whatever the server's says ([`crate::run_clock`]);
//! - every compaction that ends becomes one entry of the history ([`crate::history`]), and
//!   turn starts feed the forecast of turns left ([`crate::forecast`]);
//! - restored state is marked as such until the server (or the host) confirms it.

use crate::attachment_budget::AttachmentBudget;
use crate::forecast::TurnForecast;
use crate::history::CompactionHistory;
use crate::ids::{EventCursor, IdVerdict};
use crate::run_clock::{elapsed_secs, offset_from_start, run_start_ms, RunAnchor};
use crate::saved::SavedToolbar;
use crate::view::{CompactionView, MetricsView, ToolbarView};
use ctxguard_core::metrics::ContextMetricsSnapshot;
use ctxguard_core::protocol::{
    CompactionStatus, ContextCompaction, ContextState, Phase, StatusEvent, EVENT_NAME,
};

pub use crate::connection::{Connection, OfflineReason, OFFLINE_AFTER_FAILURES};
pub use crate::outcome::{EventOutcome, IgnoredEvents};

/// The toolbar's state.
#[derive(Debug, Clone, PartialEq)]
pub struct Toolbar {
    cursor: EventCursor,
    phase: Option<Phase>,
    metrics: Option<ContextMetricsSnapshot>,
    compaction: Option<ContextCompaction>,
    /// Local start of the running compaction.
    run: Option<RunAnchor>,
    /// The server's clock offset (local − server), learnt from a live `started`.
    clock_offset_ms: Option<f64>,
    model: Option<String>,
    attachment_limit: Option<i64>,
    connection: Connection,
    offline_reason: Option<OfflineReason>,
    browser_offline: bool,
    failures: u32,
    restored: bool,
    ignored: IgnoredEvents,
    history: CompactionHistory,
    forecast: TurnForecast,
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
            cursor: EventCursor::default(),
            phase: None,
            metrics: None,
            compaction: None,
            run: None,
            clock_offset_ms: None,
            model: None,
            attachment_limit: None,
            connection: Connection::Connecting,
            offline_reason: None,
            browser_offline: false,
            failures: 0,
            restored: false,
            ignored: IgnoredEvents::default(),
            history: CompactionHistory::default(),
            forecast: TurnForecast::default(),
        }
    }

    /// A toolbar showing saved state (marked restored) until the server or the host speaks.
    pub fn restored_from(saved: Option<SavedToolbar>, now_ms: f64) -> Self {
        let mut t = Toolbar::new();
        let Some(saved) = saved.filter(|s| s.state.validate().is_ok()) else {
            return t;
        };
        let state = saved.state;
        t.cursor = EventCursor::at(Some(state.event_id));
        t.phase = state.phase;
        t.metrics = state.context_metrics;
        t.model = state.model;
        t.attachment_limit = state.attachment_limit;
        t.history = CompactionHistory::restored(saved.history);
        t.forecast = saved.forecast.sanitized();
        if let Some(c) = state
            .context_compaction
            .as_ref()
            .filter(|c| c.status.is_compacting())
        {
            let start_ms = saved
                .run
                .filter(|r| r.is_run(&c.created_at) && r.start_ms.is_finite())
                .map(|r| r.start_ms.min(now_ms))
                .unwrap_or_else(|| {
                    run_start_ms(CompactionStatus::InProgress, &c.created_at, now_ms, None)
                });
            t.run = Some(RunAnchor {
                created_at: c.created_at.clone(),
                start_ms,
            });
        }
        t.compaction = state.context_compaction;
        t.restored = true;
        t
    }

    /// The same session started afresh: nothing shown, no history, no forecast, nothing
    /// held; the connection stays, and so does the key of the latest ended compaction (so
    /// the server repeating it does not bring it back into the history).
    pub fn cleared(&self) -> Self {
        let mut history = self.history.clone();
        history.clear();
        Toolbar {
            connection: self.connection,
            offline_reason: self.offline_reason,
            browser_offline: self.browser_offline,
            failures: self.failures,
            clock_offset_ms: self.clock_offset_ms,
            history,
            ..Toolbar::new()
        }
    }

    /// Folds in the server's `/context` snapshot: it replaces what is shown and confirms it.
    pub fn apply_context(&mut self, snapshot: ContextState, now_ms: f64) {
        let continuous = self.cursor.last() == Some(snapshot.event_id);
        if !continuous {
            self.forecast.gap();
        }
        if let Some(c) = &snapshot.context_compaction {
            self.observe_compaction(c, now_ms, false);
        }
        if !self.is_compacting_record(snapshot.context_compaction.as_ref()) {
            self.run = None;
        }
        if !continuous && snapshot.phase == Some(Phase::BuildMessages) {
            if let Some(m) = &snapshot.context_metrics {
                self.forecast.turn_started(m.used_input_tokens);
            }
        }
        self.cursor.reset_to(snapshot.event_id);
        self.phase = snapshot.phase;
        self.metrics = snapshot.context_metrics;
        self.compaction = snapshot.context_compaction;
        if snapshot.model.is_some() {
            self.model = snapshot.model;
        }
        if snapshot.attachment_limit.is_some() {
            self.attachment_limit = snapshot.attachment_limit;
        }
        self.restored = false;
    }

    fn is_compacting_record(&self, c: Option<&ContextCompaction>) -> bool {
        c.is_some_and(|c| c.status.is_compacting())
    }

    /// Handles one SSE event: `id` is its id, `name` its event name, `data` its payload.
    pub fn apply_event(
        &mut self,
        id: Option<&str>,
        name: &str,
        data: &str,
        now_ms: f64,
    ) -> EventOutcome {
        if name != EVENT_NAME {
            return self.ignore(EventOutcome::Unknown);
        }
        let Some(id) = id.and_then(crate::ids::id_from_str) else {
            return self.ignore(EventOutcome::Malformed);
        };
        match StatusEvent::accept_text(data) {
            Some(event) => self.apply_numbered(id, event, now_ms),
            None => self.ignore(EventOutcome::Malformed),
        }
    }

    /// Handles one event a host pushed, in either shape `StatusEvent::accept_payload` reads;
    /// without an `id` it is numbered one past the last applied.
    pub fn apply_host_event(
        &mut self,
        id: Option<u64>,
        payload: &serde_json::Value,
        now_ms: f64,
    ) -> EventOutcome {
        let other_type = payload
            .get("type")
            .and_then(serde_json::Value::as_str)
            .is_some_and(|t| t != EVENT_NAME);
        if other_type {
            return self.ignore(EventOutcome::Unknown);
        }
        match StatusEvent::accept_payload(payload) {
            Some(event) => {
                let id = id.unwrap_or_else(|| self.cursor.next_id());
                self.apply_numbered(id, event, now_ms)
            }
            None => self.ignore(EventOutcome::Malformed),
        }
    }

    /// Counts an event the caller could not even read (its id or JSON) as malformed.
    pub fn reject_malformed(&mut self) -> EventOutcome {
        self.ignore(EventOutcome::Malformed)
    }

    fn ignore(&mut self, outcome: EventOutcome) -> EventOutcome {
        match outcome {
            EventOutcome::Malformed => self.ignored.malformed += 1,
            EventOutcome::Unknown => self.ignored.unknown += 1,
            EventOutcome::Stale => self.ignored.stale += 1,
            EventOutcome::Applied => {}
        }
        outcome
    }

    fn apply_numbered(&mut self, id: u64, event: StatusEvent, now_ms: f64) -> EventOutcome {
        match self.cursor.judge(id) {
            IdVerdict::Apply => self.fold_event(event, now_ms),
            IdVerdict::Rewind => {
                // The ids went wrong somewhere: do not count a turn across them.
                self.forecast.gap();
                self.fold_event(event, now_ms);
            }
            IdVerdict::Stale => return self.ignore(EventOutcome::Stale),
            IdVerdict::Malformed => return self.ignore(EventOutcome::Malformed),
        }
        EventOutcome::Applied
    }

    /// Folds in an event whose id the cursor has just accepted.
    fn fold_event(&mut self, event: StatusEvent, now_ms: f64) {
        if let Some(c) = &event.context_compaction {
            self.observe_compaction(c, now_ms, true);
        }
        if event.phase == Phase::BuildMessages {
            self.forecast
                .turn_started(event.context_metrics.used_input_tokens);
        }
        self.phase = Some(event.phase);
        self.metrics = Some(event.context_metrics);
        if event.context_compaction.is_some() {
            self.compaction = event.context_compaction;
        }
        self.restored = false;
    }

    /// Anchors a running compaction's start, or records an ended one in the history.
    /// `live`: seen as it happened (an event), not reported later (a snapshot).
    fn observe_compaction(&mut self, c: &ContextCompaction, now_ms: f64, live: bool) {
        let same_run = self.run.as_ref().is_some_and(|r| r.is_run(&c.created_at));
        if c.status.is_compacting() {
            if !same_run {
                let status = if live {
                    c.status
                } else {
                    CompactionStatus::InProgress
                };
                self.run = Some(RunAnchor {
                    created_at: c.created_at.clone(),
                    start_ms: run_start_ms(status, &c.created_at, now_ms, self.clock_offset_ms),
                });
                if live && c.status == CompactionStatus::Started {
                    self.clock_offset_ms = offset_from_start(&c.created_at, now_ms);
                }
            }
            return;
        }
        let run = if same_run { self.run.take() } else { None };
        let (ended_ms, duration_ms) = if live {
            (Some(now_ms), run.map(|r| now_ms - r.start_ms))
        } else {
            (None, None)
        };
        if self.history.record(c, ended_ms, duration_ms) {
            self.forecast.compaction_ended();
        }
    }

    /// The host feeds the events: no stream, no network.
    pub fn fed_by_host(&mut self) {
        self.connection = Connection::Host;
        self.offline_reason = None;
        self.failures = 0;
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

    /// A stream is about to be opened for the first time (after the host fed it, or a restart).
    pub fn connecting(&mut self) {
        self.failures = 0;
        self.offline_reason = None;
        self.connection = Connection::Connecting;
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
        self.is_compacting_record(self.compaction.as_ref())
    }

    /// Id of the latest applied event; the stream resumes after it.
    pub fn last_event_id(&self) -> Option<u64> {
        self.cursor.last()
    }

    /// The connection state.
    pub fn connection(&self) -> Connection {
        self.connection
    }

    /// Whether what is shown came from storage and nobody has confirmed it yet.
    pub fn is_restored(&self) -> bool {
        self.restored
    }

    /// Counts of events not applied.
    pub fn ignored(&self) -> IgnoredEvents {
        self.ignored
    }

    /// Phase of the latest applied event.
    pub fn phase(&self) -> Option<Phase> {
        self.phase
    }

    /// The latest metrics.
    pub fn metrics(&self) -> Option<&ContextMetricsSnapshot> {
        self.metrics.as_ref()
    }

    /// The latest compaction record.
    pub fn compaction(&self) -> Option<&ContextCompaction> {
        self.compaction.as_ref()
    }

    /// The compaction history.
    pub fn history(&self) -> &CompactionHistory {
        &self.history
    }

    /// The forecast's inputs.
    pub fn forecast_inputs(&self) -> &TurnForecast {
        &self.forecast
    }

    /// The state worth saving: present once any metrics are known.
    pub fn saved(&self) -> Option<SavedToolbar> {
        let event_id = self.cursor.last()?;
        Some(SavedToolbar {
            state: ContextState {
                event_id,
                phase: self.phase,
                context_metrics: Some(self.metrics.clone()?),
                context_compaction: self.compaction.clone(),
                model: self.model.clone(),
                attachment_limit: self.attachment_limit,
            },
            history: self.history.entries(),
            forecast: self.forecast.clone(),
            run: self.run.clone().filter(|_| self.is_compacting()),
        })
    }

    /// The model and per-block budget the attachment preview runs under.
    pub fn attachment_budget(&self) -> AttachmentBudget {
        AttachmentBudget::resolve(
            self.model.as_deref(),
            self.metrics.as_ref().map(|m| m.context_window),
            self.attachment_limit,
        )
    }

    /// What to show at `now_ms` (Unix milliseconds).
    pub fn view(&self, now_ms: f64) -> ToolbarView {
        ToolbarView {
            metrics: self.metrics.as_ref().map(MetricsView::of),
            compaction: self.compaction_view(now_ms),
            connection: self.connection,
            offline_reason: (self.connection == Connection::Offline)
                .then_some(self.offline_reason)
                .flatten(),
            restored: self.restored,
            ignored: self.ignored,
            last_event_id: self.cursor.last(),
            phase: self.phase,
            history_count: self.history.len(),
            forecast: self
                .metrics
                .as_ref()
                .and_then(|m| self.forecast.forecast(m.used_input_tokens, m.trigger_limit)),
        }
    }

    fn compaction_view(&self, now_ms: f64) -> CompactionView {
        let trigger_tokens = self.metrics.as_ref().map(|m| m.trigger_limit);
        let Some(c) = &self.compaction else {
            return CompactionView::Idle { trigger_tokens };
        };
        match c.status {
            CompactionStatus::Started | CompactionStatus::InProgress => {
                let start_ms = self
                    .run
                    .as_ref()
                    .filter(|r| r.is_run(&c.created_at))
                    .map_or(now_ms, |r| r.start_ms);
                CompactionView::Compacting {
                    elapsed_secs: elapsed_secs(start_ms, now_ms),
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

#[cfg(test)]
mod tests;

#[cfg(test)]
mod history_tests;
