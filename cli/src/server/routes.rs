//! The HTTP surface: `fn app(state) -> Router`, apart from any socket, so
//! tests drive it with `oneshot`. Every error is JSON `{"error": "..."}`:
//! unknown session or path → 404, wrong method → 405.

use super::session::{Session, Sessions};
use super::sse;
use axum::body::Body;
use axum::extract::{Path, Request, State};
use axum::http::{header, Method, StatusCode};
use axum::response::{Html, IntoResponse, Response};
use axum::routing::get;
use axum::{Json, Router};
use ctxguard_core::protocol::ContextState;
use serde_json::json;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::watch;
use tower::ServiceExt as _;
use tower_http::cors::CorsLayer;
use tower_http::services::ServeDir;

/// Interval of the SSE keep-alive comment.
pub const KEEP_ALIVE: Duration = Duration::from_secs(15);

/// What every handler shares.
#[derive(Clone)]
pub struct AppState {
    /// The hosted sessions.
    pub sessions: Arc<Sessions>,
    /// The built toolbar (`dist/`), when it exists.
    pub dist: Option<PathBuf>,
    /// SSE keep-alive interval.
    pub keep_alive: Duration,
    /// Turns true when the server shuts down; open streams end then.
    pub shutdown: watch::Receiver<bool>,
}

impl AppState {
    /// State over `sessions`, serving `dist` when it holds an `index.html`.
    pub fn new(sessions: Sessions, dist: Option<PathBuf>, shutdown: watch::Receiver<bool>) -> Self {
        AppState {
            sessions: Arc::new(sessions),
            dist: dist.filter(|d| d.join("index.html").is_file()),
            keep_alive: KEEP_ALIVE,
            shutdown,
        }
    }

    /// The session named `id`, or a 404.
    pub fn session(&self, id: &str) -> Result<&Arc<Session>, AppError> {
        self.sessions
            .get(id)
            .ok_or_else(|| AppError::not_found(format!("unknown session \"{id}\"")))
    }
}

/// An error at the HTTP boundary, answered as `{"error": message}`.
#[derive(Debug)]
pub struct AppError {
    status: StatusCode,
    message: String,
}

impl AppError {
    /// A 404.
    pub fn not_found(message: impl Into<String>) -> Self {
        AppError {
            status: StatusCode::NOT_FOUND,
            message: message.into(),
        }
    }

    /// A 405.
    pub fn method_not_allowed(method: &Method) -> Self {
        AppError {
            status: StatusCode::METHOD_NOT_ALLOWED,
            message: format!("method {method} not allowed here"),
        }
    }
}

impl IntoResponse for AppError {
    fn into_response(self) -> Response {
        (self.status, Json(json!({ "error": self.message }))).into_response()
    }
}

/// The router.
pub fn app(state: AppState) -> Router {
    let api = Router::new()
        .route("/api/sessions", get(list_sessions))
        .route("/api/sessions/{id}/context", get(context))
        .route("/api/sessions/{id}/events", get(sse::events))
        .method_not_allowed_fallback(method_not_allowed)
        .layer(
            CorsLayer::new()
                .allow_origin(tower_http::cors::Any)
                .allow_methods([Method::GET]),
        );
    api.fallback(static_files).with_state(state)
}

async fn list_sessions(State(state): State<AppState>) -> Json<serde_json::Value> {
    Json(json!({ "sessions": state.sessions.names() }))
}

async fn context(
    State(state): State<AppState>,
    Path(id): Path<String>,
) -> Result<Json<ContextState>, AppError> {
    let session = state.session(&id)?;
    session.visit();
    Ok(Json(session.state()))
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
        parts.headers.insert(
            header::CACHE_CONTROL,
            header::HeaderValue::from_static("no-cache"),
        );
    }
    Response::from_parts(parts, Body::new(body))
}

