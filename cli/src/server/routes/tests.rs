//! The HTTP surface through `oneshot`: every status of the interface, JSON
//! error bodies, tokens, CORS and the operational endpoints.

use super::*;
use crate::server::auth::Auth;
use crate::server::auth::{unix_secs, ReadSecret};
use crate::server::testing::{event, memory_state, memory_state_with, sid};
use axum::http::Request;
use http_body_util::BodyExt;
use serde_json::{json, Value};

const PUBLISH: &str = "publish-token-for-tests";
const SECRET: &str = "read secret for the tests";

/// Answers `request`: (status, content type, body).
async fn send(
    state: &AppState,
    origins: &[HeaderValue],
    request: Request<Body>,
) -> (StatusCode, String, String, axum::http::HeaderMap) {
    let response = app(state.clone(), origins)
        .oneshot(request)
        .await
        .expect("infallible");
    let status = response.status();
    let headers = response.headers().clone();
    let ct = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
        .to_string();
    let bytes = response
        .into_body()
        .collect()
        .await
        .expect("body")
        .to_bytes();
    (
        status,
        ct,
        String::from_utf8_lossy(&bytes).into_owned(),
        headers,
    )
}

fn get(uri: &str) -> Request<Body> {
    Request::builder()
        .uri(uri)
        .body(Body::empty())
        .expect("request")
}

fn with_bearer(method: Method, uri: &str, token: Option<&str>, body: String) -> Request<Body> {
    let mut r = Request::builder().method(method).uri(uri);
    if let Some(t) = token {
        r = r.header(header::AUTHORIZATION, format!("Bearer {t}"));
    }
    r.body(Body::from(body)).expect("request")
}

fn publish_body(used: &[i64]) -> String {
    Value::Array(
        used.iter()
            .map(|u| serde_json::to_value(event(*u)).expect("json"))
            .collect(),
    )
    .to_string()
}

fn error_of(body: &str) -> String {
    let v: Value = serde_json::from_str(body).unwrap_or_else(|e| panic!("not JSON ({e}): {body}"));
    v["error"].as_str().expect("an error field").to_string()
}

