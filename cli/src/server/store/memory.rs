//! `--store memory`: sessions in this process. Each session is a resume
//! buffer and a [`Hub`]; a registry orders sessions by their last activity
//! (a publish or a stream opening), so past `--max-sessions` the least
//! recently active session without open streams is evicted first, and a
//! sweep forgets sessions idle longer than `--session-idle-secs`. An evicted
//! or forgotten session is gone at once: its id answers 404.

use super::{
    backlog_after, unix_micros, Store, StoreError, StoreFuture, StoreLimits, Subscription,
};
use crate::server::event::{Outgoing, StoredEvent};
use crate::server::hub::{Hub, HubState};
use crate::server::session_id::SessionId;
use crate::server::shutdown::stopped;
use ctxguard_core::protocol::ContextState;
use std::collections::{BTreeMap, HashMap, VecDeque};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};
use tokio::sync::watch;

/// One session: its resume buffer and its hub.
#[derive(Debug)]
struct Session {
    hub: Arc<Hub>,
    log: Mutex<Log>,
}

#[derive(Debug, Default)]
struct Log {
    buffer: VecDeque<Arc<StoredEvent>>,
    /// Set when the session is evicted or forgotten; a publish holding it then starts over.
    gone: bool,
}

impl Session {
    fn log(&self) -> MutexGuard<'_, Log> {
        // Every mutation is one push, pop or flag; go on after a poisoning.
        self.log.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// A session's place in the registry.
#[derive(Debug)]
struct Slot {
    session: Arc<Session>,
    /// Its key in `by_activity`.
    tick: u64,
    last_active: Instant,
    pinned: bool,
}

#[derive(Debug, Default)]
struct Registry {
    slots: HashMap<SessionId, Slot>,
    /// Sessions by last activity, oldest first.
    by_activity: BTreeMap<u64, SessionId>,
    next_tick: u64,
}

impl Registry {
    /// Marks `id` active now.
    fn touch(&mut self, id: &SessionId, now: Instant) {
        self.next_tick += 1;
        let tick = self.next_tick;
        if let Some(slot) = self.slots.get_mut(id) {
            self.by_activity.remove(&slot.tick);
            slot.tick = tick;
            slot.last_active = now;
            self.by_activity.insert(tick, id.clone());
        }
    }

    fn remove(&mut self, id: &SessionId) -> Option<Arc<Session>> {
        let slot = self.slots.remove(id)?;
        self.by_activity.remove(&slot.tick);
        slot.session.log().gone = true;
        slot.session.hub.close();
        Some(slot.session)
    }

    /// Whether `slot` may be dropped to make room or for idling.
    fn evictable(slot: &Slot) -> bool {
        !slot.pinned && slot.session.hub.subscriber_count() == 0
    }

    /// The session `id`, created (evicting the least recently active idle one when full) if absent.
    fn get_or_create(
        &mut self,
        id: &SessionId,
        limits: &StoreLimits,
        now: Instant,
    ) -> Result<Arc<Session>, StoreError> {
        if let Some(slot) = self.slots.get(id) {
            let session = slot.session.clone();
            self.touch(id, now);
            return Ok(session);
        }
        if self.slots.len() >= limits.max_sessions.max(1) {
            let victim = self
                .by_activity
                .values()
                .find(|v| self.slots.get(*v).is_some_and(Registry::evictable))
                .cloned()
                .ok_or(StoreError::Full(limits.max_sessions))?;
            self.remove(&victim);
        }
        let session = Arc::new(Session {
            hub: Hub::new(HubState::default()),
            log: Mutex::new(Log::default()),
        });
        self.next_tick += 1;
        let tick = self.next_tick;
        self.slots.insert(
            id.clone(),
            Slot {
                session: session.clone(),
                tick,
                last_active: now,
                pinned: false,
            },
        );
        self.by_activity.insert(tick, id.clone());
        Ok(session)
    }
}

/// Sessions held in this process.
#[derive(Debug)]
pub struct MemoryStore {
    limits: StoreLimits,
    registry: Mutex<Registry>,
}

impl MemoryStore {
    /// An empty store.
    pub fn new(limits: StoreLimits) -> Self {
        MemoryStore {
            limits,
            registry: Mutex::new(Registry::default()),
        }
    }

    fn registry(&self) -> MutexGuard<'_, Registry> {
        // Every mutation keeps `slots` and `by_activity` in step before it can panic; go on after a poisoning.
        self.registry.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn get(&self, id: &SessionId, touch: bool) -> Option<Arc<Session>> {
        let mut registry = self.registry();
        let session = registry.slots.get(id)?.session.clone();
        if touch {
            registry.touch(id, Instant::now());
        }
        Some(session)
    }

