//! The interface as a backend and a browser meet it: start-up, tokens from
//! `ctxguard token`, and the errors hyper itself answers (as JSON).

use crate::support::*;
use serde_json::json;
use std::process::Command;
use std::time::Duration;

#[tokio::test]
async fn serve_alone_is_a_relay_with_no_session_and_says_reads_are_open() {
    let server = Server::start_with(&[], &[], None);
    let c = client();
    let (status, body) = get_json(&c, &server.url, "api/sessions").await;
    assert_eq!((status, body), (200, json!({"sessions": []})));
    let (status, body) = get_json(&c, &server.url, "healthz").await;
    assert_eq!(
        (status, body),
        (200, json!({"status": "ok", "store": "memory"}))
    );
    let (status, body) = publish(&c, &server.url, "s", Some("x"), &event(1)).await;
    assert_eq!(status, 403, "publishing not configured");
    assert!(body["error"].as_str().is_some_and(
        |e| e.contains("--publish-token-file") && e.contains("CTXGUARD_PUBLISH_TOKEN")
    ));
    let deadline = std::time::Instant::now() + Duration::from_secs(5);
    while !server.stderr().contains("reads are open") && std::time::Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(
        server.stderr().matches("reads are open").count(),
        1,
        "{}",
        server.stderr()
    );
}

#[tokio::test]
async fn a_token_printed_by_ctxguard_token_reads_its_session_only() {
    let stdout = ctxguard_token("chat:42", 60);
    assert_eq!(stdout.lines().count(), 1, "alone on stdout: {stdout:?}");
    let token = stdout.trim().to_string();
    assert!(token.starts_with("v1."), "{token}");

    let secret_file =
        std::env::temp_dir().join(format!("ctxguard-relay-secret-{}", std::process::id()));
    std::fs::write(&secret_file, format!("{READ_SECRET}\n")).expect("write");
    let server = Server::start(&["--read-secret-file", secret_file.to_str().expect("utf-8")]);
    let c = client();
    publish_ok(&c, &server.url, "chat:42", &event(1234)).await;
    publish_ok(&c, &server.url, "chat:43", &event(1)).await;
    let (status, body) = get_json(
        &c,
        &server.url,
        &format!("api/sessions/chat:42/context?token={token}"),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["context_metrics"]["used_input_tokens"], json!(1234));
    let (status, _) = get_json(
        &c,
        &server.url,
        &format!("api/sessions/chat:43/context?token={token}"),
    )
    .await;
    assert_eq!(status, 403);
    let (status, _) = get_json(&c, &server.url, "api/sessions/chat:42/context").await;
    assert_eq!(status, 401);
    let mut sse = Sse::open(
        &c,
        &format!("{}api/sessions/chat:42/events?token={token}", server.url),
        None,
    )
    .await;
    let (_, data) = sse
        .next_event(Duration::from_secs(5))
        .await
        .expect("the latest state first");
    assert!(data.contains("\"used_input_tokens\":1234"));
    assert!(!server.stderr().contains(&token), "tokens are never logged");

    let same = Command::new(bin())
        .args([
            "token",
            "--session",
            "chat:42",
            "--read-secret-file",
            secret_file.to_str().expect("utf-8"),
        ])
        .output()
        .expect("runs");
    assert!(same.status.success());
    let _ = std::fs::remove_file(&secret_file);
    let none = Command::new(bin())
        .args(["token", "--session", "x"])
        .env_remove("CTXGUARD_READ_SECRET")
        .output()
        .expect("runs");
    assert_eq!(none.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&none.stderr).contains("CTXGUARD_READ_SECRET"));
    let bad = Command::new(bin())
        .args(["token", "--session", "a b"])
        .env("CTXGUARD_READ_SECRET", READ_SECRET)
        .output()
        .expect("runs");
    assert_eq!(bad.status.code(), Some(2));
}

