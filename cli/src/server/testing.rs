//! Test fixtures of the server: events, a state over a memory store, and an
//! SSE reader.

use super::auth::Auth;
use super::builtin::Builtins;
use super::event::StoredEvent;
use super::routes::app;
use super::session_id::SessionId;
use super::state::AppState;
use super::store::memory::MemoryStore;
use super::store::StoreLimits;
use axum::body::Body;
use axum::http::{header, Request, StatusCode};
use axum::response::Response;
use ctxguard_core::budget::context_limits;
use ctxguard_core::metrics::ContextMetricsSnapshot;
use ctxguard_core::protocol::{
    format_created_at, CompactionStatus, ContextCompaction, Phase, StatusEvent, COMPACTION_TYPE,
    EVENT_NAME,
};
use http_body_util::BodyExt;
use std::sync::Arc;
use std::time::Duration;
use tower::ServiceExt;

/// An `after_tool_end` event using `used` tokens of gpt-4o.
pub fn event(used: i64) -> StatusEvent {
    let limits = context_limits("gpt-4o", None, None);
    StatusEvent::new(
        "resp_t",
        Phase::AfterToolEnd,
        ContextMetricsSnapshot::from_used(used, &limits),
    )
}

/// A `summary_compact` event with a compaction record in `status`.
pub fn compaction_event(status: CompactionStatus) -> StatusEvent {
    let limits = context_limits("gpt-4o", None, None);
    let mut e = StatusEvent::new(
        "resp_t",
        Phase::SummaryCompact,
        ContextMetricsSnapshot::from_used(limits.trigger_limit + 10, &limits),
    );
    let completed = status == CompactionStatus::Completed;
    e.context_compaction = Some(ContextCompaction {
        kind: COMPACTION_TYPE.into(),
        status,
        before_tokens: limits.trigger_limit + 10,
        trigger_limit: limits.trigger_limit,
        target_limit: limits.target_limit,
        used_legacy_fallback: false,
        created_at: format_created_at(1_782_226_534_512_345),
        after_tokens: completed.then_some(1_000),
        summary_message_id: completed.then(|| "cg-summary-1".to_string()),
        failure_reason: None,
    });
    e
}

/// `event` as stored under `id`.
pub fn stored(id: u64, event: &StatusEvent) -> Arc<StoredEvent> {
    Arc::new(StoredEvent {
        id,
        prev: id.saturating_sub(1),
        data: serde_json::to_string(event).expect("serialises"),
        event: Some(event.clone()),
    })
}

/// A valid session id.
pub fn sid(id: &str) -> SessionId {
    SessionId::parse(id).expect("a valid test session id")
}

/// A state over a memory store keeping `buffer_events` per session, with an
/// (empty) session `demo`, open reads and no publishing; and its shutdown switch.
pub fn memory_state(buffer_events: usize) -> (AppState, tokio::sync::watch::Sender<bool>) {
    memory_state_with(buffer_events, Auth::default())
}

/// [`memory_state`] with credentials.
pub fn memory_state_with(
    buffer_events: usize,
    auth: Auth,
) -> (AppState, tokio::sync::watch::Sender<bool>) {
    let store = MemoryStore::new(StoreLimits {
        buffer_events,
        ..StoreLimits::default()
    });
    store
        .pin_now(&sid("demo"))
        .expect("an empty store has room");
    let (tx, rx) = tokio::sync::watch::channel(false);
    let state = AppState::new(Arc::new(store), auth, Builtins::default(), None, rx);
    (state, tx)
}

/// Opens `uri` as an SSE stream (with `Last-Event-ID` when given); asserts a 200 event stream.
pub async fn open_stream(state: &AppState, uri: &str, last_event_id: Option<&str>) -> Response {
    let mut request = Request::builder().uri(uri);
    if let Some(id) = last_event_id {
        request = request.header("last-event-id", id);
    }
    let response = app(state.clone(), &[])
        .oneshot(request.body(Body::empty()).expect("request"))
        .await
        .expect("infallible");
    assert_eq!(response.status(), StatusCode::OK, "{uri}");
    let content_type = response
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok());
    assert_eq!(content_type, Some("text/event-stream"));
    response
}

/// One event frame as a client reads it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EventFrame {
    /// `id:`.
    pub id: u64,
    /// `data:` (lines joined with `\n`).
    pub data: String,
}

/// Reads SSE frames until `n` events arrived, the stream ended, or 5 s passed.
pub async fn read_events(body: Body, n: usize) -> Vec<EventFrame> {
    read_tagged_events(body, n)
        .await
        .into_iter()
        .map(|(id, data)| EventFrame {
            id: id.parse().expect("numeric id"),
            data,
        })
        .collect()
}

/// [`read_events`] with the `id:` as text (a multi-session stream's cursor): `(id, data)`.
pub async fn read_tagged_events(mut body: Body, n: usize) -> Vec<(String, String)> {
    let mut text = String::new();
    let mut out = Vec::new();
    let deadline = tokio::time::Instant::now() + Duration::from_secs(5);
    while out.len() < n {
        let frame = tokio::time::timeout_at(deadline, body.frame()).await;
        let Ok(Some(Ok(frame))) = frame else { break };
        if let Ok(bytes) = frame.into_data() {
            text.push_str(&String::from_utf8_lossy(&bytes));
        }
        while let Some(end) = text.find("\n\n") {
            let block: String = text.drain(..end + 2).collect();
            let field = |name: &str| {
                let values: Vec<&str> = block
                    .lines()
                    .filter_map(|l| l.strip_prefix(name))
                    .map(|v| v.strip_prefix(' ').unwrap_or(v))
                    .collect();
                (!values.is_empty()).then(|| values.join("\n"))
            };
            if let (Some(id), Some(data)) = (field("id:"), field("data:")) {
                assert_eq!(field("event:").as_deref(), Some(EVENT_NAME));
                out.push((id, data));
            }
        }
    }
    out
}
