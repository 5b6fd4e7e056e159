//! Several sessions on one stream (`GET /api/events`),
//! over the memory store and over real `redis-server`s, with read tokens.

use crate::support::*;
use ctxguard_core::protocol::StreamCursor;
use serde_json::{json, Value};
use std::process::Command;
use std::time::Duration;

const WITHIN: Duration = Duration::from_secs(10);

fn read_env() -> [(&'static str, &'static str); 2] {
    [
        ("CTXGUARD_PUBLISH_TOKEN", PUBLISH_TOKEN),
        ("CTXGUARD_READ_SECRET", READ_SECRET),
    ]
}

/// A read token for `session`, minted by `ctxguard token`.
fn mint(session: &str) -> String {
    ctxguard_token(session, 600).trim().to_string()
}

/// `api/events?session=…&token=…` for `sessions`, each with its own token.
fn multi_path(sessions: &[&str]) -> String {
    let query: Vec<String> = sessions
        .iter()
        .map(|s| format!("session={s}&token={}", mint(s)))
        .collect();
    format!("api/events?{}", query.join("&"))
}

/// `(session, used_input_tokens)` of a tagged event.
fn named(data: &Value) -> (String, i64) {
    (
        data["session"].as_str().expect("a session").to_string(),
        data["context_metrics"]["used_input_tokens"]
            .as_i64()
            .expect("metrics"),
    )
}

/// Reads `n` tagged events: `(cursor, session, used)` each.
async fn read_n(sse: &mut Sse, n: usize) -> Vec<(StreamCursor, String, i64)> {
    let mut out = Vec::with_capacity(n);
    for i in 0..n {
        let (id, data) = sse
            .next_tagged_event(WITHIN)
            .await
            .unwrap_or_else(|| panic!("event {i} of {n} arrives (got {out:?})"));
        let (session, used) = named(&data);
        out.push((StreamCursor::parse(&id), session, used));
    }
    out
}

