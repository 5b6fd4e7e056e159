//! `ctxguard serve`: the toolbar and its status stream, fed by the built-in
//! demo and/or a replayed recording, until Ctrl-C or SIGTERM.

use crate::args::ServeArgs;
use crate::server::demo::{DemoConfig, SummarizerChoice};
use crate::server::summarizer::HttpSummarizerConfig;
use crate::server::{self, ServeOptions};
use anyhow::{ensure, Context, Result};
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

pub fn run(args: ServeArgs) -> Result<ExitCode> {
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
    let options = ServeOptions {
        host: args.host,
        port: args.port,
        dist: args.dist.unwrap_or_else(default_dist),
        demo,
        replay: args.replay,
        replay_speed: args.replay_speed,
    };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    runtime.block_on(server::run(options))?;
    Ok(ExitCode::SUCCESS)
}