#[tokio::test]
async fn every_error_is_json_with_its_status() {
    let (state, _tx) = memory_state(8);
    let long = "x".repeat(129);
    let cases: Vec<(Method, String, StatusCode)> = vec![
        (
            Method::GET,
            "/api/sessions/bad%20id/context".into(),
            StatusCode::BAD_REQUEST,
        ),
        (
            Method::GET,
            "/api/sessions/%FF%FE/context".into(),
            StatusCode::BAD_REQUEST,
        ),
        (
            Method::GET,
            format!("/api/sessions/{long}/events"),
            StatusCode::BAD_REQUEST,
        ),
        (
            Method::POST,
            "/api/sessions/a!b/events".into(),
            StatusCode::BAD_REQUEST,
        ),
        (
            Method::DELETE,
            "/api/sessions/a%2Fb".into(),
            StatusCode::BAD_REQUEST,
        ),
        (
            Method::GET,
            "/api/sessions/nope/context".into(),
            StatusCode::NOT_FOUND,
        ),
        (
            Method::GET,
            "/api/sessions/nope/events".into(),
            StatusCode::NOT_FOUND,
        ),
        (Method::GET, "/api/nope".into(), StatusCode::NOT_FOUND),
        (
            Method::GET,
            "/api/sessions/demo/context/extra".into(),
            StatusCode::NOT_FOUND,
        ),
        (Method::GET, "/missing.js".into(), StatusCode::NOT_FOUND),
        (Method::PUT, "/".into(), StatusCode::METHOD_NOT_ALLOWED),
        (
            Method::POST,
            "/api/sessions/demo/context".into(),
            StatusCode::METHOD_NOT_ALLOWED,
        ),
        (
            Method::POST,
            "/api/sessions/demo/events".into(),
            StatusCode::FORBIDDEN,
        ),
        (
            Method::DELETE,
            "/api/sessions/demo".into(),
            StatusCode::FORBIDDEN,
        ),
    ];
    for (method, uri, want) in cases {
        let request = Request::builder()
            .method(method.clone())
            .uri(&uri)
            .body(Body::empty())
            .expect("request");
        let (status, ct, body, _) = send(&state, &[], request).await;
        assert_eq!(status, want, "{method} {uri}: {body}");
        assert!(ct.starts_with("application/json"), "{method} {uri}: {ct}");
        assert!(!error_of(&body).is_empty());
    }
    let (status, _, body, _) = send(&state, &[], get("/api/sessions")).await;
    assert_eq!(
        (status, body.as_str()),
        (StatusCode::OK, r#"{"sessions":["demo"]}"#)
    );
}

#[tokio::test]
async fn publishing_checks_the_token_the_body_and_every_event() {
    let (mut state, _tx) = memory_state_with(8, Auth::new(Some(PUBLISH), None));
    state.max_body_bytes = 4096;
    let uri = "/api/sessions/chat:7/events";
    let post = |token: Option<&str>, body: String| with_bearer(Method::POST, uri, token, body);

    let (status, _, body, headers) = send(&state, &[], post(None, publish_body(&[1]))).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED, "{body}");
    assert!(headers.contains_key(header::WWW_AUTHENTICATE));
    let (status, _, _, _) = send(&state, &[], post(Some("wrong"), publish_body(&[1]))).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);

    // One bad event: nothing of the request is stored.
    let mut bad = serde_json::to_value(event(2)).expect("json");
    bad["context_metrics"]["remaining_percent"] = json!(-3);
    let body = json!([serde_json::to_value(event(1)).expect("json"), bad]).to_string();
    let (status, ct, body, _) = send(&state, &[], post(Some(PUBLISH), body)).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert!(ct.starts_with("application/json"));
    let v: Value = serde_json::from_str(&body).expect("json");
    assert_eq!(
        (v["index"].clone(), v["field"].clone()),
        (json!(1), json!("context_metrics.remaining_percent"))
    );
    let (status, _, _, _) = send(&state, &[], get("/api/sessions/chat:7/context")).await;
    assert_eq!(status, StatusCode::NOT_FOUND, "nothing stored");

    let (status, _, body, _) = send(&state, &[], post(Some(PUBLISH), "{not json".into())).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert!(error_of(&body).starts_with("invalid JSON"));
    let (status, _, body, _) = send(&state, &[], post(Some(PUBLISH), "x".repeat(5000))).await;
    assert_eq!(status, StatusCode::PAYLOAD_TOO_LARGE, "{body}");

    let (status, ct, body, _) = send(
        &state,
        &[],
        post(Some(PUBLISH), publish_body(&[10, 20, 30])),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert!(ct.starts_with("application/json"));
    let ids: Vec<u64> = serde_json::from_str::<Value>(&body).expect("json")["event_ids"]
        .as_array()
        .expect("ids")
        .iter()
        .map(|v| v.as_u64().expect("u64"))
        .collect();
    assert_eq!(ids.len(), 3);
    assert!(ids.windows(2).all(|w| w[1] > w[0]));
    let (status, _, body, _) = send(&state, &[], get("/api/sessions/chat:7/context")).await;
    assert_eq!(status, StatusCode::OK);
    let ctx: Value = serde_json::from_str(&body).expect("json");
    assert_eq!(ctx["event_id"], json!(ids[2]));
    assert_eq!(ctx["context_metrics"]["used_input_tokens"], json!(30));
    assert_eq!(
        ctx["shared_stream"],
        json!(true),
        "the relay announces /api/events"
    );

    let (status, _, body, _) = send(
        &state,
        &[],
        with_bearer(
            Method::DELETE,
            "/api/sessions/chat:7",
            Some(PUBLISH),
            String::new(),
        ),
    )
    .await;
    assert_eq!(status, StatusCode::NO_CONTENT, "{body}");
    let (status, _, _, _) = send(&state, &[], get("/api/sessions/chat:7/context")).await;
    assert_eq!(status, StatusCode::NOT_FOUND);

    let (_, _, text, _) = send(&state, &[], get("/metrics")).await;
    for line in [
        "ctxguard_publish_errors_total{status=\"400\"} 2",
        "ctxguard_publish_errors_total{status=\"401\"} 2",
        "ctxguard_publish_errors_total{status=\"413\"} 1",
        "ctxguard_events_published_total 3",
    ] {
        assert!(text.lines().any(|l| l == line), "{line} in\n{text}");
    }
}

