//! The `/context` body: a session's latest state, which a client restores
//! from on load and on every reconnect, and saves for the next page load.

use super::snapshot::ContextMetricsSnapshot;
use super::{ContextCompaction, Phase, StatusEvent};
use serde::{Deserialize, Serialize};

/// The state of one session at one event id: the latest valid event's phase
/// and metrics (none before the first event, with `event_id` 0), the latest
/// compaction record, and what the session tells about itself.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ContextState {
    /// Id of the latest event folded into this state (0 before any).
    pub event_id: u64,
    /// Phase of that event.
    #[serde(default)]
    pub phase: Option<Phase>,
    /// Its metrics; `None` for a session with no event yet.
    #[serde(default)]
    pub context_metrics: Option<ContextMetricsSnapshot>,
    /// The latest compaction record of the session, from the latest `summary_compact` event.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context_compaction: Option<ContextCompaction>,
    /// The session's model id, when known (clients preview attachments under it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// The session's per-block attachment budget in tokens, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub attachment_limit: Option<i64>,
    /// The server also serves the shared stream, `GET /api/events?session=…` (several
    /// sessions on one connection); absent or `false`, a client follows the session on its
    /// own stream, `GET /api/sessions/{id}/events`, the one every server offers.
    #[serde(default, skip_serializing_if = "is_false")]
    pub shared_stream: bool,
}

/// Whether `value` is `false` (such a `shared_stream` is left out of the body).
fn is_false(value: &bool) -> bool {
    !*value
}

impl ContextState {
    /// The state of a session that has sent nothing yet.
    pub fn empty() -> Self {
        ContextState {
            event_id: 0,
            phase: None,
            context_metrics: None,
            context_compaction: None,
            model: None,
            attachment_limit: None,
            shared_stream: false,
        }
    }

    /// Folds event `id` into the state: its phase and metrics, and its compaction record when it has one.
    pub fn apply(&mut self, id: u64, event: &StatusEvent) {
        self.event_id = id;
        self.phase = Some(event.phase);
        self.context_metrics = Some(event.context_metrics.clone());
        if let Some(compaction) = &event.context_compaction {
            self.context_compaction = Some(compaction.clone());
        }
    }

    /// Parses a `/context` body (unknown fields ignored) and checks it as an event is checked.
    pub fn parse(json: &str) -> crate::Result<Self> {
        let state: ContextState =
            serde_json::from_str(json).map_err(|e| crate::Error::invalid("context state", e))?;
        state.validate()?;
        Ok(state)
    }

    /// Checks the numbers and the compaction record as [`StatusEvent::validate`] does.
    pub fn validate(&self) -> crate::Result<()> {
        if let Some(metrics) = &self.context_metrics {
            super::event::check_metrics(metrics)?;
        }
        if let Some(compaction) = &self.context_compaction {
            super::event::check_compaction(compaction)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_and_rejects_implausible_states() {
        let empty = ContextState::empty();
        let text = serde_json::to_string(&empty).expect("serialises");
        assert_eq!(
            text,
            r#"{"event_id":0,"phase":null,"context_metrics":null}"#
        );
        assert_eq!(ContextState::parse(&text).expect("valid"), empty);
        let state = ContextState::parse(
            r#"{"event_id":9,"phase":"final","extra":true,"context_metrics":{"context_window":100,"reserved_output_tokens":10,
            "available_input_tokens":90,"used_input_tokens":5,"remaining_input_tokens":85,"remaining_percent":94,
            "display_remaining_tokens":95,"display_remaining_percent":95,"trigger_limit":81,"target_limit":63,"is_over_trigger":false},
            "model":"gpt-4o","attachment_limit":15000}"#,
        )
        .expect("valid");
        assert_eq!(state.phase, Some(Phase::Final));
        assert_eq!(state.model.as_deref(), Some("gpt-4o"));
        let negative = serde_json::to_string(&state)
            .expect("serialises")
            .replace("\"used_input_tokens\":5", "\"used_input_tokens\":-5");
        assert!(ContextState::parse(&negative).is_err());
        assert!(ContextState::parse(r#"{"event_id":1,"phase":"nope"}"#).is_err());
    }

    #[test]
    fn shared_stream_is_announced_only_when_true() {
        let mut state = ContextState::empty();
        assert!(
            !ContextState::parse(r#"{"event_id":0}"#)
                .expect("valid")
                .shared_stream
        );
        state.shared_stream = true;
        let text = serde_json::to_string(&state).expect("serialises");
        assert!(text.ends_with(r#","shared_stream":true}"#), "{text}");
        assert!(ContextState::parse(&text).expect("valid").shared_stream);
    }
}
