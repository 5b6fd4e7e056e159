//! What the relay tests run: the `ctxguard` binary as a server on a free
//! loopback port, a real `redis-server` with persistence off, an SSE client,
//! and event payloads. Everything started here is stopped on drop.

use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

/// A private copy of the binary under test, made once. Builds of other
/// checkouts sharing the target directory may replace cargo's copy at any
/// time, so the binary is taken from where cargo built it for this checkout:
/// the one that embeds this checkout's path (its default `dist/`), the
/// uplifted copy first, else the newest in `deps/`.
pub fn bin() -> &'static str {
    static COPY: OnceLock<String> = OnceLock::new();
    COPY.get_or_init(|| {
        let uplifted = std::path::PathBuf::from(env!("CARGO_BIN_EXE_ctxguard"));
        let mut candidates = vec![uplifted.clone()];
        if let Some(Ok(entries)) = uplifted.parent().map(|d| std::fs::read_dir(d.join("deps"))) {
            let mut built: Vec<(std::time::SystemTime, std::path::PathBuf)> = entries
                .flatten()
                .filter(|e| {
                    let name = e.file_name().to_string_lossy().into_owned();
                    name.starts_with("ctxguard-") && !name.contains('.')
                })
                .filter_map(|e| Some((e.metadata().ok()?.modified().ok()?, e.path())))
                .collect();
            built.sort_by_key(|b| std::cmp::Reverse(b.0));
            candidates.extend(built.into_iter().map(|(_, p)| p));
        }
        let here = env!("CARGO_MANIFEST_DIR").as_bytes();
        let ours = candidates
            .into_iter()
            .find(|p| std::fs::read(p).is_ok_and(|bytes| contains(&bytes, here)))
            .expect("a ctxguard binary built from this checkout");
        let dir = std::env::temp_dir().join(format!("ctxguard-relay-tests-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temp dir");
        let copy = dir.join("ctxguard");
        std::fs::copy(&ours, &copy).expect("copy the binary");
        copy.to_string_lossy().into_owned()
    })
}

/// Whether `needle` occurs in `haystack`.
fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    let Some((&first, rest)) = needle.split_first() else {
        return true;
    };
    let mut from = 0;
    while let Some(i) = haystack[from..].iter().position(|b| *b == first) {
        let at = from + i + 1;
        if haystack.get(at..at + rest.len()) == Some(rest) {
            return true;
        }
        from = at;
    }
    false
}

/// The publish token of the test servers.
pub const PUBLISH_TOKEN: &str = "relay-tests-publish-token";
/// The read secret of the test servers that require read tokens.
pub const READ_SECRET: &str = "relay-tests-read-secret-0123456789";

/// What `ctxguard token --session SESSION --ttl-secs TTL` prints with [`READ_SECRET`]
/// (asserting it succeeds): a read token and a newline.
pub fn ctxguard_token(session: &str, ttl_secs: u64) -> String {
    let out = Command::new(bin())
        .args([
            "token",
            "--session",
            session,
            "--ttl-secs",
            &ttl_secs.to_string(),
        ])
        .env("CTXGUARD_READ_SECRET", READ_SECRET)
        .output()
        .expect("runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("utf-8")
}

/// A running `ctxguard serve`.
pub struct Server {
    child: Child,
    /// `http://127.0.0.1:PORT/`.
    pub url: String,
    stderr: Arc<Mutex<String>>,
}

impl Server {
    /// `ctxguard serve --host 127.0.0.1 --port 0 ARGS` with the publish token set.
    pub fn start(args: &[&str]) -> Server {
        Server::start_with(args, &[("CTXGUARD_PUBLISH_TOKEN", PUBLISH_TOKEN)], None)
    }

    /// The same with `env` (nothing inherited of ctxguard's own variables) and,
    /// when given, a lower open-file limit.
    pub fn start_with(args: &[&str], env: &[(&str, &str)], open_files: Option<u32>) -> Server {
        let dist = std::env::temp_dir().join("ctxguard-relay-tests-no-dist");
        let mut command = match open_files {
            Some(n) => {
                let mut c = Command::new("sh");
                c.arg("-c")
                    .arg(format!("ulimit -n {n} && exec \"$0\" \"$@\""))
                    .arg(bin());
                c
            }
            None => Command::new(bin()),
        };
        command
            .arg("serve")
            .args(["--host", "127.0.0.1", "--port", "0", "--dist"])
            .arg(&dist)
            .args(args)
            .env_remove("CTXGUARD_PUBLISH_TOKEN")
            .env_remove("CTXGUARD_READ_SECRET")
            .envs(env.iter().copied())
            .stdin(Stdio::null());
        Server::spawn(command)
    }

    /// Starts `command` (a `ctxguard serve …`) and waits for its `listening on` line.
    pub fn spawn(mut command: Command) -> Server {
        command.stdout(Stdio::piped()).stderr(Stdio::piped());
        let mut child = command.spawn().expect("the binary starts");
        let stdout = child.stdout.take().expect("piped");
        let stderr_pipe = child.stderr.take().expect("piped");
        let stderr = Arc::new(Mutex::new(String::new()));
        let sink = stderr.clone();
        std::thread::spawn(move || {
            let mut text = String::new();
            let mut reader = BufReader::new(stderr_pipe);
            while reader.read_line(&mut text).unwrap_or(0) > 0 {
                sink.lock().expect("lock").push_str(&text);
                text.clear();
            }
        });
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let mut lines = BufReader::new(stdout).lines();
            while let Some(Ok(line)) = lines.next() {
                if let Some(url) = line.strip_prefix("ctxguard serve: listening on ") {
                    let _ = tx.send(url.trim().to_string());
                }
            }
        });
        let url = match rx.recv_timeout(Duration::from_secs(30)) {
            Ok(url) => url,
            Err(_) => {
                let _ = child.kill();
                panic!("the server did not start: {}", stderr.lock().expect("lock"));
            }
        };
        Server { child, url, stderr }
    }

    /// The process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// `host:port`.
    pub fn addr(&self) -> String {
        self.url
            .trim_start_matches("http://")
            .trim_end_matches('/')
            .to_string()
    }

    /// What the server printed on stderr so far.
    pub fn stderr(&self) -> String {
        self.stderr.lock().expect("lock").clone()
    }

    /// Resident memory in KiB.
    pub fn rss_kib(&self) -> u64 {
        rss_kib(self.pid())
    }

    /// Stops the server with SIGTERM (SIGKILL after 10 s).
    pub fn stop(&mut self) {
        if let Ok(Some(_)) = self.child.try_wait() {
            return;
        }
        let _ = Command::new("kill")
            .arg("-TERM")
            .arg(self.pid().to_string())
            .status();
        let deadline = Instant::now() + Duration::from_secs(10);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.stop();
    }
}

