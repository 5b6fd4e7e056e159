//! How a built-in publisher reaches the store: as an HTTP publisher would,
//! with the relay's metrics counting what it sends.

use crate::server::builtin::Builtin;
use crate::server::event::Outgoing;
use crate::server::metrics::Metrics;
use crate::server::store::Store;
use ctxguard_core::protocol::StatusEvent;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// A built-in session's way into the store: publishes as an HTTP publisher
/// would, and logs (once per outage) when the store refuses.
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
                    tracing::info!(session = %self.session.id(), "publishing again");
                }
                ids
            }
            Err(e) => {
                if !self.failing.swap(true, Ordering::Relaxed) {
                    tracing::warn!(session = %self.session.id(), "events dropped while {e}");
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