#[tokio::test]
async fn a_body_that_does_not_arrive_gets_408() {
    let (mut state, _tx) = memory_state_with(8, Auth::new(Some(PUBLISH), None));
    state.body_timeout = std::time::Duration::from_millis(100);
    let never = futures_util::stream::pending::<Result<axum::body::Bytes, std::io::Error>>();
    let request = Request::builder()
        .method(Method::POST)
        .uri("/api/sessions/s/events")
        .header(header::AUTHORIZATION, format!("Bearer {PUBLISH}"))
        .body(Body::from_stream(never))
        .expect("request");
    let (status, ct, body, _) = send(&state, &[], request).await;
    assert_eq!(status, StatusCode::REQUEST_TIMEOUT, "{body}");
    assert!(ct.starts_with("application/json") && !error_of(&body).is_empty());
}

#[tokio::test]
async fn reads_take_a_token_for_their_session_once_a_secret_is_set() {
    let (state, _tx) = memory_state_with(8, Auth::new(Some(PUBLISH), Some(SECRET)));
    let secret = ReadSecret::new(SECRET);
    let demo = secret.mint(&sid("demo"), unix_secs() + 60);
    let other = secret.mint(&sid("other"), unix_secs() + 60);
    let expired = secret.mint(&sid("demo"), unix_secs() - 1);
    let forged = ReadSecret::new("not the secret at all").mint(&sid("demo"), unix_secs() + 60);
    for (uri, bearer, want) in [
        (
            "/api/sessions/demo/context".to_string(),
            None,
            StatusCode::UNAUTHORIZED,
        ),
        (
            format!("/api/sessions/demo/context?token={demo}"),
            None,
            StatusCode::OK,
        ),
        (
            "/api/sessions/demo/context".to_string(),
            Some(demo.as_str()),
            StatusCode::OK,
        ),
        (
            format!("/api/sessions/demo/context?token={other}"),
            None,
            StatusCode::FORBIDDEN,
        ),
        (
            format!("/api/sessions/demo/events?token={other}"),
            None,
            StatusCode::FORBIDDEN,
        ),
        (
            format!("/api/sessions/demo/context?token={expired}"),
            None,
            StatusCode::UNAUTHORIZED,
        ),
        (
            format!("/api/sessions/demo/context?token={forged}"),
            None,
            StatusCode::UNAUTHORIZED,
        ),
        (
            "/api/sessions/demo/events?token=v1.garbage".to_string(),
            None,
            StatusCode::UNAUTHORIZED,
        ),
        (
            format!("/api/sessions/bad%20id/context?token={demo}"),
            None,
            StatusCode::BAD_REQUEST,
        ),
        (
            "/api/sessions".to_string(),
            Some(demo.as_str()),
            StatusCode::UNAUTHORIZED,
        ),
        ("/api/sessions".to_string(), Some(PUBLISH), StatusCode::OK),
    ] {
        let (status, ct, body, _) = send(
            &state,
            &[],
            with_bearer(Method::GET, &uri, bearer, String::new()),
        )
        .await;
        assert_eq!(status, want, "{uri} {bearer:?}: {body}");
        assert!(ct.starts_with("application/json"), "{uri}: {ct}");
    }
    // A token opens the stream too (checked through the stream's first bytes).
    let uri = format!("/api/sessions/demo/events?token={demo}");
    let response = app(state.clone(), &[])
        .oneshot(get(&uri))
        .await
        .expect("infallible");
    assert_eq!(response.status(), StatusCode::OK);
}

