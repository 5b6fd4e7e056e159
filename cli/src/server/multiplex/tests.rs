//! The multi-session stream through `oneshot`: merged delivery, tags and
//! cursors, resumes per session, every refusal, and its end.

use super::*;
use crate::server::auth::{unix_secs, Auth, ReadSecret};
use crate::server::event::Outgoing;
use crate::server::routes::app;
use crate::server::testing::{
    event, memory_state, memory_state_with, open_stream, read_tagged_events, sid,
};
use axum::body::Body;
use axum::http::{Request, StatusCode};
use http_body_util::BodyExt;
use serde_json::Value;
use std::time::Duration;
use tower::ServiceExt;

async fn publish(state: &AppState, session: &str, used: i64) -> u64 {
    state
        .store
        .publish(&sid(session), vec![Outgoing::event(event(used))])
        .await
        .expect("published")[0]
}

/// `(session, used_input_tokens, cursor)` of each tagged event.
fn decoded(events: &[(String, String)]) -> Vec<(String, i64, StreamCursor)> {
    events
        .iter()
        .map(|(id, data)| {
            assert!(data.starts_with("{\"session\":\""), "{data}");
            let json: Value = serde_json::from_str(data).expect("JSON data");
            (
                json["session"].as_str().expect("session").to_string(),
                json["context_metrics"]["used_input_tokens"]
                    .as_i64()
                    .expect("metrics"),
                StreamCursor::parse(id),
            )
        })
        .collect()
}

async fn status_of(state: &AppState, uri: &str) -> StatusCode {
    app(state.clone(), &[])
        .oneshot(
            Request::builder()
                .uri(uri)
                .body(Body::empty())
                .expect("request"),
        )
        .await
        .expect("infallible")
        .status()
}

#[tokio::test]
async fn delivers_every_sessions_events_in_order_tagged_with_a_cursor() {
    let (state, _tx) = memory_state(16);
    let a1 = publish(&state, "a", 1).await;
    let b1 = publish(&state, "chat:b", 100).await;
    let r = open_stream(&state, "/api/events?session=a&session=chat:b", None).await;
    let reader = tokio::spawn(read_tagged_events(r.into_body(), 6));
    tokio::time::sleep(Duration::from_millis(50)).await;
    let mut ids = Vec::new();
    for used in 2..=3 {
        ids.push(("a", publish(&state, "a", used).await));
        ids.push(("chat:b", publish(&state, "chat:b", used * 100).await));
    }
    let got = decoded(&reader.await.expect("reader"));
    assert_eq!(got.len(), 6, "{got:?}");
    let of = |s: &str| -> Vec<i64> {
        got.iter()
            .filter(|(session, _, _)| session == s)
            .map(|e| e.1)
            .collect()
    };
    assert_eq!(of("a"), vec![1, 2, 3]);
    assert_eq!(of("chat:b"), vec![100, 200, 300]);
    // Every cursor names each session's last delivered id so far.
    let last = got.last().expect("events").2.clone();
    assert_eq!(last.get("a"), Some(ids[2].1));
    assert_eq!(last.get("chat:b"), Some(ids[3].1));
    let first_of_a = got.iter().find(|e| e.0 == "a").expect("a");
    assert_eq!(first_of_a.2.get("a"), Some(a1));
    assert!(got.iter().any(|e| e.2.get("chat:b") == Some(b1)));
}

#[tokio::test]
async fn resumes_each_session_after_its_own_id_by_header_or_query() {
    let (state, _tx) = memory_state(16);
    let a: Vec<u64> = [
        publish(&state, "a", 1).await,
        publish(&state, "a", 2).await,
        publish(&state, "a", 3).await,
    ]
    .into();
    let b: Vec<u64> = [
        publish(&state, "b", 10).await,
        publish(&state, "b", 20).await,
    ]
    .into();
    publish(&state, "c", 7).await;
    publish(&state, "c", 8).await;
    let cursor = format!("a:{},b:{}", a[0], b[1]);
    for (uri, header) in [
        (
            "/api/events?session=a&session=b&session=c".to_string(),
            Some(cursor.clone()),
        ),
        (
            format!("/api/events?session=a&session=b&session=c&last_event_id={cursor}"),
            None,
        ),
        (
            "/api/events?session=a&session=b&session=c&last_event_id=a:1".to_string(),
            Some(cursor.clone()),
        ),
    ] {
        let r = open_stream(&state, &uri, header.as_deref()).await;
        let got = decoded(&read_tagged_events(r.into_body(), 3).await);
        let mut seen: Vec<(String, i64)> = got.iter().map(|e| (e.0.clone(), e.1)).collect();
        seen.sort();
        // a after its id, b nothing (it is up to date), c as a new stream: its latest state.
        assert_eq!(
            seen,
            vec![("a".into(), 2), ("a".into(), 3), ("c".into(), 8)],
            "{uri} {header:?}"
        );
        let last = &got.last().expect("events").2;
        assert_eq!(last.get("b"), Some(b[1]), "the resumed id is carried on");
        assert_eq!(last.get("a"), Some(a[2]));
    }
}

