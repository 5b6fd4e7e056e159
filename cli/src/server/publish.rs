//! The publish side: `POST /api/sessions/{id}/events` (one status event, or
//! an array of at most 100, each checked with core's parser; all or nothing)
//! and `DELETE /api/sessions/{id}`. Both take the publish token; every
//! refusal is counted by status in `/metrics`.

use super::error::AppError;
use super::session_id::SessionId;
use super::state::{AppState, MAX_EVENTS_PER_REQUEST};
use super::store::Outgoing;
use axum::body::{Body, Bytes};
use axum::extract::State;
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use ctxguard_core::protocol::{StatusEvent, EVENT_NAME};
use http_body_util::{BodyExt, Limited};
use serde_json::{json, Value};
use std::time::Duration;

/// `POST /api/sessions/{id}/events`: `200 {"event_ids": [...]}` in order.
pub async fn publish(
    State(state): State<AppState>,
    id: Result<SessionId, AppError>,
    headers: HeaderMap,
    body: Body,
) -> Response {
    let outcome = async {
        let id = id?;
        state.auth.check_publish(&headers)?;
        let bytes = read_body(body, &headers, state.max_body_bytes, state.body_timeout).await?;
        let events = parse_events(&bytes)?;
        if events.is_empty() {
            return Ok(Vec::new());
        }
        let n = events.len();
        let ids = state.store.publish(&id, events).await?;
        state.metrics.published(n);
        Ok::<_, AppError>(ids)
    }
    .await;
    match outcome {
        Ok(ids) => Json(json!({ "event_ids": ids })).into_response(),
        Err(e) => {
            state.metrics.publish_failed(e.status().as_u16());
            e.into_response()
        }
    }
}

/// `DELETE /api/sessions/{id}`: forgets the session (204 whether or not it existed); its streams end.
pub async fn forget(
    State(state): State<AppState>,
    id: Result<SessionId, AppError>,
    headers: HeaderMap,
) -> Response {
    let outcome = async {
        let id = id?;
        state.auth.check_publish(&headers)?;
        state.store.forget(&id).await?;
        Ok::<_, AppError>(())
    }
    .await;
    match outcome {
        Ok(()) => StatusCode::NO_CONTENT.into_response(),
        Err(e) => {
            state.metrics.publish_failed(e.status().as_u16());
            e.into_response()
        }
    }
}

/// The whole body, at most `limit_bytes` (413 past it), within `timeout` (408 past it).
async fn read_body(
    body: Body,
    headers: &HeaderMap,
    limit_bytes: usize,
    timeout: Duration,
) -> Result<Bytes, AppError> {
    let declared = headers
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    if declared.is_some_and(|n| n > limit_bytes as u64) {
        return Err(AppError::payload_too_large(limit_bytes));
    }
    let collected = tokio::time::timeout(timeout, Limited::new(body, limit_bytes).collect()).await;
    match collected {
        Err(_) => Err(AppError::new(
            StatusCode::REQUEST_TIMEOUT,
            format!("the body did not arrive within {} s", timeout.as_secs()),
        )),
        Ok(Ok(collected)) => Ok(collected.to_bytes()),
        Ok(Err(e)) if e.is::<http_body_util::LengthLimitError>() => {
            Err(AppError::payload_too_large(limit_bytes))
        }
        Ok(Err(e)) => Err(AppError::bad_request(format!("cannot read the body: {e}"))),
    }
}

/// The events of a publish body: one object or an array of at most
/// [`MAX_EVENTS_PER_REQUEST`], each valid, or a 400 naming the first bad one.
pub fn parse_events(body: &[u8]) -> Result<Vec<Outgoing>, AppError> {
    let value: Value = serde_json::from_slice(body)
        .map_err(|e| AppError::bad_request(format!("invalid JSON: {e}")))?;
    let items = match value {
        Value::Array(items) => {
            if items.len() > MAX_EVENTS_PER_REQUEST {
                return Err(AppError::bad_request(format!(
                    "at most {MAX_EVENTS_PER_REQUEST} events per request, got {}",
                    items.len()
                )));
            }
            items
        }
        object @ Value::Object(_) => vec![object],
        _ => {
            return Err(AppError::bad_request(
                "the body must be one status event (a JSON object) or an array of them",
            ))
        }
    };
    items
        .iter()
        .enumerate()
        .map(|(index, item)| match StatusEvent::from_payload(item) {
            Ok(event) => Ok(Outgoing::event(event)),
            Err(e) => {
                let detail = e.to_string();
                let field = failing_field(item, &detail);
                let at = field
                    .as_deref()
                    .map(|f| format!(" (field {f})"))
                    .unwrap_or_default();
                Err(AppError::invalid_event(
                    index,
                    field,
                    format!("event {index}{at}: {detail}"),
                ))
            }
        })
        .collect()
}

