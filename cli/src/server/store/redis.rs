//! `--store redis://HOST:PORT[/DB]`: sessions in one Redis (standalone, not
//! Cluster), shared by every instance behind a load balancer.
//!
//! Keys, under `ctxguard:`:
//! - `s:{id}:log`: a stream per session, trimmed to `--buffer` entries, each
//!   with its data and the id before it (so a reader can tell a gap);
//! - `s:{id}:state`: a hash with the last id, the latest valid event and the
//!   latest compaction event (the `/context` body and the resync);
//! - `sessions`: every session by last activity, scored by the store's
//!   activity sequence (`activity`: `max(last + 1, now in µs)`, as event ids
//!   are), which never ties (eviction, idling);
//! - `leases`: sessions some instance has streams open on (or runs), with
//!   their expiry; they are never evicted or idled while it lasts.
//!
//! Every write is one Lua script (`*.lua` beside this file), so ids are
//! assigned atomically across instances from Redis's clock
//! (`max(last + 1, now in µs)`: they keep increasing after Redis restarts
//! empty). Each publish wakes every instance on the channel
//! `ctxguard:events`; [`relay::Relay`] feeds the session's hub on each
//! instance in chain order and catches up from the log after a gap.
//!
//! While Redis is away publishes and reads answer 503, `/healthz` says so,
//! open streams stay open with nothing new to say, and the fan-out
//! reconnects by itself; once back, every relay catches up.

mod relay;
mod wire;

use super::{backlog_after, Store, StoreError, StoreFuture, StoreLimits, Subscription};
use crate::server::event::Outgoing;
use crate::server::session_id::SessionId;
use crate::server::shutdown::stopped;
use ctxguard_core::protocol::ContextState;
use futures_util::StreamExt;
use redis::aio::{ConnectionManager, ConnectionManagerConfig};
use redis::{Client, RedisError, Script};
use relay::{Relay, Snapshot};
use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;
use tokio::sync::watch;
use wire::FanOut;

/// Prefix of every key.
const PREFIX: &str = "ctxguard:";
/// The fan-out channel.
const CHANNEL: &str = "ctxguard:events";
/// How long a lease lasts; instances renew theirs every [`LEASE_RENEWAL`].
const LEASE: Duration = Duration::from_secs(15);
/// How often leases are renewed (and relays without streams dropped).
const LEASE_RENEWAL: Duration = Duration::from_secs(5);
/// How long one command may take before the store counts as unavailable.
const COMMAND_TIMEOUT: Duration = Duration::from_secs(2);
/// Longest wait between two attempts to reconnect the fan-out.
const MAX_BACKOFF: Duration = Duration::from_secs(2);
/// Most sessions one idle sweep looks at.
const SWEEP_BATCH: usize = 500;

fn script(body: &str) -> Script {
    Script::new(&format!("{}\n{body}", include_str!("redis/prelude.lua")))
}

/// The scripts, loaded once.
struct Scripts {
    publish: Script,
    open: Script,
    forget: Script,
    sweep: Script,
    lease: Script,
}

impl Scripts {
    fn new() -> Self {
        Scripts {
            publish: script(include_str!("redis/publish.lua")),
            open: script(include_str!("redis/open.lua")),
            forget: script(include_str!("redis/forget.lua")),
            sweep: script(include_str!("redis/sweep.lua")),
            lease: script(include_str!("redis/lease.lua")),
        }
    }
}

/// Sessions in Redis.
pub struct RedisStore {
    limits: StoreLimits,
    client: Client,
    conn: ConnectionManager,
    scripts: Scripts,
    /// Sessions with streams open on this instance.
    relays: Mutex<HashMap<SessionId, Arc<Relay>>>,
    /// Built-in sessions this instance runs.
    pinned: Mutex<HashSet<SessionId>>,
    /// Whether the fan-out is subscribed now.
    fan_out_up: AtomicBool,
}

fn unavailable(e: RedisError) -> StoreError {
    StoreError::Unavailable(format!("Redis: {e}"))
}