/// One store's run: `publisher` publishes, `reader` serves the stream (the same server,
/// or another instance on the same Redis).
async fn one_stream_carries_many_sessions(publisher: &Server, reader: &Server) {
    let c = client();
    let sessions = ["chat:1", "chat:2", "team.a_b-c"];
    let mut ids: Vec<Vec<u64>> = Vec::new();
    for (i, s) in sessions.iter().enumerate() {
        ids.push(publish_ok(&c, &publisher.url, s, &event(1000 * (i as i64 + 1))).await);
    }
    let path = multi_path(&sessions);
    let mut sse = Sse::open(&c, &format!("{}{path}", reader.url), None).await;
    // Without Last-Event-ID each session starts from its latest state, as the single stream does.
    let first = read_n(&mut sse, 3).await;
    let mut starts: Vec<(String, i64)> = first.iter().map(|e| (e.1.clone(), e.2)).collect();
    starts.sort();
    assert_eq!(
        starts,
        vec![
            ("chat:1".into(), 1000),
            ("chat:2".into(), 2000),
            ("team.a_b-c".into(), 3000)
        ]
    );
    // Live: interleaved publishes arrive in each session's order, each naming its session.
    for round in 1..=3 {
        for (i, s) in sessions.iter().enumerate() {
            let used = 1000 * (i as i64 + 1) + round;
            ids[i].extend(publish_ok(&c, &publisher.url, s, &event(used)).await);
        }
    }
    let live = read_n(&mut sse, 9).await;
    for (i, s) in sessions.iter().enumerate() {
        let of: Vec<i64> = live.iter().filter(|e| e.1 == *s).map(|e| e.2).collect();
        let base = 1000 * (i as i64 + 1);
        assert_eq!(of, vec![base + 1, base + 2, base + 3], "{s}: {live:?}");
    }
    // The cursor names every session's last delivered id.
    let cursor = &live.last().expect("events").0;
    for (i, s) in sessions.iter().enumerate() {
        assert_eq!(cursor.get(s), ids[i].last().copied(), "{cursor}");
    }
    // Resume per session: chat:1 after its first live event, chat:2 up to date, and the
    // third not named (it gets its latest state, as a new single stream does).
    let resume = format!("chat:1:{},chat:2:{}", ids[0][1], ids[1][3]);
    let mut resumed = Sse::open(
        &c,
        &format!("{}{path}&last_event_id={resume}", reader.url),
        None,
    )
    .await;
    let got = read_n(&mut resumed, 3).await;
    let mut seen: Vec<(String, i64)> = got.iter().map(|e| (e.1.clone(), e.2)).collect();
    seen.sort();
    assert_eq!(
        seen,
        vec![
            ("chat:1".into(), 1002),
            ("chat:1".into(), 1003),
            ("team.a_b-c".into(), 3003)
        ]
    );
    assert_eq!(got.last().expect("events").0.get("chat:2"), Some(ids[1][3]));
    assert!(
        resumed
            .next_tagged_event(Duration::from_millis(300))
            .await
            .is_none(),
        "nothing more"
    );
    // Forgetting one session ends the stream (its clients resync; the others reconnect).
    let gone = c
        .delete(format!("{}api/sessions/chat:2", publisher.url))
        .bearer_auth(PUBLISH_TOKEN)
        .send()
        .await
        .expect("answers");
    assert_eq!(gone.status().as_u16(), 204);
    assert!(resumed.ends_within(WITHIN).await);
    assert!(sse.ends_within(WITHIN).await);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_stream_carries_many_sessions_in_memory() {
    let server = Server::start_with(&[], &read_env(), None);
    one_stream_carries_many_sessions(&server, &server).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_stream_carries_many_sessions_over_redis() {
    let redis = Redis::start();
    let url = redis.url();
    let a = Server::start_with(&["--store", &url], &read_env(), None);
    let b = Server::start_with(&["--store", &url], &read_env(), None);
    let c = client();
    for server in [&a, &b] {
        let deadline = std::time::Instant::now() + WITHIN;
        while get_json(&c, &server.url, "healthz").await.0 != 200 {
            assert!(std::time::Instant::now() < deadline, "healthy");
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }
    one_stream_carries_many_sessions(&a, &b).await;
}

async fn refusals(server: &Server) {
    let c = client();
    publish_ok(&c, &server.url, "a", &event(1)).await;
    publish_ok(&c, &server.url, "b:1", &event(2)).await;
    let (ta, tb) = (mint("a"), mint("b:1"));
    let many: String = (0..=100).map(|i| format!("session=s{i}&")).collect();
    let other_secret = Command::new(bin())
        .args(["token", "--session", "b:1"])
        .env("CTXGUARD_READ_SECRET", "another secret, not the relay's")
        .output()
        .expect("runs");
    let forged = String::from_utf8(other_secret.stdout).expect("utf-8");
    let cases: Vec<(String, u16)> = vec![
        (format!("session=a&session=b:1&token={ta}&token={tb}"), 200),
        (format!("token={tb}&token={ta}&session=a&session=b:1"), 200),
        ("session=a&session=b:1".into(), 401),
        (format!("session=a&session=b:1&token={ta}"), 403),
        (format!("session=b:1&token={ta}"), 403),
        (
            format!("session=a&session=b:1&token={ta}&token={}", forged.trim()),
            401,
        ),
        (
            format!("session=a&session=b:1&token={ta}&token=v1.1.b:1.AAAA"),
            401,
        ),
        (String::new(), 400),
        (format!("token={ta}"), 400),
        (format!("session=a&session=a&token={ta}"), 400),
        (format!("session=a&session=a%20b&token={ta}"), 400),
        ("session=a&session=%FF".into(), 400),
        (format!("{many}token={ta}"), 400),
        (
            format!(
                "session=a&session=nobody&token={ta}&token={}",
                mint("nobody")
            ),
            404,
        ),
    ];
    for (query, want) in cases {
        let response = c
            .get(format!("{}api/events?{query}", server.url))
            .send()
            .await
            .expect("answers");
        let status = response.status().as_u16();
        let is_json = response
            .headers()
            .get("content-type")
            .and_then(|v| v.to_str().ok())
            .is_some_and(|t| {
                t.starts_with(if want == 200 {
                    "text/event-stream"
                } else {
                    "application/json"
                })
            });
        assert_eq!((status, is_json), (want, true), "{query}");
    }
    // The single stream answers an unknown session the same way.
    let (status, body) = get_json(
        &c,
        &server.url,
        &format!("api/sessions/nobody/events?token={}", mint("nobody")),
    )
    .await;
    assert_eq!(
        (status, body["error"].clone()),
        (404, json!("unknown session \"nobody\""))
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_session_needs_its_own_token_and_bad_queries_are_400() {
    let server = Server::start_with(&[], &read_env(), None);
    refusals(&server).await;
    let redis = Redis::start();
    let server = Server::start_with(&["--store", &redis.url()], &read_env(), None);
    let c = client();
    let deadline = std::time::Instant::now() + WITHIN;
    while get_json(&c, &server.url, "healthz").await.0 != 200 {
        assert!(std::time::Instant::now() < deadline, "healthy");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    refusals(&server).await;
}