/// Errors hyper answers by itself (a URI or headers too
/// large, a request it cannot parse) have JSON bodies too, and a resume id of
/// u64::MAX is the latest state, not an overflow.
#[tokio::test]
async fn every_error_body_is_json() {
    let server = Server::start(&[]);
    let addr = server.addr();
    let long_uri = format!(
        "GET /api/sessions/{} HTTP/1.1\r\nHost: t\r\n\r\n",
        "a".repeat(70_000)
    );
    let big_header = format!(
        "GET /healthz HTTP/1.1\r\nHost: t\r\nX-Big: {}\r\n\r\n",
        "b".repeat(70_000)
    );
    let uri_20k = format!(
        "GET /healthz?x={} HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n",
        "u".repeat(20_000)
    );
    for (request, status) in [
        (long_uri.into_bytes(), "414"),
        (uri_20k.into_bytes(), "414"),
        (big_header.into_bytes(), "431"),
        (b"GARBAGE \x01\x02 nonsense\r\n\r\n".to_vec(), "400"),
        (
            b"GET /api/sessions/%FF/context HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n"
                .to_vec(),
            "400",
        ),
        (
            b"GET /api/sessions/ok/context HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n"
                .to_vec(),
            "404",
        ),
    ] {
        let answer = raw_exchange(&addr, &request, Duration::from_secs(5));
        assert!(
            answer.starts_with(&format!("HTTP/1.1 {status} ")),
            "{status}: {answer:.200}"
        );
        assert!(
            answer
                .to_ascii_lowercase()
                .contains("content-type: application/json"),
            "{answer:.300}"
        );
        assert!(raw_json_body(&answer)["error"].is_string());
    }
    let c = client();
    let ids = publish_ok(&c, &server.url, "s", &event(5)).await;
    let mut sse = Sse::open(
        &c,
        &format!(
            "{}api/sessions/s/events?last_event_id={}",
            server.url,
            u64::MAX
        ),
        None,
    )
    .await;
    assert_eq!(
        sse.next_event(Duration::from_secs(5)).await.map(|e| e.0),
        Some(ids[0])
    );
    let answer = raw_exchange(&addr, b"GET /healthz HTTP/1.1\r\nHost: t\r\nOrigin: https://x.example\r\nConnection: close\r\n\r\n", Duration::from_secs(5));
    assert!(
        !answer
            .to_ascii_lowercase()
            .contains("access-control-allow-origin"),
        "{answer}"
    );
}

#[tokio::test]
async fn bodies_over_the_limit_get_413_and_bad_batches_store_nothing() {
    let server = Server::start(&["--max-body-bytes", "2048"]);
    let c = client();
    let big = json!([event(1), event(2), event(3), event(4), event(5), event(6)]);
    assert!(big.to_string().len() > 2048);
    let (status, body) = publish(&c, &server.url, "s", Some(PUBLISH_TOKEN), &big).await;
    assert_eq!(status, 413, "{body}");
    let many: Vec<_> = (0..101).map(event).collect();
    let server2 = Server::start(&[]);
    let (status, body) = publish(&c, &server2.url, "s", Some(PUBLISH_TOKEN), &json!(many)).await;
    assert_eq!(status, 400, "{body}");
    let (status, _) = get_json(&c, &server2.url, "api/sessions/s/context").await;
    assert_eq!(status, 404, "nothing stored");
    let metrics = metrics_text(&c, &server.url).await;
    assert!(
        metrics.contains("ctxguard_publish_errors_total{status=\"413\"} 1"),
        "{metrics}"
    );
}

/// A publish body naming a key twice is a 400 saying so (it used to be stored
/// with its last value), the rule core's `parseStatusEvent` and the toolbar apply to the same text.
#[tokio::test]
async fn a_publish_body_with_a_repeated_key_is_a_400() {
    let server = Server::start(&[]);
    let c = client();
    let text = event(1).to_string();
    let repeated = text.replacen("\"phase\":", "\"phase\":\"turn_end\",\"phase\":", 1);
    assert_ne!(text, repeated);
    let response = c
        .post(format!("{}api/sessions/s/events", server.url))
        .header("content-type", "application/json")
        .bearer_auth(PUBLISH_TOKEN)
        .body(repeated)
        .send()
        .await
        .expect("the server answers");
    let status = response.status().as_u16();
    let body: serde_json::Value =
        serde_json::from_str(&response.text().await.expect("a body")).expect("a JSON body");
    assert_eq!(status, 400, "{body}");
    let message = body["error"].as_str().expect("an error message");
    assert!(message.contains("duplicate field `phase`"), "{message}");
    let (status, _) = get_json(&c, &server.url, "api/sessions/s/context").await;
    assert_eq!(status, 404, "nothing stored");
}
