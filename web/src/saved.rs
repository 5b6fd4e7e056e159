//! The saved-state format: one versioned JSON record per session in
//! `localStorage`. Decoding never fails loudly: anything unreadable, of another
//! version or of another session is treated as nothing saved.

use ctxguard_core::protocol::ContextState;
use serde::{Deserialize, Serialize};

/// Version of the saved record; bump it when [`ContextState`] changes shape.
pub const SAVED_STATE_VERSION: u32 = 1;

/// The `localStorage` key of `session`'s saved state.
pub fn storage_key(session: &str) -> String {
    format!("ctxguard.toolbar.v{SAVED_STATE_VERSION}.{session}")
}

#[derive(Serialize, Deserialize)]
struct SavedRecord {
    version: u32,
    session: String,
    saved_at_ms: f64,
    state: ContextState,
}

/// The JSON saved for `session`.
pub fn encode(session: &str, state: &ContextState, saved_at_ms: f64) -> String {
    let record = SavedRecord {
        version: SAVED_STATE_VERSION,
        session: session.to_string(),
        saved_at_ms,
        state: state.clone(),
    };
    serde_json::to_string(&record).unwrap_or_default()
}

/// The state saved for `session`, if `text` is a readable record of this version and session.
pub fn decode(session: &str, text: &str) -> Option<ContextState> {
    let record: SavedRecord = serde_json::from_str(text).ok()?;
    (record.version == SAVED_STATE_VERSION
        && record.session == session
        && record.state.validate().is_ok())
    .then_some(record.state)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state::Toolbar;
    use ctxguard_core::protocol::EVENT_NAME;

    fn some_state() -> ContextState {
        let data = r#"{"type":"response.status.updated","response_id":"r","phase":"final","context_metrics":{
          "context_window":100,"reserved_output_tokens":10,"available_input_tokens":90,"used_input_tokens":50,
          "remaining_input_tokens":40,"remaining_percent":44,"display_remaining_tokens":50,"display_remaining_percent":50,
          "trigger_limit":81,"target_limit":63,"is_over_trigger":false}}"#;
        let mut t = Toolbar::new();
        t.apply_event(Some("3"), EVENT_NAME, data, 0.0);
        t.snapshot().expect("state after an event")
    }

    #[test]
    fn round_trips() {
        let s = some_state();
        let text = encode("demo", &s, 1.0);
        assert_eq!(decode("demo", &text), Some(s));
        assert_eq!(storage_key("demo"), "ctxguard.toolbar.v1.demo");
    }

    #[test]
    fn rejects_other_sessions_versions_and_garbage() {
        let s = some_state();
        let text = encode("demo", &s, 1.0);
        assert_eq!(decode("other", &text), None);
        assert_eq!(
            decode("demo", &text.replace("\"version\":1", "\"version\":0")),
            None
        );
        for junk in [
            "",
            "null",
            "{",
            "[1,2]",
            "{\"version\":1}",
            "\u{0}\u{1}",
            "{\"version\":\"1\",\"session\":\"demo\"}",
        ] {
            assert_eq!(decode("demo", junk), None, "{junk:?}");
        }
        let broken = text.replace("\"used_input_tokens\":50", "\"used_input_tokens\":-50");
        assert_eq!(decode("demo", &broken), None);
    }
}
