//! Status-event parsing: `StatusEvent::parse` (the SSE `data:` text),
//! `StatusEvent::from_payload` (the SSE payload or Wegent's
//! `chat:status_updated` payload, as JSON values) and `ContextState::parse`
//! (the `/context` body). Input: JSON text.
//!
//! Properties: no input panics; whatever is accepted re-serialises and
//! re-parses to the same value; the SSE text and its JSON value parse to the
//! same event; an accepted `created_at` parses to a time that formats back to
//! itself.

use crate::input;
use ctxguard_core::protocol::{
    format_created_at, parse_created_at, ContextCompaction, ContextState, StatusEvent,
};
use serde_json::Value;

/// Runs one input.
pub fn check(data: &[u8]) {
    let Some(text) = input::text(data) else {
        return;
    };
    let value = serde_json::from_str::<Value>(text).ok();
    assert_eq!(
        StatusEvent::accept_text(text),
        StatusEvent::parse(text).ok(),
        "accept_text and parse disagree"
    );
    if let Ok(event) = StatusEvent::parse(text) {
        round_trips(&event);
        let value = value.as_ref().expect("text an event parses from is JSON");
        assert_eq!(
            StatusEvent::from_payload(value).as_ref().ok(),
            Some(&event),
            "the SSE text and its JSON value give different events"
        );
    }
    if let Some(value) = &value {
        if let Ok(event) = StatusEvent::from_payload(value) {
            round_trips(&event);
        }
    }
    if let Ok(state) = ContextState::parse(text) {
        let json = serde_json::to_string(&state).expect("a state serialises");
        let again = ContextState::parse(&json)
            .unwrap_or_else(|e| panic!("the serialised state {json} does not parse: {e}"));
        assert_eq!(again, state, "a state changes through {json}");
        if let Some(compaction) = &state.context_compaction {
            created_at_round_trips(compaction);
        }
    }
}

fn round_trips(event: &StatusEvent) {
    let json = serde_json::to_string(event).expect("an event serialises");
    let again = StatusEvent::parse(&json)
        .unwrap_or_else(|e| panic!("the serialised event {json} does not parse: {e}"));
    assert_eq!(&again, event, "an event changes through {json}");
    let value = serde_json::to_value(event).expect("an event is a JSON value");
    let again = StatusEvent::from_payload(&value)
        .unwrap_or_else(|e| panic!("the event value {value} does not parse: {e}"));
    assert_eq!(&again, event, "an event changes through its value {value}");
    if let Some(compaction) = &event.context_compaction {
        created_at_round_trips(compaction);
    }
}

fn created_at_round_trips(compaction: &ContextCompaction) {
    // The wire accepts any YYYY-MM-DDTHH:MM:SS[.frac]Z-shaped text; a real date parses, and formats back.
    if let Some(micros) = parse_created_at(&compaction.created_at) {
        let formatted = format_created_at(micros);
        assert_eq!(
            parse_created_at(&formatted),
            Some(micros),
            "{:?} -> {micros} -> {formatted:?}",
            compaction.created_at
        );
    }
}
