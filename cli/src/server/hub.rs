//! One session's fan-out on this instance: the events it has relayed (their
//! last id, the latest valid event and the latest compaction event) and a
//! bounded broadcast channel to every stream open here.
//!
//! Both stores deliver through a hub: the memory store as it publishes, the
//! Redis store as its fan-out wakes it. A hub never delivers an id at or
//! below one it already delivered, so no stream sees ids go back.
//!
//! A stream that falls more than [`CHANNEL_EVENTS`] behind gets
//! [`Delivery::Lagged`] and resynchronises with [`Hub::resync`]: the latest
//! compaction event and then the latest event, so it always ends with the
//! true compaction state even when the latest event carries none.

use super::event::StoredEvent;
use ctxguard_core::protocol::ContextState;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use tokio::sync::broadcast::error::RecvError;
use tokio::sync::{broadcast, watch};

/// Capacity of a hub's channel; a stream this far behind is resynchronised.
pub const CHANNEL_EVENTS: usize = 256;

/// What a hub has relayed so far.
#[derive(Debug, Clone, Default)]
pub struct HubState {
    /// Id of the newest event relayed (0 before any).
    pub last_id: u64,
    /// The newest valid status event.
    pub latest: Option<Arc<StoredEvent>>,
    /// The newest event that carried a `context_compaction`.
    pub latest_compaction: Option<Arc<StoredEvent>>,
}

impl HubState {
    /// The state after `event`.
    fn apply(&mut self, event: &Arc<StoredEvent>) {
        self.last_id = event.id;
        if let Some(e) = &event.event {
            if e.context_compaction.is_some() {
                self.latest_compaction = Some(event.clone());
            }
            self.latest = Some(event.clone());
        }
    }

    /// The `/context` body: the latest compaction folded in, then the latest event.
    pub fn context(&self) -> ContextState {
        let mut state = ContextState::empty();
        for stored in [&self.latest_compaction, &self.latest]
            .into_iter()
            .flatten()
        {
            if let Some(event) = &stored.event {
                state.apply(stored.id, event);
            }
        }
        state
    }

    /// What a stream that has seen up to `after` (nothing: `None`) needs to hold the true state:
    /// the latest compaction event, then the latest event, each only when newer than `after`.
    pub fn resync(&self, after: Option<u64>) -> Vec<Arc<StoredEvent>> {
        let newer = |e: &&Arc<StoredEvent>| after.is_none_or(|a| e.id > a);
        let mut out: Vec<Arc<StoredEvent>> = Vec::with_capacity(2);
        if let Some(c) = self.latest_compaction.as_ref().filter(newer) {
            out.push(c.clone());
        }
        if let Some(l) = self.latest.as_ref().filter(newer) {
            if out.last().is_none_or(|c| c.id != l.id) {
                out.push(l.clone());
            }
        }
        out
    }
}

/// One session's fan-out on this instance.
#[derive(Debug)]
pub struct Hub {
    state: Mutex<HubState>,
    sender: broadcast::Sender<Arc<StoredEvent>>,
    subscribers: AtomicUsize,
    closed: watch::Sender<bool>,
}

impl Hub {
    /// A hub that has relayed what `state` says.
    pub fn new(state: HubState) -> Arc<Self> {
        Arc::new(Hub {
            state: Mutex::new(state),
            sender: broadcast::channel(CHANNEL_EVENTS).0,
            subscribers: AtomicUsize::new(0),
            closed: watch::channel(false).0,
        })
    }

    fn lock(&self) -> MutexGuard<'_, HubState> {
        // Every mutation is a few assignments that cannot panic half-way; go on after a poisoning.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Relays `event` to every stream unless its id is not newer than the last one relayed.
    pub fn deliver(&self, event: Arc<StoredEvent>) -> bool {
        let mut state = self.lock();
        if event.id <= state.last_id {
            return false;
        }
        state.apply(&event);
        // Sent under the lock, so a subscriber's snapshot and its live events never overlap or miss one.
        let _ = self.sender.send(event);
        true
    }

    /// Moves the hub forward to `state` without sending anything (its streams
    /// got those events from the store's backlog); an older state changes nothing.
    pub fn advance_to(&self, state: HubState) {
        let mut current = self.lock();
        if state.last_id > current.last_id {
            *current = state;
        }
    }

    /// A copy of what the hub has relayed.
    pub fn state(&self) -> HubState {
        self.lock().clone()
    }

