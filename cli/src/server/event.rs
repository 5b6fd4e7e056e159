//! The events the relay carries: one to publish ([`Outgoing`]: its `data:`
//! text and, when valid, the parsed event) and one as stored and sent on the
//! streams ([`StoredEvent`]: with its per-session id). Defined apart from the
//! stores and the hub, which both use them.

use ctxguard_core::protocol::StatusEvent;

/// One event as sent on the streams.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredEvent {
    /// Per-session id, strictly increasing.
    pub id: u64,
    /// Id of the session's event before this one (0 for the first the store holds).
    pub prev: u64,
    /// The exact `data:` text.
    pub data: String,
    /// The event, when `data` is a valid status event (a replayed raw line may not be).
    pub event: Option<StatusEvent>,
}

impl StoredEvent {
    /// An event read back from a store: its text, parsed again.
    pub fn from_data(id: u64, prev: u64, data: String) -> Self {
        let event = StatusEvent::parse(&data).ok();
        StoredEvent {
            id,
            prev,
            data,
            event,
        }
    }
}

/// An event to publish: its `data:` text and, when valid, the event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outgoing {
    /// The `data:` text.
    pub data: String,
    /// The event, when valid (only valid events become the `/context` state).
    pub event: Option<StatusEvent>,
}

impl Outgoing {
    /// A valid event, sent as its SPEC §4 JSON.
    pub fn event(event: StatusEvent) -> Self {
        let data = serde_json::to_string(&event).expect("a StatusEvent always serialises");
        Outgoing {
            data,
            event: Some(event),
        }
    }

    /// A recorded `data:` text sent as is (bare CRs dropped: SSE data cannot carry them).
    pub fn raw(data: &str) -> Self {
        Outgoing {
            event: StatusEvent::parse(data).ok(),
            data: data.replace('\r', ""),
        }
    }
}
