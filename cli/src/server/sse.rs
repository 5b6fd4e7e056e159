//! `GET /api/sessions/{id}/events`: the status stream as `text/event-stream`,
//! resumed after `Last-Event-ID` (header) or `?last_event_id=` (query), with
//! a keep-alive comment; it ends when the session is forgotten or the server
//! shuts down.
//!
//! Backlog first, then live events; ids only go up (a repeat is skipped). A
//! stream that lags behind its hub is resynchronised with the latest
//! compaction event and the latest event, so it never misses the end of a
//! compaction (resending only the latest event once left a toolbar showing a
//! compaction that had ended).

use super::error::AppError;
use super::event::StoredEvent;
use super::hub::{Delivery, HubReceiver};
use super::metrics::Metrics;
use super::reads::{authorize, ReadQuery};
use super::session_id::SessionId;
use super::state::AppState;
use super::store::Subscription;
use axum::extract::{RawQuery, State};
use axum::http::HeaderMap;
use axum::response::sse::{Event, KeepAlive, KeepAliveStream, Sse};
use ctxguard_core::protocol::EVENT_NAME;
use futures_util::stream::{self, Stream, StreamExt};
use std::collections::VecDeque;
use std::convert::Infallible;
use std::sync::Arc;
use tokio::sync::watch;

/// The id to resume after, as sent: the header wins over the query.
pub fn resume_text(headers: &HeaderMap, query_last_event_id: Option<&str>) -> Option<String> {
    headers
        .get("last-event-id")
        .and_then(|v| v.to_str().ok())
        .or(query_last_event_id)
        .map(str::to_string)
}

/// The id to resume after: [`resume_text`] as a number; unparsable values count as none.
fn resume_id(headers: &HeaderMap, query: &ReadQuery) -> Option<u64> {
    resume_text(headers, query.last_event_id.as_deref()).and_then(|v| v.trim().parse().ok())
}

/// The SSE handler.
pub async fn events(
    State(state): State<AppState>,
    id: SessionId,
    headers: HeaderMap,
    RawQuery(raw): RawQuery,
) -> Result<Sse<impl Stream<Item = Result<Event, Infallible>>>, AppError> {
    let query = ReadQuery::parse(raw.as_deref());
    authorize(&state, &id, &headers, &query)?;
    let subscription = state
        .store
        .subscribe(&id, resume_id(&headers, &query))
        .await?
        .ok_or_else(|| AppError::unknown_session(&id))?;
    let open = state.metrics.stream_opened();
    let frames = session_events(subscription, state.metrics.clone(), state.shutdown.clone()).map(
        move |event| {
            let _counted_while_open = &open;
            Ok(frame(&event.id.to_string(), &event.data))
        },
    );
    Ok(with_keep_alive(&state, frames))
}

/// `frames` as an SSE response with the relay's keep-alive comment.
pub fn with_keep_alive<S>(state: &AppState, frames: S) -> Sse<KeepAliveStream<S>>
where
    S: Stream<Item = Result<Event, Infallible>> + Send + 'static,
{
    Sse::new(frames).keep_alive(
        KeepAlive::new()
            .interval(state.keep_alive)
            .text("keep-alive"),
    )
}

/// One `response.status.updated` frame.
pub fn frame(id: &str, data: &str) -> Event {
    let frame = Event::default().event(EVENT_NAME).id(id);
    if data.contains('\r') {
        // SSE data cannot carry a bare CR (stores never hold one; never panic on it either).
        frame.data(data.replace('\r', ""))
    } else {
        frame.data(data)
    }
}

struct Cursor {
    pending: VecDeque<Arc<StoredEvent>>,
    live: HubReceiver,
    /// Id of the last event this stream yielded.
    last_sent: Option<u64>,
    shutdown: watch::Receiver<bool>,
    metrics: Arc<Metrics>,
}

