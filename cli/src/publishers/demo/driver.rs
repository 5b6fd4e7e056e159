//! The demo on the tokio clock: steps the sans-IO [`Demo`] when it is due,
//! makes its summariser calls, and publishes what it emits.

use super::Demo;
use crate::publishers::summarizer::HttpSummarizer;
use crate::publishers::Publisher;
use ctxguard_core::guard::SummaryError;
use std::sync::Arc;
use tokio::sync::{mpsc, watch};

/// Runs `demo` on the tokio clock, publishing through `publisher`, until shutdown;
/// makes the demo's summariser calls with `summarizer` when it has one
/// (calls still running at shutdown are dropped).
pub async fn drive(
    mut demo: Demo,
    summarizer: Option<HttpSummarizer>,
    publisher: Publisher,
    mut shutdown: watch::Receiver<bool>,
) {
    let start = tokio::time::Instant::now();
    let summarizer = summarizer.map(Arc::new);
    let (tx, mut rx) = mpsc::unbounded_channel::<(u64, Result<String, SummaryError>)>();
    let mut calls = tokio::task::JoinSet::new();
    loop {
        while let Some(call) = demo.take_summary_call() {
            match &summarizer {
                Some(s) => {
                    let (s, tx) = (s.clone(), tx.clone());
                    calls.spawn(async move {
                        let result = s.summarize(&call.messages).await;
                        let _ = tx.send((call.id, result));
                    });
                }
                None => {
                    let error = SummaryError::new("no summariser configured");
                    let events = demo.summary_result(call.id, Err(error), start.elapsed());
                    publisher.publish_events(events).await;
                }
            }
        }
        for note in demo.take_notes() {
            tracing::info!(session = "demo", "{note}");
        }
        while calls.try_join_next().is_some() {}
        let deadline = start + demo.next_deadline();
        tokio::select! {
            _ = tokio::time::sleep_until(deadline) => {
                let events = demo.handle_timeout(start.elapsed());
                publisher.publish_events(events).await;
            }
            Some((id, result)) = rx.recv() => {
                let events = demo.summary_result(id, result, start.elapsed());
                publisher.publish_events(events).await;
            }
            _ = shutdown.changed() => return,
        }
    }
}
