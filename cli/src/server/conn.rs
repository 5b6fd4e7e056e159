//! The accept loop: one task per connection, served by hyper's HTTP/1.1 with
//! the limits axum's `serve` lacks (without them, slow, silent and idle
//! connections were never closed and ran the server out of descriptors):
//!
//! - a header-read timeout: a request head has `header_read_timeout` from
//!   its first byte (or from the connection's start) to arrive whole;
//! - an idle timeout: a connection with no request in flight is closed after
//!   `idle_timeout` (streams in flight never are);
//! - a cap on open connections: past `max_connections` a connection is
//!   answered `503 {"error": …}` with `Retry-After` and closed;
//! - a cap on a request head's size (`max_header_bytes`, 431 past it).
//!
//! [`clock`] decides when a connection has waited too long (sans-IO), [`io`]
//! reports reads to it and gives hyper's own parse-error responses a JSON
//! body, [`reject`] answers connections past the cap.

mod activity;
pub mod clock;
pub mod io;
mod reject;

use super::metrics::Metrics;
use super::shutdown::stopped;
use activity::Activity;
use axum::body::Body;
use axum::Router;
use hyper::body::Incoming;
use hyper_util::rt::{TokioIo, TokioTimer};
use std::sync::Arc;
use std::time::Duration;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{watch, Semaphore};
use tower::ServiceExt as _;

/// Default header-read timeout.
pub const DEFAULT_HEADER_READ_TIMEOUT: Duration = Duration::from_secs(10);
/// Default idle timeout of a connection with no request in flight.
pub const DEFAULT_IDLE_TIMEOUT: Duration = Duration::from_secs(60);
/// Default cap of a request head (request line and headers).
pub const DEFAULT_MAX_HEADER_BYTES: usize = 64 * 1024;
/// Default cap on open connections when the open-file limit does not set a lower one.
pub const DEFAULT_MAX_CONNECTIONS: usize = 10_000;
/// File descriptors kept free of connections (listener, store, files, rejections in progress).
const RESERVED_FDS: usize = 64;
/// How long open connections get to close after a shutdown signal.
const SHUTDOWN_GRACE: Duration = Duration::from_secs(3);

/// The connection limits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ConnLimits {
    /// A request head has this long to arrive whole.
    pub header_read_timeout: Duration,
    /// A connection with nothing in flight is closed after this long.
    pub idle_timeout: Duration,
    /// Most connections open at once.
    pub max_connections: usize,
    /// Most bytes of a request head.
    pub max_header_bytes: usize,
}

impl Default for ConnLimits {
    fn default() -> Self {
        ConnLimits {
            header_read_timeout: DEFAULT_HEADER_READ_TIMEOUT,
            idle_timeout: DEFAULT_IDLE_TIMEOUT,
            max_connections: default_max_connections(),
            max_header_bytes: DEFAULT_MAX_HEADER_BYTES,
        }
    }
}

/// [`DEFAULT_MAX_CONNECTIONS`], lowered to fit the process's open-file limit
/// (so a full server still has descriptors to answer and reject with).
pub fn default_max_connections() -> usize {
    match open_file_limit() {
        Some(limit) => DEFAULT_MAX_CONNECTIONS.min(limit.saturating_sub(RESERVED_FDS).max(16)),
        None => DEFAULT_MAX_CONNECTIONS,
    }
}

/// The soft limit on open files, from `/proc/self/limits` (Linux).
fn open_file_limit() -> Option<usize> {
    let limits = std::fs::read_to_string("/proc/self/limits").ok()?;
    let line = limits.lines().find(|l| l.starts_with("Max open files"))?;
    line.split_whitespace().nth(3)?.parse().ok()
}

