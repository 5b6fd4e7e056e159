//! Load and abuse, bounded in count and time: many streams, slow and idle
//! connections, the connection cap, many sessions, a stalled subscriber.

use crate::support::*;
use serde_json::{json, Value};
use std::time::{Duration, Instant};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_thousand_streams_on_one_instance_all_receive_a_publish() {
    const STREAMS: usize = 1000;
    let server = Server::start(&[]);
    let c = client();
    let first = publish_ok(&c, &server.url, "crowd", &event(1)).await[0];
    let url = format!("{}api/sessions/crowd/events", server.url);
    let mut opening = Vec::with_capacity(STREAMS);
    for _ in 0..STREAMS {
        let (c, url) = (c.clone(), url.clone());
        opening.push(tokio::spawn(async move {
            Sse::open(&c, &url, Some(first)).await
        }));
    }
    let mut streams = Vec::with_capacity(STREAMS);
    for o in opening {
        streams.push(o.await.expect("opened"));
    }
    let second = publish_ok(&c, &server.url, "crowd", &event(2)).await[0];
    let readers: Vec<_> = streams
        .into_iter()
        .map(|mut s| {
            tokio::spawn(async move { s.next_event(Duration::from_secs(30)).await.map(|e| e.0) })
        })
        .collect();
    let mut got = 0;
    for r in readers {
        assert_eq!(r.await.expect("reader"), Some(second));
        got += 1;
    }
    assert_eq!(got, STREAMS);
}

