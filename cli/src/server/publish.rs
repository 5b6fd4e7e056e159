//! The publish side: `POST /api/sessions/{id}/events` (one status event, or
//! an array of at most 100, each checked with core's parser; all or nothing)
//! and `DELETE /api/sessions/{id}`. Both take the publish token; every
//! refusal is counted by status in `/metrics`.

use super::error::AppError;
use super::event::Outgoing;
use super::session_id::{InvalidSessionId, SessionId};
use super::state::AppState;
use axum::body::{Body, Bytes};
use axum::extract::State;
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use ctxguard_core::protocol::parse_event_batch;
use http_body_util::{BodyExt, Limited};
use serde_json::json;
use std::time::Duration;

/// `POST /api/sessions/{id}/events`: `200 {"event_ids": [...]}` in order.
pub async fn publish(
    State(state): State<AppState>,
    id: Result<SessionId, InvalidSessionId>,
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
    id: Result<SessionId, InvalidSessionId>,
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

/// The events of a publish body (core's contract: one object or an array of
/// at most 100, each valid), or a 400 naming the first bad one and its field.
pub fn parse_events(body: &[u8]) -> Result<Vec<Outgoing>, AppError> {
    match parse_event_batch(body) {
        Ok(events) => Ok(events.into_iter().map(Outgoing::event).collect()),
        Err(e) => Err(match e.index {
            Some(index) => AppError::invalid_event(index, e.field, e.message),
            None => AppError::bad_request(e.message),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::server::testing::event;
    use serde_json::Value;

    fn sse_payload() -> Value {
        serde_json::to_value(event(5)).expect("json")
    }

    /// Core's contract (`protocol::parse_event_batch`, tested there) mapped to
    /// HTTP: accepted events go out as their SPEC §4 JSON, whatever shape came in.
    #[test]
    fn accepted_events_go_out_in_the_sse_shape() {
        let mut wegent = sse_payload();
        let map = wegent.as_object_mut().expect("object");
        map.remove("type");
        map.remove("response_id");
        map.insert("subtask_id".into(), json!(42));
        let out =
            parse_events(json!([sse_payload(), wegent]).to_string().as_bytes()).expect("both");
        assert_eq!(out.len(), 2);
        assert!(out[1]
            .data
            .starts_with("{\"type\":\"response.status.updated\",\"response_id\":\"42\""));
    }

    /// A refusal is a 400 whose JSON body names the index and the field.
    #[test]
    fn refusals_are_400s_naming_the_index_and_field() {
        let mut negative = sse_payload();
        negative["context_metrics"]["used_input_tokens"] = json!(-1);
        let e = parse_events(json!([sse_payload(), negative]).to_string().as_bytes())
            .expect_err("refused");
        assert_eq!(e.status(), StatusCode::BAD_REQUEST);
        assert_eq!(e.body().index, Some(1));
        assert_eq!(
            e.body().field.as_deref(),
            Some("context_metrics.used_input_tokens")
        );
        let e = parse_events(b"{").expect_err("bad JSON");
        assert_eq!(e.status(), StatusCode::BAD_REQUEST);
        assert_eq!(e.body().index, None);
    }
}
