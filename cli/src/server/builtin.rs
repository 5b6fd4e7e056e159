//! The sessions the server runs itself (`demo` and `replay`, published by
//! `crate::publishers`), as the relay sees them: what they tell clients about
//! themselves (their [`Profile`]) and when a client first asked for them (the
//! replay waits for a viewer).

use super::session_id::SessionId;
use ctxguard_core::protocol::ContextState;
use std::collections::HashMap;
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
