//! `GET /api/sessions/{id}/events`: the status stream as `text/event-stream`,
//! resumed after `Last-Event-ID` (header) or `?last_event_id=` (query), with
//! a keep-alive comment and an end on server shutdown.

use super::routes::{AppError, AppState};
use super::session::{Session, StoredEvent, SubscriberGuard};
use axum::extract::{Path, Query, State};
use axum::http::HeaderMap;
use axum::response::sse::{Event, KeepAlive, Sse};
use ctxguard_core::protocol::EVENT_NAME;
use futures_util::stream::{self, Stream, StreamExt};
use serde::Deserialize;
use std::collections::VecDeque;
use std::convert::Infallible;
use std::sync::Arc;
use tokio::sync::broadcast::error::RecvError;
use tokio::sync::{broadcast, watch};

/// The resume query parameter.
#[derive(Debug, Deserialize)]
pub struct EventsQuery {
    last_event_id: Option<String>,
}

/// The id to resume after: the header wins over the query; unparsable values count as none.
fn resume_id(headers: &HeaderMap, query: &EventsQuery) -> Option<u64> {
    headers
        .get("last-event-id")
        .and_then(|v| v.to_str().ok())
        .map(str::to_string)
        .or_else(|| query.last_event_id.clone())
        .and_then(|v| v.trim().parse().ok())
}

/// The SSE handler.
pub async fn events(
    State(state): State<AppState>,
    Path(id): Path<String>,
    Query(query): Query<EventsQuery>,
    headers: HeaderMap,
) -> Result<Sse<impl Stream<Item = Result<Event, Infallible>>>, AppError> {
    let session = state.session(&id)?.clone();
    let stream = event_stream(session, resume_id(&headers, &query), state.shutdown.clone());
    Ok(Sse::new(stream).keep_alive(
        KeepAlive::new()
            .interval(state.keep_alive)
            .text("keep-alive"),
    ))
}

/// One `response.status.updated` frame.
fn frame(event: &StoredEvent) -> Event {
    Event::default()
        .event(EVENT_NAME)
        .id(event.id.to_string())
        .data(&event.data)
}

struct Cursor {
    pending: VecDeque<Arc<StoredEvent>>,
    live: broadcast::Receiver<Arc<StoredEvent>>,
    session: Arc<Session>,
    /// Id of the last frame this stream sent.
    last_sent: Option<u64>,
    shutdown: watch::Receiver<bool>,
    _guard: SubscriberGuard,
}

