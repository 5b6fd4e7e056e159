//! `--replay FILE.jsonl`: recorded `data:` payloads sent again as session
//! `replay`, so a stream captured from a real server can be shown.
//!
//! One JSON object a line: the payload itself, with an optional `delay_ms`
//! (wait before sending, default 0) that is removed before sending; or
//! `{"delay_ms": N, "data": ...}` where `data` is the payload object, or a
//! string sent verbatim (to exercise clients with malformed events). Blank
//! lines are skipped; lines that are not JSON objects are reported with their
//! number and skipped; objects that are not valid status events are reported
//! and sent as recorded (they never become the `/context` state).
//!
//! The lines up to the first valid event are sent at once, so the session
//! has a state from the start; the rest play when the first client asks for
//! the session (its `/context` or its stream), so a viewer sees them all.

use super::Publisher;
use crate::server::event::Outgoing;
use ctxguard_core::protocol::StatusEvent;
use serde_json::Value;
use std::time::Duration;
use tokio::sync::watch;

/// One line to send.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReplayLine {
    /// 1-based line number in the file.
    pub line: usize,
    /// Wait before sending.
    pub delay: Duration,
    /// The `data:` text.
    pub data: String,
}

/// A parsed replay file.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Replay {
    /// Lines to send, in file order.
    pub lines: Vec<ReplayLine>,
    /// Problems found, each naming its line.
    pub warnings: Vec<String>,
}

/// Parses a replay file; never fails, every problem becomes a warning.
pub fn parse(text: &str) -> Replay {
    let mut replay = Replay::default();
    for (index, raw) in text.lines().enumerate() {
        let line = index + 1;
        let trimmed = raw.trim();
        if trimmed.is_empty() {
            continue;
        }
        let mut object = match serde_json::from_str::<Value>(trimmed) {
            Ok(Value::Object(o)) => o,
            Ok(_) => {
                replay
                    .warnings
                    .push(format!("line {line}: not a JSON object; skipped"));
                continue;
            }
            Err(e) => {
                replay
                    .warnings
                    .push(format!("line {line}: not JSON ({e}); skipped"));
                continue;
            }
        };
        let delay = match object.shift_remove("delay_ms") {
            None => Duration::ZERO,
            Some(v) => match v.as_u64() {
                Some(ms) => Duration::from_millis(ms),
                None => {
                    replay.warnings.push(format!(
                        "line {line}: delay_ms must be a non-negative integer, got {v}; using 0"
                    ));
                    Duration::ZERO
                }
            },
        };
        let data = match object.shift_remove("data") {
            Some(Value::String(verbatim)) if object.is_empty() => verbatim,
            Some(payload @ Value::Object(_)) if object.is_empty() => payload.to_string(),
            Some(other) => {
                // Not the wrapper form after all: `data` is one of the payload's own fields.
                object.insert("data".into(), other);
                Value::Object(object).to_string()
            }
            None => Value::Object(object).to_string(),
        };
        if let Err(e) = StatusEvent::parse(&data) {
            replay.warnings.push(format!(
                "line {line}: not a valid status event ({e}); sent as recorded"
            ));
        }
        replay.lines.push(ReplayLine { line, delay, data });
    }
    replay
}