/// The events of `subscription`: its backlog, then live events in id order
/// (resynchronised when it lags), until the session is forgotten or
/// `shutdown` turns true. Each counts as sent; the caller frames them.
pub fn session_events(
    subscription: Subscription,
    metrics: Arc<Metrics>,
    shutdown: watch::Receiver<bool>,
) -> impl Stream<Item = Arc<StoredEvent>> + Send {
    let cursor = Cursor {
        pending: subscription.backlog.into(),
        live: subscription.live,
        last_sent: None,
        shutdown,
        metrics,
    };
    stream::unfold(cursor, |mut c| async move {
        loop {
            if *c.shutdown.borrow() {
                return None;
            }
            let next = match c.pending.pop_front() {
                Some(e) => e,
                None => tokio::select! {
                    delivery = c.live.recv() => match delivery {
                        Delivery::Event(e) => e,
                        Delivery::Lagged => {
                            c.metrics.resynced();
                            c.pending.extend(c.live.hub().resync(c.last_sent));
                            continue;
                        }
                        Delivery::Closed => return None,
                    },
                    _ = c.shutdown.changed() => return None,
                },
            };
            if c.last_sent.is_some_and(|last| next.id <= last) {
                continue;
            }
            c.last_sent = Some(next.id);
            c.metrics.sent();
            return Some((next, c));
        }
    })
    .boxed()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::server::event::Outgoing;
    use crate::server::hub::CHANNEL_EVENTS;
    use crate::server::routes::app;
    use crate::server::testing::{
        compaction_event, event, memory_state, open_stream, read_events, sid, EventFrame,
    };
    use ctxguard_core::protocol::CompactionStatus;
    use http_body_util::BodyExt;
    use std::time::Duration;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    fn ids(events: &[EventFrame]) -> Vec<u64> {
        events.iter().map(|e| e.id).collect()
    }

    async fn publish(state: &AppState, used: i64) -> u64 {
        state
            .store
            .publish(&sid("demo"), vec![Outgoing::event(event(used))])
            .await
            .expect("published")[0]
    }

    #[tokio::test]
    async fn resumes_after_last_event_id_header_or_query() {
        let (state, _tx) = memory_state(8);
        let mut all = Vec::new();
        for used in 1..=5 {
            all.push(publish(&state, used).await);
        }
        let r = open_stream(
            &state,
            "/api/sessions/demo/events",
            Some(&all[2].to_string()),
        )
        .await;
        all.push(publish(&state, 6).await);
        let got = read_events(r.into_body(), 3).await;
        assert_eq!(ids(&got), all[3..].to_vec());
        assert!(got[0].data.contains("\"used_input_tokens\":4"));

        let uri = format!("/api/sessions/demo/events?last_event_id={}", all[4]);
        let r = open_stream(&state, &uri, None).await;
        assert_eq!(ids(&read_events(r.into_body(), 1).await), vec![all[5]]);
        // The header wins over the query.
        let uri = format!("/api/sessions/demo/events?last_event_id={}", all[0]);
        let r = open_stream(&state, &uri, Some(&all[4].to_string())).await;
        assert_eq!(ids(&read_events(r.into_body(), 1).await), vec![all[5]]);
    }

    #[tokio::test]
    async fn live_events_follow_the_resume() {
        let (state, _tx) = memory_state(8);
        let first = publish(&state, 1).await;
        let r = open_stream(
            &state,
            "/api/sessions/demo/events",
            Some(&first.to_string()),
        )
        .await;
        let reader = tokio::spawn(read_events(r.into_body(), 2));
        let second = publish(&state, 2).await;
        let third = publish(&state, 3).await;
        assert_eq!(ids(&reader.await.expect("reader")), vec![second, third]);
    }

    #[tokio::test]
    async fn an_id_older_than_the_buffer_or_never_issued_gets_the_latest_state_first() {
        let (state, _tx) = memory_state(3);
        let mut all = Vec::new();
        for used in 1..=10 {
            all.push(publish(&state, used).await);
        }
        for (uri, header) in [
            (
                "/api/sessions/demo/events".to_string(),
                Some(all[1].to_string()),
            ),
            ("/api/sessions/demo/events".to_string(), None),
            (
                "/api/sessions/demo/events".to_string(),
                Some("not-a-number".to_string()),
            ),
            (
                format!("/api/sessions/demo/events?last_event_id={}", u64::MAX),
                None,
            ),
            (
                format!("/api/sessions/demo/events?last_event_id={}", all[9] + 1),
                None,
            ),
        ] {
            let r = open_stream(&state, &uri, header.as_deref()).await;
            let got = read_events(r.into_body(), 1).await;
            assert_eq!(ids(&got), vec![all[9]], "{uri} {header:?}");
            assert!(got[0].data.contains("\"used_input_tokens\":10"));
        }
    }

    #[tokio::test]
    async fn idle_streams_get_keep_alive_comments() {
        let (mut state, _tx) = memory_state(3);
        state.keep_alive = Duration::from_millis(50);
        let r = open_stream(&state, "/api/sessions/demo/events", None).await;
        let mut body = r.into_body();
        let frame = tokio::time::timeout(Duration::from_secs(5), body.frame())
            .await
            .expect("a frame within the interval")
            .expect("open")
            .expect("ok");
        assert_eq!(
            &frame.into_data().expect("data frame")[..],
            b": keep-alive\n\n"
        );
    }

    #[tokio::test]
    async fn streams_end_on_shutdown_and_when_the_session_is_forgotten() {
        let (state, tx) = memory_state(3);
        publish(&state, 1).await;
        let r = open_stream(&state, "/api/sessions/demo/events", None).await;
        let mut body = r.into_body();
        assert!(body.frame().await.is_some());
        assert_eq!(state.metrics.open_streams(), 1);
        tx.send(true).expect("receivers alive");
        let end = tokio::time::timeout(Duration::from_secs(5), body.frame())
            .await
            .expect("ends");
        assert!(end.is_none());
        drop(body);
        assert_eq!(state.metrics.open_streams(), 0);

        let (state, _tx) = memory_state(3);
        publish(&state, 1).await;
        let r = open_stream(&state, "/api/sessions/demo/events", None).await;
        let mut body = r.into_body();
        assert!(body.frame().await.is_some());
        assert!(state.store.forget(&sid("demo")).await.expect("ok"));
        let end = tokio::time::timeout(Duration::from_secs(5), body.frame())
            .await
            .expect("ends");
        assert!(end.is_none());
    }

    /// `started`, then 300 events with `completed` at the
    /// 100th, to a stream that reads nothing meanwhile. The resync must carry
    /// `completed`; before the fix it sent only the latest event.
    #[tokio::test]
    async fn a_lagging_stream_gets_the_end_of_the_compaction() {
        let (state, _tx) = memory_state(512);
        let started = state
            .store
            .publish(
                &sid("demo"),
                vec![Outgoing::event(compaction_event(CompactionStatus::Started))],
            )
            .await
            .expect("ok")[0];
        let r = open_stream(
            &state,
            "/api/sessions/demo/events",
            Some(&started.to_string()),
        )
        .await;
        let body = r.into_body();
        for i in 1..=300 {
            let e = if i == 100 {
                compaction_event(CompactionStatus::Completed)
            } else {
                event(i)
            };
            state
                .store
                .publish(&sid("demo"), vec![Outgoing::event(e)])
                .await
                .expect("ok");
        }
        const { assert!(300 > CHANNEL_EVENTS, "the stream lags behind the channel") };
        let got = read_events(body, 2).await;
        let completed: Vec<&EventFrame> = got
            .iter()
            .filter(|e| e.data.contains("\"status\":\"completed\""))
            .collect();
        assert_eq!(completed.len(), 1, "{got:?}");
        assert!(got
            .last()
            .expect("latest")
            .data
            .contains("\"used_input_tokens\":300"));
        assert!(got.windows(2).all(|w| w[1].id > w[0].id));
        let text = state
            .metrics
            .render(crate::server::metrics::StoreReading { sessions: Some(1) });
        assert!(text.contains("ctxguard_resyncs_total 1\n"), "{text}");
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn two_hundred_loopback_clients_get_every_event() {
        const CLIENTS: usize = 200;
        let (state, tx) = memory_state(16);
        let first = publish(&state, 1).await;
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind loopback");
        let addr = listener.local_addr().expect("addr");
        let mut stop = tx.subscribe();
        let metrics = state.metrics.clone();
        let router = app(state.clone(), &[]);
        let server = tokio::spawn(async move {
            axum::serve(listener, router)
                .with_graceful_shutdown(async move {
                    let _ = stop.wait_for(|s| *s).await;
                })
                .await
        });
        let test = async {
            let mut clients = Vec::with_capacity(CLIENTS);
            let request = format!(
                "GET /api/sessions/demo/events HTTP/1.1\r\nHost: t\r\nLast-Event-ID: {first}\r\n\r\n"
            );
            for _ in 0..CLIENTS {
                let mut s = tokio::net::TcpStream::connect(addr).await.expect("connect");
                s.write_all(request.as_bytes()).await.expect("send request");
                clients.push(s);
            }
            while metrics.open_streams() < CLIENTS as i64 {
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
            let second = publish(&state, 2).await;
            let third = publish(&state, 3).await;
            let readers: Vec<_> = clients
                .into_iter()
                .map(|mut s| {
                    tokio::spawn(async move {
                        let mut seen = Vec::new();
                        let mut buf = [0u8; 4096];
                        let want = format!("\nid: {third}\n");
                        while !String::from_utf8_lossy(&seen).contains(&want) {
                            let n = s.read(&mut buf).await.expect("read");
                            assert!(n > 0, "stream closed early");
                            seen.extend_from_slice(&buf[..n]);
                        }
                        let text = String::from_utf8_lossy(&seen).into_owned();
                        assert!(text.starts_with("HTTP/1.1 200"));
                        assert!(
                            text.contains(&format!("\nid: {second}\n"))
                                && !text.contains(&format!("\nid: {first}\n"))
                        );
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