    /// Id of the newest event relayed.
    pub fn last_id(&self) -> u64 {
        self.lock().last_id
    }

    /// See [`HubState::resync`].
    pub fn resync(&self, after: Option<u64>) -> Vec<Arc<StoredEvent>> {
        self.lock().resync(after)
    }

    /// A receiver of every event relayed from now on; counts as an open stream while it lives.
    pub fn receiver(self: &Arc<Self>) -> HubReceiver {
        self.subscribers.fetch_add(1, Ordering::SeqCst);
        HubReceiver {
            live: self.sender.subscribe(),
            closed: self.closed.subscribe(),
            hub: self.clone(),
        }
    }

    /// Streams open on this hub.
    pub fn subscriber_count(&self) -> usize {
        self.subscribers.load(Ordering::SeqCst)
    }

    /// Ends every stream of the hub (the session was forgotten).
    pub fn close(&self) {
        self.closed.send_replace(true);
    }
}

/// What a stream receives next.
#[derive(Debug)]
pub enum Delivery {
    /// The next event.
    Event(Arc<StoredEvent>),
    /// The stream fell behind the channel; resynchronise with [`Hub::resync`].
    Lagged,
    /// The session is gone; end the stream.
    Closed,
}

/// One stream's receiving end of a hub.
#[derive(Debug)]
pub struct HubReceiver {
    live: broadcast::Receiver<Arc<StoredEvent>>,
    closed: watch::Receiver<bool>,
    hub: Arc<Hub>,
}

impl HubReceiver {
    /// Waits for the next delivery.
    pub async fn recv(&mut self) -> Delivery {
        if *self.closed.borrow() {
            return Delivery::Closed;
        }
        tokio::select! {
            r = self.live.recv() => match r {
                Ok(e) => Delivery::Event(e),
                Err(RecvError::Lagged(_)) => Delivery::Lagged,
                Err(RecvError::Closed) => Delivery::Closed,
            },
            _ = self.closed.wait_for(|c| *c) => Delivery::Closed,
        }
    }

    /// The hub this receiver listens to.
    pub fn hub(&self) -> &Arc<Hub> {
        &self.hub
    }
}

impl Drop for HubReceiver {
    fn drop(&mut self) {
        self.hub.subscribers.fetch_sub(1, Ordering::SeqCst);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::server::testing::{compaction_event, event, stored};
    use ctxguard_core::protocol::CompactionStatus;

    #[tokio::test]
    async fn delivers_newer_ids_only_and_counts_receivers() {
        let hub = Hub::new(HubState::default());
        let mut rx = hub.receiver();
        assert_eq!(hub.subscriber_count(), 1);
        assert!(hub.deliver(stored(5, &event(1))));
        assert!(!hub.deliver(stored(5, &event(2))), "same id");
        assert!(!hub.deliver(stored(4, &event(2))), "older id");
        assert!(matches!(rx.recv().await, Delivery::Event(e) if e.id == 5));
        hub.close();
        assert!(matches!(rx.recv().await, Delivery::Closed));
        drop(rx);
        assert_eq!(hub.subscriber_count(), 0);
    }

    #[tokio::test]
    async fn a_lagging_receiver_is_told_and_resyncs_with_the_compaction() {
        let hub = Hub::new(HubState::default());
        let mut rx = hub.receiver();
        assert!(hub.deliver(stored(1, &compaction_event(CompactionStatus::Started))));
        for i in 0..CHANNEL_EVENTS as u64 + 10 {
            let e = if i == 50 {
                compaction_event(CompactionStatus::Completed)
            } else {
                event(i as i64)
            };
            hub.deliver(stored(2 + i, &e));
        }
        assert!(matches!(rx.recv().await, Delivery::Lagged));
        let resync = hub.resync(Some(1));
        let ids: Vec<u64> = resync.iter().map(|e| e.id).collect();
        assert_eq!(ids, vec![52, CHANNEL_EVENTS as u64 + 11]);
        let status = resync[0]
            .event
            .as_ref()
            .and_then(|e| e.context_compaction.as_ref())
            .map(|c| c.status);
        assert_eq!(status, Some(CompactionStatus::Completed));
        let context = hub.state().context();
        assert_eq!(context.event_id, CHANNEL_EVENTS as u64 + 11);
        assert_eq!(
            context.context_compaction.map(|c| c.status),
            Some(CompactionStatus::Completed)
        );
        assert!(hub.resync(Some(CHANNEL_EVENTS as u64 + 11)).is_empty());
    }
}