/// Sends `replay` through `publisher`: up to the first valid event at once,
/// the rest after the first visit, scaling delays by `1 / speed`.
pub async fn drive(
    replay: Replay,
    speed: f64,
    publisher: Publisher,
    mut shutdown: watch::Receiver<bool>,
) {
    let opening = replay
        .lines
        .iter()
        .position(|l| StatusEvent::parse(&l.data).is_ok())
        .map_or(0, |i| i + 1);
    let first: Vec<Outgoing> = replay.lines[..opening]
        .iter()
        .map(|l| Outgoing::raw(&l.data))
        .collect();
    publisher.publish(first).await;
    tokio::select! {
        _ = publisher.session().first_visit() => {}
        _ = shutdown.changed() => return,
    }
    let speed = if speed.is_finite() && speed > 0.0 {
        speed
    } else {
        1.0
    };
    for line in &replay.lines[opening..] {
        if !line.delay.is_zero() {
            let wait = Duration::from_secs_f64(line.delay.as_secs_f64() / speed);
            tokio::select! {
                _ = tokio::time::sleep(wait) => {}
                _ = shutdown.changed() => return,
            }
        }
        publisher.publish(vec![Outgoing::raw(&line.data)]).await;
    }
    tracing::info!(
        session = "replay",
        events = replay.lines.len(),
        "replay finished"
    );
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::server::builtin::{Builtin, Profile};
    use crate::server::metrics::Metrics;
    use crate::server::store::memory::MemoryStore;
    use crate::server::store::{Store, StoreLimits};
    use crate::server::testing::sid;
    use std::sync::Arc;

    const EVENT: &str = r#"{"type":"response.status.updated","response_id":"resp_1","phase":"final","context_metrics":{"context_window":100,"reserved_output_tokens":10,"available_input_tokens":90,"used_input_tokens":50,"remaining_input_tokens":40,"remaining_percent":44,"display_remaining_tokens":50,"display_remaining_percent":50,"trigger_limit":81,"target_limit":63,"is_over_trigger":false}}"#;

    #[test]
    fn reads_payloads_wrappers_and_reports_bad_lines() {
        let with_delay = EVENT.replacen('{', r#"{"delay_ms":250,"#, 1);
        let text = format!(
            "{EVENT}\n\n{with_delay}\nnot json\n[1,2]\n{{\"delay_ms\":5,\"data\":\"{{broken\"}}\n{{\"delay_ms\":-1,\"data\":{EVENT}}}\n{{\"type\":\"other\"}}\n"
        );
        let r = parse(&text);
        let lines: Vec<(usize, u64)> = r
            .lines
            .iter()
            .map(|l| (l.line, l.delay.as_millis() as u64))
            .collect();
        assert_eq!(lines, vec![(1, 0), (3, 250), (6, 5), (7, 0), (8, 0)]);
        assert_eq!(
            r.lines[1].data, EVENT,
            "delay_ms is removed, field order kept"
        );
        assert_eq!(r.lines[2].data, "{broken");
        assert_eq!(r.lines[3].data, EVENT);
        assert_eq!(r.warnings.len(), 5, "{:#?}", r.warnings);
        for (warning, line) in r.warnings.iter().zip([4, 5, 6, 7, 8]) {
            assert!(warning.starts_with(&format!("line {line}: ")), "{warning}");
        }
    }

    #[tokio::test]
    async fn opens_with_a_state_and_plays_the_rest_after_the_first_visit() {
        let store: Arc<dyn Store> = Arc::new(MemoryStore::new(StoreLimits::default()));
        let builtin = Builtin::new(sid("replay"), Profile::default());
        store.pin(builtin.id()).await.expect("pinned");
        let publisher =
            Publisher::new(store.clone(), Arc::new(Metrics::default()), builtin.clone());
        let (_tx, rx) = watch::channel(false);
        let text =
            format!("{{\"data\":\"{{oops\"}}\n{EVENT}\n{{\"delay_ms\":10,\"data\":\"{{oops\"}}\n");
        let task = tokio::spawn(drive(parse(&text), 1.0, publisher, rx));
        let sent = |store: Arc<dyn Store>| async move {
            let sub = store
                .subscribe(&sid("replay"), Some(0))
                .await
                .expect("ok")
                .expect("exists");
            sub.backlog
        };
        let deadline = tokio::time::Instant::now() + Duration::from_secs(5);
        while sent(store.clone()).await.len() < 2 && tokio::time::Instant::now() < deadline {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        let opening = sent(store.clone()).await;
        assert_eq!(opening.len(), 2, "the opening lines at once");
        let state = store
            .context(&sid("replay"))
            .await
            .expect("ok")
            .expect("exists");
        assert_eq!(state.event_id, opening[1].id, "a state at once");
        tokio::time::sleep(Duration::from_millis(30)).await;
        assert_eq!(sent(store.clone()).await.len(), 2, "the rest waits");
        builtin.visit();
        tokio::time::timeout(Duration::from_secs(5), task)
            .await
            .expect("finishes")
            .expect("no panic");
        assert_eq!(sent(store.clone()).await.len(), 3);
        let state = store
            .context(&sid("replay"))
            .await
            .expect("ok")
            .expect("exists");
        assert_eq!(
            state.event_id, opening[1].id,
            "the malformed one is not state"
        );
    }
}
