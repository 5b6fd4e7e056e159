//! What an operator deploying the relay relies on: a taken port is an error
//! naming it, every flag has a `CTXGUARD_*` variable, one log line per
//! request (JSON on request, never a token), and the liveness and readiness
//! probes, readiness following Redis.

use crate::support::*;
use serde_json::Value;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// `ctxguard serve` with no inherited `CTXGUARD_*` variable and no toolbar build.
fn serve_command() -> Command {
    let mut command = Command::new(bin());
    command
        .arg("serve")
        .arg("--dist")
        .arg(std::env::temp_dir().join("ctxguard-relay-tests-no-dist"))
        .stdin(Stdio::null());
    for (name, _) in std::env::vars() {
        if name.starts_with("CTXGUARD_") {
            command.env_remove(name);
        }
    }
    command
}

#[test]
fn a_taken_port_is_an_error_that_names_it() {
    let taken = std::net::TcpListener::bind(("127.0.0.1", 0)).expect("bind");
    let port = taken.local_addr().expect("addr").port();
    let out = serve_command()
        .args(["--host", "127.0.0.1", "--port", &port.to_string()])
        .output()
        .expect("runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains(&format!("port {port} on 127.0.0.1 is taken")),
        "{stderr}"
    );
    assert!(
        stderr.contains("--port 0"),
        "says how to get any free port: {stderr}"
    );
    assert!(
        !String::from_utf8_lossy(&out.stdout).contains("listening on"),
        "it never listens elsewhere"
    );
    // The same port from the variable is the same error.
    let out = serve_command()
        .env("CTXGUARD_PORT", port.to_string())
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains(&format!("port {port} ")));
}

#[tokio::test]
async fn variables_replace_flag_defaults_and_flags_win_over_variables() {
    let port = free_port();
    let mut command = serve_command();
    command
        .env("CTXGUARD_PORT", port.to_string())
        .env("CTXGUARD_MAX_BODY_BYTES", "64")
        .env("CTXGUARD_PUBLISH_TOKEN", PUBLISH_TOKEN);
    let server = Server::spawn(command);
    assert_eq!(server.url, format!("http://127.0.0.1:{port}/"));
    let c = client();
    let (status, body) = publish(&c, &server.url, "s", Some(PUBLISH_TOKEN), &event(1)).await;
    assert_eq!(status, 413, "CTXGUARD_MAX_BODY_BYTES=64 applies: {body}");

    let taken = std::net::TcpListener::bind(("127.0.0.1", 0)).expect("bind");
    let mut command = serve_command();
    command.args(["--port", "0"]).env(
        "CTXGUARD_PORT",
        taken.local_addr().expect("addr").port().to_string(),
    );
    let server = Server::spawn(command);
    assert!(!server.url.ends_with(":0/"), "{}", server.url);
}

#[test]
fn help_names_the_variable_of_every_serve_flag() {
    let out = Command::new(bin())
        .args(["serve", "--help"])
        .output()
        .expect("runs");
    assert!(out.status.success());
    let help = String::from_utf8_lossy(&out.stdout);
    let flags: Vec<&str> = help
        .lines()
        .map(str::trim_start)
        .filter(|l| l.starts_with("--") && !l.starts_with("--help"))
        .collect();
    assert!(flags.len() >= 25, "{help}");
    for flag in flags {
        let name = flag[2..]
            .split(|c: char| !(c.is_ascii_alphanumeric() || c == '-'))
            .next()
            .unwrap_or_default();
        let variable = format!("[env: CTXGUARD_{}=", name.to_uppercase().replace('-', "_"));
        assert!(
            help.contains(&variable),
            "--{name} has no {variable}: {help}"
        );
    }
}

