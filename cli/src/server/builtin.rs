//! The sessions the server runs itself: `demo` and `replay`. They are two
//! publishers into the same store as any chat backend, through a
//! [`Publisher`]; the server also knows what they tell clients about
//! themselves (their [`Profile`]) and when a client first asked for them (the
//! replay waits for a viewer).

use super::event::Outgoing;
use super::metrics::Metrics;
use super::session_id::SessionId;
use super::store::Store;
use ctxguard_core::protocol::{ContextState, StatusEvent};
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use tokio::sync::watch;

/// What a built-in session tells clients about itself in `/context`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Profile {
    /// Model id.
    pub model: Option<String>,
    /// Per-block attachment budget in tokens.
    pub attachment_limit: Option<i64>,
}

impl Profile {
    /// `state` with the profile's fields filled in.
    pub fn apply(&self, mut state: ContextState) -> ContextState {
        state.model = self.model.clone();
        state.attachment_limit = self.attachment_limit;
        state
    }
}

/// One built-in session.
#[derive(Debug)]
pub struct Builtin {
    id: SessionId,
    profile: Profile,
    visited: watch::Sender<bool>,
}

impl Builtin {
    /// A built-in session `id` telling clients `profile`.
    pub fn new(id: SessionId, profile: Profile) -> Arc<Self> {
        Arc::new(Builtin {
            id,
            profile,
            visited: watch::channel(false).0,
        })
    }

    /// Its id.
    pub fn id(&self) -> &SessionId {
        &self.id
    }

    /// What it tells clients.
    pub fn profile(&self) -> &Profile {
        &self.profile
    }

    /// Notes that a client asked for it (its state or its stream).
    pub fn visit(&self) {
        self.visited
            .send_if_modified(|v| !std::mem::replace(v, true));
    }

    /// Waits until a client has asked for it.
    pub async fn first_visit(&self) {
        let mut rx = self.visited.subscribe();
        let _ = rx.wait_for(|v| *v).await;
    }
}

/// The built-in sessions of this server, fixed at start.
#[derive(Debug, Default, Clone)]
pub struct Builtins(HashMap<SessionId, Arc<Builtin>>);

impl Builtins {
    /// Adds `builtin`.
    pub fn insert(&mut self, builtin: Arc<Builtin>) {
        self.0.insert(builtin.id().clone(), builtin);
    }

    /// The built-in session `id`, if it is one.
    pub fn get(&self, id: &SessionId) -> Option<&Arc<Builtin>> {
        self.0.get(id)
    }

    /// Their ids, sorted.
    pub fn ids(&self) -> Vec<&SessionId> {
        let mut ids: Vec<&SessionId> = self.0.keys().collect();
        ids.sort_unstable();
        ids
    }
}

/// A built-in session's way into the store: publishes as an HTTP publisher
/// would, and says on stderr (once per outage) when the store refuses.
pub struct Publisher {
    store: Arc<dyn Store>,
    metrics: Arc<Metrics>,
    session: Arc<Builtin>,
    failing: AtomicBool,
}

impl Publisher {
    /// A publisher of `session` into `store`.
    pub fn new(store: Arc<dyn Store>, metrics: Arc<Metrics>, session: Arc<Builtin>) -> Self {
        Publisher {
            store,
            metrics,
            session,
            failing: AtomicBool::new(false),
        }
    }

    /// The session published into.
    pub fn session(&self) -> &Arc<Builtin> {
        &self.session
    }

    /// Publishes `events`; returns their ids, none when the store refused (already reported).
    pub async fn publish(&self, events: Vec<Outgoing>) -> Vec<u64> {
        if events.is_empty() {
            return Vec::new();
        }
        let n = events.len();
        match self.store.publish(self.session.id(), events).await {
            Ok(ids) => {
                self.metrics.published(n);
                if self.failing.swap(false, Ordering::Relaxed) {
                    eprintln!(
                        "ctxguard serve: session {}: publishing again",
                        self.session.id()
                    );
                }
                ids
            }
            Err(e) => {
                if !self.failing.swap(true, Ordering::Relaxed) {
                    eprintln!(
                        "ctxguard serve: session {}: events dropped while {e}",
                        self.session.id()
                    );
                }
                Vec::new()
            }
        }
    }

    /// Publishes valid status events.
    pub async fn publish_events(&self, events: Vec<StatusEvent>) -> Vec<u64> {
        self.publish(events.into_iter().map(Outgoing::event).collect())
            .await
    }
}
