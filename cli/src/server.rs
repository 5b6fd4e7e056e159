//! The status relay behind `ctxguard serve`: chat backends publish status
//! events over HTTP, browsers follow each session's stream (SSE, resumable)
//! and restore from its latest state, and any number of instances share the
//! sessions through Redis. The built toolbar is served at `/`; the built-in
//! publishers (`crate::publishers`) feed it like any other backend.
//!
//! Layers, one concept a file:
//! - [`routes`] is the router (`fn app`), built apart from any socket;
//!   [`publish`], [`reads`], [`sse`], [`multiplex`] (several sessions on one
//!   stream) and [`ops`] are its handlers;
//!   [`session_id`], [`auth`] and [`error`] guard its boundary; [`state`] is
//!   what they share, [`metrics`] what they count and [`logging`] what they
//!   tell the operator (one line per request).
//! - [`store`] holds sessions (memory or Redis); [`hub`] fans a session's
//!   events out to the streams open on this instance; [`builtin`] names the
//!   sessions this process publishes itself.
//! - [`conn`] accepts connections with timeouts and a cap.
//!
//! A run is three steps: [`Relay::open`] binds the port and opens the store,
//! [`Relay::route`] builds the router once the built-in sessions are known,
//! [`Routed::serve`] prints the banner and serves until Ctrl-C or SIGTERM.

pub mod auth;
pub mod builtin;
pub mod conn;
pub mod error;
pub mod event;
pub mod hub;
pub mod logging;
pub mod metrics;
pub mod multiplex;
pub mod ops;
pub mod publish;
pub mod reads;
pub mod routes;
pub mod session_id;
pub mod shutdown;
pub mod sse;
pub mod state;
pub mod store;
#[cfg(test)]
pub(crate) mod testing;

use anyhow::{Context, Result};
use auth::Auth;
use axum::http::HeaderValue;
use axum::Router;
use builtin::Builtins;
use metrics::Metrics;
use std::io::Write;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;
use store::memory::MemoryStore;
use store::{Store, StoreLimits};
use tokio::net::TcpListener;
use tokio::sync::watch;

/// Which store holds the sessions.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StoreChoice {
    /// In this process (`--store memory`).
    Memory,
    /// In Redis at this URL (`--store redis://HOST:PORT[/DB]`).
    Redis(String),
}

/// Everything `ctxguard serve` was asked for.
#[derive(Debug, Clone)]
pub struct ServeOptions {
    /// Address to listen on.
    pub host: String,
    /// Port; 0 picks a free one. A taken port is an error.
    pub port: u16,
    /// The built toolbar.
    pub dist: PathBuf,
    /// Where sessions live.
    pub store: StoreChoice,
    /// Buffer, session count and idle limits.
    pub limits: StoreLimits,
    /// The publish token (none: publishing off).
    pub publish_token: Option<String>,
    /// The read secret (none: reads open).
    pub read_secret: Option<String>,
    /// Origins allowed to read cross-origin.
    pub allow_origins: Vec<HeaderValue>,
    /// Cap of a publish body.
    pub max_body_bytes: usize,
    /// Interval of the SSE keep-alive comment.
    pub keep_alive: Duration,
    /// Connection timeouts and caps.
    pub conn: conn::ConnLimits,
}

/// Why `ctxguard serve` could not listen where it was told.
#[derive(Debug, thiserror::Error)]
pub enum BindError {
    /// Another process listens on the port.
    #[error("port {port} on {host} is taken by another process: stop it, or pass --port N (CTXGUARD_PORT=N) for another port, or --port 0 for any free one")]
    Taken {
        /// The address asked for.
        host: String,
        /// The port asked for.
        port: u16,
    },
    /// Any other refusal (no such address, no permission).
    #[error("cannot listen on {host}:{port}: {source}")]
    Other {
        /// The address asked for.
        host: String,
        /// The port asked for.
        port: u16,
        /// What the system said.
        source: std::io::Error,
    },
}

/// Binds `host:port` exactly (0: any free port); a taken port is [`BindError::Taken`].
pub async fn bind(host: &str, port: u16) -> Result<TcpListener, BindError> {
    TcpListener::bind((host, port)).await.map_err(|source| {
        let host = host.to_string();
        if source.kind() == std::io::ErrorKind::AddrInUse {
            BindError::Taken { host, port }
        } else {
            BindError::Other { host, port, source }
        }
    })
}

/// Opens the chosen store; its upkeep (sweeps, fan-out) runs until `shutdown`.
async fn open_store(
    options: &ServeOptions,
    shutdown: watch::Receiver<bool>,
) -> Result<Arc<dyn Store>> {
    match &options.store {
        StoreChoice::Memory => {
            let memory = Arc::new(MemoryStore::new(options.limits));
            tokio::spawn(store::memory::sweep_until(memory.clone(), shutdown));
            Ok(memory)
        }
        StoreChoice::Redis(url) => {
            let redis = store::redis::RedisStore::start(url, options.limits, shutdown)
                .with_context(|| format!("--store {url}"))?;
            Ok(redis)
        }
    }
}

/// The relay with its port bound and its store open, before any route.
pub struct Relay {
    options: ServeOptions,
    listener: TcpListener,
    store: Arc<dyn Store>,
    shutdown_tx: watch::Sender<bool>,
    shutdown_rx: watch::Receiver<bool>,
}

