//! One status stream: a per-session monotonic event id, a bounded buffer of
//! recent events for `Last-Event-ID` resumes, the latest state for
//! `/context`, and a broadcast channel fanning new events out to every
//! connected client.
//!
//! Ids start at the session's creation time in Unix milliseconds and go up by
//! one per event, so they stay monotonic across server restarts too (a client
//! that saw ids of an earlier run never mistakes a new event for an old one).

use ctxguard_core::protocol::{ContextCompaction, ContextState, StatusEvent};
use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex, MutexGuard};
use tokio::sync::{broadcast, watch};

/// Events kept for resumes, per session.
pub const DEFAULT_BUFFER_EVENTS: usize = 512;
/// Capacity of the fan-out channel; a client this far behind is resynchronised from the latest state.
const CHANNEL_EVENTS: usize = 256;

/// One event as sent: its id, the exact `data:` text, and the parsed event when it is a valid one.
#[derive(Debug)]
pub struct StoredEvent {
    /// Per-session monotonic id.
    pub id: u64,
    /// The JSON text of the `data:` field.
    pub data: String,
    /// The event, when `data` is a valid status event (replayed raw lines may not be).
    pub event: Option<StatusEvent>,
}

/// What a session tells clients about itself.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Profile {
    /// Model id.
    pub model: Option<String>,
    /// Per-block attachment budget in tokens.
    pub attachment_limit: Option<i64>,
}

/// What a new subscriber gets: the events to send first, then the live receiver.
pub struct Subscription {
    /// Events to send before live ones, in id order.
    pub backlog: Vec<Arc<StoredEvent>>,
    /// Live events published after the backlog was taken.
    pub live: broadcast::Receiver<Arc<StoredEvent>>,
}

#[derive(Debug)]
struct Inner {
    next_id: u64,
    buffer: VecDeque<Arc<StoredEvent>>,
    latest: Option<Arc<StoredEvent>>,
    latest_compaction: Option<ContextCompaction>,
}

/// One session's stream.
#[derive(Debug)]
pub struct Session {
    name: String,
    capacity: usize,
    profile: Profile,
    inner: Mutex<Inner>,
    sender: broadcast::Sender<Arc<StoredEvent>>,
    subscribers: watch::Sender<usize>,
    visited: watch::Sender<bool>,
}

impl Session {
    /// A session whose first event id is `first_id`, keeping `capacity` events for resumes.
    pub fn new(name: impl Into<String>, first_id: u64, capacity: usize) -> Self {
        let (sender, _) = broadcast::channel(CHANNEL_EVENTS);
        Session {
            name: name.into(),
            capacity: capacity.max(1),
            profile: Profile::default(),
            inner: Mutex::new(Inner {
                next_id: first_id.max(1),
                buffer: VecDeque::new(),
                latest: None,
                latest_compaction: None,
            }),
            sender,
            subscribers: watch::channel(0).0,
            visited: watch::channel(false).0,
        }
    }

    /// A session whose ids start at the current Unix time in milliseconds.
    pub fn starting_now(name: impl Into<String>) -> Self {
        let millis = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_millis() as u64)
            .unwrap_or(1);
        Session::new(name, millis, DEFAULT_BUFFER_EVENTS)
    }

    /// The session's name (its URL id).
    pub fn name(&self) -> &str {
        &self.name
    }

    fn lock(&self) -> MutexGuard<'_, Inner> {
        // A panic while holding the lock leaves the buffer consistent (every mutation is one push/pop), so go on.
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Publishes a status event; returns its id.
    pub fn publish(&self, event: &StatusEvent) -> u64 {
        let data = serde_json::to_string(event).expect("a StatusEvent always serialises");
        self.publish_stored(data, Some(event.clone()))
    }

    /// Publishes a `data:` text as is (a replayed line that may not be a valid event); returns its id.
    pub fn publish_raw(&self, data: &str) -> u64 {
        let event = StatusEvent::parse(data).ok();
        // SSE data cannot carry a bare CR; newlines become separate `data:` lines.
        self.publish_stored(data.replace('\r', ""), event)
    }

    fn publish_stored(&self, data: String, event: Option<StatusEvent>) -> u64 {
        let mut inner = self.lock();
        let id = inner.next_id;
        inner.next_id += 1;
        let stored = Arc::new(StoredEvent { id, data, event });
        if let Some(e) = &stored.event {
            if let Some(c) = &e.context_compaction {
                inner.latest_compaction = Some(c.clone());
            }
            inner.latest = Some(stored.clone());
        }
        if inner.buffer.len() == self.capacity {
            inner.buffer.pop_front();
        }
        inner.buffer.push_back(stored.clone());
        // Sent under the lock so that a subscriber's backlog and live events never overlap or miss one.
        let _ = self.sender.send(stored);
        id
    }

    /// The same session telling clients `profile`.
    pub fn with_profile(mut self, profile: Profile) -> Self {
        self.profile = profile;
        self
    }

    /// The latest valid state, if any event was published.
    pub fn context(&self) -> Option<ContextState> {
        let inner = self.lock();
        let latest = inner.latest.as_ref()?;
        let event = latest.event.as_ref()?;
        Some(ContextState {
            event_id: latest.id,
            phase: Some(event.phase),
            context_metrics: Some(event.context_metrics.clone()),
            context_compaction: inner.latest_compaction.clone(),
            model: self.profile.model.clone(),
            attachment_limit: self.profile.attachment_limit,
        })
    }

    /// The `/context` answer: the latest state, or event 0 with no metrics before any event.
    pub fn state(&self) -> ContextState {
        self.context().unwrap_or_else(|| ContextState {
            model: self.profile.model.clone(),
            attachment_limit: self.profile.attachment_limit,
            ..ContextState::empty()
        })
    }

    /// The latest valid event as stored.
    pub fn latest(&self) -> Option<Arc<StoredEvent>> {
        self.lock().latest.clone()
    }

    /// Subscribes after `last_event_id`: every buffered later event when the
    /// buffer still holds the one after it; otherwise (no id, an id older than
    /// the buffer, or one this session never issued) the latest state first.
    pub fn subscribe(&self, last_event_id: Option<u64>) -> Subscription {
        let inner = self.lock();
        let live = self.sender.subscribe();
        let oldest = inner.buffer.front().map(|e| e.id);
        let newest = inner.next_id - 1;
        let backlog = match (last_event_id, oldest) {
            (Some(last), Some(oldest)) if last + 1 >= oldest && last <= newest => inner
                .buffer
                .iter()
                .filter(|e| e.id > last)
                .cloned()
                .collect(),
            (Some(last), None) if last <= newest => Vec::new(),
            _ => inner.latest.iter().cloned().collect(),
        };
        Subscription { backlog, live }
    }

    /// Counts a connected stream for as long as the returned guard lives.
    pub fn connect(self: &Arc<Self>) -> SubscriberGuard {
        self.visit();
        self.subscribers.send_modify(|n| *n += 1);
        SubscriberGuard {
            session: self.clone(),
        }
    }

    /// Notes that a client asked for this session (its state or its stream).
    pub fn visit(&self) {
        self.visited
            .send_if_modified(|v| !std::mem::replace(v, true));
    }

    /// Waits until a client has asked for this session.
    pub async fn first_visit(&self) {
        let mut rx = self.visited.subscribe();
        let _ = rx.wait_for(|v| *v).await;
    }

    /// Streams connected now.
    #[cfg(test)]
    pub fn subscriber_count(&self) -> usize {
        *self.subscribers.borrow()
    }
}

