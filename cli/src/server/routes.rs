//! The HTTP surface: `fn app(state, origins) -> Router`, apart from any
//! socket, so tests drive it with `oneshot`.
//!
//! | route | handler |
//! | --- | --- |
//! | `GET /api/sessions` | [`reads::list`] |
//! | `GET /api/sessions/{id}/context` | [`reads::context`] |
//! | `GET /api/sessions/{id}/events` | [`sse::events`] |
//! | `GET /api/events?session=…` | [`multiplex::events`] |
//! | `POST /api/sessions/{id}/events` | [`publish::publish`] |
//! | `DELETE /api/sessions/{id}` | [`publish::forget`] |
//! | `GET /livez`, `GET /readyz`, `GET /healthz`, `GET /metrics` | [`ops`] |
//! | anything else | the built toolbar, or JSON 404/405 |
//!
//! Every error body is JSON (a last layer turns any other error body into
//! `{"error": reason}`). CORS headers go only to the origins given with
//! `--allow-origin`; without any, browsers keep reads to the same origin.
//! Every request is logged once ([`logging::log_request`]).

use super::error::AppError;
use super::state::{AppState, MAX_URI_BYTES};
use super::{logging, multiplex, ops, publish, reads, sse};
use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{header, HeaderValue, Method, StatusCode};
use axum::middleware::{from_fn, map_response, Next};
use axum::response::{Html, IntoResponse, Response};
use axum::routing::{delete, get};
use axum::Router;
use std::time::Duration;
use tower::ServiceExt as _;
use tower_http::cors::{AllowOrigin, CorsLayer};
use tower_http::services::ServeDir;

#[cfg(test)]
mod tests;

/// The router; `origins` get CORS answers for the reads (none: same origin only).
pub fn app(state: AppState, origins: &[HeaderValue]) -> Router {
    let mut router = Router::new()
        .route("/api/sessions", get(reads::list))
        .route("/api/sessions/{id}", delete(publish::forget))
        .route("/api/sessions/{id}/context", get(reads::context))
        .route(
            "/api/sessions/{id}/events",
            get(sse::events).post(publish::publish),
        )
        .route("/api/events", get(multiplex::events))
        .route("/livez", get(ops::livez))
        .route("/readyz", get(ops::readyz))
        .route("/healthz", get(ops::healthz))
        .route("/metrics", get(ops::metrics))
        .method_not_allowed_fallback(method_not_allowed)
        .fallback(static_files)
        .with_state(state);
    if !origins.is_empty() {
        router = router.layer(
            CorsLayer::new()
                .allow_origin(AllowOrigin::list(origins.iter().cloned()))
                .allow_methods([Method::GET, Method::HEAD])
                .allow_headers([
                    header::AUTHORIZATION,
                    header::HeaderName::from_static("last-event-id"),
                ])
                .max_age(Duration::from_secs(600)),
        );
    }
    router
        .layer(from_fn(limit_uri))
        .layer(map_response(json_error_bodies))
        .layer(from_fn(logging::log_request))
}

/// Answers 414 to a request target longer than [`MAX_URI_BYTES`].
async fn limit_uri(request: Request, next: Next) -> Response {
    let target = request
        .uri()
        .path_and_query()
        .map_or(0, |p| p.as_str().len());
    if target > MAX_URI_BYTES {
        return AppError::new(
            StatusCode::URI_TOO_LONG,
            format!("URI too long: {target} bytes, at most {MAX_URI_BYTES}"),
        )
        .into_response();
    }
    next.run(request).await
}

/// Gives every error response a JSON body (axum's and tower-http's own
/// rejections are text); JSON ones pass through.
async fn json_error_bodies(response: Response) -> Response {
    let status = response.status();
    let is_json = response
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("application/json"));
    if !(status.is_client_error() || status.is_server_error()) || is_json {
        return response;
    }
    let reason = status.canonical_reason().unwrap_or("error").to_lowercase();
    let (mut parts, body) = response.into_parts();
    let detail = axum::body::to_bytes(body, 4096)
        .await
        .ok()
        .map(|b| String::from_utf8_lossy(&b).trim().to_string())
        .filter(|t| !t.is_empty());
    let message = match detail {
        Some(d) => format!("{reason}: {d}"),
        None => reason,
    };
    let body = serde_json::json!({ "error": message }).to_string();
    parts.headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    parts.headers.remove(header::CONTENT_LENGTH);
    Response::from_parts(parts, Body::from(body))
}

async fn method_not_allowed(method: Method) -> AppError {
    AppError::method_not_allowed(&method)
}

/// Everything outside the API: the built toolbar, or a page saying how to build it.
async fn static_files(State(state): State<AppState>, request: Request) -> Response {
    let path = request.uri().path().to_string();
    if path == "/api" || path.starts_with("/api/") {
        return AppError::not_found(format!("no route {path}")).into_response();
    }
    if !matches!(*request.method(), Method::GET | Method::HEAD) {
        return AppError::method_not_allowed(request.method()).into_response();
    }
    let Some(dist) = &state.dist else {
        if path == "/" || path == "/index.html" {
            return Html(MISSING_BUILD_PAGE).into_response();
        }
        return AppError::not_found(format!("no file {path} (the toolbar is not built)"))
            .into_response();
    };
    let response = match ServeDir::new(dist).oneshot(request).await {
        Ok(r) => r,
        Err(never) => match never {},
    };
    if response.status() == StatusCode::NOT_FOUND {
        return AppError::not_found(format!("no file {path}")).into_response();
    }
    let (mut parts, body) = response.into_parts();
    // The toolbar is rebuilt in place; never let a browser keep a stale index.
    if path == "/" || path.ends_with(".html") {
        parts
            .headers
            .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    }
    Response::from_parts(parts, Body::new(body))
}

const MISSING_BUILD_PAGE: &str = r#"<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>ctxguard: toolbar not built</title></head>
<body style="font-family: system-ui, sans-serif; max-width: 40em; margin: 3em auto">
<h1>The toolbar is not built yet</h1>
<p>The server is running and its API is live:
<a href="/api/sessions">/api/sessions</a>, <a href="/healthz">/healthz</a>,
<a href="/metrics">/metrics</a>.</p>
<p>To see the toolbar, build it at the repository root and restart the server:</p>
<pre>trunk build --release
ctxguard serve --demo</pre>
<p>(or point the server at a build elsewhere with <code>--dist DIR</code>).</p>
</body></html>
"#;
