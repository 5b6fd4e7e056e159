//! The toolbar state machine (`ctxguard_web::machine::state::Toolbar`): any sequence
//! of stream events, `/context` snapshots, restores and connection changes.
//! Input: an SSE stream, one field a line (`id: N`, `event: NAME`,
//! `data: TEXT`, a blank line dispatches, as an `EventSource` does; the event
//! name defaults to `message`), mixed with directives: `now: MS` (the
//! clock), `context: JSON` (a `/context` answer; ignored when it does not
//! parse, as the host ignores it), `restore: JSON` (a page load from saved
//! state), `open`, `lost`, `notfound`, `offline`, `online`.
//!
//! Properties: no sequence panics; an event of another name is unknown, one
//! with an unreadable id or an invalid payload malformed, and an applied
//! event's id becomes the toolbar's (stale ids and rewinds are the cursor's
//! rules, `ctxguard_web::machine::ids`); an event that
//! is not applied changes nothing shown but the ignored counts; the
//! compaction shown always equals the last applied compaction record (from
//! an event, a snapshot or a restore) with its numbers; the bar's percentages
//! stay within 0–100; whatever the toolbar saves reads back.

use crate::input;
use ctxguard_core::protocol::{CompactionStatus, ContextCompaction, ContextState, ReceivedStatus, EVENT_NAME};
use ctxguard_web::saved::SavedToolbar;
use ctxguard_web::machine::state::{EventOutcome, Toolbar};
use ctxguard_web::view::{CompactionView, ToolbarView};

/// Runs one input.
pub fn check(data: &[u8]) {
    let Some(text) = input::text(data) else {
        return;
    };
    let mut run = Run {
        toolbar: Toolbar::new(),
        shown: None,
        last_id: None,
        now_ms: 1_782_226_534_512.0,
    };
    let (mut id, mut name, mut payload) = (None::<String>, None::<String>, None::<String>);
    for line in text.split('\n') {
        let line = line.strip_suffix('\r').unwrap_or(line);
        let (field, value) = line
            .split_once(':')
            .map_or((line, ""), |(f, v)| (f, v.strip_prefix(' ').unwrap_or(v)));
        match field {
            "" if line.is_empty() => {
                if let Some(data) = payload.take() {
                    run.event(id.as_deref(), name.as_deref().unwrap_or("message"), &data);
                }
                name = None;
            }
            "id" => id = Some(value.to_string()),
            "event" => name = Some(value.to_string()),
            "data" => match &mut payload {
                Some(p) => {
                    p.push('\n');
                    p.push_str(value);
                }
                None => payload = Some(value.to_string()),
            },
            "now" => {
                if let Some(t) = value.trim().parse::<f64>().ok().filter(|t| t.is_finite()) {
                    run.now_ms = t;
                }
            }
            "context" => {
                if let Ok(state) = ContextState::parse(value) {
                    run.last_id = Some(state.event_id);
                    run.shown = state.context_compaction.clone();
                    run.toolbar.apply_context(state, run.now_ms);
                    assert!(!run.toolbar.is_restored(), "the server's snapshot confirms");
                }
            }
            "restore" => {
                let saved = serde_json::from_str::<SavedToolbar>(value)
                    .ok()
                    .filter(|s| s.state.validate().is_ok());
                run.last_id = saved.as_ref().map(|s| s.state.event_id);
                run.shown = saved.as_ref().and_then(|s| s.state.context_compaction.clone());
                run.toolbar = Toolbar::restored_from(saved, run.now_ms);
            }
            "open" => run.toolbar.stream_opened(),
            "lost" => run.toolbar.connection_lost(),
            "notfound" => run.toolbar.session_not_found(),
            "offline" => run.toolbar.set_browser_offline(true),
            "online" => run.toolbar.set_browser_offline(false),
            _ => {}
        }
        run.check_view();
    }
}

struct Run {
    toolbar: Toolbar,
    /// The last compaction record applied (the model the view is checked against).
    shown: Option<ContextCompaction>,
    last_id: Option<u64>,
    now_ms: f64,
}

