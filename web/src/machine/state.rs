//! The toolbar state machine, sans-IO: server snapshots, saved state, stream
//! or host events and connection changes go in; a [`ToolbarView`] comes out,
//! for a time the caller supplies. No Leptos or browser types appear here, so
//! every rule is tested natively.
//!
//! Rules it enforces:
//! - events apply in id order: an id at or below the last applied one is stale and ignored;
//!   implausible ids (beyond 2^53 − 1, a far jump the next events contradict) never freeze it
//!   ([`crate::machine::ids`]);
//! - a malformed event (bad id, bad JSON, failed validation) or an unknown one (another event
//!   name or type) is ignored and counted, and never changes what is shown;
//! - a `/context` snapshot is the server's truth and replaces everything, even at a lower id
//!   (a restarted server numbers its events anew);
//! - `started` and `in_progress` both mean compacting, so a client that first sees a heartbeat
//!   (after a reload or reconnect) still shows the compaction and its elapsed time, measured in
//!   the browser's clock whatever the server's says ([`crate::machine::run_clock`]);
//! - every compaction that ends becomes one entry of the history ([`crate::machine::history`]), and
//!   turn starts feed the forecast of turns left ([`crate::machine::forecast`]);
//! - restored state is marked as such until the server (or the host) confirms it;
//! - a `started` or `in_progress` event of a compaction that already ended (or was
//!   interrupted), by its `created_at`, is stale: Wegent's join handler can deliver a
//!   live `completed` before the cached `in_progress`;
//! - a turn that ends while a compaction runs ([`Toolbar::turn_ended`]) interrupts it:
//!   shown as interrupted, not added to the history;
//! - with a stall watch set (`source="sse"`), a compaction with no event for longer
//!   than the watch shows as stalled until its next event;
//! - an unknown phase updates the metrics like any phase without a compaction; counts
//!   out of range are clamped (core's [`ReceivedStatus`]); only a missing or mistyped
//!   field makes an event malformed, and every ignored event leaves its reason
//!   ([`Toolbar::last_refusal`]).

use crate::attachment_budget::AttachmentBudget;
use crate::machine::forecast::TurnForecast;
use crate::machine::history::CompactionHistory;
use crate::machine::ids::{EventCursor, IdVerdict};
use crate::machine::projection::ProjectionShown;
use crate::machine::run_clock::{elapsed_secs, offset_from_start, run_start_ms, RunAnchor};
use crate::machine::turn_end::{Interruption, TurnEnd};
use crate::saved::{self, SavedToolbar};
use crate::view::{CompactionView, FailureReason, MetricsView, ToolbarView};
use ctxguard_core::metrics::ContextMetricsSnapshot;
use ctxguard_core::protocol::{
    CompactionStatus, ContextCompaction, ContextState, Phase, ReceiveError, ReceivedPhase,
    ReceivedStatus, EVENT_NAME,
};
use std::sync::Arc;

pub use crate::machine::connection::{Connection, OfflineReason, OFFLINE_AFTER_FAILURES};
pub use crate::machine::outcome::{EventOutcome, IgnoredEvents, Refusal};