/// `fut` within [`COMMAND_TIMEOUT`], its Redis error as a [`StoreError`].
async fn within<T>(
    fut: impl std::future::Future<Output = Result<T, RedisError>>,
) -> Result<T, StoreError> {
    match tokio::time::timeout(COMMAND_TIMEOUT, fut).await {
        Ok(r) => r.map_err(unavailable),
        Err(_) => Err(StoreError::Unavailable(format!(
            "Redis did not answer within {} s",
            COMMAND_TIMEOUT.as_secs()
        ))),
    }
}

impl RedisStore {
    /// A store on `url`; connects lazily, so a Redis that is down at start
    /// only makes requests answer 503 until it is up. Its upkeep (fan-out,
    /// leases, idle sweeps) runs until `shutdown`.
    pub fn start(
        url: &str,
        limits: StoreLimits,
        shutdown: watch::Receiver<bool>,
    ) -> anyhow::Result<Arc<Self>> {
        anyhow::ensure!(
            url.starts_with("redis://"),
            "expected memory or redis://HOST:PORT[/DB]"
        );
        let client = Client::open(url)?;
        let config = ConnectionManagerConfig::new()
            .set_connection_timeout(Some(COMMAND_TIMEOUT))
            .set_response_timeout(Some(COMMAND_TIMEOUT))
            .set_number_of_retries(1)
            .set_max_delay(MAX_BACKOFF);
        let conn = ConnectionManager::new_lazy_with_config(client.clone(), config)?;
        let store = Arc::new(RedisStore {
            limits,
            client,
            conn,
            scripts: Scripts::new(),
            relays: Mutex::new(HashMap::new()),
            pinned: Mutex::new(HashSet::new()),
            fan_out_up: AtomicBool::new(false),
        });
        tokio::spawn(store.clone().fan_out(shutdown.clone()));
        tokio::spawn(store.clone().upkeep(shutdown));
        Ok(store)
    }

    fn relays(&self) -> MutexGuard<'_, HashMap<SessionId, Arc<Relay>>> {
        // A map of handles; go on after a poisoning.
        self.relays.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn pinned(&self) -> MutexGuard<'_, HashSet<SessionId>> {
        self.pinned.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Runs `script` with the prefix and the channel before `args`.
    async fn run<T: redis::FromRedisValue>(
        &self,
        script: &Script,
        args: &[String],
    ) -> Result<T, StoreError> {
        let mut invocation = script.prepare_invoke();
        invocation.arg(PREFIX).arg(CHANNEL);
        for a in args {
            invocation.arg(a);
        }
        let mut conn = self.conn.clone();
        within(invocation.invoke_async(&mut conn)).await
    }

    /// The session's state and its log after `after` (none: no log), leasing it for `lease`.
    async fn open(
        &self,
        session: &str,
        after: Option<u64>,
        lease: Duration,
    ) -> Result<Snapshot, StoreError> {
        let args = [
            session.to_string(),
            after
                .filter(|a| *a < u64::MAX / 2)
                .map(|a| a.to_string())
                .unwrap_or_default(),
            self.limits.buffer_events.max(1).to_string(),
            lease.as_millis().to_string(),
        ];
        let reply: redis::Value = self.run(&self.scripts.open, &args).await?;
        Ok(wire::opened(&reply))
    }

    /// A catch-up read for a relay: the session after `after`, or `None` (gone, or Redis away).
    async fn read_after(&self, session: &str, after: u64) -> Snapshot {
        self.open(session, Some(after), Duration::ZERO)
            .await
            .ok()
            .flatten()
    }

    /// Follows the fan-out channel, reconnecting with backoff, until `shutdown`.
    async fn fan_out(self: Arc<Self>, mut shutdown: watch::Receiver<bool>) {
        let mut backoff = Duration::from_millis(100);
        loop {
            if let Ok(Ok(mut pubsub)) =
                tokio::time::timeout(COMMAND_TIMEOUT, self.client.get_async_pubsub()).await
            {
                if let Ok(Ok(())) =
                    tokio::time::timeout(COMMAND_TIMEOUT, pubsub.subscribe(CHANNEL)).await
                {
                    self.fan_out_up.store(true, Ordering::SeqCst);
                    backoff = Duration::from_millis(100);
                    self.catch_up_all().await;
                    let mut messages = pubsub.on_message();
                    loop {
                        tokio::select! {
                            message = messages.next() => match message {
                                Some(m) => self.dispatch(m.get_payload_bytes()).await,
                                None => break,
                            },
                            _ = stopped(&mut shutdown) => return,
                        }
                    }
                }
            }
            if self.fan_out_up.swap(false, Ordering::SeqCst) {
                tracing::warn!("lost the Redis fan-out; reconnecting");
            }
            tokio::select! {
                _ = tokio::time::sleep(backoff) => {}
                _ = stopped(&mut shutdown) => return,
            }
            backoff = (backoff * 2).min(MAX_BACKOFF);
        }
    }