/// Decrements the session's subscriber count on drop.
pub struct SubscriberGuard {
    session: Arc<Session>,
}

impl Drop for SubscriberGuard {
    fn drop(&mut self) {
        self.session
            .subscribers
            .send_modify(|n| *n = n.saturating_sub(1));
    }
}

/// The sessions a server hosts, fixed at start.
#[derive(Debug, Default, Clone)]
pub struct Sessions {
    by_name: HashMap<String, Arc<Session>>,
}

impl Sessions {
    /// Adds a session (replacing one of the same name).
    pub fn insert(&mut self, session: Arc<Session>) {
        self.by_name.insert(session.name().to_string(), session);
    }

    /// The session named `name`.
    pub fn get(&self, name: &str) -> Option<&Arc<Session>> {
        self.by_name.get(name)
    }

    /// Session names, sorted.
    pub fn names(&self) -> Vec<&str> {
        let mut names: Vec<&str> = self.by_name.keys().map(String::as_str).collect();
        names.sort_unstable();
        names
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use ctxguard_core::budget::context_limits;
    use ctxguard_core::metrics::ContextMetricsSnapshot;
    use ctxguard_core::protocol::Phase;

    pub(crate) fn event(used: i64) -> StatusEvent {
        let limits = context_limits("gpt-4o", None, None);
        StatusEvent::new(
            "resp_t",
            Phase::AfterToolEnd,
            ContextMetricsSnapshot::from_used(used, &limits),
        )
    }

    fn ids(events: &[Arc<StoredEvent>]) -> Vec<u64> {
        events.iter().map(|e| e.id).collect()
    }

    #[test]
    fn resumes_from_the_buffer_or_the_latest_state() {
        let s = Session::new("t", 10, 4);
        assert!(s.subscribe(None).backlog.is_empty());
        assert!(s.context().is_none());
        for used in 1..=6 {
            s.publish(&event(used));
        }
        // ids 10..=15, buffer holds 12..=15
        assert_eq!(ids(&s.subscribe(Some(13)).backlog), vec![14, 15]);
        assert_eq!(ids(&s.subscribe(Some(11)).backlog), vec![12, 13, 14, 15]);
        assert_eq!(ids(&s.subscribe(Some(15)).backlog), Vec::<u64>::new());
        assert_eq!(
            ids(&s.subscribe(Some(10)).backlog),
            vec![15],
            "older than the buffer: latest first"
        );
        assert_eq!(
            ids(&s.subscribe(Some(99)).backlog),
            vec![15],
            "never issued: latest first"
        );
        assert_eq!(ids(&s.subscribe(None).backlog), vec![15]);
        let ctx = s.context().expect("has state");
        let used = ctx.context_metrics.map(|m| m.used_input_tokens);
        assert_eq!((ctx.event_id, used), (15, Some(6)));
    }

    #[test]
    fn raw_lines_are_sent_but_never_become_the_state() {
        let s = Session::new("t", 1, 8);
        s.publish(&event(5));
        let id = s.publish_raw("{\"type\":\"bogus\"}\r");
        assert_eq!(id, 2);
        assert_eq!(s.context().expect("state").event_id, 1);
        let sub = s.subscribe(Some(0));
        assert_eq!(sub.backlog[1].data, "{\"type\":\"bogus\"}");
        assert!(sub.backlog[1].event.is_none());
    }

    #[test]
    fn live_events_follow_the_backlog_without_gaps() {
        let s = Session::new("t", 1, 8);
        s.publish(&event(1));
        let mut sub = s.subscribe(Some(0));
        s.publish(&event(2));
        assert_eq!(ids(&sub.backlog), vec![1]);
        assert_eq!(sub.live.try_recv().expect("live").id, 2);
    }
}
