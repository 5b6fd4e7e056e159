//! The saved-state format: one versioned JSON record per session in
//! `localStorage`, holding the `/context` state, the compaction history, the
//! forecast's inputs and the local start of a running compaction. Decoding
//! never fails loudly: anything unreadable, of another version or of another
//! session is treated as nothing saved. The record is read by hand ([`read`]),
//! pinned to its derived `Deserialize` by tests.

mod read;

use crate::machine::forecast::TurnForecast;
use crate::machine::history::HistoryEntry;
use crate::machine::run_clock::RunAnchor;
use crate::machine::turn_end::Interruption;
use crate::text_bound;
use ctxguard_core::protocol::{ContextCompaction, ContextState};
use serde::{Deserialize, Serialize};

/// Version of the saved record; bump it when its shape changes.
pub const SAVED_STATE_VERSION: u32 = 2;

/// The `localStorage` key of `session`'s saved state.
pub fn storage_key(session: &str) -> String {
    format!("ctxguard.toolbar.v{SAVED_STATE_VERSION}.{session}")
}

/// What is saved of one session's toolbar.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SavedToolbar {
    /// The state as `/context` gives it.
    pub state: ContextState,
    /// The compaction history, oldest first.
    #[serde(default)]
    pub history: Vec<HistoryEntry>,
    /// The forecast's inputs.
    #[serde(default)]
    pub forecast: TurnForecast,
    /// When the running compaction began, in local time.
    #[serde(default)]
    pub run: Option<RunAnchor>,
    /// The compaction a turn's end interrupted, when it is the one shown.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interrupted: Option<Interruption>,
}

/// `c` as saved: its strings cut as the toolbar shows them ([`text_bound::shown`]), so a
/// megabyte `failure_reason` is neither copied nor written to `localStorage` (which holds
/// about 5 MB an origin) on every change; a reload shows what was shown.
pub fn bounded_compaction(c: &ContextCompaction) -> ContextCompaction {
    let cut = |s: &Option<String>| s.as_deref().map(|s| text_bound::shown(s).into_owned());
    ContextCompaction {
        kind: c.kind.clone(),
        status: c.status,
        before_tokens: c.before_tokens,
        trigger_limit: c.trigger_limit,
        target_limit: c.target_limit,
        used_legacy_fallback: c.used_legacy_fallback,
        created_at: c.created_at.clone(),
        after_tokens: c.after_tokens,
        summary_message_id: cut(&c.summary_message_id),
        failure_reason: cut(&c.failure_reason),
    }
}

#[derive(Debug, PartialEq, Serialize, Deserialize)]
struct SavedRecord {
    version: u32,
    session: String,
    saved_at_ms: f64,
    toolbar: SavedToolbar,
}

/// The JSON saved for `session`.
pub fn encode(session: &str, toolbar: &SavedToolbar, saved_at_ms: f64) -> String {
    let record = SavedRecord {
        version: SAVED_STATE_VERSION,
        session: session.to_string(),
        saved_at_ms,
        toolbar: toolbar.clone(),
    };
    crate::json::to_text(&record)
}

/// What was saved for `session`, if `text` is a readable record of this version and session.
pub fn decode(session: &str, text: &str) -> Option<SavedToolbar> {
    let record = crate::json::read_text(text, read::record)?;
    (record.version == SAVED_STATE_VERSION
        && record.session == session
        && record.toolbar.state.validate().is_ok())
    .then_some(record.toolbar)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn some_saved() -> SavedToolbar {
        let state = ContextState::parse(
            r#"{"event_id":3,"phase":"final","context_metrics":{
          "context_window":100,"reserved_output_tokens":10,"available_input_tokens":90,"used_input_tokens":50,
          "remaining_input_tokens":40,"remaining_percent":44,"display_remaining_tokens":50,"display_remaining_percent":50,
          "trigger_limit":81,"target_limit":63,"is_over_trigger":false}}"#,
        )
        .expect("valid state");
        let mut forecast = TurnForecast::default();
        forecast.turn_started(10);
        forecast.turn_started(30);
        SavedToolbar {
            state,
            history: Vec::new(),
            forecast,
            run: None,
            interrupted: None,
        }
    }

    #[test]
    fn round_trips() {
        let s = some_saved();
        let text = encode("demo", &s, 1.0);
        assert_eq!(decode("demo", &text), Some(s));
        assert_eq!(storage_key("demo"), "ctxguard.toolbar.v2.demo");
    }

    #[test]
    fn rejects_other_sessions_versions_and_garbage() {
        let s = some_saved();
        let text = encode("demo", &s, 1.0);
        assert_eq!(decode("other", &text), None);
        assert_eq!(
            decode("demo", &text.replace("\"version\":2", "\"version\":1")),
            None
        );
        for junk in [
            "",
            "null",
            "{",
            "[1,2]",
            "{\"version\":2}",
            "\u{0}\u{1}",
            "{\"version\":\"2\",\"session\":\"demo\"}",
        ] {
            assert_eq!(decode("demo", junk), None, "{junk:?}");
        }
        let broken = text.replace("\"used_input_tokens\":50", "\"used_input_tokens\":-50");
        assert_eq!(decode("demo", &broken), None);
    }
}