    /// Forgets every session idle since before `now - idle` (no publish, no
    /// stream opened, none open, not built in); returns how many.
    pub fn sweep(&self, now: Instant) -> usize {
        let mut registry = self.registry();
        let idle: Vec<SessionId> = registry
            .by_activity
            .values()
            .filter(|id| {
                registry.slots.get(*id).is_some_and(|slot| {
                    Registry::evictable(slot)
                        && now.saturating_duration_since(slot.last_active) >= self.limits.idle
                })
            })
            .cloned()
            .collect();
        for id in &idle {
            registry.remove(id);
        }
        idle.len()
    }

    /// [`Store::pin`], at once.
    pub fn pin_now(&self, id: &SessionId) -> Result<(), StoreError> {
        let mut registry = self.registry();
        registry.get_or_create(id, &self.limits, Instant::now())?;
        if let Some(slot) = registry.slots.get_mut(id) {
            slot.pinned = true;
        }
        Ok(())
    }

    fn publish_now(&self, id: &SessionId, events: &[Outgoing]) -> Result<Vec<u64>, StoreError> {
        loop {
            let session = self
                .registry()
                .get_or_create(id, &self.limits, Instant::now())?;
            let mut log = session.log();
            if log.gone {
                // Evicted between the registry and this lock: publish into a new session.
                continue;
            }
            let mut prev = session.hub.last_id();
            let mut next = prev.saturating_add(1).max(unix_micros());
            let mut ids = Vec::with_capacity(events.len());
            for outgoing in events {
                let stored = Arc::new(StoredEvent {
                    id: next,
                    prev,
                    data: outgoing.data.clone(),
                    event: outgoing.event.clone(),
                });
                if log.buffer.len() >= self.limits.buffer_events.max(1) {
                    log.buffer.pop_front();
                }
                log.buffer.push_back(stored.clone());
                session.hub.deliver(stored);
                ids.push(next);
                prev = next;
                next = next.saturating_add(1);
            }
            return Ok(ids);
        }
    }

    fn subscribe_now(&self, id: &SessionId, last: Option<u64>) -> Option<Subscription> {
        let session = self.get(id, true)?;
        let log = session.log();
        let live = session.hub.receiver();
        let buffer: Vec<Arc<StoredEvent>> = log.buffer.iter().cloned().collect();
        let state = session.hub.state();
        let backlog =
            backlog_after(&buffer, last, state.last_id).unwrap_or_else(|| state.resync(None));
        Some(Subscription { backlog, live })
    }
}

/// Sweeps `store` every quarter of its idle time (100 ms to a minute) until `shutdown`.
pub async fn sweep_until(store: Arc<MemoryStore>, mut shutdown: watch::Receiver<bool>) {
    let every = (store.limits.idle / 4).clamp(Duration::from_millis(100), Duration::from_secs(60));
    loop {
        tokio::select! {
            _ = tokio::time::sleep(every) => {
                store.sweep(Instant::now());
            }
            _ = stopped(&mut shutdown) => return,
        }
    }
}

impl Store for MemoryStore {
    fn kind(&self) -> &'static str {
        "memory"
    }