/// Serves `router` on `listener` until `shutdown` turns true, then gives open
/// connections [`SHUTDOWN_GRACE`] to finish.
pub async fn serve(
    listener: TcpListener,
    router: Router,
    limits: ConnLimits,
    metrics: Arc<Metrics>,
    mut shutdown: watch::Receiver<bool>,
) {
    let slots = Arc::new(Semaphore::new(limits.max_connections.max(1)));
    let rejecting = Arc::new(Semaphore::new(reject::MAX_IN_PROGRESS));
    loop {
        let accepted = tokio::select! {
            accepted = listener.accept() => accepted,
            _ = stopped(&mut shutdown) => break,
        };
        let stream = match accepted {
            Ok((stream, _)) => stream,
            Err(e) => {
                // Out of descriptors or a connection reset before accept: wait a little, go on.
                if !matches!(
                    e.kind(),
                    std::io::ErrorKind::ConnectionAborted | std::io::ErrorKind::ConnectionReset
                ) {
                    tokio::time::sleep(Duration::from_millis(50)).await;
                }
                continue;
            }
        };
        match slots.clone().try_acquire_owned() {
            Ok(slot) => {
                let (router, metrics, shutdown) =
                    (router.clone(), metrics.clone(), shutdown.clone());
                tokio::spawn(async move {
                    connection(stream, router, limits, metrics, shutdown).await;
                    drop(slot);
                });
            }
            Err(_) => {
                metrics.connection_rejected();
                match rejecting.clone().try_acquire_owned() {
                    Ok(permit) => {
                        tokio::spawn(async move {
                            reject::answer(stream).await;
                            drop(permit);
                        });
                    }
                    Err(_) => reject::answer_now(stream),
                }
            }
        }
    }
    drop(listener);
    let all = u32::try_from(limits.max_connections.max(1)).unwrap_or(u32::MAX);
    let _ = tokio::time::timeout(SHUTDOWN_GRACE, slots.acquire_many(all)).await;
}

/// Serves one connection until it closes, a wait runs out, or the server shuts down.
async fn connection(
    stream: TcpStream,
    router: Router,
    limits: ConnLimits,
    metrics: Arc<Metrics>,
    mut shutdown: watch::Receiver<bool>,
) {
    let _open = metrics.connection_opened();
    let _ = stream.set_nodelay(true);
    let activity = Activity::new(limits.header_read_timeout, limits.idle_timeout);
    let io = TokioIo::new(io::WatchedIo::new(stream, activity.clone()));
    let requests = activity.clone();
    let service = hyper::service::service_fn(move |request: hyper::Request<Incoming>| {
        let in_flight = requests.request();
        let router = router.clone();
        async move {
            let response = router.oneshot(request.map(Body::new)).await?;
            // The request stays in flight until its body is written (a stream: until it ends).
            Ok::<_, std::convert::Infallible>(response.map(|body| {
                Body::new(InFlightBody {
                    body,
                    _in_flight: in_flight,
                })
            }))
        }
    });
    let mut builder = hyper::server::conn::http1::Builder::new();
    builder
        .timer(TokioTimer::new())
        // The header and idle timeouts are `clock`'s (hyper's would also cut idle keep-alives short).
        .header_read_timeout(None)
        .max_header_size(limits.max_header_bytes)
        .max_buf_size(limits.max_header_bytes.max(8192))
        .keep_alive(true);
    let conn = builder.serve_connection(io, service);
    tokio::pin!(conn);
    let mut closing = false;
    loop {
        let deadline = activity.deadline();
        tokio::select! {
            _ = conn.as_mut() => return,
            _ = sleep_until(deadline) => {
                if activity.expired().is_some() {
                    metrics.connection_timed_out();
                    return;
                }
            }
            _ = activity.changed() => {}
            _ = stopped(&mut shutdown), if !closing => {
                closing = true;
                conn.as_mut().graceful_shutdown();
            }
        }
    }
}

async fn sleep_until(deadline: Option<std::time::Instant>) {
    match deadline {
        Some(at) => tokio::time::sleep_until(at.into()).await,
        None => std::future::pending().await,
    }
}

/// A response body that keeps its request in flight until it is dropped.
struct InFlightBody {
    body: Body,
    _in_flight: activity::InFlight,
}

impl http_body::Body for InFlightBody {
    type Data = axum::body::Bytes;
    type Error = axum::Error;

    fn poll_frame(
        self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Option<Result<http_body::Frame<Self::Data>, Self::Error>>> {
        std::pin::Pin::new(&mut self.get_mut().body).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> http_body::SizeHint {
        self.body.size_hint()
    }
}