/// Resident memory of process `pid` in KiB.
pub fn rss_kib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).expect("a live process");
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.split_whitespace().next())
        .and_then(|v| v.parse().ok())
        .expect("VmRSS")
}

/// A free loopback port (bound, then released).
pub fn free_port() -> u16 {
    let l = std::net::TcpListener::bind(("127.0.0.1", 0)).expect("bind");
    l.local_addr().expect("addr").port()
}

/// A `redis-server` on a free loopback port with persistence off.
pub struct Redis {
    child: Option<Child>,
    /// Its port.
    pub port: u16,
}

impl Redis {
    /// Starts one on a free port and waits until it answers.
    pub fn start() -> Redis {
        Redis::start_on(free_port())
    }

    /// Starts one on `port` and waits until it answers.
    pub fn start_on(port: u16) -> Redis {
        let mut redis = Redis { child: None, port };
        redis.restart();
        redis
    }

    /// `redis://127.0.0.1:PORT`.
    pub fn url(&self) -> String {
        format!("redis://127.0.0.1:{}", self.port)
    }

    /// Kills it (SIGKILL: nothing is saved).
    pub fn kill(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    /// Starts it (again) on the same port, empty, and waits until it answers.
    pub fn restart(&mut self) {
        self.kill();
        let child = Command::new("redis-server")
            .args([
                "--port",
                &self.port.to_string(),
                "--save",
                "",
                "--appendonly",
                "no",
                "--bind",
                "127.0.0.1",
            ])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| {
                panic!("redis-server does not run ({e}): scripts/setup.sh installs it")
            });
        self.child = Some(child);
        let deadline = Instant::now() + Duration::from_secs(10);
        while Instant::now() < deadline {
            if self.ping() {
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        panic!("redis-server did not answer on port {}", self.port);
    }

    fn ping(&self) -> bool {
        let Ok(mut s) = TcpStream::connect(("127.0.0.1", self.port)) else {
            return false;
        };
        let _ = s.set_read_timeout(Some(Duration::from_secs(1)));
        let mut reply = [0u8; 7];
        s.write_all(b"PING\r\n").is_ok()
            && s.read_exact(&mut reply).is_ok()
            && &reply == b"+PONG\r\n"
    }
}

impl Drop for Redis {
    fn drop(&mut self) {
        self.kill();
    }
}

/// A status event payload (SPEC §4) using `used` tokens of a 100 000-token window.
pub fn event(used: i64) -> Value {
    event_with(used, "after_tool_end", None)
}

/// A payload of `phase` with an optional compaction record.
pub fn event_with(used: i64, phase: &str, compaction: Option<Value>) -> Value {
    let window = 100_000;
    let available = window - 10_000;
    let remaining = (available - used).max(0);
    let mut e = json!({
        "type": "response.status.updated",
        "response_id": "resp_relay",
        "phase": phase,
        "context_metrics": {
            "context_window": window, "reserved_output_tokens": 10_000,
            "available_input_tokens": available, "used_input_tokens": used,
            "remaining_input_tokens": remaining, "remaining_percent": remaining * 100 / available,
            "display_remaining_tokens": window - used, "display_remaining_percent": (window - used).max(0) * 100 / window,
            "trigger_limit": 81_000, "target_limit": 63_000, "is_over_trigger": used >= 81_000
        }
    });
    if let Some(c) = compaction {
        e["context_compaction"] = c;
    }
    e
}

/// A compaction record in `status`.
pub fn compaction(status: &str) -> Value {
    let mut c = json!({
        "type": "summary_compact", "status": status, "before_tokens": 90_000, "trigger_limit": 81_000,
        "target_limit": 63_000, "used_legacy_fallback": false, "created_at": "2026-06-23T14:55:34.512345+00:00"
    });
    if status == "completed" {
        c["after_tokens"] = json!(20_000);
        c["summary_message_id"] = json!("cg-summary-1");
    }
    c
}

/// An HTTP client for the tests (no proxy, short timeouts).
pub fn client() -> reqwest::Client {
    reqwest::Client::builder()
        .no_proxy()
        .timeout(Duration::from_secs(20))
        .pool_max_idle_per_host(64)
        .build()
        .expect("client")
}

/// A client that opens a new connection for every request (for servers with short idle timeouts).
pub fn client_no_pool() -> reqwest::Client {
    reqwest::Client::builder()
        .no_proxy()
        .timeout(Duration::from_secs(20))
        .pool_max_idle_per_host(0)
        .build()
        .expect("client")
}

/// POSTs `body` to `session`'s events with `token`; returns (status, JSON body).
pub async fn publish(
    client: &reqwest::Client,
    url: &str,
    session: &str,
    token: Option<&str>,
    body: &Value,
) -> (u16, Value) {
    let mut request = client
        .post(format!("{url}api/sessions/{session}/events"))
        .header("content-type", "application/json")
        .body(body.to_string());
    if let Some(t) = token {
        request = request.bearer_auth(t);
    }
    let response = request.send().await.expect("the server answers");
    let status = response.status().as_u16();
    let text = response.text().await.expect("body");
    (status, serde_json::from_str(&text).unwrap_or(Value::Null))
}

/// Publishes `body` with the tests' publish token; asserts 200 and returns the ids.
pub async fn publish_ok(
    client: &reqwest::Client,
    url: &str,
    session: &str,
    body: &Value,
) -> Vec<u64> {
    let (status, answer) = publish(client, url, session, Some(PUBLISH_TOKEN), body).await;
    assert_eq!(status, 200, "{answer}");
    answer["event_ids"]
        .as_array()
        .expect("event_ids")
        .iter()
        .map(|v| v.as_u64().expect("an id"))
        .collect()
}

/// GETs `path`; returns (status, JSON body or Null).
pub async fn get_json(client: &reqwest::Client, url: &str, path: &str) -> (u16, Value) {
    let response = client
        .get(format!("{url}{path}"))
        .send()
        .await
        .expect("the server answers");
    let status = response.status().as_u16();
    let text = response.text().await.unwrap_or_default();
    (status, serde_json::from_str(&text).unwrap_or(Value::Null))
}

/// The `/metrics` text.
pub async fn metrics_text(client: &reqwest::Client, url: &str) -> String {
    client
        .get(format!("{url}metrics"))
        .send()
        .await
        .expect("the server answers")
        .text()
        .await
        .expect("a text body")
}

/// One SSE frame.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Frame {
    /// An event: its id and data.
    Event(u64, String),
    /// A comment (keep-alive).
    Comment(String),
}

/// An open SSE stream.
pub struct Sse {
    response: reqwest::Response,
    text: String,
}

impl Sse {
    /// Opens `url` (resuming after `last` when given); asserts a 200 event stream.
    pub async fn open(client: &reqwest::Client, url: &str, last: Option<u64>) -> Sse {
        let mut request = client.get(url).timeout(Duration::from_secs(3600));
        if let Some(id) = last {
            request = request.header("last-event-id", id.to_string());
        }
        let response = request.send().await.expect("the server answers");
        assert_eq!(response.status().as_u16(), 200, "{url}");
        assert_eq!(
            response
                .headers()
                .get("content-type")
                .and_then(|v| v.to_str().ok()),
            Some("text/event-stream")
        );
        Sse {
            response,
            text: String::new(),
        }
    }

