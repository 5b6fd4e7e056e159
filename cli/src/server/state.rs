//! What every handler shares: the store, the credentials, the built-in
//! sessions, the counters and the limits.

use super::auth::Auth;
use super::builtin::Builtins;
use super::metrics::Metrics;
use super::store::Store;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::watch;

/// Interval of the SSE keep-alive comment.
pub const KEEP_ALIVE: Duration = Duration::from_secs(15);
/// Default cap of a publish body (`--max-body-bytes`).
pub const DEFAULT_MAX_BODY_BYTES: usize = 256 * 1024;
/// Longest request target (path and query) answered; longer ones get 414.
pub const MAX_URI_BYTES: usize = 8 * 1024;

/// The handlers' shared state.
#[derive(Clone)]
pub struct AppState {
    /// Where sessions live.
    pub store: Arc<dyn Store>,
    /// Who may publish and read.
    pub auth: Arc<Auth>,
    /// The sessions the server runs itself.
    pub builtins: Arc<Builtins>,
    /// This instance's counters.
    pub metrics: Arc<Metrics>,
    /// The built toolbar (`dist/`), when it exists.
    pub dist: Option<PathBuf>,
    /// SSE keep-alive interval.
    pub keep_alive: Duration,
    /// Cap of a publish body.
    pub max_body_bytes: usize,
    /// How long a publisher gets to send its body.
    pub body_timeout: Duration,
    /// Turns true when the server shuts down; open streams end then.
    pub shutdown: watch::Receiver<bool>,
}

impl AppState {
    /// State over `store` with `auth`, serving `dist` when it holds an `index.html`.
    pub fn new(
        store: Arc<dyn Store>,
        auth: Auth,
        builtins: Builtins,
        dist: Option<PathBuf>,
        shutdown: watch::Receiver<bool>,
    ) -> Self {
        AppState {
            store,
            auth: Arc::new(auth),
            builtins: Arc::new(builtins),
            metrics: Arc::new(Metrics::default()),
            dist: dist.filter(|d| d.join("index.html").is_file()),
            keep_alive: KEEP_ALIVE,
            max_body_bytes: DEFAULT_MAX_BODY_BYTES,
            body_timeout: Duration::from_secs(30),
            shutdown,
        }
    }
}