    /// Handles one fan-out message.
    async fn dispatch(&self, payload: &[u8]) {
        let Some(message) = FanOut::parse(payload) else {
            return;
        };
        let Ok(id) = SessionId::parse(&message.s) else {
            return;
        };
        if message.forget {
            if let Some(relay) = self.relays().remove(&id) {
                relay.hub().close();
            }
            return;
        }
        let relay = self.relays().get(&id).cloned();
        if let Some(relay) = relay {
            relay
                .relay(message.events(), |after| {
                    self.read_after(id.as_str(), after)
                })
                .await;
        }
    }

    /// Every relay catches up from the log (the fan-out was away).
    async fn catch_up_all(&self) {
        let relays: Vec<(SessionId, Arc<Relay>)> = self
            .relays()
            .iter()
            .map(|(id, r)| (id.clone(), r.clone()))
            .collect();
        for (id, relay) in relays {
            relay
                .catch_up(|after| self.read_after(id.as_str(), after))
                .await;
        }
    }

    /// Renews leases, drops relays without streams, and forgets idle sessions, until `shutdown`.
    async fn upkeep(self: Arc<Self>, mut shutdown: watch::Receiver<bool>) {
        let sweep_every =
            (self.limits.idle / 4).clamp(Duration::from_millis(100), Duration::from_secs(60));
        let mut lease = tokio::time::interval(LEASE_RENEWAL);
        let mut sweep = tokio::time::interval(sweep_every);
        loop {
            tokio::select! {
                _ = lease.tick() => self.renew_leases().await,
                _ = sweep.tick() => {
                    let args = [self.limits.idle.as_millis().to_string(), SWEEP_BATCH.to_string()];
                    let _: Result<i64, _> = self.run(&self.scripts.sweep, &args).await;
                }
                _ = stopped(&mut shutdown) => return,
            }
        }
    }

    async fn renew_leases(&self) {
        let watched: Vec<String> = {
            let mut relays = self.relays();
            relays.retain(|_, r| r.hub().subscriber_count() > 0);
            relays.keys().map(|id| id.to_string()).collect()
        };
        let pinned: Vec<String> = self.pinned().iter().map(|id| id.to_string()).collect();
        for (ids, create) in [(watched, "0"), (pinned, "1")] {
            if ids.is_empty() {
                continue;
            }
            let mut args = vec![LEASE.as_millis().to_string(), create.to_string()];
            args.extend(ids);
            let _: Result<i64, _> = self.run(&self.scripts.lease, &args).await;
        }
    }

    async fn publish_now(
        &self,
        session: &SessionId,
        events: Vec<Outgoing>,
    ) -> Result<Vec<u64>, StoreError> {
        let floor = self
            .relays()
            .get(session)
            .map_or(0, |r| r.hub().last_id().saturating_add(1));
        let mut args = vec![
            session.to_string(),
            self.limits.buffer_events.max(1).to_string(),
            self.limits.max_sessions.max(1).to_string(),
            floor.to_string(),
        ];
        for e in events {
            let flag = match &e.event {
                None => "0",
                Some(ev) if ev.context_compaction.is_some() => "2",
                Some(_) => "1",
            };
            args.push(flag.to_string());
            args.push(e.data);
        }
        match self.run::<Vec<String>>(&self.scripts.publish, &args).await {
            Ok(ids) => Ok(ids.iter().filter_map(|id| id.parse().ok()).collect()),
            Err(StoreError::Unavailable(m)) if m.contains("FULL") => {
                Err(StoreError::Full(self.limits.max_sessions))
            }
            Err(e) => Err(e),
        }
    }