#[tokio::test]
async fn cors_answers_only_the_configured_origins() {
    let (state, _tx) = memory_state(8);
    let with_origin = |origin: &str| {
        Request::builder()
            .uri("/api/sessions/demo/context")
            .header(header::ORIGIN, origin)
            .body(Body::empty())
            .expect("request")
    };
    let (_, _, _, headers) = send(&state, &[], with_origin("https://evil.example")).await;
    assert!(
        !headers.contains_key(header::ACCESS_CONTROL_ALLOW_ORIGIN),
        "none by default"
    );
    let allowed = [HeaderValue::from_static("https://chat.example")];
    let (status, _, _, headers) = send(&state, &allowed, with_origin("https://chat.example")).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(
        headers
            .get(header::ACCESS_CONTROL_ALLOW_ORIGIN)
            .map(|v| v.as_bytes()),
        Some(&b"https://chat.example"[..])
    );
    let (_, _, _, headers) = send(&state, &allowed, with_origin("https://evil.example")).await;
    assert!(!headers.contains_key(header::ACCESS_CONTROL_ALLOW_ORIGIN));
    let preflight = Request::builder()
        .method(Method::OPTIONS)
        .uri("/api/sessions/demo/events")
        .header(header::ORIGIN, "https://chat.example")
        .header(header::ACCESS_CONTROL_REQUEST_METHOD, "GET")
        .header(header::ACCESS_CONTROL_REQUEST_HEADERS, "last-event-id")
        .body(Body::empty())
        .expect("request");
    let (status, _, _, headers) = send(&state, &allowed, preflight).await;
    assert!(status.is_success(), "{status}");
    assert_eq!(
        headers
            .get(header::ACCESS_CONTROL_ALLOW_ORIGIN)
            .map(|v| v.as_bytes()),
        Some(&b"https://chat.example"[..])
    );
    let methods = headers
        .get(header::ACCESS_CONTROL_ALLOW_METHODS)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("");
    assert!(
        methods.contains("GET") && !methods.contains("POST"),
        "{methods}"
    );
}

#[tokio::test]
async fn health_and_metrics() {
    let (state, _tx) = memory_state(8);
    let (status, ct, body, _) = send(&state, &[], get("/healthz")).await;
    assert_eq!(
        (status, body.as_str()),
        (StatusCode::OK, r#"{"status":"ok","store":"memory"}"#)
    );
    assert!(ct.starts_with("application/json"));
    let (status, ct, text, _) = send(&state, &[], get("/metrics")).await;
    assert_eq!(status, StatusCode::OK);
    assert!(ct.starts_with("text/plain; version=0.0.4"));
    assert!(
        text.contains("\nctxguard_sessions 1\n")
            && text.contains("# TYPE ctxguard_open_streams gauge"),
        "{text}"
    );
}

#[tokio::test]
async fn serves_the_build_or_says_how_to_make_it() {
    let (state, _tx) = memory_state(8);
    let (status, ct, body, _) = send(&state, &[], get("/")).await;
    assert_eq!(status, StatusCode::OK);
    assert!(ct.starts_with("text/html"));
    assert!(body.contains("trunk build --release"));

    let dir = std::env::temp_dir().join(format!("ctxguard-dist-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    std::fs::write(dir.join("index.html"), "<p>toolbar</p>").expect("write");
    std::fs::write(dir.join("app.js"), "1").expect("write");
    let mut state = state;
    state.dist = Some(dir.clone());
    let (status, _, body, headers) = send(&state, &[], get("/")).await;
    assert_eq!((status, body.as_str()), (StatusCode::OK, "<p>toolbar</p>"));
    assert_eq!(
        headers.get(header::CACHE_CONTROL).map(|v| v.as_bytes()),
        Some(&b"no-cache"[..])
    );
    let (status, _, body, _) = send(&state, &[], get("/app.js")).await;
    assert_eq!((status, body.as_str()), (StatusCode::OK, "1"));
    let (status, ct, _, _) = send(&state, &[], get("/nope.wasm")).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    assert!(ct.starts_with("application/json"));
    let _ = std::fs::remove_dir_all(dir);
}

#[tokio::test]
async fn liveness_always_and_readiness_until_shutdown() {
    let (state, tx) = memory_state(8);
    let (status, _, body, _) = send(&state, &[], get("/livez")).await;
    assert_eq!(
        (status, body.as_str()),
        (StatusCode::OK, r#"{"status":"ok"}"#)
    );
    let (status, _, body, _) = send(&state, &[], get("/readyz")).await;
    assert_eq!(
        (status, body.as_str()),
        (StatusCode::OK, r#"{"status":"ok","store":"memory"}"#)
    );
    tx.send(true).expect("a receiver");
    let (status, _, body, _) = send(&state, &[], get("/readyz")).await;
    assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE, "{body}");
    assert!(body.contains("shutting down"), "{body}");
    let (status, _, _, _) = send(&state, &[], get("/livez")).await;
    assert_eq!(status, StatusCode::OK, "alive while draining");
}
