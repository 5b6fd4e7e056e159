//! One session's relay on this instance: feeds the fan-out's messages into
//! the session's [`Hub`] in chain order (each event names the id before it),
//! and when a link is missing (messages lost while Redis was away, or a
//! stream opened while one was in flight) catches up from the session's log
//! in Redis, or, when the log no longer reaches back that far, with the
//! latest compaction event and the latest event.

use crate::server::event::StoredEvent;
use crate::server::hub::{Hub, HubState};
use std::future::Future;
use std::sync::Arc;

/// What a catch-up reads: the session's state and its log after an id; `None` when the session is gone.
pub type Snapshot = Option<(HubState, Vec<Arc<StoredEvent>>)>;

/// One session's relay.
#[derive(Debug)]
pub struct Relay {
    hub: Arc<Hub>,
    inner: tokio::sync::Mutex<Pending>,
}

#[derive(Debug, Default)]
struct Pending {
    /// Set once the first stream's snapshot placed the hub in the chain.
    ready: bool,
    /// Events that arrived before that.
    stash: Vec<Arc<StoredEvent>>,
}

impl Relay {
    /// A relay whose hub has relayed nothing yet.
    pub fn new() -> Arc<Self> {
        Arc::new(Relay {
            hub: Hub::new(HubState::default()),
            inner: tokio::sync::Mutex::new(Pending::default()),
        })
    }

    /// The session's hub.
    pub fn hub(&self) -> &Arc<Hub> {
        &self.hub
    }

    /// Places the hub at `state` (read once its first receiver existed), then
    /// relays what arrived meanwhile. Later calls change nothing.
    pub async fn start<F, Fut>(&self, state: HubState, read_after: F)
    where
        F: FnOnce(u64) -> Fut,
        Fut: Future<Output = Snapshot>,
    {
        let mut pending = self.inner.lock().await;
        if pending.ready {
            return;
        }
        pending.ready = true;
        self.hub.advance_to(state);
        let stash = std::mem::take(&mut pending.stash);
        if relay_chain(&self.hub, &stash) {
            let from = self.hub.last_id();
            fill_gap(&self.hub, read_after(from).await);
        }
    }

    /// Relays the events of one fan-out message (stashed until [`Relay::start`]).
    pub async fn relay<F, Fut>(&self, events: Vec<Arc<StoredEvent>>, read_after: F)
    where
        F: FnOnce(u64) -> Fut,
        Fut: Future<Output = Snapshot>,
    {
        let mut pending = self.inner.lock().await;
        if !pending.ready {
            pending.stash.extend(events);
            return;
        }
        if relay_chain(&self.hub, &events) {
            let from = self.hub.last_id();
            fill_gap(&self.hub, read_after(from).await);
        }
    }

    /// Catches up from the log (after the fan-out reconnected).
    pub async fn catch_up<F, Fut>(&self, read_after: F)
    where
        F: FnOnce(u64) -> Fut,
        Fut: Future<Output = Snapshot>,
    {
        let pending = self.inner.lock().await;
        if pending.ready {
            let from = self.hub.last_id();
            fill_gap(&self.hub, read_after(from).await);
        }
    }
}

/// Delivers `events` while each follows the hub's last one (repeats
/// skipped); returns whether a link was missing (a catch-up is needed).
pub fn relay_chain(hub: &Hub, events: &[Arc<StoredEvent>]) -> bool {
    for event in events {
        let last = hub.last_id();
        if event.id <= last {
            continue;
        }
        if event.prev != last {
            return true;
        }
        hub.deliver(event.clone());
    }
    false
}

/// Delivers what the hub missed: the log entries after its last id when they
/// continue its chain (or start the session anew: a store that came back
/// empty), else the latest compaction event and the latest event.
pub fn fill_gap(hub: &Hub, snapshot: Snapshot) {
    let Some((state, entries)) = snapshot else {
        return;
    };
    let last = hub.last_id();
    let continuous = entries
        .first()
        .is_some_and(|first| first.prev == last || first.prev == 0);
    let events = if continuous {
        entries
    } else {
        state.resync(Some(last))
    };
    for event in events {
        hub.deliver(event);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::server::hub::Delivery;
    use crate::server::testing::{compaction_event, event};
    use ctxguard_core::protocol::CompactionStatus;

    fn link(id: u64, prev: u64) -> Arc<StoredEvent> {
        let mut e = (*crate::server::testing::stored(id, &event(id as i64))).clone();
        e.prev = prev;
        Arc::new(e)
    }

    async fn ids(rx: &mut crate::server::hub::HubReceiver, n: usize) -> Vec<u64> {
        let mut out = Vec::new();
        while out.len() < n {
            match rx.recv().await {
                Delivery::Event(e) => out.push(e.id),
                other => panic!("{other:?}"),
            }
        }
        out
    }

    #[tokio::test]
    async fn relays_in_chain_order_and_catches_up_a_missing_link() {
        let relay = Relay::new();
        let mut rx = relay.hub().receiver();
        // Arrives before the first stream's snapshot: stashed.
        relay
            .relay(vec![link(11, 10)], |_| async {
                panic!("no read while stashing")
            })
            .await;
        let state = HubState {
            last_id: 10,
            ..HubState::default()
        };
        relay
            .start(state, |_| async { panic!("the stash continues the chain") })
            .await;
        assert_eq!(ids(&mut rx, 1).await, [11]);
        // A repeat and the next link.
        relay
            .relay(vec![link(11, 10), link(12, 11)], |_| async { None })
            .await;
        assert_eq!(ids(&mut rx, 1).await, [12]);
        // 13 and 14 were lost: 15 names 14, so the log is read after 12.
        relay
            .relay(vec![link(15, 14)], |after| async move {
                assert_eq!(after, 12);
                Some((
                    HubState::default(),
                    vec![link(13, 12), link(14, 13), link(15, 14)],
                ))
            })
            .await;
        assert_eq!(ids(&mut rx, 3).await, [13, 14, 15]);
    }

    #[tokio::test]
    async fn a_log_that_no_longer_reaches_back_resyncs_with_the_compaction() {
        let relay = Relay::new();
        let mut rx = relay.hub().receiver();
        relay
            .start(
                HubState {
                    last_id: 5,
                    ..HubState::default()
                },
                |_| async { None },
            )
            .await;
        let completed = {
            let mut e = (*crate::server::testing::stored(
                40,
                &compaction_event(CompactionStatus::Completed),
            ))
            .clone();
            e.prev = 39;
            Arc::new(e)
        };
        let latest = link(90, 89);
        let state = HubState {
            last_id: 90,
            latest: Some(latest.clone()),
            latest_compaction: Some(completed),
        };
        relay
            .catch_up(|_| async move { Some((state, vec![link(60, 59), latest])) })
            .await;
        assert_eq!(ids(&mut rx, 2).await, [40, 90]);
    }

    #[tokio::test]
    async fn a_store_that_came_back_empty_starts_the_chain_anew() {
        let relay = Relay::new();
        let mut rx = relay.hub().receiver();
        relay
            .start(
                HubState {
                    last_id: 500,
                    ..HubState::default()
                },
                |_| async { None },
            )
            .await;
        // The first event of the session's new life names no predecessor.
        relay
            .relay(vec![link(900, 0)], |after| async move {
                assert_eq!(after, 500);
                Some((HubState::default(), vec![link(900, 0), link(901, 900)]))
            })
            .await;
        assert_eq!(ids(&mut rx, 2).await, [900, 901]);
    }
}
