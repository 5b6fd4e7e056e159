//! What the relay tells its operator, on stderr through `tracing`: readable
//! lines by default, one JSON object a line with `--log-format json`
//! (`CTXGUARD_LOG_FORMAT=json`) for log collectors.
//!
//! Every request gets one line ([`log_request`]) with its method, its route
//! (the route pattern, or the path of a static file), its status, its
//! latency until the response head and the session(s) it names. Nothing
//! else of the request is logged: tokens travel in the `Authorization`
//! header or the query's `token`, and neither is ever read here.

use axum::extract::{MatchedPath, Request};
use axum::middleware::Next;
use axum::response::Response;
use std::time::Instant;

/// How log lines are written.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum LogFormat {
    /// One readable line per event.
    #[default]
    Text,
    /// One JSON object per line, the fields at the top level.
    Json,
}

/// Longest session list or static path logged, in bytes.
const MAX_FIELD_BYTES: usize = 256;

/// Installs the process's subscriber (INFO and above, to stderr); a second call does nothing.
pub fn init(format: LogFormat) {
    let builder = tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_max_level(tracing::Level::INFO)
        .with_target(false);
    let _ = match format {
        LogFormat::Text => builder.try_init(),
        LogFormat::Json => builder
            .json()
            .flatten_event(true)
            .with_current_span(false)
            .with_span_list(false)
            .try_init(),
    };
}

/// Middleware: one `request` line per request, when its response head is ready.
pub async fn log_request(request: Request, next: Next) -> Response {
    let started = Instant::now();
    let method = request.method().clone();
    let route = match request.extensions().get::<MatchedPath>() {
        Some(matched) => matched.as_str().to_string(),
        None => clip(request.uri().path()).to_string(),
    };
    let session = session_of(request.uri().path(), request.uri().query());
    let response = next.run(request).await;
    let latency_ms = started.elapsed().as_secs_f64() * 1000.0;
    tracing::info!(
        method = %method,
        route = %route,
        status = response.status().as_u16(),
        latency_ms = (latency_ms * 1000.0).round() / 1000.0,
        session = session.as_deref().unwrap_or(""),
        "request"
    );
    response
}

/// The session a request names: the `{id}` of `/api/sessions/{id}…`, or the
/// shared stream's `session=` values (comma-joined). Nothing else of the query.
fn session_of(path: &str, query: Option<&str>) -> Option<String> {
    if let Some(rest) = path.strip_prefix("/api/sessions/") {
        let id = rest.split('/').next().unwrap_or_default();
        return (!id.is_empty()).then(|| clip(id).to_string());
    }
    let sessions: Vec<String> = form_urlencoded::parse(query?.as_bytes())
        .filter(|(key, _)| key == "session")
        .map(|(_, value)| value.into_owned())
        .collect();
    (!sessions.is_empty()).then(|| clip(&sessions.join(",")).to_string())
}

/// `text` cut to at most [`MAX_FIELD_BYTES`] on a character boundary.
fn clip(text: &str) -> &str {
    if text.len() <= MAX_FIELD_BYTES {
        return text;
    }
    let mut end = MAX_FIELD_BYTES;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_request_names_its_session_and_never_its_token() {
        assert_eq!(
            session_of("/api/sessions/chat-1/events", Some("token=secret")),
            Some("chat-1".into())
        );
        assert_eq!(
            session_of("/api/events", Some("session=a&token=secret&session=b")),
            Some("a,b".into())
        );
        assert_eq!(session_of("/api/events", Some("token=secret")), None);
        assert_eq!(session_of("/healthz", None), None);
        assert_eq!(session_of("/api/sessions/", None), None);
    }

    #[test]
    fn long_fields_are_clipped_on_a_character_boundary() {
        let long = "é".repeat(MAX_FIELD_BYTES);
        let clipped = clip(&long);
        assert!(clipped.len() <= MAX_FIELD_BYTES && clipped.len() >= MAX_FIELD_BYTES - 1);
        assert!(clipped.chars().all(|c| c == 'é'));
    }
}