const MISSING_BUILD_PAGE: &str = r#"<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>ctxguard: toolbar not built</title></head>
<body style="font-family: system-ui, sans-serif; max-width: 40em; margin: 3em auto">
<h1>The toolbar is not built yet</h1>
<p>The server is running and its API is live:
<a href="/api/sessions">/api/sessions</a>,
<a href="/api/sessions/demo/context">/api/sessions/demo/context</a>,
<a href="/api/sessions/demo/events">/api/sessions/demo/events</a>.</p>
<p>To see the toolbar, build it at the repository root and restart the server:</p>
<pre>trunk build --release
ctxguard serve --demo</pre>
<p>(or point the server at a build elsewhere with <code>--dist DIR</code>).</p>
</body></html>
"#;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::server::session::tests::event;
    use crate::server::session::Profile;
    use axum::http::Request;
    use http_body_util::BodyExt;

    fn state_with(dist: Option<PathBuf>) -> (AppState, Arc<Session>, watch::Sender<bool>) {
        let profile = Profile {
            model: Some("gpt-4o".into()),
            attachment_limit: Some(3000),
        };
        let session = Arc::new(Session::new("demo", 1, 16).with_profile(profile));
        let mut sessions = Sessions::default();
        sessions.insert(session.clone());
        let (tx, rx) = watch::channel(false);
        (AppState::new(sessions, dist, rx), session, tx)
    }

    async fn call(state: AppState, method: Method, uri: &str) -> (StatusCode, String, String) {
        let request = Request::builder()
            .method(method)
            .uri(uri)
            .body(Body::empty())
            .expect("valid request");
        let response = app(state).oneshot(request).await.expect("infallible");
        let status = response.status();
        let content_type = response
            .headers()
            .get(header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("")
            .to_string();
        let body = response
            .into_body()
            .collect()
            .await
            .expect("body")
            .to_bytes();
        (
            status,
            content_type,
            String::from_utf8_lossy(&body).into_owned(),
        )
    }

    fn error_of(body: &str) -> String {
        let v: serde_json::Value = serde_json::from_str(body).expect("JSON error body");
        v["error"].as_str().expect("error string").to_string()
    }

    #[tokio::test]
    async fn context_is_the_latest_state() {
        let (state, session, _tx) = state_with(None);
        let (status, _, body) =
            call(state.clone(), Method::GET, "/api/sessions/demo/context").await;
        assert_eq!(
            (status, body.as_str()),
            (
                StatusCode::OK,
                r#"{"event_id":0,"phase":null,"context_metrics":null,"model":"gpt-4o","attachment_limit":3000}"#
            )
        );
        session.publish(&event(100));
        session.publish(&event(200));
        let (status, ct, body) = call(state, Method::GET, "/api/sessions/demo/context").await;
        assert_eq!(status, StatusCode::OK);
        assert!(ct.starts_with("application/json"));
        let v: serde_json::Value = serde_json::from_str(&body).expect("json");
        assert_eq!(v["event_id"], 2);
        assert_eq!(v["phase"], "after_tool_end");
        assert_eq!(v["context_metrics"]["used_input_tokens"], 200);
        assert!(v.get("context_compaction").is_none());
        assert_eq!(v["model"], "gpt-4o");
    }

    #[tokio::test]
    async fn errors_are_json_and_never_crash() {
        let (state, _, _tx) = state_with(None);
        for (method, uri, want) in [
            (
                Method::GET,
                "/api/sessions/nope/context",
                StatusCode::NOT_FOUND,
            ),
            (
                Method::GET,
                "/api/sessions/nope/events",
                StatusCode::NOT_FOUND,
            ),
            (
                Method::POST,
                "/api/sessions/demo/context",
                StatusCode::METHOD_NOT_ALLOWED,
            ),
            (
                Method::DELETE,
                "/api/sessions/demo/events",
                StatusCode::METHOD_NOT_ALLOWED,
            ),
            (Method::GET, "/api/nothing", StatusCode::NOT_FOUND),
            (
                Method::GET,
                "/api/sessions/demo/context/extra",
                StatusCode::NOT_FOUND,
            ),
            (Method::GET, "/missing.js", StatusCode::NOT_FOUND),
            (Method::PUT, "/", StatusCode::METHOD_NOT_ALLOWED),
        ] {
            let (status, ct, body) = call(state.clone(), method.clone(), uri).await;
            assert_eq!(status, want, "{method} {uri}");
            assert!(ct.starts_with("application/json"), "{method} {uri}: {ct}");
            assert!(!error_of(&body).is_empty());
        }
        let (status, _, body) = call(state, Method::GET, "/api/sessions").await;
        assert_eq!(
            (status, body.as_str()),
            (StatusCode::OK, r#"{"sessions":["demo"]}"#)
        );
    }

    #[tokio::test]
    async fn serves_the_build_or_says_how_to_make_it() {
        let (state, _, _tx) = state_with(None);
        let (status, ct, body) = call(state, Method::GET, "/").await;
        assert_eq!(status, StatusCode::OK);
        assert!(ct.starts_with("text/html"));
        assert!(body.contains("trunk build --release"));

        let dir = std::env::temp_dir().join(format!("ctxguard-dist-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temp dir");
        std::fs::write(dir.join("index.html"), "<p>toolbar</p>").expect("write");
        std::fs::write(dir.join("app.js"), "1").expect("write");
        let (state, _, _tx) = state_with(Some(dir.clone()));
        let (status, _, body) = call(state.clone(), Method::GET, "/").await;
        assert_eq!((status, body.as_str()), (StatusCode::OK, "<p>toolbar</p>"));
        let (status, _, body) = call(state.clone(), Method::GET, "/app.js").await;
        assert_eq!((status, body.as_str()), (StatusCode::OK, "1"));
        let (status, _, _) = call(state, Method::GET, "/nope.wasm").await;
        assert_eq!(status, StatusCode::NOT_FOUND);
        let _ = std::fs::remove_dir_all(dir);
    }
}
