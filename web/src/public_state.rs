//! The toolbar's `state` as a host reads it: a JSON-safe snapshot, also the
//! `detail` of every `ctxguard-change` event. Metrics and the compaction
//! record keep their wire shape (SPEC §4); the history is newest first.

use crate::attachment_budget::AttachmentBudget;
use crate::machine::forecast::Forecast;
use crate::machine::history::HistoryEntry;
use crate::machine::state::Toolbar;
use crate::machine::turn_end::Interruption;
use ctxguard_core::metrics::ContextMetricsSnapshot;
use ctxguard_core::protocol::{CompactionStatus, ContextCompaction, ReceivedPhase};
use serde::Serialize;

/// `{session, connection, restored, metrics, compaction, history, forecast, …}`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PublicState<'a> {
    /// The session shown.
    pub session: &'a str,
    /// `connecting`, `live`, `reconnecting`, `offline` or `host`.
    pub connection: &'static str,
    /// Whether what is shown is a saved copy nobody has confirmed yet.
    pub restored: bool,
    /// Id of the latest applied event.
    pub last_event_id: Option<u64>,
    /// Phase of the latest applied event, as sent (known or not).
    pub phase: Option<&'a ReceivedPhase>,
    /// The latest metrics, as the wire carries them.
    pub metrics: Option<&'a ContextMetricsSnapshot>,
    /// The latest compaction record, as the wire carries it.
    pub compaction: Option<&'a ContextCompaction>,
    /// Set when a turn's end interrupted that compaction (its record still says it runs).
    pub interrupted: Option<&'a Interruption>,
    /// Ended compactions, newest first.
    pub history: Vec<&'a HistoryEntry>,
    /// Turns left before compaction, when they can be told.
    pub forecast: Option<Forecast>,
    /// Model and per-block budget the attachment preview should run under.
    pub attachment_budget: AttachmentBudget,
}

impl<'a> PublicState<'a> {
    /// The state of `toolbar` showing `session`.
    pub fn of(session: &'a str, toolbar: &'a Toolbar) -> Self {
        let metrics = toolbar.metrics();
        PublicState {
            session,
            connection: toolbar.connection().as_str(),
            restored: toolbar.is_restored(),
            last_event_id: toolbar.last_event_id(),
            phase: toolbar.phase(),
            metrics,
            compaction: toolbar.compaction(),
            interrupted: toolbar.interrupted(),
            history: toolbar.history().newest_first().collect(),
            forecast: metrics.and_then(|m| {
                toolbar
                    .forecast_inputs()
                    .forecast(m.used_input_tokens, m.trigger_limit)
            }),
            attachment_budget: toolbar.attachment_budget(),
        }
    }

    /// Whether a host would read another state from `after` than from `before` (the
    /// session aside). Cheap: no JSON is built.
    pub fn differs(before: &Toolbar, after: &Toolbar) -> bool {
        let (mut a, mut b) = (PublicState::of("", before), PublicState::of("", after));
        // One shared record is one record, however long its strings.
        if let (Some(x), Some(y)) = (a.compaction, b.compaction) {
            if std::ptr::eq(x, y) {
                (a.compaction, b.compaction) = (None, None);
            }
        }
        a != b
    }

    /// The JSON text.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).unwrap_or_else(|_| "null".into())
    }
}

/// What identifies the compaction shown: its `created_at` and status (a
/// `ctxguard-compaction` event fires when it changes).
pub fn compaction_key(toolbar: &Toolbar) -> Option<(String, CompactionStatus)> {
    toolbar
        .compaction()
        .map(|c| (c.created_at.clone(), c.status))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::*;
    use serde_json::{json, Value};

    #[test]
    fn shape() {
        let mut t = Toolbar::new();
        let empty: Value = serde_json::from_str(&PublicState::of("s", &t).to_json()).expect("json");
        assert_eq!(
            empty,
            json!({"session": "s", "connection": "connecting", "restored": false, "last_event_id": null,
                   "phase": null, "metrics": null, "compaction": null, "interrupted": null, "history": [], "forecast": null,
                   "attachment_budget": {"model": "gpt-4o", "limit_tokens": 15000}})
        );
        for (id, used) in [(1, 1_000), (2, 2_000), (3, 4_000)] {
            apply(&mut t, id, &phase_event("build_messages", used));
        }
        apply(
            &mut t,
            4,
            &compaction_event("fallback", json!({"failure_reason": "<i>no</i>"})),
        );
        let v: Value = serde_json::from_str(&PublicState::of("s", &t).to_json()).expect("json");
        assert_eq!(v["last_event_id"], 4);
        assert_eq!(v["phase"], "summary_compact");
        assert_eq!(v["metrics"]["used_input_tokens"], 110_000);
        assert_eq!(v["compaction"]["status"], "fallback");
        assert_eq!(v["history"][0]["status"], "fallback");
        assert_eq!(v["history"][0]["reason"], "<i>no</i>");
        assert_eq!(v["history"][0]["ended_ms"], T0);
        assert_eq!(v["forecast"]["turns"], 0);
        assert_eq!(v["forecast"]["tokens_per_turn"], 1_500.0);
        assert_eq!(
            compaction_key(&t),
            Some((
                "2026-06-23T14:55:34.000000+00:00".into(),
                CompactionStatus::Fallback
            ))
        );
    }
}