#[tokio::test]
async fn refuses_bad_queries_unknown_sessions_and_tokens_as_the_single_stream() {
    let (state, _tx) = memory_state(4);
    publish(&state, "a", 1).await;
    let many: String = (0..=MAX_STREAM_SESSIONS)
        .map(|i| format!("session=s{i}&"))
        .collect();
    for (uri, want) in [
        ("/api/events".to_string(), StatusCode::BAD_REQUEST),
        ("/api/events?token=x".to_string(), StatusCode::BAD_REQUEST),
        ("/api/events?session=".to_string(), StatusCode::BAD_REQUEST),
        (
            "/api/events?session=a&session=a%20b".to_string(),
            StatusCode::BAD_REQUEST,
        ),
        (
            "/api/events?session=a&session=a".to_string(),
            StatusCode::BAD_REQUEST,
        ),
        (format!("/api/events?{many}"), StatusCode::BAD_REQUEST),
        (
            "/api/events?session=a&session=nobody".to_string(),
            StatusCode::NOT_FOUND,
        ),
        (
            "/api/sessions/nobody/events".to_string(),
            StatusCode::NOT_FOUND,
        ),
    ] {
        assert_eq!(status_of(&state, &uri).await, want, "{uri}");
    }

    let auth = Auth::new(None, Some("read secret for the tests"));
    let (state, _tx) = memory_state_with(4, auth.clone());
    publish(&state, "a", 1).await;
    publish(&state, "b", 1).await;
    let secret: &ReadSecret = auth.read_secret().expect("set");
    let token = |s: &str| secret.mint(&sid(s), unix_secs() + 60);
    let expired = secret.mint(&sid("b"), unix_secs() - 1);
    let forged = ReadSecret::new("not the secret at all").mint(&sid("b"), unix_secs() + 60);
    let (ta, tb) = (token("a"), token("b"));
    for (query, want) in [
        (
            format!("session=a&session=b&token={ta}&token={tb}"),
            StatusCode::OK,
        ),
        (
            format!("token={tb}&session=a&token={ta}&session=b"),
            StatusCode::OK,
        ),
        ("session=a&session=b".to_string(), StatusCode::UNAUTHORIZED),
        (
            format!("session=a&session=b&token={ta}"),
            StatusCode::FORBIDDEN,
        ),
        (
            format!("session=a&session=b&token={ta}&token={expired}"),
            StatusCode::UNAUTHORIZED,
        ),
        (
            format!("session=a&session=b&token={ta}&token={forged}"),
            StatusCode::UNAUTHORIZED,
        ),
        (
            format!("session=a&session=b&token={ta}&token=junk"),
            StatusCode::FORBIDDEN,
        ),
        (format!("session=b&token={ta}"), StatusCode::FORBIDDEN),
        (
            format!("session=a&session=a%2Fb&token={ta}"),
            StatusCode::BAD_REQUEST,
        ),
    ] {
        let uri = format!("/api/events?{query}");
        assert_eq!(status_of(&state, &uri).await, want, "{query}");
    }
    // One session may also take its token as Authorization: Bearer.
    let response = app(state.clone(), &[])
        .oneshot(
            Request::builder()
                .uri("/api/events?session=a")
                .header("authorization", format!("Bearer {ta}"))
                .body(Body::empty())
                .expect("request"),
        )
        .await
        .expect("infallible");
    assert_eq!(response.status(), StatusCode::OK);
}

#[tokio::test]
async fn ends_when_a_session_is_forgotten_or_on_shutdown_and_counts_as_one_stream() {
    let (state, tx) = memory_state(4);
    publish(&state, "a", 1).await;
    publish(&state, "b", 1).await;
    let r = open_stream(&state, "/api/events?session=a&session=b", None).await;
    assert_eq!(state.metrics.open_streams(), 1);
    let mut body = r.into_body();
    assert!(body.frame().await.is_some());
    assert!(state.store.forget(&sid("b")).await.expect("ok"));
    let end = async {
        while let Some(frame) = body.frame().await {
            frame.expect("ok");
        }
    };
    tokio::time::timeout(Duration::from_secs(5), end)
        .await
        .expect("the stream ends with its forgotten session");
    drop(body);
    assert_eq!(state.metrics.open_streams(), 0);

    let r = open_stream(&state, "/api/events?session=a&session=demo", None).await;
    let mut body = r.into_body();
    assert!(body.frame().await.is_some());
    tx.send(true).expect("receivers alive");
    let end = async {
        while let Some(frame) = body.frame().await {
            frame.expect("ok");
        }
    };
    tokio::time::timeout(Duration::from_secs(5), end)
        .await
        .expect("the stream ends on shutdown");
}

#[test]
fn reads_repeated_sessions_and_tokens() {
    let q = MultiQuery::parse(Some(
        "session=a&token=t%3A1&session=b&x=1&token=u&last_event_id=a%3A1",
    ));
    assert_eq!(q.sessions, vec!["a", "b"]);
    assert_eq!(q.tokens, vec!["t:1", "u"]);
    assert_eq!(q.last_event_id.as_deref(), Some("a:1"));
    assert_eq!(MultiQuery::parse(None), MultiQuery::default());
}
