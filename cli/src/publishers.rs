//! The publishers `ctxguard serve` runs beside the relay: sessions the
//! process feeds itself, into the same store as any chat backend.
//!
//! - [`demo`] is session `demo`: a conversation governed by core's guard,
//!   whose summaries [`summarizer`] writes (embedded, or an
//!   OpenAI-compatible endpoint);
//! - [`replay`] is session `replay`: a recorded stream sent again;
//! - [`Publisher`] is how either reaches the store.
//!
//! [`Publishers::register`] pins their sessions before the relay routes
//! anything (the relay learns them as [`Builtins`]);
//! [`Publishers::spawn`] starts them once the relay's counters exist.

pub mod demo;
mod publisher;
pub mod replay;
pub mod summarizer;

pub use publisher::Publisher;

use crate::server::builtin::{Builtin, Builtins, Profile};
use crate::server::metrics::Metrics;
use crate::server::session_id::SessionId;
use crate::server::store::{unix_micros, Store};
use anyhow::{Context, Result};
use std::path::PathBuf;
use std::sync::Arc;
use tokio::sync::watch;
use tokio::task::JoinHandle;

/// What `ctxguard serve` was asked to publish itself.
#[derive(Debug, Clone, Default)]
pub struct PublisherOptions {
    /// Run the `demo` session with this configuration.
    pub demo: Option<demo::DemoConfig>,
    /// Replay this file as session `replay`.
    pub replay: Option<PathBuf>,
    /// Time scale of the replay's delays.
    pub replay_speed: f64,
}

/// The built-in sessions, registered with the store and not yet running.
pub struct Publishers {
    builtins: Builtins,
    demo: Option<(demo::DemoConfig, Arc<Builtin>)>,
    replay: Option<(replay::Replay, Arc<Builtin>)>,
    replay_speed: f64,
}

impl Publishers {
    /// Reads the replay (its warnings are logged) and pins each built-in session in `store`.
    pub async fn register(options: PublisherOptions, store: &Arc<dyn Store>) -> Result<Self> {
        let mut builtins = Builtins::default();
        let demo = match options.demo {
            Some(config) => {
                let profile = Profile {
                    model: Some(demo::MODEL.into()),
                    attachment_limit: Some(demo::ATTACHMENT_LIMIT_TOKENS),
                };
                Some((config, pin(store, &mut builtins, "demo", profile).await))
            }
            None => None,
        };
        let replay = match &options.replay {
            Some(path) => {
                let replay = read_replay(path)?;
                let session = pin(store, &mut builtins, "replay", Profile::default()).await;
                Some((replay, session))
            }
            None => None,
        };
        Ok(Publishers {
            builtins,
            demo,
            replay,
            replay_speed: options.replay_speed,
        })
    }

    /// The sessions the relay should know as its own.
    pub fn builtins(&self) -> Builtins {
        self.builtins.clone()
    }

    /// Starts each publisher; they stop when `shutdown` turns true.
    pub fn spawn(
        self,
        store: &Arc<dyn Store>,
        metrics: &Arc<Metrics>,
        shutdown: &watch::Receiver<bool>,
    ) -> Result<Vec<JoinHandle<()>>> {
        let mut tasks = Vec::new();
        if let Some((config, session)) = self.demo {
            let summarizer = match &config.summarizer {
                demo::SummarizerChoice::Extractive => None,
                demo::SummarizerChoice::Http(http) => {
                    Some(summarizer::HttpSummarizer::new(http.clone())?)
                }
            };
            let publisher = Publisher::new(store.clone(), metrics.clone(), session);
            let demo = demo::Demo::new(config, unix_micros() as i64);
            tasks.push(tokio::spawn(demo::drive(
                demo,
                summarizer,
                publisher,
                shutdown.clone(),
            )));
        }
        if let Some((replay, session)) = self.replay {
            let publisher = Publisher::new(store.clone(), metrics.clone(), session);
            tasks.push(tokio::spawn(replay::drive(
                replay,
                self.replay_speed,
                publisher,
                shutdown.clone(),
            )));
        }
        Ok(tasks)
    }
}

/// Reads and parses a replay file; one with no event is an error.
fn read_replay(path: &std::path::Path) -> Result<replay::Replay> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
    let replay = replay::parse(&text);
    for w in &replay.warnings {
        tracing::warn!(file = %path.display(), "replay: {w}");
    }
    anyhow::ensure!(
        !replay.lines.is_empty(),
        "{}: no event to replay",
        path.display()
    );
    Ok(replay)
}

/// Registers a built-in session and keeps it from eviction.
async fn pin(
    store: &Arc<dyn Store>,
    builtins: &mut Builtins,
    id: &str,
    profile: Profile,
) -> Arc<Builtin> {
    let id = SessionId::parse(id).expect("built-in session ids are valid");
    if let Err(e) = store.pin(&id).await {
        tracing::warn!(session = %id, "{e}; it is created with its first event");
    }
    let session = Builtin::new(id, profile);
    builtins.insert(session.clone());
    session
}
