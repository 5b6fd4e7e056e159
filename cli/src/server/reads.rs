//! The read side: who may read a session (its token, from the header or
//! `?token=`), `GET /api/sessions/{id}/context` and `GET /api/sessions`.

use super::error::AppError;
use super::session_id::SessionId;
use super::state::AppState;
use axum::extract::{RawQuery, State};
use axum::http::HeaderMap;
use axum::Json;
use ctxguard_core::protocol::ContextState;
use serde_json::json;

/// The query parameters of a read: the read token and the resume id.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ReadQuery {
    /// `?token=`.
    pub token: Option<String>,
    /// `?last_event_id=`.
    pub last_event_id: Option<String>,
}

impl ReadQuery {
    /// Reads the raw query string (anything unparsable counts as absent).
    pub fn parse(raw: Option<&str>) -> Self {
        let mut query = ReadQuery::default();
        for (key, value) in form_urlencoded::parse(raw.unwrap_or("").as_bytes()) {
            match key.as_ref() {
                "token" => query.token = Some(value.into_owned()),
                "last_event_id" => query.last_event_id = Some(value.into_owned()),
                _ => {}
            }
        }
        query
    }
}

/// Lets a reader of `id` through (see [`super::auth::Auth::check_read`]) and
/// notes the visit of a built-in session.
pub fn authorize(
    state: &AppState,
    id: &SessionId,
    headers: &HeaderMap,
    query: &ReadQuery,
) -> Result<(), AppError> {
    state.auth.check_read(id, headers, query.token.as_deref())?;
    if let Some(builtin) = state.builtins.get(id) {
        builtin.visit();
    }
    Ok(())
}

/// `GET /api/sessions/{id}/context`: the latest state (event 0 with no metrics before any event).
pub async fn context(
    State(state): State<AppState>,
    id: SessionId,
    headers: HeaderMap,
    RawQuery(raw): RawQuery,
) -> Result<Json<ContextState>, AppError> {
    authorize(&state, &id, &headers, &ReadQuery::parse(raw.as_deref()))?;
    let mut context = state
        .store
        .context(&id)
        .await?
        .ok_or_else(|| AppError::unknown_session(&id))?;
    // The relay serves GET /api/events too: toolbars of one page share one stream through it.
    context.shared_stream = true;
    Ok(Json(match state.builtins.get(&id) {
        Some(builtin) => builtin.profile().apply(context),
        None => context,
    }))
}

/// `GET /api/sessions`: every session's id (the publish token once reads need tokens).
pub async fn list(
    State(state): State<AppState>,
    headers: HeaderMap,
) -> Result<Json<serde_json::Value>, AppError> {
    state.auth.check_list(&headers)?;
    Ok(Json(json!({ "sessions": state.store.sessions().await? })))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_token_and_resume_id_from_the_query() {
        let q = ReadQuery::parse(Some("token=v1.9.a%3Ab.c&last_event_id=12&x=1"));
        assert_eq!(q.token.as_deref(), Some("v1.9.a:b.c"));
        assert_eq!(q.last_event_id.as_deref(), Some("12"));
        assert_eq!(ReadQuery::parse(None), ReadQuery::default());
    }
}
