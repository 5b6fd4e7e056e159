//! A connection's [`ConnClock`], shared by the reads of its socket, the
//! requests it serves and the task that closes it when a wait runs out.

use super::clock::{ConnClock, Timeout};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};
use tokio::sync::Notify;

/// One connection's clock and a wake-up for its watchdog.
#[derive(Debug)]
pub struct Activity {
    clock: Mutex<ConnClock>,
    changed: Notify,
}

impl Activity {
    /// The activity of a connection accepted now.
    pub fn new(header_read_timeout: Duration, idle_timeout: Duration) -> Arc<Self> {
        Arc::new(Activity {
            clock: Mutex::new(ConnClock::new(
                Instant::now(),
                header_read_timeout,
                idle_timeout,
            )),
            changed: Notify::new(),
        })
    }

    fn clock(&self) -> MutexGuard<'_, ConnClock> {
        // The clock is a few plain fields; go on after a poisoning.
        self.clock.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Bytes arrived.
    pub fn read(&self) {
        if self.clock().on_read(Instant::now()) {
            self.changed.notify_one();
        }
    }

    /// A request started; it counts as in flight until the guard drops.
    pub fn request(self: &Arc<Self>) -> InFlight {
        self.clock().on_request_start();
        self.changed.notify_one();
        InFlight(self.clone())
    }

    /// When the connection is to be closed, if nothing happens before.
    pub fn deadline(&self) -> Option<Instant> {
        self.clock().deadline()
    }

    /// The wait that ran out, if one did.
    pub fn expired(&self) -> Option<Timeout> {
        self.clock().expired(Instant::now())
    }

    /// Resolves when the deadline may have moved.
    pub async fn changed(&self) {
        self.changed.notified().await;
    }
}

/// A request in flight; its end is noted on drop.
#[derive(Debug)]
pub struct InFlight(Arc<Activity>);

impl Drop for InFlight {
    fn drop(&mut self) {
        self.0.clock().on_request_end(Instant::now());
        self.0.changed.notify_one();
    }
}