#[tokio::test]
async fn json_logs_have_one_line_per_request_with_its_route_and_never_a_token() {
    let secret_file =
        std::env::temp_dir().join(format!("ctxguard-relay-log-secret-{}", std::process::id()));
    std::fs::write(&secret_file, READ_SECRET).expect("write");
    let server = Server::start(&[
        "--log-format",
        "json",
        "--read-secret-file",
        secret_file.to_str().expect("utf-8"),
    ]);
    let token = ctxguard_token("chat-7", 60).trim().to_string();
    let c = client();
    publish_ok(&c, &server.url, "chat-7", &event(7)).await;
    let path = format!("api/sessions/chat-7/context?token={token}");
    let (status, _) = get_json(&c, &server.url, &path).await;
    assert_eq!(status, 200);
    let (status, _) = get_json(&c, &server.url, "api/sessions/chat-7/context").await;
    assert_eq!(status, 401);

    let deadline = Instant::now() + Duration::from_secs(5);
    let requests = loop {
        let lines: Vec<Value> = server
            .stderr()
            .lines()
            .map(|l| serde_json::from_str::<Value>(l).expect("every log line is JSON"))
            .filter(|v| v["message"] == "request")
            .collect();
        if lines.len() >= 3 || Instant::now() > deadline {
            break lines;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    assert_eq!(requests.len(), 3, "{}", server.stderr());
    let read = &requests[1];
    assert_eq!(read["method"], "GET");
    assert_eq!(read["route"], "/api/sessions/{id}/context");
    assert_eq!(read["status"], 200);
    assert_eq!(read["session"], "chat-7");
    assert!(
        read["latency_ms"].as_f64().is_some_and(|ms| ms >= 0.0),
        "{read}"
    );
    assert_eq!(read["level"], "INFO");
    assert_eq!(requests[0]["method"], "POST");
    assert_eq!(requests[2]["status"], 401);
    let all = server.stderr();
    assert!(!all.contains(&token), "the read token is never logged");
    assert!(
        !all.contains(PUBLISH_TOKEN),
        "the publish token is never logged"
    );
    assert!(!all.contains(READ_SECRET), "the secret is never logged");
    let _ = std::fs::remove_file(&secret_file);
}

#[tokio::test]
async fn text_logs_are_readable_lines_with_the_same_fields() {
    let server = Server::start(&[]);
    let (status, _) = get_json(&client(), &server.url, "livez").await;
    assert_eq!(status, 200);
    let deadline = Instant::now() + Duration::from_secs(5);
    while !server.stderr().contains("route=/livez") && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let stderr = server.stderr();
    let line = stderr
        .lines()
        .find(|l| l.contains("route=/livez"))
        .unwrap_or_else(|| panic!("no request line: {stderr}"));
    assert!(line.contains("INFO") && line.contains("request"), "{line}");
    assert!(
        line.contains("method=GET") && line.contains("status=200"),
        "{line}"
    );
    assert!(line.contains("latency_ms="), "{line}");
    assert!(
        !line.trim_start().starts_with('{'),
        "not JSON by default: {line}"
    );
}

async fn status_of(c: &reqwest::Client, server: &Server, path: &str) -> u16 {
    get_json(c, &server.url, path).await.0
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn readiness_follows_redis_and_liveness_does_not() {
    let mut redis = Redis::start();
    let url = redis.url();
    let server = Server::start(&["--store", &url]);
    let c = client();
    assert_eq!(status_of(&c, &server, "livez").await, 200);
    assert_eq!(status_of(&c, &server, "readyz").await, 200);
    assert_eq!(status_of(&c, &server, "healthz").await, 200);

    redis.kill();
    let deadline = Instant::now() + Duration::from_secs(15);
    let (status, body) = loop {
        let (status, body) = get_json(&c, &server.url, "readyz").await;
        if status == 503 || Instant::now() > deadline {
            break (status, body);
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    assert_eq!(status, 503, "{body}");
    assert_eq!(body["status"], "unavailable");
    assert_eq!(body["store"], "redis");
    assert_eq!(
        status_of(&c, &server, "livez").await,
        200,
        "alive all the same"
    );

    redis.restart();
    let deadline = Instant::now() + Duration::from_secs(15);
    while status_of(&c, &server, "readyz").await != 200 {
        assert!(
            Instant::now() < deadline,
            "readyz stayed 503 after Redis came back"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}
