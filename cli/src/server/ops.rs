//! What operators, load balancers and container platforms ask:
//! `GET /livez` (200 while the process answers at all: restart it otherwise),
//! `GET /readyz` (200 while the store answers and the relay is not shutting
//! down, 503 otherwise: send it no traffic), `GET /healthz` (the store check
//! alone, kept for existing probes) and `GET /metrics` (Prometheus text).

use super::metrics::StoreReading;
use super::state::AppState;
use axum::extract::State;
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde_json::json;
use std::time::Duration;

/// How long a health check or a scrape waits for the store.
const STORE_CHECK_TIMEOUT: Duration = Duration::from_secs(2);

/// `GET /livez`: `{"status":"ok"}` whenever the process can answer; it checks nothing else.
pub async fn livez() -> Response {
    Json(json!({ "status": "ok" })).into_response()
}

/// `GET /readyz`: as `/healthz`, and 503 once the relay is shutting down.
pub async fn readyz(State(state): State<AppState>) -> Response {
    if *state.shutdown.borrow() {
        return unavailable(state.store.kind(), "shutting down");
    }
    healthz(State(state)).await
}

/// `GET /healthz`: `{"status":"ok","store":"memory"|"redis"}`, or 503 with the reason.
pub async fn healthz(State(state): State<AppState>) -> Response {
    let kind = state.store.kind();
    match tokio::time::timeout(STORE_CHECK_TIMEOUT, state.store.check()).await {
        Ok(Ok(())) => Json(json!({ "status": "ok", "store": kind })).into_response(),
        Ok(Err(e)) => unavailable(kind, &e.to_string()),
        Err(_) => unavailable(kind, "the store did not answer within 2 s"),
    }
}

fn unavailable(kind: &str, reason: &str) -> Response {
    (
        StatusCode::SERVICE_UNAVAILABLE,
        Json(json!({ "status": "unavailable", "store": kind, "error": reason })),
    )
        .into_response()
}

/// `GET /metrics`: the instance's counters.
pub async fn metrics(State(state): State<AppState>) -> Response {
    let sessions = tokio::time::timeout(STORE_CHECK_TIMEOUT, state.store.session_count())
        .await
        .ok()
        .and_then(Result::ok);
    let text = state.metrics.render(StoreReading { sessions });
    (
        [(
            header::CONTENT_TYPE,
            "text/plain; version=0.0.4; charset=utf-8",
        )],
        text,
    )
        .into_response()
}
