//! The relay's benchmark (run by `scripts/bench-relay.sh`, not a test):
//! publish-to-delivery latency and resident memory with many subscribers, on
//! one instance (memory store) and on two instances sharing a
//! `redis-server`. Starts every process it measures on loopback ports and
//! stops them; prints a Markdown section for BENCHMARKS.md on stdout.
//!
//! ```text
//! cargo run --release -p ctxguard-cli --example relay_bench -- \
//!     --bin target/release/ctxguard [--subscribers 1000] [--events 200] [--interval-ms 20]
//! ```
//!
//! Each event carries its sequence number in `response_id`; the publisher
//! notes the time before each POST, every subscriber the time it read the
//! event, so a latency is publish request sent → event read by a subscriber
//! (the bench process's own clock, one machine).

use std::collections::HashMap;
use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

const TOKEN: &str = "relay-bench-publish-token";

struct Options {
    bin: String,
    subscribers: usize,
    events: usize,
    interval: Duration,
}

fn options() -> Options {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let value = |name: &str| {
        args.iter()
            .position(|a| a == name)
            .and_then(|i| args.get(i + 1).cloned())
    };
    Options {
        bin: value("--bin").unwrap_or_else(|| "target/release/ctxguard".into()),
        subscribers: value("--subscribers")
            .and_then(|v| v.parse().ok())
            .unwrap_or(1000),
        events: value("--events")
            .and_then(|v| v.parse().ok())
            .unwrap_or(200),
        interval: Duration::from_millis(
            value("--interval-ms")
                .and_then(|v| v.parse().ok())
                .unwrap_or(20),
        ),
    }
}

/// A child process stopped on drop.
struct Proc(Child);

impl Drop for Proc {
    fn drop(&mut self) {
        let _ = Command::new("kill")
            .arg("-TERM")
            .arg(self.0.id().to_string())
            .status();
        let deadline = Instant::now() + Duration::from_secs(5);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.0.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// `ctxguard serve` on a free loopback port; returns it and its `host:port`.
fn serve(bin: &str, extra: &[&str]) -> (Proc, String) {
    let mut child = Command::new(bin)
        .args([
            "serve",
            "--host",
            "127.0.0.1",
            "--port",
            "0",
            "--dist",
            "/nonexistent",
        ])
        .args(extra)
        .env("CTXGUARD_PUBLISH_TOKEN", TOKEN)
        .env_remove("CTXGUARD_READ_SECRET")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("ctxguard starts");
    let stdout = child.stdout.take().expect("piped");
    let mut lines = BufReader::new(stdout).lines();
    let addr = loop {
        let line = lines
            .next()
            .expect("the server prints its address")
            .expect("utf-8");
        if let Some(url) = line.strip_prefix("ctxguard serve: listening on http://") {
            break url.trim_end_matches('/').to_string();
        }
    };
    std::thread::spawn(move || for _ in lines {});
    (Proc(child), addr)
}

fn free_port() -> u16 {
    std::net::TcpListener::bind(("127.0.0.1", 0))
        .expect("bind")
        .local_addr()
        .expect("addr")
        .port()
}

fn redis_server() -> (Proc, u16) {
    let port = free_port();
    let child = Command::new("redis-server")
        .args([
            "--port",
            &port.to_string(),
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
        .expect("redis-server runs (scripts/setup.sh installs it)");
    let deadline = Instant::now() + Duration::from_secs(10);
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(Instant::now() < deadline, "redis-server did not start");
        std::thread::sleep(Duration::from_millis(20));
    }
    (Proc(child), port)
}

fn rss_kib(pid: u32) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("VmRSS:"))
                .and_then(|v| v.split_whitespace().next()?.parse().ok())
        })
        .unwrap_or(0)
}

fn event(seq: usize) -> String {
    let seq_tokens = seq % 10_000;
    serde_json::json!({
        "type": "response.status.updated",
        "response_id": format!("resp_bench_{seq:06}_"),
        "phase": "after_tool_end",
        "context_metrics": {
            "context_window": 128000, "reserved_output_tokens": 16000, "available_input_tokens": 112000,
            "used_input_tokens": 1000 + seq_tokens, "remaining_input_tokens": 111000 - seq_tokens, "remaining_percent": 99,
            "display_remaining_tokens": 127000 - seq_tokens, "display_remaining_percent": 99,
            "trigger_limit": 100800, "target_limit": 78400, "is_over_trigger": false
        }
    })
    .to_string()
}

async fn publish(client: &reqwest::Client, addr: &str, body: String) -> u64 {
    let response = client
        .post(format!("http://{addr}/api/sessions/bench/events"))
        .bearer_auth(TOKEN)
        .header("content-type", "application/json")
        .body(body)
        .send()
        .await
        .expect("publish");
    assert!(
        response.status().is_success(),
        "publish answered {}",
        response.status()
    );
    let v: serde_json::Value =
        serde_json::from_str(&response.text().await.expect("body")).expect("json");
    v["event_ids"][0].as_u64().expect("an id")
}