    /// The next block (up to a blank line) within `within`; `None` on timeout or end of stream.
    async fn next_block(&mut self, deadline: tokio::time::Instant) -> Option<String> {
        loop {
            if let Some(end) = self.text.find("\n\n") {
                return Some(self.text.drain(..end + 2).collect());
            }
            match tokio::time::timeout_at(deadline, self.response.chunk()).await {
                Ok(Ok(Some(bytes))) => self.text.push_str(&String::from_utf8_lossy(&bytes)),
                _ => return None,
            }
        }
    }

    /// The next frame within `within`; `None` on timeout or end of stream.
    pub async fn next_frame(&mut self, within: Duration) -> Option<Frame> {
        let deadline = tokio::time::Instant::now() + within;
        loop {
            if let Some(frame) = parse_frame(&self.next_block(deadline).await?) {
                return Some(frame);
            }
        }
    }

    /// The next event of a multi-session stream within `within` (comments skipped):
    /// its `id:` (the cursor) and its `data:` as JSON; asserts its name and that
    /// `"session"` is the data's first key.
    pub async fn next_tagged_event(&mut self, within: Duration) -> Option<(String, Value)> {
        let deadline = tokio::time::Instant::now() + within;
        loop {
            let block = self.next_block(deadline).await?;
            let field = |name: &str| {
                block
                    .lines()
                    .find_map(|l| l.strip_prefix(name))
                    .map(|v| v.strip_prefix(' ').unwrap_or(v).to_string())
            };
            let (Some(id), Some(data)) = (field("id:"), field("data:")) else {
                continue;
            };
            assert_eq!(field("event:").as_deref(), Some("response.status.updated"));
            assert!(data.starts_with("{\"session\":\""), "{data}");
            let json = serde_json::from_str(&data).unwrap_or_else(|e| panic!("{e}: {data}"));
            return Some((id, json));
        }
    }