    fn publish<'a>(
        &'a self,
        session: &'a SessionId,
        events: Vec<Outgoing>,
    ) -> StoreFuture<'a, Vec<u64>> {
        Box::pin(async move { self.publish_now(session, &events) })
    }

    fn subscribe<'a>(
        &'a self,
        session: &'a SessionId,
        last_event_id: Option<u64>,
    ) -> StoreFuture<'a, Option<Subscription>> {
        Box::pin(async move { Ok(self.subscribe_now(session, last_event_id)) })
    }

    fn context<'a>(&'a self, session: &'a SessionId) -> StoreFuture<'a, Option<ContextState>> {
        Box::pin(async move { Ok(self.get(session, false).map(|s| s.hub.state().context())) })
    }

    fn forget<'a>(&'a self, session: &'a SessionId) -> StoreFuture<'a, bool> {
        Box::pin(async move { Ok(self.registry().remove(session).is_some()) })
    }

    fn sessions(&self) -> StoreFuture<'_, Vec<String>> {
        Box::pin(async move {
            let mut names: Vec<String> = self
                .registry()
                .slots
                .keys()
                .map(|id| id.as_str().to_string())
                .collect();
            names.sort_unstable();
            Ok(names)
        })
    }

    fn session_count(&self) -> StoreFuture<'_, usize> {
        Box::pin(async move { Ok(self.registry().slots.len()) })
    }

    fn pin<'a>(&'a self, session: &'a SessionId) -> StoreFuture<'a, ()> {
        Box::pin(async move { self.pin_now(session) })
    }

    fn check(&self) -> StoreFuture<'_, ()> {
        Box::pin(async { Ok(()) })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::server::hub::Delivery;
    use crate::server::testing::{event, sid};

    fn limits(buffer_events: usize, max_sessions: usize) -> StoreLimits {
        StoreLimits {
            buffer_events,
            max_sessions,
            idle: Duration::from_secs(60),
        }
    }

    async fn publish(store: &MemoryStore, id: &str, used: i64) -> u64 {
        store
            .publish(&sid(id), vec![Outgoing::event(event(used))])
            .await
            .expect("published")[0]
    }

    fn ids(events: &[Arc<StoredEvent>]) -> Vec<u64> {
        events.iter().map(|e| e.id).collect()
    }

    #[tokio::test]
    async fn ids_increase_from_the_clock_and_resumes_use_the_buffer() {
        let store = MemoryStore::new(limits(4, 10));
        let before = unix_micros();
        let mut all = Vec::new();
        for used in 1..=6 {
            all.push(publish(&store, "s", used).await);
        }
        assert!(all[0] >= before, "seeded from the clock");
        assert!(all.windows(2).all(|w| w[1] > w[0]));
        let sub = |last| {
            let store = &store;
            async move {
                store
                    .subscribe(&sid("s"), last)
                    .await
                    .expect("ok")
                    .expect("exists")
            }
        };
        assert_eq!(ids(&sub(Some(all[3])).await.backlog), all[4..].to_vec());
        assert_eq!(ids(&sub(Some(all[1])).await.backlog), all[2..].to_vec());
        assert_eq!(
            ids(&sub(Some(all[0])).await.backlog),
            vec![all[5]],
            "older than the buffer"
        );
        assert_eq!(
            ids(&sub(Some(u64::MAX)).await.backlog),
            vec![all[5]],
            "never issued"
        );
        assert_eq!(ids(&sub(None).await.backlog), vec![all[5]]);
        let ctx = store.context(&sid("s")).await.expect("ok").expect("exists");
        assert_eq!(ctx.event_id, all[5]);
        assert!(store
            .subscribe(&sid("nope"), None)
            .await
            .expect("ok")
            .is_none());
        assert!(store.context(&sid("nope")).await.expect("ok").is_none());
    }

    #[tokio::test]
    async fn raw_lines_are_sent_but_never_become_the_state() {
        let store = MemoryStore::new(limits(8, 10));
        let first = publish(&store, "s", 5).await;
        let raw = store
            .publish(&sid("s"), vec![Outgoing::raw("{\"type\":\"bogus\"}\r")])
            .await
            .expect("ok")[0];
        assert!(raw > first);
        let ctx = store.context(&sid("s")).await.expect("ok").expect("exists");
        assert_eq!(ctx.event_id, first);
        let sub = store
            .subscribe(&sid("s"), Some(0))
            .await
            .expect("ok")
            .expect("exists");
        assert_eq!(sub.backlog[1].data, "{\"type\":\"bogus\"}");
        assert!(sub.backlog[1].event.is_none());
    }

    #[tokio::test]
    async fn eviction_takes_the_least_recently_active_session_without_streams() {
        let store = MemoryStore::new(limits(4, 3));
        for id in ["a", "b", "c"] {
            publish(&store, id, 1).await;
        }
        let _watching_a = store
            .subscribe(&sid("a"), None)
            .await
            .expect("ok")
            .expect("a");
        publish(&store, "d", 1).await;
        assert_eq!(
            store.sessions().await.expect("ok"),
            ["a", "c", "d"],
            "b was the oldest idle one"
        );
        store.pin(&sid("c")).await.expect("pinned");
        publish(&store, "e", 1).await;
        assert_eq!(store.sessions().await.expect("ok"), ["a", "c", "e"]);
        assert!(
            store.context(&sid("d")).await.expect("ok").is_none(),
            "evicted: gone at once"
        );
        let _watching_e = store
            .subscribe(&sid("e"), None)
            .await
            .expect("ok")
            .expect("e");
        assert_eq!(
            store
                .publish(&sid("f"), vec![Outgoing::event(event(1))])
                .await,
            Err(StoreError::Full(3))
        );
    }

    #[tokio::test]
    async fn forgetting_ends_streams_and_the_sweep_drops_idle_sessions() {
        let store = MemoryStore::new(limits(4, 10));
        publish(&store, "a", 1).await;
        publish(&store, "b", 1).await;
        let mut sub = store
            .subscribe(&sid("a"), None)
            .await
            .expect("ok")
            .expect("a");
        assert!(store.forget(&sid("a")).await.expect("ok"));
        assert!(matches!(sub.live.recv().await, Delivery::Closed));
        assert!(!store.forget(&sid("a")).await.expect("ok"));
        store.pin(&sid("pinned")).await.expect("ok");
        let _open = store
            .subscribe(&sid("b"), None)
            .await
            .expect("ok")
            .expect("b");
        publish(&store, "c", 1).await;
        assert_eq!(store.sweep(Instant::now()), 0, "nothing idle yet");
        let later = Instant::now() + Duration::from_secs(61);
        assert_eq!(store.sweep(later), 1);
        assert_eq!(store.sessions().await.expect("ok"), ["b", "pinned"]);
        let pinned = store
            .context(&sid("pinned"))
            .await
            .expect("ok")
            .expect("kept");
        assert_eq!(pinned.event_id, 0);
    }
}