    async fn subscribe_now(
        &self,
        session: &SessionId,
        last: Option<u64>,
    ) -> Result<Option<Subscription>, StoreError> {
        let relay = self
            .relays()
            .entry(session.clone())
            .or_insert_with(Relay::new)
            .clone();
        // The receiver exists before the read, so nothing published in between is missed.
        let live = relay.hub().receiver();
        let snapshot = match self.open(session.as_str(), last, LEASE).await {
            Ok(s) => s,
            Err(e) => {
                drop(live);
                self.drop_if_unwatched(session, &relay);
                return Err(e);
            }
        };
        let Some((state, entries)) = snapshot else {
            drop(live);
            self.drop_if_unwatched(session, &relay);
            return Ok(None);
        };
        let backlog =
            backlog_after(&entries, last, state.last_id).unwrap_or_else(|| state.resync(None));
        relay
            .start(state, |after| self.read_after(session.as_str(), after))
            .await;
        Ok(Some(Subscription { backlog, live }))
    }

    fn drop_if_unwatched(&self, session: &SessionId, relay: &Arc<Relay>) {
        let mut relays = self.relays();
        if relay.hub().subscriber_count() == 0
            && relays.get(session).is_some_and(|r| Arc::ptr_eq(r, relay))
        {
            relays.remove(session);
        }
    }
}

impl Store for RedisStore {
    fn kind(&self) -> &'static str {
        "redis"
    }

    fn publish<'a>(
        &'a self,
        session: &'a SessionId,
        events: Vec<Outgoing>,
    ) -> StoreFuture<'a, Vec<u64>> {
        Box::pin(self.publish_now(session, events))
    }

    fn subscribe<'a>(
        &'a self,
        session: &'a SessionId,
        last_event_id: Option<u64>,
    ) -> StoreFuture<'a, Option<Subscription>> {
        Box::pin(self.subscribe_now(session, last_event_id))
    }

    fn context<'a>(&'a self, session: &'a SessionId) -> StoreFuture<'a, Option<ContextState>> {
        Box::pin(async move {
            let snapshot = self.open(session.as_str(), None, Duration::ZERO).await?;
            Ok(snapshot.map(|(state, _)| state.context()))
        })
    }

    fn forget<'a>(&'a self, session: &'a SessionId) -> StoreFuture<'a, bool> {
        Box::pin(async move {
            let existed: i64 = self
                .run(&self.scripts.forget, &[session.to_string()])
                .await?;
            Ok(existed == 1)
        })
    }

    fn sessions(&self) -> StoreFuture<'_, Vec<String>> {
        Box::pin(async move {
            let mut conn = self.conn.clone();
            let mut ids: Vec<String> = within(
                redis::cmd("ZRANGE")
                    .arg(format!("{PREFIX}sessions"))
                    .arg(0)
                    .arg(-1)
                    .query_async(&mut conn),
            )
            .await?;
            ids.sort_unstable();
            Ok(ids)
        })
    }

    fn session_count(&self) -> StoreFuture<'_, usize> {
        Box::pin(async move {
            let mut conn = self.conn.clone();
            within(
                redis::cmd("ZCARD")
                    .arg(format!("{PREFIX}sessions"))
                    .query_async(&mut conn),
            )
            .await
        })
    }

    fn pin<'a>(&'a self, session: &'a SessionId) -> StoreFuture<'a, ()> {
        Box::pin(async move {
            self.pinned().insert(session.clone());
            let args = [
                LEASE.as_millis().to_string(),
                "1".to_string(),
                session.to_string(),
            ];
            let _: i64 = self.run(&self.scripts.lease, &args).await?;
            Ok(())
        })
    }

    fn check(&self) -> StoreFuture<'_, ()> {
        Box::pin(async move {
            let mut conn = self.conn.clone();
            let _: String = within(redis::cmd("PING").query_async(&mut conn)).await?;
            if !self.fan_out_up.load(Ordering::SeqCst) {
                return Err(StoreError::Unavailable(
                    "the Redis fan-out is reconnecting".into(),
                ));
            }
            Ok(())
        })
    }
}
