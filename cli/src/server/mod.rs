//! The reference status server behind `ctxguard serve`: the built toolbar at
//! `/`, each session's status stream at `/api/sessions/{id}/events` (SSE,
//! resumable) and its latest state at `/api/sessions/{id}/context`.
//!
//! Layers: [`session`] holds ids, the resume buffer and the fan-out;
//! [`routes`] is the router, built apart from any socket; [`sse`] is the
//! stream handler; [`demo`] and [`replay`] produce the events; [`summarizer`]
//! answers the demo guard's summary requests.

pub mod demo;
pub mod replay;
pub mod routes;
pub mod session;
pub mod sse;
pub mod summarizer;

use anyhow::{Context, Result};
use session::{Session, Sessions};
use std::future::IntoFuture;
use std::io::Write;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;
use tokio::net::TcpListener;
use tokio::sync::watch;

/// How long open connections get to close after a shutdown signal.
const SHUTDOWN_GRACE: Duration = Duration::from_secs(3);

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

/// Resolves on Ctrl-C or SIGTERM.
async fn shutdown_signal() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let terminate = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let terminate = std::future::pending::<()>();
    tokio::select! {
        _ = ctrl_c => {}
        _ = terminate => {}
    }
}

fn unix_micros_now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_micros() as i64)
        .unwrap_or(0)
}

/// Runs the server until Ctrl-C or SIGTERM.
pub async fn run(options: ServeOptions) -> Result<()> {
    let (shutdown_tx, shutdown_rx) = watch::channel(false);
    let mut sessions = Sessions::default();
    let mut tasks = Vec::new();
    if let Some(config) = options.demo.clone() {
        let profile = session::Profile {
            model: Some(demo::MODEL.into()),
            attachment_limit: Some(demo::ATTACHMENT_LIMIT_TOKENS),
        };
        let session = Arc::new(Session::starting_now("demo").with_profile(profile));
        sessions.insert(session.clone());
        let summarizer = match &config.summarizer {
            demo::SummarizerChoice::Extractive => None,
            demo::SummarizerChoice::Http(http) => {
                Some(summarizer::HttpSummarizer::new(http.clone())?)
            }
        };
        let demo = demo::Demo::new(config, unix_micros_now());
        tasks.push(tokio::spawn(demo::drive(
            demo,
            summarizer,
            session,
            shutdown_rx.clone(),
        )));
    }
    if let Some(path) = &options.replay {
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
        let session = Arc::new(Session::starting_now("replay"));
        sessions.insert(session.clone());
        tasks.push(tokio::spawn(replay::drive(
            replay,
            options.replay_speed,
            session,
            shutdown_rx.clone(),
        )));
    }
    let dist_ready = options.dist.join("index.html").is_file();
    let names: Vec<String> = sessions.names().into_iter().map(str::to_string).collect();
    let state = routes::AppState::new(sessions, Some(options.dist.clone()), shutdown_rx);
    let app = routes::app(state);

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
    if !dist_ready {
        eprintln!(
            "ctxguard serve: no toolbar build in {} (run `trunk build --release`); / explains how",
            options.dist.display()
        );
    }

    let mut stopping = shutdown_tx.subscribe();
    let signalled = async move {
        shutdown_signal().await;
        eprintln!("ctxguard serve: shutting down");
        let _ = shutdown_tx.send(true);
    };
    let server = axum::serve(listener, app)
        .with_graceful_shutdown(signalled)
        .into_future();
    let grace = async move {
        // Streams end on shutdown; give stragglers a moment, then go.
        let _ = stopping.wait_for(|stop| *stop).await;
        tokio::time::sleep(SHUTDOWN_GRACE).await;
    };
    tokio::select! {
        r = server => r.context("server failed")?,
        _ = grace => {}
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