/// Backlog first, then live events in id order; a client that lags behind the
/// channel is resynchronised with the latest state. Ends when the server shuts down.
pub fn event_stream(
    session: Arc<Session>,
    last_event_id: Option<u64>,
    shutdown: watch::Receiver<bool>,
) -> impl Stream<Item = Result<Event, Infallible>> {
    let guard = session.connect();
    let sub = session.subscribe(last_event_id);
    let cursor = Cursor {
        pending: sub.backlog.into(),
        live: sub.live,
        session,
        last_sent: None,
        shutdown,
        _guard: guard,
    };
    stream::unfold(cursor, |mut c| async move {
        loop {
            if *c.shutdown.borrow() {
                return None;
            }
            let next = match c.pending.pop_front() {
                Some(e) => e,
                None => tokio::select! {
                    r = c.live.recv() => match r {
                        Ok(e) => e,
                        Err(RecvError::Lagged(_)) => match c.session.latest() {
                            Some(e) => e,
                            None => continue,
                        },
                        Err(RecvError::Closed) => return None,
                    },
                    _ = c.shutdown.changed() => return None,
                },
            };
            // A lag resync may repeat what this stream already sent.
            if c.last_sent.is_some_and(|last| next.id <= last) {
                continue;
            }
            c.last_sent = Some(next.id);
            return Some((Ok(frame(&next)), c));
        }
    })
    .boxed()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::server::routes::{app, AppState};
    use crate::server::session::tests::event;
    use crate::server::session::Sessions;
    use axum::body::Body;
    use axum::http::{header, Request, StatusCode};
    use http_body_util::BodyExt;
    use std::time::Duration;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    use tower::ServiceExt;

    fn setup(first_id: u64, capacity: usize) -> (AppState, Arc<Session>, watch::Sender<bool>) {
        let session = Arc::new(Session::new("demo", first_id, capacity));
        let mut sessions = Sessions::default();
        sessions.insert(session.clone());
        let (tx, rx) = watch::channel(false);
        (AppState::new(sessions, None, rx), session, tx)
    }

    /// Reads SSE frames until `n` events arrived (or 5 s passed); returns (id, data) pairs.
    async fn read_events(body: Body, n: usize) -> Vec<(u64, String)> {
        let mut body = body;
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
                    block
                        .lines()
                        .find_map(|l| l.strip_prefix(name))
                        .map(|v| v.trim_start().to_string())
                };
                if let (Some(id), Some(data)) = (field("id:"), field("data:")) {
                    assert_eq!(field("event:").as_deref(), Some(EVENT_NAME));
                    out.push((id.parse().expect("numeric id"), data));
                }
            }
        }
        out
    }

    async fn open(
        state: AppState,
        uri: &str,
        last_event_id: Option<&str>,
    ) -> axum::response::Response {
        let mut request = Request::builder().uri(uri);
        if let Some(id) = last_event_id {
            request = request.header("last-event-id", id);
        }
        let response = app(state)
            .oneshot(request.body(Body::empty()).expect("request"))
            .await
            .expect("infallible");
        assert_eq!(response.status(), StatusCode::OK);
        assert_eq!(
            response
                .headers()
                .get(header::CONTENT_TYPE)
                .and_then(|v| v.to_str().ok()),
            Some("text/event-stream")
        );
        response
    }

    fn ids(events: &[(u64, String)]) -> Vec<u64> {
        events.iter().map(|e| e.0).collect()
    }

    #[tokio::test]
    async fn resumes_after_last_event_id_header_or_query() {
        let (state, session, _tx) = setup(100, 8);
        for used in 1..=5 {
            session.publish(&event(used));
        }
        let r = open(state.clone(), "/api/sessions/demo/events", Some("102")).await;
        session.publish(&event(6));
        let got = read_events(r.into_body(), 4).await;
        assert_eq!(ids(&got), vec![103, 104, 105]);
        assert!(got[0].1.contains("\"used_input_tokens\":4"));

        let r = open(
            state.clone(),
            "/api/sessions/demo/events?last_event_id=104",
            None,
        )
        .await;
        assert_eq!(ids(&read_events(r.into_body(), 1).await), vec![105]);
        // The header wins over the query.
        let r = open(
            state,
            "/api/sessions/demo/events?last_event_id=100",
            Some("104"),
        )
        .await;
        assert_eq!(ids(&read_events(r.into_body(), 1).await), vec![105]);
    }

    #[tokio::test]
    async fn live_events_follow_the_resume() {
        let (state, session, _tx) = setup(1, 8);
        session.publish(&event(1));
        let r = open(state, "/api/sessions/demo/events", Some("1")).await;
        let reader = tokio::spawn(read_events(r.into_body(), 2));
        tokio::time::sleep(Duration::from_millis(20)).await;
        session.publish(&event(2));
        session.publish(&event(3));
        assert_eq!(ids(&reader.await.expect("reader")), vec![2, 3]);
    }

    #[tokio::test]
    async fn an_id_older_than_the_buffer_gets_the_latest_state_first() {
        let (state, session, _tx) = setup(1, 3);
        for used in 1..=10 {
            session.publish(&event(used));
        }
        for (uri, header) in [
            ("/api/sessions/demo/events", Some("2")),
            ("/api/sessions/demo/events", None),
            ("/api/sessions/demo/events", Some("not-a-number")),
            ("/api/sessions/demo/events?last_event_id=999", None),
        ] {
            let r = open(state.clone(), uri, header).await;
            let got = read_events(r.into_body(), 1).await;
            assert_eq!(ids(&got), vec![10], "{uri} {header:?}");
            assert!(got[0].1.contains("\"used_input_tokens\":10"));
        }
    }

    #[tokio::test]
    async fn idle_streams_get_keep_alive_comments() {
        let (mut state, _session, _tx) = setup(1, 3);
        state.keep_alive = Duration::from_millis(50);
        let r = open(state, "/api/sessions/demo/events", None).await;
        let mut body = r.into_body();
        let frame = tokio::time::timeout(Duration::from_secs(5), body.frame())
            .await
            .expect("a frame within the interval")
            .expect("open")
            .expect("ok");
        let bytes = frame.into_data().expect("data frame");
        assert_eq!(&bytes[..], b": keep-alive\n\n");
    }

    #[tokio::test]
    async fn streams_end_on_shutdown() {
        let (state, session, tx) = setup(1, 3);
        session.publish(&event(1));
        let r = open(state, "/api/sessions/demo/events", None).await;
        let mut body = r.into_body();
        assert!(body.frame().await.is_some());
        tx.send(true).expect("receivers alive");
        let end = tokio::time::timeout(Duration::from_secs(5), body.frame())
            .await
            .expect("ends");
        assert!(end.is_none());
        assert_eq!(session.subscriber_count(), 0);
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn two_hundred_loopback_clients_get_every_event() {
        const CLIENTS: usize = 200;
        let (state, session, tx) = setup(1, 16);
        session.publish(&event(1));
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind loopback");
        let addr = listener.local_addr().expect("addr");
        let mut stop = tx.subscribe();
        let server = tokio::spawn(async move {
            axum::serve(listener, app(state))
                .with_graceful_shutdown(async move {
                    let _ = stop.wait_for(|s| *s).await;
                })
                .await
        });
        let test = async {
            let mut clients = Vec::with_capacity(CLIENTS);
            for _ in 0..CLIENTS {
                let mut s = tokio::net::TcpStream::connect(addr).await.expect("connect");
                s.write_all(b"GET /api/sessions/demo/events HTTP/1.1\r\nHost: t\r\nLast-Event-ID: 1\r\n\r\n")
                    .await
                    .expect("send request");
                clients.push(s);
            }
            let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
            while session.subscriber_count() < CLIENTS && tokio::time::Instant::now() < deadline {
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
            assert_eq!(session.subscriber_count(), CLIENTS);
            session.publish(&event(2));
            session.publish(&event(3));
            let readers: Vec<_> = clients
                .into_iter()
                .map(|mut s| {
                    tokio::spawn(async move {
                        let mut seen = Vec::new();
                        let mut buf = [0u8; 4096];
                        while !String::from_utf8_lossy(&seen).contains("\nid: 3\n") {
                            let n = s.read(&mut buf).await.expect("read");
                            assert!(n > 0, "stream closed early");
                            seen.extend_from_slice(&buf[..n]);
                        }
                        let text = String::from_utf8_lossy(&seen).into_owned();
                        assert!(text.starts_with("HTTP/1.1 200"));
                        assert!(text.contains("\nid: 2\n") && !text.contains("\nid: 1\n"));
                    })
                })
                .collect();
            for r in readers {
                r.await.expect("client saw both events");
            }
        };
        tokio::time::timeout(Duration::from_secs(30), test)
            .await
            .expect("bounded in time");
        tx.send(true).expect("stop");
        let done = tokio::time::timeout(Duration::from_secs(10), server).await;
        assert!(done.is_ok(), "graceful shutdown closes every stream");
    }
}
