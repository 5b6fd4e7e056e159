//! `GET /api/events?session=a&session=b`: several sessions on one
//! `text/event-stream`, so a page with more toolbars than
//! the browser's six HTTP/1.1 connections per origin connects them all.
//!
//! Each session is subscribed as the single stream subscribes it
//! ([`sse::session_events`]: backlog, then live, resync on lag) and the
//! streams are merged; every frame is `event: response.status.updated`,
//! `data:` the session's JSON tagged with `"session":"<id>"` first, and `id:`
//! the stream's cursor (every session's last delivered id, see
//! [`StreamCursor`]), which resumes each session after its own id when sent
//! back as `Last-Event-ID` or `?last_event_id=`.
//!
//! Answers as the single stream, in this order: 400 for no `session`, an
//! invalid or repeated one, or more than [`MAX_STREAM_SESSIONS`] (before any
//! token is looked at); with a read secret, each session needs a `token=`
//! that names it (401 none, malformed, forged or expired; 403 a valid one for
//! another session; the first session refused decides); 503 store down; 404
//! any unknown session. The stream ends when any of its sessions is forgotten
//! (its clients resynchronise and reconnect with the others) or the server
//! shuts down; it counts as one open stream.

use super::error::AppError;
use super::session_id::SessionId;
use super::sse::{frame, resume_text, session_events, with_keep_alive};
use super::state::AppState;
use axum::extract::{RawQuery, State};
use axum::http::HeaderMap;
use axum::response::sse::{Event, Sse};
use ctxguard_core::protocol::{tag_with_session, StreamCursor, MAX_STREAM_SESSIONS};
use futures_util::future;
use futures_util::stream::{self, Stream, StreamExt};
use std::convert::Infallible;

/// The query of a multi-session stream: `session=` and `token=` repeated, `last_event_id=`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MultiQuery {
    /// Every `session=`, in order.
    pub sessions: Vec<String>,
    /// Every `token=`, in order.
    pub tokens: Vec<String>,
    /// `last_event_id=` (the last one given).
    pub last_event_id: Option<String>,
}

impl MultiQuery {
    /// Reads the raw query string (other keys are ignored).
    pub fn parse(raw: Option<&str>) -> Self {
        let mut query = MultiQuery::default();
        for (key, value) in form_urlencoded::parse(raw.unwrap_or("").as_bytes()) {
            match key.as_ref() {
                "session" => query.sessions.push(value.into_owned()),
                "token" => query.tokens.push(value.into_owned()),
                "last_event_id" => query.last_event_id = Some(value.into_owned()),
                _ => {}
            }
        }
        query
    }

    /// The sessions as ids: a 400 for none, an invalid one, one named twice, or too many.
    pub fn session_ids(&self) -> Result<Vec<SessionId>, AppError> {
        if self.sessions.is_empty() {
            return Err(AppError::bad_request(
                "no session: name each as ?session=ID (repeatable)",
            ));
        }
        if self.sessions.len() > MAX_STREAM_SESSIONS {
            return Err(AppError::bad_request(format!(
                "{} sessions: one stream carries at most {MAX_STREAM_SESSIONS}",
                self.sessions.len()
            )));
        }
        let mut ids: Vec<SessionId> = Vec::with_capacity(self.sessions.len());
        for text in &self.sessions {
            let id = SessionId::parse(text)?;
            if ids.contains(&id) {
                return Err(AppError::bad_request(format!(
                    "session \"{id}\" is named twice"
                )));
            }
            ids.push(id);
        }
        Ok(ids)
    }
}

/// The multi-session SSE handler.
pub async fn events(
    State(state): State<AppState>,
    headers: HeaderMap,
    RawQuery(raw): RawQuery,
) -> Result<Sse<impl Stream<Item = Result<Event, Infallible>>>, AppError> {
    let query = MultiQuery::parse(raw.as_deref());
    let sessions = query.session_ids()?;
    state
        .auth
        .check_read_each(&sessions, &headers, &query.tokens)?;
    for id in &sessions {
        if let Some(builtin) = state.builtins.get(id) {
            builtin.visit();
        }
    }
    let resume = StreamCursor::parse(
        &resume_text(&headers, query.last_event_id.as_deref()).unwrap_or_default(),
    );
    let mut cursor = StreamCursor::new();
    let mut parts = Vec::with_capacity(sessions.len());
    for id in sessions {
        let after = resume.get(id.as_str());
        let subscription = state
            .store
            .subscribe(&id, after)
            .await?
            .ok_or_else(|| AppError::unknown_session(&id))?;
        if let Some(after) = after {
            cursor.set(id.as_str(), after);
        }
        let events = session_events(subscription, state.metrics.clone(), state.shutdown.clone());
        // `None` marks the end of this session's part, which ends the whole stream.
        let part = events
            .map(move |event| Some((id.clone(), event)))
            .chain(stream::once(future::ready(None)));
        parts.push(part.boxed());
    }
    let open = state.metrics.stream_opened();
    let frames = stream::select_all(parts).scan(cursor, move |cursor, next| {
        let _counted_while_open = &open;
        future::ready(next.map(|(id, event)| {
            cursor.set(id.as_str(), event.id);
            Ok(frame(
                &cursor.to_string(),
                &tag_with_session(id.as_str(), &event.data),
            ))
        }))
    });
    Ok(with_keep_alive(&state, frames))
}

#[cfg(test)]
mod tests;