/// One subscriber: opens the stream after `after`, returns when each of `events` sequence numbers arrived.
async fn subscribe(
    addr: String,
    after: u64,
    events: usize,
    ready: Arc<tokio::sync::Barrier>,
) -> Vec<(usize, Instant)> {
    let mut s = TcpStream::connect(&addr).await.expect("connect");
    let request = format!(
        "GET /api/sessions/bench/events HTTP/1.1\r\nHost: bench\r\nLast-Event-ID: {after}\r\n\r\n"
    );
    s.write_all(request.as_bytes()).await.expect("request");
    let mut buf = vec![0u8; 16 * 1024];
    let mut text = String::new();
    let mut got = Vec::with_capacity(events);
    // Wait for the response head before counting as ready.
    while !text.contains("\r\n\r\n") {
        let n = s.read(&mut buf).await.expect("read");
        assert!(n > 0, "closed before the head");
        text.push_str(&String::from_utf8_lossy(&buf[..n]));
    }
    ready.wait().await;
    let marker = "resp_bench_";
    while got.len() < events {
        let n = match tokio::time::timeout(Duration::from_secs(30), s.read(&mut buf)).await {
            Ok(Ok(n)) if n > 0 => n,
            _ => break,
        };
        let at = Instant::now();
        text.push_str(&String::from_utf8_lossy(&buf[..n]));
        while let Some(i) = text.find(marker) {
            let digits = &text[i + marker.len()..];
            if digits.len() < 7 {
                break;
            }
            if let Ok(seq) = digits[..6].parse::<usize>() {
                got.push((seq, at));
            }
            text.drain(..i + marker.len() + 6);
        }
        if text.len() > 4096 && !text.contains(marker) {
            let keep = text.len() - 32;
            text.drain(..keep);
        }
    }
    got
}

/// What one run measured.
struct Run {
    deliveries: usize,
    expected: usize,
    p50_ms: f64,
    p99_ms: f64,
    max_ms: f64,
    rss_idle_kib: u64,
    rss_streams_kib: u64,
}

/// Subscribers spread over `addrs`, events published round-robin to them.
async fn run(addrs: &[String], pids: &[u32], options: &Options) -> Run {
    let client = reqwest::Client::builder()
        .no_proxy()
        .build()
        .expect("client");
    let first = publish(&client, &addrs[0], event(999_999)).await;
    tokio::time::sleep(Duration::from_millis(500)).await;
    let rss_idle_kib: u64 = pids.iter().map(|p| rss_kib(*p)).sum();
    let ready = Arc::new(tokio::sync::Barrier::new(options.subscribers + 1));
    let mut subs = Vec::with_capacity(options.subscribers);
    for i in 0..options.subscribers {
        let addr = addrs[i % addrs.len()].clone();
        subs.push(tokio::spawn(subscribe(
            addr,
            first,
            options.events,
            ready.clone(),
        )));
    }
    ready.wait().await;
    tokio::time::sleep(Duration::from_millis(500)).await;
    let rss_streams_kib: u64 = pids.iter().map(|p| rss_kib(*p)).sum();
    let mut sent: HashMap<usize, Instant> = HashMap::new();
    for seq in 0..options.events {
        let addr = &addrs[seq % addrs.len()];
        sent.insert(seq, Instant::now());
        publish(&client, addr, event(seq)).await;
        tokio::time::sleep(options.interval).await;
    }
    let mut latencies = Vec::with_capacity(options.subscribers * options.events);
    for s in subs {
        for (seq, at) in s.await.expect("subscriber") {
            if let Some(t) = sent.get(&seq) {
                latencies.push(at.saturating_duration_since(*t).as_secs_f64() * 1000.0);
            }
        }
    }
    latencies.sort_by(|a, b| a.total_cmp(b));
    let pick = |q: f64| {
        latencies
            .get(((latencies.len() as f64 - 1.0) * q).round() as usize)
            .copied()
            .unwrap_or(f64::NAN)
    };
    Run {
        deliveries: latencies.len(),
        expected: options.subscribers * options.events,
        p50_ms: pick(0.5),
        p99_ms: pick(0.99),
        max_ms: latencies.last().copied().unwrap_or(f64::NAN),
        rss_idle_kib,
        rss_streams_kib,
    }
}

fn row(setup: &str, subscribers: &str, events: usize, r: &Run) -> String {
    let per_stream = (r.rss_streams_kib.saturating_sub(r.rss_idle_kib)) as f64
        / (r.expected / events).max(1) as f64;
    format!(
        "| {setup} | {subscribers} | {events} | {} of {} | {:.2} | {:.2} | {:.1} | {:.1} | {:.1} | {:.1} |",
        r.deliveries,
        r.expected,
        r.p50_ms,
        r.p99_ms,
        r.max_ms,
        r.rss_idle_kib as f64 / 1024.0,
        r.rss_streams_kib as f64 / 1024.0,
        per_stream,
    )
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    let options = options();
    let half = options.subscribers / 2;
    let one = {
        let (server, addr) = serve(&options.bin, &[]);
        run(&[addr], &[server.0.id()], &options).await
    };
    let two = {
        let (_redis, port) = redis_server();
        let url = format!("redis://127.0.0.1:{port}");
        let (a, addr_a) = serve(&options.bin, &["--store", &url]);
        let (b, addr_b) = serve(&options.bin, &["--store", &url]);
        tokio::time::sleep(Duration::from_millis(500)).await;
        run(&[addr_a, addr_b], &[a.0.id(), b.0.id()], &options).await
    };
    let redis_version = Command::new("redis-server")
        .arg("--version")
        .output()
        .ok()
        .and_then(|o| String::from_utf8(o.stdout).ok())
        .and_then(|v| {
            v.split_whitespace()
                .find(|w| w.starts_with("v="))
                .map(|w| w[2..].to_string())
        })
        .unwrap_or_default();
    println!("| setup | subscribers | events | deliveries | p50 ms | p99 ms | max ms | server RSS idle MiB | with the streams MiB | KiB per stream |");
    println!("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
    println!(
        "{}",
        row(
            "one instance, `--store memory`",
            &options.subscribers.to_string(),
            options.events,
            &one
        )
    );
    println!(
        "{}",
        row(
            &format!("two instances, `--store redis://` (Redis {redis_version}), publishing alternately to each"),
            &format!("{} ({half} + {})", options.subscribers, options.subscribers - half),
            options.events,
            &two,
        )
    );
}
