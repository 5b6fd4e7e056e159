//! The relay's publish body: `protocol::parse_event_batch`, one status event
//! (an SSE or a Wegent `chat:status_updated` payload) or an array of at most
//! `MAX_EVENTS_PER_BATCH`, all or nothing. Input: the request body's bytes.
//!
//! Properties: no body panics; an accepted body is a JSON object or an array
//! of at most the limit, and gives exactly the events
//! `StatusEvent::from_payload` reads from its items, in order; the events
//! re-published as an array give the same events back; a body that names a
//! key twice in any object (`UniqueKeys` refuses it) is refused as a whole,
//! as invalid JSON, whatever its items; any other refused body names the
//! first item `from_payload` refuses when an item is to blame, and otherwise
//! is not JSON, not an object or an array, or too long.

use ctxguard_core::protocol::{parse_event_batch, StatusEvent, UniqueKeys, MAX_EVENTS_PER_BATCH};
use serde_json::Value;

/// Runs one input.
pub fn check(data: &[u8]) {
    let result = parse_event_batch(data);
    let items = match serde_json::from_slice::<Value>(data) {
        Ok(Value::Array(items)) => Some(items),
        Ok(object @ Value::Object(_)) => Some(vec![object]),
        _ => None,
    };
    let Some(items) = items else {
        assert!(
            result.is_err(),
            "a body that is not an object or an array was accepted"
        );
        return;
    };
    if let Err(why) = UniqueKeys::parse_slice(data) {
        // JSON to a lenient parser, but a key is named twice: the one rule refuses it whole.
        let error = result.expect_err("a body naming a key twice was accepted");
        assert_eq!(
            error.index, None,
            "a repeated key blamed on an item: {}",
            error.message
        );
        assert_eq!(error.message, format!("invalid JSON: {why}"));
        return;
    }
    let read: Vec<Result<StatusEvent, _>> = items.iter().map(StatusEvent::from_payload).collect();
    match result {
        Ok(events) => {
            assert!(
                items.len() <= MAX_EVENTS_PER_BATCH,
                "{} events accepted",
                items.len()
            );
            let want: Vec<StatusEvent> = read
                .into_iter()
                .map(|r| r.expect("every item of an accepted body is an event"))
                .collect();
            assert_eq!(events, want);
            let again = serde_json::to_vec(&events).expect("events serialise");
            assert_eq!(
                parse_event_batch(&again).ok(),
                Some(events),
                "re-published events differ"
            );
        }
        Err(error) => match error.index {
            Some(i) => {
                assert!(
                    read[i].is_err(),
                    "item {i} is blamed but reads: {}",
                    error.message
                );
                assert!(
                    read[..i].iter().all(Result::is_ok),
                    "an earlier item than {i} is bad"
                );
            }
            None => assert!(
                items.len() > MAX_EVENTS_PER_BATCH,
                "a body of {} items refused as a whole: {}",
                items.len(),
                error.message
            ),
        },
    }
}