/// The field a rejected event fails on: named by core's check, or found by
/// deserialising it again with the path of the failure.
fn failing_field(payload: &Value, detail: &str) -> Option<String> {
    let object = payload.as_object()?;
    let check = detail.split_once(": ").map_or(detail, |(_, rest)| rest);
    if check.starts_with("type must be") || check.starts_with("needs \"type\"") {
        return Some("type".into());
    }
    if let Some(name) = check
        .split_whitespace()
        .next()
        .filter(|w| w.starts_with("context_metrics.") || w.starts_with("context_compaction."))
    {
        return Some(name.to_string());
    }
    // A serde failure: deserialise the SSE shape (a chat:status_updated payload
    // given its `type` and a `response_id`) and read the path where it stopped.
    let mut probe = object.clone();
    if !probe.contains_key("type") {
        probe.insert("type".into(), json!(EVENT_NAME));
        probe.entry("response_id").or_insert(json!(""));
    }
    let error = serde_path_to_error::deserialize::<_, StatusEvent>(Value::Object(probe)).err()?;
    let path = error.path().to_string();
    let inner = error.inner().to_string();
    let missing = inner
        .strip_prefix("missing field `")
        .and_then(|rest| rest.split('`').next());
    match (path.as_str(), missing) {
        (".", Some(m)) => Some(m.to_string()),
        (p, Some(m)) => Some(format!("{p}.{m}")),
        (".", None) => None,
        (p, None) => Some(p.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::server::testing::event;

    fn sse_payload() -> Value {
        serde_json::to_value(event(5)).expect("json")
    }

    fn rejected(body: &str) -> (Option<usize>, Option<String>, String) {
        let e = parse_events(body.as_bytes()).expect_err("rejected");
        assert_eq!(e.status(), StatusCode::BAD_REQUEST);
        (
            e.body().index,
            e.body().field.clone(),
            e.message().to_string(),
        )
    }

    #[test]
    fn accepts_one_event_an_array_and_the_wegent_shape() {
        let one = sse_payload();
        assert_eq!(
            parse_events(one.to_string().as_bytes()).expect("one").len(),
            1
        );
        let mut wegent = one.clone();
        let map = wegent.as_object_mut().expect("object");
        map.remove("type");
        map.remove("response_id");
        map.insert("task_id".into(), json!(7));
        map.insert("subtask_id".into(), json!(42));
        let both = json!([one, wegent]).to_string();
        let out = parse_events(both.as_bytes()).expect("both");
        assert_eq!(out.len(), 2);
        assert_eq!(
            out[1].event.as_ref().map(|e| e.response_id.as_str()),
            Some("42")
        );
        assert!(out[1]
            .data
            .starts_with("{\"type\":\"response.status.updated\""));
        assert!(parse_events(b"[]").expect("empty").is_empty());
    }

    #[test]
    fn names_the_index_and_the_field_of_a_bad_event() {
        let good = sse_payload();
        let mut negative = good.clone();
        negative["context_metrics"]["used_input_tokens"] = json!(-1);
        let body = json!([good, negative]).to_string();
        let (index, field, message) = rejected(&body);
        assert_eq!(
            (index, field.as_deref()),
            (Some(1), Some("context_metrics.used_input_tokens"))
        );
        assert!(
            message.starts_with("event 1 (field context_metrics.used_input_tokens): "),
            "{message}"
        );

        let mut phase = good.clone();
        phase["phase"] = json!("nope");
        assert_eq!(rejected(&phase.to_string()).1.as_deref(), Some("phase"));
        let mut missing = good.clone();
        missing["context_metrics"]
            .as_object_mut()
            .expect("o")
            .remove("target_limit");
        assert_eq!(
            rejected(&missing.to_string()).1.as_deref(),
            Some("context_metrics.target_limit")
        );
        let mut typed = good.clone();
        typed["context_metrics"]["context_window"] = json!("big");
        assert_eq!(
            rejected(&typed.to_string()).1.as_deref(),
            Some("context_metrics.context_window")
        );
        let mut kind = good.clone();
        kind["type"] = json!("other");
        assert_eq!(rejected(&kind.to_string()).1.as_deref(), Some("type"));
        let mut no_phase = good.clone();
        no_phase.as_object_mut().expect("o").remove("phase");
        assert_eq!(rejected(&no_phase.to_string()).1.as_deref(), Some("phase"));
        let mut created = good;
        created["phase"] = json!("summary_compact");
        created["context_compaction"] = json!({"type": "summary_compact", "status": "started", "before_tokens": 1,
            "trigger_limit": 1, "target_limit": 1, "used_legacy_fallback": false, "created_at": "yesterday"});
        assert_eq!(
            rejected(&created.to_string()).1.as_deref(),
            Some("context_compaction.created_at")
        );
    }

    #[test]
    fn rejects_bad_json_other_values_and_long_arrays() {
        for body in ["{", "", "42", "\"x\"", "null"] {
            let e = parse_events(body.as_bytes()).expect_err(body);
            assert_eq!(e.status(), StatusCode::BAD_REQUEST, "{body}");
        }
        let many = Value::Array(vec![sse_payload(); MAX_EVENTS_PER_REQUEST + 1]).to_string();
        let e = parse_events(many.as_bytes()).expect_err("too many");
        assert!(e.message().contains("at most 100"), "{}", e.message());
        let exactly = Value::Array(vec![sse_payload(); MAX_EVENTS_PER_REQUEST]).to_string();
        assert_eq!(parse_events(exactly.as_bytes()).expect("100").len(), 100);
    }
}