/// The toolbar's state.
#[derive(Debug, Clone, PartialEq)]
pub struct Toolbar {
    cursor: EventCursor,
    phase: Option<ReceivedPhase>,
    metrics: Option<ContextMetricsSnapshot>,
    /// Shared, not copied, between the states before and after each change and with the
    /// chip's view: a record may carry megabytes (a `failure_reason`).
    compaction: Option<Arc<ContextCompaction>>,
    /// Local start of the running compaction.
    run: Option<RunAnchor>,
    /// Local time of the running compaction's latest event.
    run_seen_ms: Option<f64>,
    /// The compaction a turn's end interrupted.
    interrupted: Option<Interruption>,
    /// Milliseconds without an event after which a running compaction shows as stalled.
    stall_after_ms: Option<f64>,
    /// Why the latest ignored event was ignored.
    last_refusal: Option<Refusal>,
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
    /// What sending the message being written will do, as the worker projected it
    /// (never saved: it belongs to the page's composer).
    projection: Option<ProjectionShown>,
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
            run_seen_ms: None,
            interrupted: None,
            stall_after_ms: None,
            last_refusal: None,
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
            projection: None,
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
        t.phase = state.phase.map(ReceivedPhase::Known);
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
            t.run_seen_ms = Some(now_ms);
            t.interrupted = saved.interrupted.filter(|i| i.created_at == c.created_at);
            if t.interrupted.is_some() {
                t.run = None;
            }
        }
        t.compaction = state.context_compaction.map(Arc::new);
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
            stall_after_ms: self.stall_after_ms,
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
        if self.interrupted.as_ref().map(|i| &i.created_at)
            != snapshot.context_compaction.as_ref().map(|c| &c.created_at)
        {
            self.interrupted = None;
        }
        if !continuous && snapshot.phase == Some(Phase::BuildMessages) {
            if let Some(m) = &snapshot.context_metrics {
                self.forecast.turn_started(m.used_input_tokens);
            }
        }
        self.cursor.reset_to(snapshot.event_id);
        self.phase = snapshot.phase.map(ReceivedPhase::Known);
        self.metrics = snapshot.context_metrics;
        self.compaction = snapshot.context_compaction.map(Arc::new);
        if snapshot.model.is_some() {
            self.model = snapshot.model;
        }
        if snapshot.attachment_limit.is_some() {
            self.attachment_limit = snapshot.attachment_limit;
        }
        self.restored = false;
    }

    fn is_compacting_record(&self, c: Option<&ContextCompaction>) -> bool {
        c.is_some_and(|c| c.status.is_compacting() && !self.was_interrupted(&c.created_at))
    }

    fn was_interrupted(&self, created_at: &str) -> bool {
        self.interrupted
            .as_ref()
            .is_some_and(|i| i.created_at == created_at)
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
            let reason = format!(
                "event {} is not {EVENT_NAME}",
                crate::text_bound::quoted(name)
            );
            return self.refuse(Refusal::new(EventOutcome::Unknown, None, reason));
        }
        let Some(id) = id.and_then(crate::machine::ids::id_from_str) else {
            return self.refuse(Refusal::bad_id(id));
        };
        match ReceivedStatus::from_text(data) {
            Ok(event) => self.apply_numbered(id, event, now_ms),
            // In a stream, an event named response.status.updated is one: another type is an error.
            Err(e) => self.refuse(Refusal::of_error(e, EventOutcome::Malformed)),
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
        self.apply_host_received(id, ReceivedStatus::from_payload(payload), now_ms)
    }

    /// [`Toolbar::apply_host_event`] for a payload given as JSON text (read once, never
    /// copied into a `serde_json::Value`).
    pub fn apply_host_text(&mut self, id: Option<u64>, text: &str, now_ms: f64) -> EventOutcome {
        self.apply_host_received(id, ReceivedStatus::from_text(text), now_ms)
    }

    /// [`Toolbar::apply_host_event`] for a payload read as a JSON value, taken apart rather
    /// than copied; `again` gives it once more should an error message need it.
    pub fn apply_host_value(
        &mut self,
        id: Option<u64>,
        payload: serde_json::Value,
        again: impl FnOnce() -> serde_json::Value,
        now_ms: f64,
    ) -> EventOutcome {
        self.apply_host_received(id, ReceivedStatus::from_value(payload, again), now_ms)
    }

    fn apply_host_received(
        &mut self,
        id: Option<u64>,
        read: Result<ReceivedStatus, ReceiveError>,
        now_ms: f64,
    ) -> EventOutcome {
        match read {
            Ok(event) => {
                let id = id.unwrap_or_else(|| self.cursor.next_id());
                self.apply_numbered(id, event, now_ms)
            }
            // A host may forward other socket events: another type is unknown, not an error.
            Err(e) => self.refuse(Refusal::of_error(e, EventOutcome::Unknown)),
        }
    }

    /// Counts an event the caller could not even read (its id or JSON) as malformed,
    /// `field` and `reason` saying why.
    pub fn reject_malformed(&mut self, field: Option<&str>, reason: &str) -> EventOutcome {
        self.refuse(Refusal::new(
            EventOutcome::Malformed,
            field,
            reason.to_string(),
        ))
    }

    fn refuse(&mut self, refusal: Refusal) -> EventOutcome {
        let outcome = refusal.outcome;
        match outcome {
            EventOutcome::Malformed => self.ignored.malformed += 1,
            EventOutcome::Unknown => self.ignored.unknown += 1,
            EventOutcome::Stale => self.ignored.stale += 1,
            EventOutcome::Applied => return outcome,
        }
        self.last_refusal = Some(refusal);
        outcome
    }

    /// Why the latest ignored event was ignored (the detail of `ctxguard-ignored`).
    pub fn last_refusal(&self) -> Option<&Refusal> {
        self.last_refusal.as_ref()
    }

    fn apply_numbered(&mut self, id: u64, event: ReceivedStatus, now_ms: f64) -> EventOutcome {
        if let Some(c) = event
            .context_compaction
            .as_ref()
            .filter(|c| c.status.is_compacting())
        {
            if self.history.contains(&c.created_at) || self.was_interrupted(&c.created_at) {
                let reason = format!(
                    "the compaction created at {} already ended",
                    crate::text_bound::quoted(&c.created_at)
                );
                let field = Some("context_compaction.created_at");
                return self.refuse(Refusal::new(EventOutcome::Stale, field, reason));
            }
        }
        let last = self.cursor.last();
        match self.cursor.judge(id) {
            IdVerdict::Apply => self.fold_event(event, now_ms),
            IdVerdict::Rewind => {
                // The ids went wrong somewhere: do not count a turn across them.
                self.forecast.gap();
                self.fold_event(event, now_ms);
            }
            IdVerdict::Stale => return self.refuse(Refusal::stale_id(id, last)),
            IdVerdict::Malformed => return self.refuse(Refusal::bad_id(Some(&id.to_string()))),
        }
        EventOutcome::Applied
    }

    /// Folds in an event whose id the cursor has just accepted.
    fn fold_event(&mut self, event: ReceivedStatus, now_ms: f64) {
        if let Some(c) = &event.context_compaction {
            self.observe_compaction(c, now_ms, true);
        }
        if event.phase == ReceivedPhase::Known(Phase::BuildMessages) {
            self.forecast
                .turn_started(event.context_metrics.used_input_tokens);
        }
        self.phase = Some(event.phase);
        self.metrics = Some(event.context_metrics);
        if event.context_compaction.is_some() {
            self.compaction = event.context_compaction.map(Arc::new);
        }
        self.restored = false;
    }

    /// Anchors a running compaction's start, or records an ended one in the history.
    /// `live`: seen as it happened (an event), not reported later (a snapshot).
    fn observe_compaction(&mut self, c: &ContextCompaction, now_ms: f64, live: bool) {
        let same_run = self.run.as_ref().is_some_and(|r| r.is_run(&c.created_at));
        if c.status.is_compacting() {
            self.run_seen_ms = Some(now_ms);
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
        self.run_seen_ms = None;
        let (ended_ms, duration_ms) = if live {
            (Some(now_ms), run.map(|r| now_ms - r.start_ms))
        } else {
            (None, None)
        };
        if self.history.record(c, ended_ms, duration_ms) {
            self.forecast.compaction_ended();
        }
    }

    /// The turn ended (`reason`: how, when the host said): a compaction still running
    /// ends as interrupted, out of the history. `true` when one was.
    pub fn turn_ended(&mut self, reason: Option<TurnEnd>) -> bool {
        let Some(c) = self.compaction().filter(|_| self.is_compacting()) else {
            return false;
        };
        self.interrupted = Some(Interruption {
            created_at: c.created_at.clone(),
            reason,
        });
        self.run = None;
        self.run_seen_ms = None;
        true
    }

    /// Shows a running compaction as stalled after `after_ms` without an event (`None`:
    /// never, as when the host feeds the events and says when a turn ends).
    pub fn watch_stalls(&mut self, after_ms: Option<f64>) {
        self.stall_after_ms = after_ms.filter(|ms| ms.is_finite() && *ms > 0.0);
    }

    /// The host feeds the events: no stream, no network.
    pub fn fed_by_host(&mut self) {
        self.connection = Connection::Host;
        self.offline_reason = None;
        self.failures = 0;
    }

    /// The host says how its own connection is (`Live`, `Reconnecting` or `Offline`; any
    /// other state shows "fed by the page" again).
    pub fn host_connection(&mut self, state: Connection) {
        self.failures = 0;
        self.connection = match state {
            Connection::Live | Connection::Reconnecting | Connection::Offline => state,
            Connection::Connecting | Connection::Host => Connection::Host,
        };
        self.offline_reason =
            (self.connection == Connection::Offline).then_some(OfflineReason::HostSaid);
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
        self.is_compacting_record(self.compaction())
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

    /// Phase of the latest applied event, as sent.
    pub fn phase(&self) -> Option<&ReceivedPhase> {
        self.phase.as_ref()
    }

    /// The compaction a turn's end interrupted, while it is the one shown.
    pub fn interrupted(&self) -> Option<&Interruption> {
        self.interrupted.as_ref().filter(|i| {
            self.compaction()
                .is_some_and(|c| c.status.is_compacting() && c.created_at == i.created_at)
        })
    }

    /// The latest metrics.
    pub fn metrics(&self) -> Option<&ContextMetricsSnapshot> {
        self.metrics.as_ref()
    }

    /// The latest compaction record.
    pub fn compaction(&self) -> Option<&ContextCompaction> {
        self.compaction.as_deref()
    }

    /// The latest compaction record as shared (one record is one `Arc`, however often copied).
    pub fn compaction_shared(&self) -> Option<&Arc<ContextCompaction>> {
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
                phase: self.phase.as_ref().and_then(ReceivedPhase::known),
                context_metrics: Some(self.metrics.clone()?),
                context_compaction: self.compaction().map(saved::bounded_compaction),
                model: self.model.clone(),
                attachment_limit: self.attachment_limit,
                shared_stream: false,
            },
            history: self.history.entries(),
            forecast: self.forecast.clone(),
            run: self.run.clone().filter(|_| self.is_compacting()),
            interrupted: self.interrupted.clone(),
        })
    }

    /// Applies the status event the worker made of a provider's usage (`event_json`, phase
    /// `final`) like a host's event, and takes its model.
    pub fn apply_usage(&mut self, model: String, event_json: &str, now_ms: f64) -> EventOutcome {
        let outcome = self.apply_host_text(None, event_json, now_ms);
        if outcome == EventOutcome::Applied {
            self.model = Some(model);
        }
        outcome
    }

    /// The model the metrics are for, when known.
    pub fn model(&self) -> Option<&str> {
        self.model.as_deref()
    }

    /// Takes the worker's projection of the send being written (`None`: nothing to send).
    pub fn set_projection(&mut self, projection: Option<ProjectionShown>) {
        self.projection = projection;
    }

    /// What sending it will do; none while no metrics are known.
    pub fn projection(&self) -> Option<ProjectionShown> {
        self.projection.filter(|_| self.metrics.is_some())
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
            metrics: self.metrics.as_ref().map(|m| MetricsView {
                projection: self.projection,
                ..MetricsView::of(m)
            }),
            compaction: self.compaction_view(now_ms),
            connection: self.connection,
            offline_reason: (self.connection == Connection::Offline)
                .then_some(self.offline_reason)
                .flatten(),
            restored: self.restored,
            ignored: self.ignored,
            last_event_id: self.cursor.last(),
            phase: self.phase.clone(),
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
                if let Some(i) = self
                    .interrupted
                    .as_ref()
                    .filter(|i| i.created_at == c.created_at)
                {
                    return CompactionView::Interrupted { reason: i.reason };
                }
                let start_ms = self
                    .run
                    .as_ref()
                    .filter(|r| r.is_run(&c.created_at))
                    .map_or(now_ms, |r| r.start_ms);
                let elapsed_secs = elapsed_secs(start_ms, now_ms);
                let quiet_ms = self.run_seen_ms.map_or(0.0, |seen| now_ms - seen);
                if self.stall_after_ms.is_some_and(|limit| quiet_ms > limit) {
                    return CompactionView::Stalled {
                        elapsed_secs,
                        quiet_secs: (quiet_ms / 1000.0) as u64,
                    };
                }
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
                reason: FailureReason::of(Arc::clone(c)),
            },
        }
    }
}

#[cfg(test)]
mod tests;

#[cfg(test)]
mod history_tests;

#[cfg(test)]
mod projection_tests;
