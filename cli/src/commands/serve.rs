//! `ctxguard serve`: the status relay (and the toolbar), with the built-in
//! demo and/or a replayed recording beside published sessions, until Ctrl-C
//! or SIGTERM.

use crate::args::ServeArgs;
use crate::publishers::demo::{DemoConfig, SummarizerChoice};
use crate::publishers::summarizer::HttpSummarizerConfig;
use crate::publishers::{PublisherOptions, Publishers};
use crate::server::auth::{secret_from_file_or_env, PUBLISH_TOKEN_VAR, READ_SECRET_VAR};
use crate::server::conn::{default_max_connections, ConnLimits, DEFAULT_MAX_HEADER_BYTES};
use crate::server::logging;
use crate::server::store::StoreLimits;
use crate::server::{Relay, ServeOptions, StoreChoice};
use anyhow::{bail, ensure, Context, Result};
use axum::http::HeaderValue;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

/// Environment variable holding the --summarizer-url bearer token.
const API_KEY_VAR: &str = "CTXGUARD_SUMMARIZER_API_KEY";

/// `dist/` of the working directory when it holds a build, else the repository's.
fn default_dist() -> PathBuf {
    let local = PathBuf::from("dist");
    if local.join("index.html").is_file() {
        return local;
    }
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../dist"))
}

/// Runs the relay until Ctrl-C or SIGTERM; flags and environment become
/// [`ServeOptions`] and [`PublisherOptions`].
pub fn run(args: ServeArgs) -> Result<ExitCode> {
    logging::init(args.log_format);
    for (flag, value) in [
        ("--speed", args.speed),
        ("--replay-speed", args.replay_speed),
    ] {
        ensure!(
            value.is_finite() && value > 0.0,
            "{flag} must be a positive number, got {value}"
        );
    }
    let summarizer = match &args.summarizer_url {
        None => SummarizerChoice::Extractive,
        Some(url) => SummarizerChoice::Http(HttpSummarizerConfig {
            url: url.clone(),
            model: args.summarizer_model.clone(),
            timeout: Duration::from_secs(args.summarizer_timeout_secs),
            api_key: std::env::var(API_KEY_VAR).ok().filter(|k| !k.is_empty()),
        }),
    };
    let demo = args.demo.then(|| DemoConfig {
        speed: args.speed,
        heartbeat: Duration::from_millis(args.heartbeat_ms),
        fail_every: args.fail_every,
        failure_reason: args.failure_reason.clone(),
        summarizer,
        ..DemoConfig::default()
    });
    let store = match args.store.as_str() {
        "memory" => StoreChoice::Memory,
        url if url.starts_with("redis://") => StoreChoice::Redis(url.to_string()),
        other => bail!("--store {other}: expected memory or redis://HOST:PORT[/DB]"),
    };
    let allow_origins = args
        .allow_origin
        .iter()
        .map(|o| {
            let origin = o.trim_end_matches('/');
            ensure!(
                origin.starts_with("http://") || origin.starts_with("https://"),
                "--allow-origin {o}: expected an origin such as https://chat.example.com"
            );
            HeaderValue::from_str(origin).with_context(|| format!("--allow-origin {o}"))
        })
        .collect::<Result<Vec<_>>>()?;
    let options = ServeOptions {
        host: args.host,
        port: args.port,
        dist: args.dist.unwrap_or_else(default_dist),
        store,
        limits: StoreLimits {
            buffer_events: args.buffer as usize,
            max_sessions: args.max_sessions as usize,
            idle: Duration::from_secs(args.session_idle_secs),
        },
        publish_token: secret_from_file_or_env(
            args.publish_token_file.as_deref(),
            PUBLISH_TOKEN_VAR,
        )?,
        read_secret: secret_from_file_or_env(args.read_secret_file.as_deref(), READ_SECRET_VAR)?,
        allow_origins,
        max_body_bytes: args.max_body_bytes as usize,
        keep_alive: args.keep_alive_secs,
        conn: ConnLimits {
            header_read_timeout: args.header_read_timeout_secs,
            idle_timeout: args.idle_timeout_secs,
            max_connections: args
                .max_connections
                .map_or_else(default_max_connections, |n| n as usize),
            max_header_bytes: DEFAULT_MAX_HEADER_BYTES,
        },
    };
    let publishing = PublisherOptions {
        demo,
        replay: args.replay,
        replay_speed: args.replay_speed,
    };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    runtime.block_on(serve(options, publishing))?;
    Ok(ExitCode::SUCCESS)
}

/// The relay and its built-in publishers, step by step: the port and the
/// store first, then the built-in sessions, the routes, the publishers, and
/// serving until a signal.
async fn serve(options: ServeOptions, publishing: PublisherOptions) -> Result<()> {
    let relay = Relay::open(options).await?;
    let publishers = Publishers::register(publishing, relay.store()).await?;
    let relay = relay.route(publishers.builtins());
    let tasks = publishers.spawn(relay.store(), relay.metrics(), relay.shutdown())?;
    let served = relay.serve().await;
    for task in tasks {
        task.abort();
    }
    served
}
