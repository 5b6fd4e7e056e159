//! `GET /metrics`: counters of this instance in the Prometheus text format
//! (hand-written: a dozen atomics need no registry crate).

use std::fmt::Write as _;
use std::sync::atomic::{AtomicI64, AtomicU64, Ordering};

/// Every status a publish (`POST …/events`, `DELETE /api/sessions/{id}`) can fail with.
pub const PUBLISH_ERROR_STATUSES: [u16; 7] = [400, 401, 403, 404, 408, 413, 503];

/// The instance's counters.
#[derive(Debug, Default)]
pub struct Metrics {
    open_streams: AtomicI64,
    events_published: AtomicU64,
    events_sent: AtomicU64,
    resyncs: AtomicU64,
    publish_errors: [AtomicU64; PUBLISH_ERROR_STATUSES.len()],
    open_connections: AtomicI64,
    connections_rejected: AtomicU64,
    connections_timed_out: AtomicU64,
}

/// What `/metrics` reads from the store at scrape time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StoreReading {
    /// Sessions held, when the store answered.
    pub sessions: Option<usize>,
}

impl Metrics {
    /// Counts `n` events accepted by the store.
    pub fn published(&self, n: usize) {
        self.events_published.fetch_add(n as u64, Ordering::Relaxed);
    }

    /// Counts one frame sent on a stream.
    pub fn sent(&self) {
        self.events_sent.fetch_add(1, Ordering::Relaxed);
    }

    /// Counts one resynchronisation of a stream that lagged.
    pub fn resynced(&self) {
        self.resyncs.fetch_add(1, Ordering::Relaxed);
    }

    /// Counts a publish that failed with `status`.
    pub fn publish_failed(&self, status: u16) {
        if let Some(i) = PUBLISH_ERROR_STATUSES.iter().position(|s| *s == status) {
            self.publish_errors[i].fetch_add(1, Ordering::Relaxed);
        }
    }

    /// Counts an open stream until the guard drops.
    pub fn stream_opened(self: &std::sync::Arc<Self>) -> Gauge {
        Gauge::enter(self.clone(), |m| &m.open_streams)
    }

    /// Counts an open connection until the guard drops.
    pub fn connection_opened(self: &std::sync::Arc<Self>) -> Gauge {
        Gauge::enter(self.clone(), |m| &m.open_connections)
    }

    /// Counts a connection refused past `--max-connections`.
    pub fn connection_rejected(&self) {
        self.connections_rejected.fetch_add(1, Ordering::Relaxed);
    }

    /// Counts a connection closed by the header-read or idle timeout.
    pub fn connection_timed_out(&self) {
        self.connections_timed_out.fetch_add(1, Ordering::Relaxed);
    }

    /// Streams open now.
    #[cfg(test)]
    pub fn open_streams(&self) -> i64 {
        self.open_streams.load(Ordering::Relaxed)
    }

    /// The Prometheus text of every counter.
    pub fn render(&self, store: StoreReading) -> String {
        let mut out = String::new();
        let mut metric = |name: &str, kind: &str, help: &str, samples: &[(String, String)]| {
            let _ = writeln!(out, "# HELP {name} {help}");
            let _ = writeln!(out, "# TYPE {name} {kind}");
            for (labels, value) in samples {
                let _ = writeln!(out, "{name}{labels} {value}");
            }
        };
        let one = |v: String| vec![(String::new(), v)];
        let load_i = |a: &AtomicI64| a.load(Ordering::Relaxed).max(0).to_string();
        let load_u = |a: &AtomicU64| a.load(Ordering::Relaxed).to_string();
        metric(
            "ctxguard_open_streams",
            "gauge",
            "SSE streams open on this instance.",
            &one(load_i(&self.open_streams)),
        );
        metric(
            "ctxguard_sessions",
            "gauge",
            "Sessions in the store (NaN while the store does not answer).",
            &one(store
                .sessions
                .map_or_else(|| "NaN".to_string(), |n| n.to_string())),
        );
        metric(
            "ctxguard_store_up",
            "gauge",
            "1 when the store answered this scrape.",
            &one(u8::from(store.sessions.is_some()).to_string()),
        );
        metric(
            "ctxguard_events_published_total",
            "counter",
            "Events accepted from publishers (HTTP, demo, replay) on this instance.",
            &one(load_u(&self.events_published)),
        );
        metric(
            "ctxguard_events_sent_total",
            "counter",
            "Event frames sent on streams of this instance.",
            &one(load_u(&self.events_sent)),
        );
        metric(
            "ctxguard_resyncs_total",
            "counter",
            "Streams that lagged behind and were resynchronised with the latest state.",
            &one(load_u(&self.resyncs)),
        );
        let errors: Vec<(String, String)> = PUBLISH_ERROR_STATUSES
            .iter()
            .zip(&self.publish_errors)
            .map(|(status, n)| (format!("{{status=\"{status}\"}}"), load_u(n)))
            .collect();
        metric(
            "ctxguard_publish_errors_total",
            "counter",
            "Publish requests refused, by HTTP status.",
            &errors,
        );
        metric(
            "ctxguard_open_connections",
            "gauge",
            "HTTP connections open on this instance.",
            &one(load_i(&self.open_connections)),
        );
        metric(
            "ctxguard_connections_rejected_total",
            "counter",
            "Connections answered 503 past --max-connections.",
            &one(load_u(&self.connections_rejected)),
        );
        metric(
            "ctxguard_connections_timed_out_total",
            "counter",
            "Connections closed by the header-read or idle timeout.",
            &one(load_u(&self.connections_timed_out)),
        );
        out
    }
}

/// Holds one unit of a gauge; gives it back on drop.
#[derive(Debug)]
pub struct Gauge {
    metrics: std::sync::Arc<Metrics>,
    field: fn(&Metrics) -> &AtomicI64,
}

impl Gauge {
    fn enter(metrics: std::sync::Arc<Metrics>, field: fn(&Metrics) -> &AtomicI64) -> Self {
        field(&metrics).fetch_add(1, Ordering::Relaxed);
        Gauge { metrics, field }
    }
}

impl Drop for Gauge {
    fn drop(&mut self) {
        (self.field)(&self.metrics).fetch_sub(1, Ordering::Relaxed);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    #[test]
    fn renders_every_counter_with_help_and_type() {
        let m = Arc::new(Metrics::default());
        let stream = m.stream_opened();
        m.published(3);
        m.sent();
        m.resynced();
        m.publish_failed(413);
        m.publish_failed(999);
        let text = m.render(StoreReading { sessions: Some(2) });
        for line in [
            "ctxguard_open_streams 1",
            "ctxguard_sessions 2",
            "ctxguard_store_up 1",
            "ctxguard_events_published_total 3",
            "ctxguard_events_sent_total 1",
            "ctxguard_resyncs_total 1",
            "ctxguard_publish_errors_total{status=\"413\"} 1",
            "ctxguard_publish_errors_total{status=\"503\"} 0",
            "# TYPE ctxguard_events_sent_total counter",
        ] {
            assert!(text.lines().any(|l| l == line), "{line} in\n{text}");
        }
        drop(stream);
        let text = m.render(StoreReading { sessions: None });
        assert!(
            text.contains("ctxguard_open_streams 0\n") && text.contains("ctxguard_sessions NaN\n")
        );
    }
}
