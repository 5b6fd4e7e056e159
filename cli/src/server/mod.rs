//! The status relay behind `ctxguard serve`: chat backends publish status
//! events over HTTP, browsers follow each session's stream (SSE, resumable)
//! and restore from its latest state, and any number of instances share the
//! sessions through Redis. The built toolbar is served at `/`; the demo and
//! the replay are two publishers like any other.
//!
//! Layers, one concept a file:
//! - [`routes`] is the router (`fn app`), built apart from any socket;
//!   [`publish`], [`reads`], [`sse`], [`multiplex`] (several sessions on one
//!   stream) and [`ops`] are its handlers;
//!   [`session_id`], [`auth`] and [`error`] guard its boundary; [`state`] is
//!   what they share and [`metrics`] what they count.
//! - [`store`] holds sessions (memory or Redis); [`hub`] fans a session's
//!   events out to the streams open on this instance.
//! - [`conn`] accepts connections with timeouts and a cap.
//! - [`builtin`], [`demo`] and [`replay`] are the built-in publishers;
//!   [`summarizer`] answers the demo guard's summary requests.

pub mod auth;
pub mod builtin;
pub mod conn;
pub mod demo;
pub mod error;
pub mod event;
pub mod hub;
pub mod metrics;
pub mod multiplex;
pub mod ops;
pub mod publish;
pub mod reads;
pub mod replay;
pub mod routes;
pub mod session_id;
pub mod shutdown;
pub mod sse;
pub mod state;
pub mod store;
pub mod summarizer;
#[cfg(test)]
pub(crate) mod testing;

use anyhow::{Context, Result};
use auth::Auth;
use axum::http::HeaderValue;
use builtin::{Builtin, Builtins, Profile, Publisher};
use session_id::SessionId;
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
    /// Port; 0 picks a free one. A busy port falls back to a free one.
    pub port: u16,
    /// The built toolbar.
    pub dist: PathBuf,
    /// Run the `demo` session with this configuration.
    pub demo: Option<demo::DemoConfig>,
    /// Replay this file as session `replay`.
    pub replay: Option<PathBuf>,
    /// Time scale of the replay's delays.
    pub replay_speed: f64,
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