impl Run {
    fn event(&mut self, id: Option<&str>, name: &str, data: &str) {
        let before = self.toolbar.view(self.now_ms);
        let parsed_id = id.and_then(ctxguard_web::machine::ids::id_from_str);
        // The toolbar reads updates leniently (unknown phases, clamped numbers): core's one reader.
        let event = ReceivedStatus::from_text(data).ok();
        let readable = parsed_id.is_some() && event.is_some();
        let outcome = self.toolbar.apply_event(id, name, data, self.now_ms);
        match outcome {
            _ if name != EVENT_NAME => assert_eq!(outcome, EventOutcome::Unknown),
            _ if !readable => assert_eq!(outcome, EventOutcome::Malformed),
            // A readable event applies, unless its id is stale (or one the cursor rejects).
            _ => assert_ne!(outcome, EventOutcome::Unknown),
        }
        if outcome == EventOutcome::Applied {
            self.last_id = parsed_id;
            if let Some(c) = event.and_then(|e| e.context_compaction) {
                self.shown = Some(c);
            }
            assert_eq!(self.toolbar.last_event_id(), parsed_id);
            assert!(!self.toolbar.is_restored(), "a live event confirms");
        } else {
            let after = self.toolbar.view(self.now_ms);
            assert_eq!(
                ToolbarView {
                    ignored: before.ignored,
                    ..after.clone()
                },
                before,
                "an event that was not applied ({outcome:?}) changed what is shown"
            );
            let total = |i: ctxguard_web::machine::state::IgnoredEvents| i.malformed + i.unknown + i.stale;
            assert_eq!(total(after.ignored), total(before.ignored) + 1, "each ignored event is counted once");
            let stale = after.ignored.stale > before.ignored.stale;
            assert_eq!(outcome == EventOutcome::Stale, stale);
        }
    }

    fn check_view(&self) {
        let view = self.toolbar.view(self.now_ms);
        assert_eq!(view.last_event_id, self.last_id);
        assert_eq!(self.toolbar.is_compacting(), self.shown.as_ref().is_some_and(|c| c.status.is_compacting()));
        match (&self.shown, &view.compaction) {
            (None, CompactionView::Idle { trigger_tokens }) => {
                assert_eq!(*trigger_tokens, view.metrics.as_ref().map(|m| m.trigger_tokens));
            }
            (Some(c), shown) => match (c.status, shown) {
                (
                    CompactionStatus::Started | CompactionStatus::InProgress,
                    CompactionView::Compacting {
                        before_tokens,
                        target_tokens,
                        ..
                    },
                ) => {
                    assert_eq!((*before_tokens, *target_tokens), (c.before_tokens, c.target_limit));
                }
                (
                    CompactionStatus::Completed,
                    CompactionView::Completed {
                        before_tokens,
                        after_tokens,
                        saved_tokens,
                    },
                ) => {
                    assert_eq!((*before_tokens, *after_tokens), (c.before_tokens, c.after_tokens));
                    assert_eq!(*saved_tokens, c.after_tokens.map(|a| (c.before_tokens - a).max(0)));
                }
                (CompactionStatus::Fallback, CompactionView::Fallback { reason }) => {
                    assert_eq!(reason.as_str(), c.failure_reason.as_deref().unwrap_or_default());
                }
                (status, shown) => panic!("the last applied compaction is {status:?}, the toolbar shows {shown:?}"),
            },
            (None, shown) => panic!("no compaction was applied, the toolbar shows {shown:?}"),
        }
        if let Some(m) = &view.metrics {
            assert!((0..=100).contains(&m.remaining_percent));
            let parts = m.breakdown.iter().flatten().map(|p| p.percent);
            for p in [m.used_percent, m.trigger_percent, m.target_percent].into_iter().chain(parts) {
                assert!((0.0..=100.0).contains(&p), "a share of the window is {p}");
            }
        }
        if let Some(saved) = self.toolbar.saved() {
            let json = serde_json::to_string(&saved.state).expect("a snapshot serialises");
            assert_eq!(
                ContextState::parse(&json).ok(),
                Some(saved.state),
                "the saved state does not read back"
            );
        }
    }
}