impl Relay {
    /// Step one: binds the port first (so a taken one fails before anything
    /// starts), then opens the store.
    pub async fn open(options: ServeOptions) -> Result<Relay> {
        let listener = bind(&options.host, options.port).await?;
        let (shutdown_tx, shutdown_rx) = watch::channel(false);
        let store = open_store(&options, shutdown_rx.clone()).await?;
        Ok(Relay {
            options,
            listener,
            store,
            shutdown_tx,
            shutdown_rx,
        })
    }

    /// Where sessions live.
    pub fn store(&self) -> &Arc<dyn Store> {
        &self.store
    }

    /// Step two: the router over the store, serving `builtins` as the
    /// sessions this process publishes itself.
    pub fn route(self, builtins: Builtins) -> Routed {
        let options = &self.options;
        let auth = Auth::new(
            options.publish_token.as_deref(),
            options.read_secret.as_deref(),
        );
        let banner = Banner {
            sessions: builtins.ids().iter().map(|id| id.to_string()).collect(),
            store: self.store.kind(),
            reads_open: auth.reads_are_open(),
            can_publish: auth.can_publish(),
            short_secret: auth.read_secret().is_some_and(auth::ReadSecret::is_short),
            dist: options.dist.clone(),
        };
        let mut state = state::AppState::new(
            self.store.clone(),
            auth,
            builtins,
            Some(options.dist.clone()),
            self.shutdown_rx.clone(),
        );
        state.max_body_bytes = options.max_body_bytes;
        state.keep_alive = options.keep_alive;
        let metrics = state.metrics.clone();
        let app = routes::app(state, &options.allow_origins);
        Routed {
            relay: self,
            app,
            metrics,
            banner,
        }
    }
}

/// What the operator is told at start.
struct Banner {
    sessions: Vec<String>,
    store: &'static str,
    reads_open: bool,
    can_publish: bool,
    short_secret: bool,
    dist: PathBuf,
}

impl Banner {
    /// The address and the built-in sessions' pages on stdout (scripts and
    /// tests read the `listening on` line), the rest as log lines.
    fn print(&self, addr: SocketAddr) {
        let url = format!("http://{addr}/");
        {
            let mut out = std::io::stdout().lock();
            let _ = writeln!(out, "ctxguard serve: listening on {url}");
            for name in &self.sessions {
                let _ = writeln!(out, "ctxguard serve: session {name}: {url}?session={name}");
            }
            let _ = out.flush();
        }
        tracing::info!(%addr, store = self.store, "listening");
        if self.reads_open {
            tracing::warn!(
                "reads are open: anyone who knows a session id can read it (set --read-secret-file or {} to require read tokens)",
                auth::READ_SECRET_VAR
            );
        } else if self.short_secret {
            tracing::warn!(
                "the read secret is shorter than {} bytes; use a longer one",
                auth::MIN_SECRET_BYTES
            );
        }
        if !self.can_publish {
            tracing::warn!(
                "publishing is off (set --publish-token-file or {} to let a backend publish)",
                auth::PUBLISH_TOKEN_VAR
            );
        }
        if !self.dist.join("index.html").is_file() {
            tracing::warn!(
                "no toolbar build in {} (run `trunk build --release`); / explains how",
                self.dist.display()
            );
        }
    }
}

/// The relay with its routes, ready to serve.
pub struct Routed {
    relay: Relay,
    app: Router,
    metrics: Arc<Metrics>,
    banner: Banner,
}

impl Routed {
    /// Where sessions live.
    pub fn store(&self) -> &Arc<dyn Store> {
        &self.relay.store
    }

    /// This instance's counters, which built-in publishers add to.
    pub fn metrics(&self) -> &Arc<Metrics> {
        &self.metrics
    }

    /// Turns true when the relay shuts down.
    pub fn shutdown(&self) -> &watch::Receiver<bool> {
        &self.relay.shutdown_rx
    }

    /// Step three: prints the banner, then serves until Ctrl-C or SIGTERM.
    pub async fn serve(self) -> Result<()> {
        let Routed {
            relay,
            app,
            metrics,
            banner,
        } = self;
        let addr = relay.listener.local_addr().context("no local address")?;
        banner.print(addr);
        let shutdown_tx = relay.shutdown_tx;
        let signalled = async move {
            shutdown::signal().await;
            tracing::info!("shutting down");
            let _ = shutdown_tx.send(true);
        };
        tokio::select! {
            _ = conn::serve(relay.listener, app, relay.options.conn, metrics, relay.shutdown_rx) => {}
            _ = async { signalled.await; std::future::pending::<()>().await } => {}
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_taken_port_is_an_error_that_names_it() {
        let taken = TcpListener::bind(("127.0.0.1", 0)).await.expect("bind");
        let port = taken.local_addr().expect("addr").port();
        let error = bind("127.0.0.1", port).await.expect_err("taken");
        assert!(matches!(error, BindError::Taken { port: p, .. } if p == port));
        assert!(
            error.to_string().contains(&format!("port {port} ")),
            "{error}"
        );
        let any = bind("127.0.0.1", 0).await.expect("port 0");
        assert_ne!(any.local_addr().expect("addr").port(), 0);
    }
}