/// Binds `host:port`, or a free port on `host` when that one is busy.
async fn bind(host: &str, port: u16) -> Result<TcpListener> {
    match TcpListener::bind((host, port)).await {
        Ok(l) => Ok(l),
        Err(e) if port != 0 && e.kind() == std::io::ErrorKind::AddrInUse => {
            eprintln!("ctxguard serve: port {port} is busy; picking a free one");
            TcpListener::bind((host, 0))
                .await
                .with_context(|| format!("cannot listen on {host}"))
        }
        Err(e) => Err(e).with_context(|| format!("cannot listen on {host}:{port}")),
    }
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

/// Registers a built-in session and keeps it from eviction.
async fn builtin(
    store: &Arc<dyn Store>,
    builtins: &mut Builtins,
    id: &str,
    profile: Profile,
) -> Arc<Builtin> {
    let id = SessionId::parse(id).expect("built-in session ids are valid");
    if let Err(e) = store.pin(&id).await {
        eprintln!("ctxguard serve: session {id}: {e}; it is created with its first event");
    }
    let session = Builtin::new(id, profile);
    builtins.insert(session.clone());
    session
}

/// Runs the server until Ctrl-C or SIGTERM.
pub async fn run(options: ServeOptions) -> Result<()> {
    let (shutdown_tx, shutdown_rx) = watch::channel(false);
    let store = open_store(&options, shutdown_rx.clone()).await?;
    let mut builtins = Builtins::default();
    let demo_session = match &options.demo {
        Some(_) => {
            let profile = Profile {
                model: Some(demo::MODEL.into()),
                attachment_limit: Some(demo::ATTACHMENT_LIMIT_TOKENS),
            };
            Some(builtin(&store, &mut builtins, "demo", profile).await)
        }
        None => None,
    };
    let replay = match &options.replay {
        Some(path) => {
            let text = std::fs::read_to_string(path)
                .with_context(|| format!("cannot read {}", path.display()))?;
            let replay = replay::parse(&text);
            for w in &replay.warnings {
                eprintln!("ctxguard serve: {}: {w}", path.display());
            }
            anyhow::ensure!(
                !replay.lines.is_empty(),
                "{}: no event to replay",
                path.display()
            );
            Some((
                replay,
                builtin(&store, &mut builtins, "replay", Profile::default()).await,
            ))
        }
        None => None,
    };
    let auth = Auth::new(
        options.publish_token.as_deref(),
        options.read_secret.as_deref(),
    );
    let names: Vec<String> = builtins.ids().iter().map(|id| id.to_string()).collect();
    let dist_ready = options.dist.join("index.html").is_file();
    let mut state = state::AppState::new(
        store.clone(),
        auth,
        builtins,
        Some(options.dist.clone()),
        shutdown_rx.clone(),
    );
    state.max_body_bytes = options.max_body_bytes;
    state.keep_alive = options.keep_alive;
    let metrics = state.metrics.clone();
    let reads_open = state.auth.reads_are_open();
    let can_publish = state.auth.can_publish();
    let short_secret = state
        .auth
        .read_secret()
        .is_some_and(auth::ReadSecret::is_short);
    let app = routes::app(state, &options.allow_origins);

    let mut tasks = Vec::new();
    if let (Some(config), Some(session)) = (options.demo.clone(), demo_session) {
        let summarizer = match &config.summarizer {
            demo::SummarizerChoice::Extractive => None,
            demo::SummarizerChoice::Http(http) => {
                Some(summarizer::HttpSummarizer::new(http.clone())?)
            }
        };
        let publisher = Publisher::new(store.clone(), metrics.clone(), session);
        let demo = demo::Demo::new(config, store::unix_micros() as i64);
        tasks.push(tokio::spawn(demo::drive(
            demo,
            summarizer,
            publisher,
            shutdown_rx.clone(),
        )));
    }
    if let Some((replay, session)) = replay {
        let publisher = Publisher::new(store.clone(), metrics.clone(), session);
        tasks.push(tokio::spawn(replay::drive(
            replay,
            options.replay_speed,
            publisher,
            shutdown_rx.clone(),
        )));
    }

    let listener = bind(&options.host, options.port).await?;
    let addr: SocketAddr = listener.local_addr().context("no local address")?;
    let url = format!("http://{addr}/");
    {
        let mut out = std::io::stdout().lock();
        let _ = writeln!(out, "ctxguard serve: listening on {url}");
        for name in &names {
            let _ = writeln!(out, "ctxguard serve: session {name}: {url}?session={name}");
        }
        let _ = out.flush();
    }
    eprintln!("ctxguard serve: store {}", store.kind());
    if reads_open {
        eprintln!(
            "ctxguard serve: reads are open: anyone who knows a session id can read it (set --read-secret-file or {} to require read tokens)",
            auth::READ_SECRET_VAR
        );
    } else if short_secret {
        eprintln!(
            "ctxguard serve: the read secret is shorter than {} bytes; use a longer one",
            auth::MIN_SECRET_BYTES
        );
    }
    if !can_publish {
        eprintln!(
            "ctxguard serve: publishing is off (set --publish-token-file or {} to let a backend publish)",
            auth::PUBLISH_TOKEN_VAR
        );
    }
    if !dist_ready {
        eprintln!(
            "ctxguard serve: no toolbar build in {} (run `trunk build --release`); / explains how",
            options.dist.display()
        );
    }

    let signalled = async move {
        shutdown::signal().await;
        eprintln!("ctxguard serve: shutting down");
        let _ = shutdown_tx.send(true);
    };
    tokio::select! {
        _ = conn::serve(listener, app, options.conn, metrics, shutdown_rx) => {}
        _ = async { signalled.await; std::future::pending::<()>().await } => {}
    }
    for t in tasks {
        t.abort();
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_busy_port_falls_back_to_a_free_one() {
        let taken = TcpListener::bind(("127.0.0.1", 0)).await.expect("bind");
        let port = taken.local_addr().expect("addr").port();
        let other = bind("127.0.0.1", port).await.expect("falls back");
        let got = other.local_addr().expect("addr").port();
        assert!(got != port && got != 0);
        let any = bind("127.0.0.1", 0).await.expect("port 0");
        assert_ne!(any.local_addr().expect("addr").port(), 0);
    }
}