/// A raw connection that sends `request` one byte every `every`; returns how long until the server closed it.
async fn dribble(
    addr: String,
    request: Vec<u8>,
    every: Duration,
    give_up: Duration,
) -> Option<Duration> {
    let start = Instant::now();
    let stream = TcpStream::connect(&addr).await.ok()?;
    let (mut read, mut write) = stream.into_split();
    let writer = async move {
        for byte in request {
            if write.write_all(&[byte]).await.is_err() {
                break;
            }
            tokio::time::sleep(every).await;
        }
        std::future::pending::<()>().await;
    };
    let closed = async move {
        let mut buf = [0u8; 1024];
        loop {
            match read.read(&mut buf).await {
                Ok(0) | Err(_) => return start.elapsed(),
                Ok(_) => continue,
            }
        }
    };
    tokio::select! {
        t = closed => Some(t),
        _ = writer => None,
        _ = tokio::time::sleep(give_up) => None,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_hundred_slow_header_clients_do_not_stop_others_and_are_closed() {
    let server = Server::start(&["--header-read-timeout-secs", "2"]);
    let request = b"GET /healthz HTTP/1.1\r\nHost: slow\r\nX-Slow: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\r\n\r\n".to_vec();
    let slow: Vec<_> = (0..200)
        .map(|_| {
            tokio::spawn(dribble(
                server.addr(),
                request.clone(),
                Duration::from_secs(1),
                Duration::from_secs(15),
            ))
        })
        .collect();
    tokio::time::sleep(Duration::from_millis(300)).await;
    let c = client();
    for _ in 0..20 {
        let t = Instant::now();
        let (status, _) = get_json(&c, &server.url, "healthz").await;
        assert_eq!(status, 200);
        assert!(
            t.elapsed() < Duration::from_secs(2),
            "served at once: {:?}",
            t.elapsed()
        );
    }
    for s in slow {
        let closed = s
            .await
            .expect("task")
            .expect("the server closed the slow connection");
        assert!(
            closed >= Duration::from_millis(1900) && closed < Duration::from_secs(6),
            "{closed:?}"
        );
    }
}

/// Header lines every 200 ms, silent connections and idle
/// keep-alives were never closed, and past the descriptors real requests
/// timed out. Now: the header-read timeout, the idle timeout, and a cap
/// answered with a JSON 503.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn slow_idle_and_surplus_connections_are_closed_or_refused() {
    let server = Server::start(&[
        "--header-read-timeout-secs",
        "1",
        "--idle-timeout-secs",
        "1.5",
        "--max-connections",
        "80",
        "--keep-alive-secs",
        "0.3",
    ]);
    let mut lines = b"GET /healthz HTTP/1.1\r\n".to_vec();
    for _ in 0..200 {
        lines.extend_from_slice(b"X-Pad: x\r\n");
    }
    // 30 connections sending a header line every 200 ms, 20 sending nothing.
    let mut waiting = Vec::new();
    for i in 0..50 {
        let addr = server.addr();
        let lines = lines.clone();
        waiting.push(tokio::spawn(async move {
            if i < 30 {
                let start = Instant::now();
                let mut s = TcpStream::connect(&addr).await.expect("connect");
                for chunk in lines.chunks(10) {
                    if s.write_all(chunk).await.is_err() {
                        return Some(start.elapsed());
                    }
                    let mut probe = [0u8; 64];
                    match tokio::time::timeout(Duration::from_millis(200), s.read(&mut probe)).await
                    {
                        Ok(Ok(0)) | Ok(Err(_)) => return Some(start.elapsed()),
                        _ => {}
                    }
                    if start.elapsed() > Duration::from_secs(10) {
                        return None;
                    }
                }
                None
            } else {
                dribble(
                    addr,
                    Vec::new(),
                    Duration::from_secs(1),
                    Duration::from_secs(10),
                )
                .await
            }
        }));
    }
    // A keep-alive connection idle after one request.
    let mut idle = TcpStream::connect(server.addr()).await.expect("connect");
    idle.write_all(b"GET /healthz HTTP/1.1\r\nHost: t\r\n\r\n")
        .await
        .expect("send");
    let idle_start = Instant::now();
    let mut buf = vec![0u8; 4096];
    let n = idle.read(&mut buf).await.expect("answer");
    assert!(String::from_utf8_lossy(&buf[..n]).starts_with("HTTP/1.1 200"));
    // A stream on an otherwise idle connection stays open past both timeouts.
    let c = client_no_pool();
    publish_ok(&c, &server.url, "s", &event(1)).await;
    let mut stream = Sse::open(&c, &format!("{}api/sessions/s/events", server.url), None).await;

    for w in waiting {
        let closed = w.await.expect("task").expect("closed by the server");
        assert!(closed < Duration::from_secs(4), "{closed:?}");
    }
    let closed = loop {
        match tokio::time::timeout(Duration::from_secs(5), idle.read(&mut buf)).await {
            Ok(Ok(0)) | Ok(Err(_)) => break idle_start.elapsed(),
            Ok(Ok(_)) => continue,
            Err(_) => panic!("the idle keep-alive connection was not closed"),
        }
    };
    assert!(
        closed >= Duration::from_millis(1400) && closed < Duration::from_secs(4),
        "{closed:?}"
    );
    assert!(stream.next_event(Duration::from_secs(2)).await.is_some());
    assert!(
        !stream.ends_within(Duration::from_secs(3)).await,
        "a stream is never idle-timed out"
    );

    // The cap: 80 connections held, the next ones answered 503 with a JSON body at once.
    let mut held = Vec::new();
    for _ in 0..80 {
        held.push(TcpStream::connect(server.addr()).await.expect("connect"));
    }
    tokio::time::sleep(Duration::from_millis(200)).await;
    let t = Instant::now();
    let answer = raw_healthz(server.addr(), false, Duration::from_secs(5)).await;
    assert!(
        t.elapsed() < Duration::from_secs(2),
        "a clear answer, not a timeout"
    );
    assert!(answer.starts_with("HTTP/1.1 503 "), "{answer}");
    assert!(raw_json_body(&answer)["error"]
        .as_str()
        .is_some_and(|e| e.contains("too many connections")));
    // The held connections send nothing: the header timeout frees them, and requests are served again.
    tokio::time::sleep(Duration::from_millis(1500)).await;
    let (status, _) = get_json(&c, &server.url, "healthz").await;
    assert_eq!(status, 200);
    drop(held);
    let metrics = metrics_text(&c, &server.url).await;
    assert!(
        !metrics.contains("ctxguard_connections_rejected_total 0\n"),
        "{metrics}"
    );
}

/// 8 000 half-sent requests used to hold 140 MB that stayed. Now
/// each wave of half-sent requests is closed by the header-read timeout, its
/// connections are released, and memory stays bounded wave after wave.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn half_sent_requests_are_closed_and_memory_stays_bounded() {
    const WAVE: usize = 2000;
    const WAVES: usize = 4;
    let server = Server::start(&["--header-read-timeout-secs", "1"]);
    let c = client_no_pool();
    let rss_start = server.rss_kib();
    let mut peaks = Vec::new();
    for wave in 1..=WAVES {
        let mut held = Vec::with_capacity(WAVE);
        for _ in 0..WAVE {
            let mut s = TcpStream::connect(server.addr()).await.expect("connect");
            s.write_all(b"POST /api/sessions/s/events HTTP/1.1\r\nHost: half\r\nX-Half: ")
                .await
                .expect("send");
            held.push(s);
        }
        tokio::time::sleep(Duration::from_millis(300)).await;
        peaks.push(server.rss_kib());
        let closed: Vec<_> = held
            .into_iter()
            .map(|mut s| {
                tokio::spawn(async move {
                    let mut buf = [0u8; 64];
                    matches!(
                        tokio::time::timeout(Duration::from_secs(5), s.read(&mut buf)).await,
                        Ok(Ok(0)) | Ok(Err(_))
                    )
                })
            })
            .collect();
        for closed in closed {
            assert!(
                closed.await.expect("task"),
                "a half-sent request was not closed"
            );
        }
        // A client sees its socket closed a moment before the server's connection task ends and
        // counts it out, so the gauges are read until they settle (for at most 5 s).
        let timed_out = format!("\nctxguard_connections_timed_out_total {}\n", wave * WAVE);
        let settled =
            |m: &str| m.contains(&timed_out) && m.contains("\nctxguard_open_connections 1\n");
        let mut metrics = metrics_text(&c, &server.url).await;
        for _ in 0..100 {
            if settled(&metrics) {
                break;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
            metrics = metrics_text(&c, &server.url).await;
        }
        assert!(settled(&metrics), "{metrics}");
    }
    eprintln!(
        "RSS {rss_start} KiB at start, {peaks:?} KiB with {WAVE} half-sent requests, {WAVES} waves"
    );
    for peak in &peaks {
        assert!(
            *peak < rss_start + 96 * 1024,
            "{WAVE} half-sent requests: RSS {peak} KiB from {rss_start} KiB"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn under_256_open_files_300_silent_connections_get_answers_not_timeouts() {
    let server = Server::start_with(
        &["--header-read-timeout-secs", "2"],
        &[("CTXGUARD_PUBLISH_TOKEN", PUBLISH_TOKEN)],
        Some(256),
    );
    let mut silent = Vec::new();
    for _ in 0..300 {
        if let Ok(s) = TcpStream::connect(server.addr()).await {
            silent.push(s);
        }
    }
    tokio::time::sleep(Duration::from_millis(300)).await;
    let t = Instant::now();
    let answer = raw_healthz(server.addr(), true, Duration::from_secs(5)).await;
    assert!(
        t.elapsed() < Duration::from_secs(2),
        "answered in {:?}",
        t.elapsed()
    );
    assert!(
        answer.starts_with("HTTP/1.1 200 ") || answer.starts_with("HTTP/1.1 503 "),
        "{answer:?}"
    );
    // The silent ones time out; then requests are served.
    let deadline = Instant::now() + Duration::from_secs(8);
    loop {
        let answer = raw_healthz(server.addr(), true, Duration::from_secs(5)).await;
        if answer.starts_with("HTTP/1.1 200 ") {
            break;
        }
        assert!(Instant::now() < deadline, "still {answer:?}");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    drop(silent);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ten_thousand_sessions_then_eviction_keep_memory_bounded() {
    const CAP: usize = 2000;
    let server = Server::start(&["--max-sessions", &CAP.to_string()]);
    let c = client();
    let body = json!([event(100), event(200)]);
    let mut rss_full = 0;
    for wave in 0..5 {
        let mut tasks = tokio::task::JoinSet::new();
        for worker in 0..16 {
            let (c, url, body) = (c.clone(), server.url.clone(), body.clone());
            tasks.spawn(async move {
                for i in (worker..CAP).step_by(16) {
                    publish_ok(&c, &url, &format!("w{wave}-s{i}"), &body).await;
                }
            });
        }
        while let Some(r) = tasks.join_next().await {
            r.expect("publisher");
        }
        if wave == 0 {
            rss_full = server.rss_kib();
        }
    }
    let rss_end = server.rss_kib();
    let metrics = metrics_text(&c, &server.url).await;
    assert!(
        metrics.contains(&format!("\nctxguard_sessions {CAP}\n")),
        "{metrics}"
    );
    assert!(
        metrics.contains("\nctxguard_events_published_total 20000\n"),
        "{metrics}"
    );
    let (status, _) = get_json(&c, &server.url, "api/sessions/w0-s0/context").await;
    assert_eq!(status, 404, "evicted: gone at once");
    let (status, _) = get_json(&c, &server.url, "api/sessions/w4-s0/context").await;
    assert_eq!(status, 200);
    // 8 000 more sessions than the cap cost no more than 16 MiB once the cap is reached.
    assert!(
        rss_end < rss_full + 16 * 1024,
        "RSS {rss_full} KiB at the cap, {rss_end} KiB after 10 000 sessions"
    );
    eprintln!("RSS {rss_full} KiB at {CAP} sessions, {rss_end} KiB after 10 000");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_subscriber_that_stops_reading_does_not_grow_memory() {
    let server = Server::start(&[]);
    let c = client();
    let mut big = event(1);
    big["response_id"] = Value::String(format!("resp_{}", "x".repeat(2000)));
    let first = publish_ok(&c, &server.url, "s", &big).await[0];
    // One stream reads nothing at all; another reads everything.
    let mut stalled = TcpStream::connect(server.addr()).await.expect("connect");
    stalled
        .write_all(
            format!(
                "GET /api/sessions/s/events HTTP/1.1\r\nHost: t\r\nLast-Event-ID: {first}\r\n\r\n"
            )
            .as_bytes(),
        )
        .await
        .expect("send");
    let mut reader = Sse::open(
        &c,
        &format!("{}api/sessions/s/events", server.url),
        Some(first),
    )
    .await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    let before = server.rss_kib();
    let batch = Value::Array(vec![big.clone(); 100]);
    let mut last = 0;
    let mut seen = 0;
    for _ in 0..100 {
        last = *publish_ok(&c, &server.url, "s", &batch)
            .await
            .last()
            .expect("ids");
        while let Some((id, _)) = reader.next_event(Duration::from_millis(1)).await {
            seen += 1;
            if id == last {
                break;
            }
        }
    }
    while let Some((id, _)) = reader.next_event(Duration::from_secs(10)).await {
        seen += 1;
        if id == last {
            break;
        }
    }
    let after = server.rss_kib();
    assert!(seen > 0, "the reading stream kept receiving");
    // 10 000 events of 2 KB (20 MB) went out; the stalled stream holds no more than its socket and a channel.
    assert!(
        after < before + 12 * 1024,
        "RSS {before} KiB before, {after} KiB after 20 MB to a stalled stream"
    );
    drop(stalled);
}
