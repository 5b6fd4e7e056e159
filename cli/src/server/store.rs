//! Where sessions live: their ids, resume buffers and latest state, behind
//! one trait so the relay runs the same over either store.
//!
//! - [`memory::MemoryStore`] (`--store memory`, the default): one process,
//!   nothing to install; a restart forgets every session.
//! - [`redis::RedisStore`] (`--store redis://HOST:PORT[/DB]`): every instance
//!   behind a load balancer shares the sessions; a publish on one instance
//!   reaches streams on all of them.
//!
//! Ids: each event of a session gets `max(previous id + 1, now in Unix
//! microseconds)`, so they increase across instances, restarts of the
//! server, and restarts of a store that kept nothing (the clock is past
//! every id issued before, unless a session published more than a million
//! events a second).

pub mod memory;
pub mod redis;

use super::event::{Outgoing, StoredEvent};
use super::hub::HubReceiver;
use super::session_id::SessionId;
use ctxguard_core::protocol::ContextState;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

/// What a new stream gets: the events to send first, then the live receiver.
#[derive(Debug)]
pub struct Subscription {
    /// Events to send before live ones, in id order.
    pub backlog: Vec<Arc<StoredEvent>>,
    /// Live events (it may repeat backlog ids; streams skip ids they already sent).
    pub live: HubReceiver,
}

/// Why a store could not answer.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum StoreError {
    /// The store cannot be reached (Redis down or not answering).
    #[error("the store is unavailable: {0}")]
    Unavailable(String),
    /// A new session would pass `--max-sessions` and every session has open streams.
    #[error("no room for a new session: all {0} sessions (--max-sessions) have open streams")]
    Full(usize),
}

/// A store operation in flight.
pub type StoreFuture<'a, T> = Pin<Box<dyn Future<Output = Result<T, StoreError>> + Send + 'a>>;

/// The operations the relay needs from a store.
pub trait Store: Send + Sync {
    /// `memory` or `redis`, as `/healthz` says.
    fn kind(&self) -> &'static str;

    /// Appends `events` to `session` (created when new), each with its id; returns the ids in order.
    fn publish<'a>(
        &'a self,
        session: &'a SessionId,
        events: Vec<Outgoing>,
    ) -> StoreFuture<'a, Vec<u64>>;

    /// Opens a stream after `last_event_id`: the buffered later events when the
    /// buffer still holds the one after it, else the latest state first. `None`: no such session.
    fn subscribe<'a>(
        &'a self,
        session: &'a SessionId,
        last_event_id: Option<u64>,
    ) -> StoreFuture<'a, Option<Subscription>>;

    /// The session's latest state (`None`: no such session).
    fn context<'a>(&'a self, session: &'a SessionId) -> StoreFuture<'a, Option<ContextState>>;

    /// Forgets the session and ends its streams on every instance; whether it existed.
    fn forget<'a>(&'a self, session: &'a SessionId) -> StoreFuture<'a, bool>;

    /// The ids of every session, sorted.
    fn sessions(&self) -> StoreFuture<'_, Vec<String>>;

    /// How many sessions the store holds.
    fn session_count(&self) -> StoreFuture<'_, usize>;

    /// Creates a built-in session (demo, replay) if absent and keeps it from eviction and idling.
    fn pin<'a>(&'a self, session: &'a SessionId) -> StoreFuture<'a, ()>;

    /// Whether the store answers now.
    fn check(&self) -> StoreFuture<'_, ()>;
}

/// Sizes and lifetimes of sessions, the same for either store.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StoreLimits {
    /// Events kept per session for resumes (`--buffer`).
    pub buffer_events: usize,
    /// Most sessions held (`--max-sessions`).
    pub max_sessions: usize,
    /// A session with no publish and no open stream for this long is forgotten (`--session-idle-secs`).
    pub idle: std::time::Duration,
}

impl Default for StoreLimits {
    fn default() -> Self {
        StoreLimits {
            buffer_events: 512,
            max_sessions: 10_000,
            idle: std::time::Duration::from_secs(3600),
        }
    }
}

/// The current time in Unix microseconds (the floor of every new id).
pub fn unix_micros() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_micros() as u64)
        .unwrap_or(0)
}

/// The backlog of a stream resuming after `last` from `buffer` (oldest first):
/// the later events when the buffer holds the one after `last`, else `None`
/// (no id, an id older than the buffer, or one never issued).
pub fn backlog_after(
    buffer: &[Arc<StoredEvent>],
    last: Option<u64>,
    newest_id: u64,
) -> Option<Vec<Arc<StoredEvent>>> {
    let last = last?;
    if last > newest_id {
        return None;
    }
    match buffer.first() {
        None => Some(Vec::new()),
        Some(first) if first.prev == last || first.id <= last => {
            Some(buffer.iter().filter(|e| e.id > last).cloned().collect())
        }
        Some(_) => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chain(ids: &[u64]) -> Vec<Arc<StoredEvent>> {
        let mut prev = 0;
        ids.iter()
            .map(|&id| {
                let e = Arc::new(StoredEvent {
                    id,
                    prev,
                    data: String::new(),
                    event: None,
                });
                prev = id;
                e
            })
            .collect()
    }

    #[test]
    fn backlog_needs_the_event_after_last_in_the_buffer() {
        let mut buffer = chain(&[3, 10, 11, 20]);
        // The buffer dropped 3: it now starts at 10, whose predecessor is 3.
        buffer.remove(0);
        let ids = |v: Option<Vec<Arc<StoredEvent>>>| {
            v.map(|v| v.iter().map(|e| e.id).collect::<Vec<_>>())
        };
        assert_eq!(
            ids(backlog_after(&buffer, Some(3), 20)),
            Some(vec![10, 11, 20])
        );
        assert_eq!(
            ids(backlog_after(&buffer, Some(10), 20)),
            Some(vec![11, 20])
        );
        assert_eq!(ids(backlog_after(&buffer, Some(15), 20)), Some(vec![20]));
        assert_eq!(ids(backlog_after(&buffer, Some(20), 20)), Some(vec![]));
        assert_eq!(
            ids(backlog_after(&buffer, Some(2), 20)),
            None,
            "older than the buffer"
        );
        assert_eq!(
            ids(backlog_after(&buffer, Some(21), 20)),
            None,
            "never issued"
        );
        assert_eq!(ids(backlog_after(&buffer, Some(u64::MAX), 20)), None);
        assert_eq!(ids(backlog_after(&buffer, None, 20)), None);
        assert_eq!(ids(backlog_after(&[], Some(0), 0)), Some(vec![]));
    }
}