    /// The next event within `within` (comments skipped).
    pub async fn next_event(&mut self, within: Duration) -> Option<(u64, String)> {
        let deadline = tokio::time::Instant::now() + within;
        loop {
            let left = deadline.saturating_duration_since(tokio::time::Instant::now());
            match self.next_frame(left).await? {
                Frame::Event(id, data) => return Some((id, data)),
                Frame::Comment(_) => continue,
            }
        }
    }

    /// Whether the stream ended (not merely went quiet) within `within`.
    pub async fn ends_within(&mut self, within: Duration) -> bool {
        let deadline = tokio::time::Instant::now() + within;
        loop {
            match tokio::time::timeout_at(deadline, self.response.chunk()).await {
                Ok(Ok(Some(_))) => continue,
                Ok(Ok(None)) | Ok(Err(_)) => return true,
                Err(_) => return false,
            }
        }
    }
}

fn parse_frame(block: &str) -> Option<Frame> {
    let mut id = None;
    let mut data: Vec<&str> = Vec::new();
    let mut comment = None;
    for line in block.lines() {
        if let Some(c) = line.strip_prefix(':') {
            comment = Some(c.trim().to_string());
        } else if let Some(v) = line.strip_prefix("id:") {
            id = v.trim().parse().ok();
        } else if let Some(v) = line.strip_prefix("data:") {
            data.push(v.strip_prefix(' ').unwrap_or(v));
        }
    }
    match (id, comment) {
        (Some(id), _) => Some(Frame::Event(id, data.join("\n"))),
        (None, Some(c)) => Some(Frame::Comment(c)),
        _ => None,
    }
}

/// Sends raw bytes on a new connection and reads the answer until the server closes it or `within` passes.
pub fn raw_exchange(addr: &str, request: &[u8], within: Duration) -> String {
    let mut s = TcpStream::connect(addr).expect("connect");
    s.set_read_timeout(Some(within)).expect("timeout");
    s.write_all(request).expect("send");
    let mut out = Vec::new();
    let mut buf = [0u8; 8192];
    loop {
        match s.read(&mut buf) {
            Ok(0) | Err(_) => break,
            Ok(n) => out.extend_from_slice(&buf[..n]),
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// [`raw_exchange`] of a `GET /healthz` off the async runtime's threads.
pub async fn raw_healthz(addr: String, close: bool, within: Duration) -> String {
    let request: &[u8] = if close {
        b"GET /healthz HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n"
    } else {
        b"GET /healthz HTTP/1.1\r\nHost: t\r\n\r\n"
    };
    tokio::task::spawn_blocking(move || raw_exchange(&addr, request, within))
        .await
        .expect("the blocking task ends")
}

/// The JSON body of a raw HTTP/1.1 answer (`Content-Length` framed).
pub fn raw_json_body(answer: &str) -> Value {
    let (_, body) = answer
        .split_once("\r\n\r\n")
        .unwrap_or_else(|| panic!("an HTTP answer: {answer:?}"));
    serde_json::from_str(body).unwrap_or_else(|e| panic!("a JSON body ({e}): {answer:?}"))
}
