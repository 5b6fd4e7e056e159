//! The demo on a virtual clock, and once on tokio against a summariser stub.

use super::*;
use crate::publishers::summarizer::testing::{completion, http, stub};
use crate::publishers::Publisher;
use crate::server::builtin::{Builtin, Profile};
use crate::server::hub::Delivery;
use crate::server::metrics::Metrics;
use crate::server::store::memory::MemoryStore;
use crate::server::store::{Store, StoreLimits};
use crate::server::testing::sid;
use ctxguard_core::guard::{is_summary, SUMMARY_INSTRUCTION};
use ctxguard_core::protocol::failure_reason;
use ctxguard_core::tool_output::COMPACTED_FLAG;
use std::sync::Arc;
use tokio::sync::watch;

const START: i64 = 1_782_226_534_512_345;

/// Steps the demo on a virtual clock until `until`, recording each event with its time.
fn run(config: DemoConfig, until: Duration) -> Vec<(Duration, StatusEvent)> {
    let mut demo = Demo::new(config, START);
    let mut out = Vec::new();
    while demo.next_deadline() <= until {
        let at = demo.next_deadline();
        for e in demo.handle_timeout(at) {
            out.push((at, e));
        }
    }
    out
}

/// One compaction as the toolbar saw it.
#[derive(Debug)]
struct Lifecycle {
    started_at: Duration,
    beats: Vec<Duration>,
    end: Option<(Duration, StatusEvent)>,
    then: Option<StatusEvent>,
    started: StatusEvent,
}

fn lifecycles(events: &[(Duration, StatusEvent)]) -> Vec<Lifecycle> {
    let mut out: Vec<Lifecycle> = Vec::new();
    for (at, e) in events {
        let Some(c) = &e.context_compaction else {
            if let Some(last) = out.last_mut() {
                if last.end.is_some() && last.then.is_none() {
                    last.then = Some(e.clone());
                }
            }
            continue;
        };
        match c.status {
            CompactionStatus::Started => out.push(Lifecycle {
                started_at: *at,
                beats: Vec::new(),
                end: None,
                then: None,
                started: e.clone(),
            }),
            CompactionStatus::InProgress => {
                let l = out.last_mut().expect("a heartbeat inside a lifecycle");
                assert!(l.end.is_none(), "heartbeat after the end: {e:?}");
                l.beats.push(*at - l.started_at);
            }
            _ => {
                let l = out.last_mut().expect("an end inside a lifecycle");
                assert!(l.end.is_none(), "two ends");
                l.end = Some((*at - l.started_at, e.clone()));
            }
        }
        let l = out.last().expect("lifecycle");
        let first = l.started.context_compaction.as_ref().expect("c");
        assert_eq!(
            c.created_at, first.created_at,
            "one created_at per lifecycle"
        );
        assert_eq!(c.before_tokens, first.before_tokens);
    }
    out
}

fn secs(s: u64) -> Duration {
    Duration::from_secs(s)
}

#[test]
fn events_are_valid_and_phases_follow_the_reference() {
    let events = run(DemoConfig::default(), secs(900));
    assert!(
        events.len() > 100,
        "a quarter hour of demo emits plenty ({})",
        events.len()
    );
    let limits = demo_limits();
    for (_, e) in &events {
        e.validate().expect("valid event");
        assert_eq!(e.context_metrics.context_window, CONTEXT_WINDOW_TOKENS);
        assert_eq!(e.context_metrics.trigger_limit, limits.trigger_limit);
        let b = e.context_metrics.breakdown.expect("breakdown");
        let sum = b.system + b.user + b.assistant + b.tool_outputs + b.attachments + b.overhead;
        assert_eq!(sum, e.context_metrics.used_input_tokens);
        assert_eq!(
            e.context_compaction.is_some(),
            e.phase == Phase::SummaryCompact
        );
    }
    let count = |p: Phase| events.iter().filter(|(_, e)| e.phase == p).count();
    let turns = count(Phase::BuildMessages);
    assert!(turns > 20);
    assert!(count(Phase::Final) >= turns - 1);
    assert!(count(Phase::AfterToolEnd) > 0);
    assert!(count(Phase::AfterCompaction) >= 3);
    assert!(events.iter().any(|(_, e)| e
        .context_metrics
        .breakdown
        .is_some_and(|b| b.attachments > 0)));
}

#[test]
fn after_tool_end_is_throttled_like_the_reference() {
    let events = run(DemoConfig::default(), secs(600));
    let mut prev: Option<EmitState> = None;
    for (_, e) in &events {
        let cur = EmitState::from(&e.context_metrics);
        if e.phase == Phase::AfterToolEnd {
            assert!(
                should_emit(prev, cur, Phase::AfterToolEnd),
                "{e:?} after {prev:?}"
            );
        }
        prev = Some(cur);
    }
}

#[test]
fn a_compaction_runs_started_in_progress_completed_through_the_guard() {
    let config = DemoConfig {
        fail_every: 0,
        ..DemoConfig::default()
    };
    let events = run(config, secs(1_500));
    let limits = demo_limits();
    let all = lifecycles(&events);
    let done: Vec<_> = all.iter().filter(|l| l.end.is_some()).collect();
    assert!(done.len() >= 3, "{} compactions", done.len());
    for l in done {
        let start = l.started.context_compaction.as_ref().expect("c");
        assert!(start.before_tokens >= limits.trigger_limit);
        assert_eq!(
            start.before_tokens,
            l.started.context_metrics.used_input_tokens
        );
        assert_eq!(
            l.beats,
            vec![secs(15), secs(30)],
            "40 s summary, a heartbeat every 15 s"
        );
        let (took, end_event) = l.end.as_ref().expect("end");
        assert_eq!(*took, secs(40));
        let end = end_event.context_compaction.as_ref().expect("c");
        assert_eq!(end.status, CompactionStatus::Completed);
        let after = end.after_tokens.expect("after_tokens");
        assert!(
            after < end.before_tokens && after < limits.target_limit,
            "{after}"
        );
        assert_eq!(end_event.context_metrics.used_input_tokens, after);
        assert!(end
            .summary_message_id
            .as_deref()
            .is_some_and(|s| s.len() == 36 && s.as_bytes()[14] == b'4'));
        assert!(end.failure_reason.is_none() && !end.used_legacy_fallback);
        let then = l.then.as_ref().expect("after_compaction");
        assert_eq!(then.phase, Phase::AfterCompaction);
        assert_eq!(then.context_metrics.used_input_tokens, after);
    }
}

#[test]
fn injected_errors_exercise_the_retry_and_the_fallback() {
    // fail_every 4: #2 is rejected as too long once and retried, #4 falls back.
    let mut demo = Demo::new(DemoConfig::default(), START);
    let mut events = Vec::new();
    let mut sizes: Vec<(u32, u32, usize)> = Vec::new();
    while demo.stats().compactions < 5 {
        let at = demo.next_deadline();
        for e in demo.handle_timeout(at) {
            events.push((at, e));
        }
        if let Some(c) = &demo.compaction {
            let key = (demo.stats().compactions, c.request.attempt());
            if sizes.last().map(|s| (s.0, s.1)) != Some(key) {
                sizes.push((key.0, key.1, c.request.messages().len()));
            }
        }
        assert!(at < secs(20_000), "five compactions take less than that");
    }
    let all = lifecycles(&events);
    assert_eq!(all.len(), 5);
    let ends: Vec<_> = all[..4]
        .iter()
        .map(|l| {
            let (took, e) = l.end.as_ref().expect("ended");
            (*took, e.context_compaction.clone().expect("c"))
        })
        .collect();
    let statuses: Vec<_> = ends.iter().map(|(_, c)| c.status).collect();
    use CompactionStatus::{Completed, Fallback};
    assert_eq!(statuses, [Completed, Completed, Completed, Fallback]);
    // The retry: rejected after 8 s, then a 40 s summary of fewer messages; heartbeats go on.
    assert_eq!(ends[1].0, secs(48));
    assert_eq!(all[1].beats, vec![secs(15), secs(30), secs(45)]);
    let of = |n: u32| -> Vec<usize> { sizes.iter().filter(|s| s.0 == n).map(|s| s.2).collect() };
    let retried = of(2);
    assert_eq!(retried.len(), 2, "{sizes:?}");
    assert!(
        retried[1] < retried[0],
        "the retry sends fewer messages: {retried:?}"
    );
    assert!(ends[1].1.after_tokens.expect("after") < ends[1].1.before_tokens);
    // The fallback: rejected as too long, then a 503 → summary_compact_failed.
    assert_eq!(ends[3].0, secs(16));
    assert_eq!(of(4).len(), 2);
    let fallback = &ends[3].1;
    assert_eq!(
        fallback.failure_reason.as_deref(),
        Some(failure_reason::FAILED)
    );
    assert!(fallback.after_tokens.is_none() && fallback.summary_message_id.is_none());
    let then = all[3].then.as_ref().expect("after_compaction");
    assert_eq!(then.phase, Phase::AfterCompaction);
    assert!(then.context_metrics.used_input_tokens < demo_limits().trigger_limit);
    let stats = demo.stats();
    assert_eq!((stats.completed, stats.fallbacks), (3, 1));
    assert!(stats.retries >= 2, "{stats:?}");
    let notes = demo.take_notes().join("\n");
    assert!(notes.contains("context_length_exceeded"), "{notes}");
    assert!(notes.contains("summariser unavailable"), "{notes}");
}

#[test]
fn speed_heartbeat_and_failure_reason_shape_a_fast_script() {
    let config = DemoConfig {
        speed: 20.0,
        heartbeat: Duration::from_millis(200),
        fail_every: 1,
        failure_reason: Some("<img src=x onerror=alert(1)>".into()),
        ..DemoConfig::default()
    };
    let events = run(config, secs(60));
    let all = lifecycles(&events);
    let first = all
        .first()
        .expect("a compaction within a minute at speed 20");
    // Rejected as too long at 8 s / 20, failed at 16 s / 20: heartbeats every 200 ms between.
    let (took, end) = first.end.as_ref().expect("ended");
    assert_eq!(*took, Duration::from_millis(800));
    assert_eq!(first.beats.len(), 3, "{:?}", first.beats);
    let c = end.context_compaction.as_ref().expect("c");
    assert_eq!(c.status, CompactionStatus::Fallback);
    assert_eq!(
        c.failure_reason.as_deref(),
        Some("<img src=x onerror=alert(1)>")
    );
    // Every compaction falls back, yet the demo goes on under the window.
    assert!(all.len() >= 2);
    for (_, e) in &events {
        assert!(e.context_metrics.used_input_tokens < CONTEXT_WINDOW_TOKENS);
    }
}

#[test]
fn the_replacement_keeps_system_and_marks_its_messages() {
    let mut demo = Demo::new(
        DemoConfig {
            fail_every: 0,
            ..DemoConfig::default()
        },
        0,
    );
    while !demo.is_compacting() {
        let at = demo.next_deadline();
        demo.handle_timeout(at);
    }
    // The source pass rendered every tool output before the guard measured it.
    assert!(demo
        .history()
        .iter()
        .filter(|m| m.is_tool())
        .all(|m| m.has_flag(COMPACTED_FLAG)));
    let request = &demo.compaction.as_ref().expect("c").request;
    assert_eq!(
        request.messages().last().and_then(Message::text),
        Some(SUMMARY_INSTRUCTION)
    );
    let at = demo.next_deadline() + secs(60);
    demo.handle_timeout(at);
    assert!(!demo.is_compacting());
    let h = demo.history();
    assert_eq!(h[0].role, "system");
    let summaries: Vec<_> = h.iter().filter(|m| is_summary(m)).collect();
    assert_eq!(summaries.len(), 1);
    let summary = summaries[0];
    assert!(summary.has_flag(COMPACTED_FLAG));
    let text = summary.content_as_text();
    assert!(
        text.contains("Objective: ") && text.contains("- user asked: "),
        "{text}"
    );
    assert!(h.iter().any(|m| m.has_flag("checkpoint_retained")));
    assert_eq!(demo.used_tokens(), demo.counter.count_messages(h));
}

fn external_config() -> DemoConfig {
    DemoConfig {
        fail_every: 0,
        summarizer: SummarizerChoice::Http(HttpSummarizerConfig {
            url: "http://127.0.0.1:9/v1/chat/completions".into(),
            model: "m".into(),
            timeout: secs(5),
            api_key: None,
        }),
        ..DemoConfig::default()
    }
}

#[test]
fn an_external_summary_waits_for_the_host_with_heartbeats_and_retries() {
    let mut demo = Demo::new(external_config(), START);
    let mut events = Vec::new();
    while !demo.is_compacting() {
        let at = demo.next_deadline();
        events.extend(demo.handle_timeout(at));
    }
    let call = demo.take_summary_call().expect("a call for the host");
    assert!(demo.take_summary_call().is_none(), "handed out once");
    assert_eq!(
        call.messages.last().and_then(Message::text),
        Some(SUMMARY_INSTRUCTION)
    );
    let started = events.last().expect("started").clone();
    let t0 = demo.next_deadline() - secs(15);
    // A slow summariser: heartbeats keep coming, nothing else happens.
    let beats = demo.handle_timeout(t0 + secs(100));
    assert_eq!(beats.len(), 6);
    assert!(beats.iter().all(|e| e
        .context_compaction
        .as_ref()
        .is_some_and(|c| c.status == CompactionStatus::InProgress)));
    assert!(demo
        .summary_result(call.id + 7, Ok("stale".into()), t0 + secs(101))
        .is_empty());
    // 413: the guard retries with fewer messages.
    let too_long = SummaryError::new("HTTP 413: request too large").with_status(413);
    assert!(demo
        .summary_result(call.id, Err(too_long), t0 + secs(102))
        .is_empty());
    let retry = demo.take_summary_call().expect("the retry");
    assert!(retry.id > call.id && retry.messages.len() < call.messages.len());
    let out = demo.summary_result(retry.id, Ok("the external summary".into()), t0 + secs(103));
    let end = out[0].context_compaction.as_ref().expect("c");
    assert_eq!(end.status, CompactionStatus::Completed);
    assert_eq!(
        end.created_at,
        started.context_compaction.as_ref().expect("c").created_at
    );
    assert!(end.after_tokens.expect("after") < end.before_tokens);
    assert_eq!(out[1].phase, Phase::AfterCompaction);
    let summary = demo
        .history()
        .iter()
        .find(|m| is_summary(m))
        .expect("summary");
    assert!(summary.content_as_text().ends_with("the external summary"));
    assert_eq!(demo.stats().retries, 1);
}

/// The demo driven on tokio with `--summarizer-url` pointing at a loopback stub
/// that first says `context_length_exceeded`, then summarises.
#[tokio::test]
async fn drive_calls_the_summarizer_url() {
    let too_long = r#"{"error":{"message":"maximum context length exceeded","code":"context_length_exceeded"}}"#;
    let s = stub(
        vec![(400, too_long.into()), (200, completion("stub summary"))],
        Duration::from_millis(50),
    )
    .await;
    let mut config = external_config();
    config.speed = 400.0;
    config.heartbeat = Duration::from_millis(20);
    let SummarizerChoice::Http(h) = &mut config.summarizer else {
        unreachable!()
    };
    h.url = s.url.clone();
    let store: Arc<dyn Store> = Arc::new(MemoryStore::new(StoreLimits::default()));
    let builtin = Builtin::new(sid("demo"), Profile::default());
    store.pin(builtin.id()).await.expect("pinned");
    let mut live = store
        .subscribe(builtin.id(), None)
        .await
        .expect("ok")
        .expect("exists")
        .live;
    let publisher = Publisher::new(store.clone(), Arc::new(Metrics::default()), builtin);
    let (stop_tx, stop_rx) = watch::channel(false);
    let demo = Demo::new(config, START);
    let task = tokio::spawn(drive(demo, Some(http(&s.url, secs(5))), publisher, stop_rx));
    let mut seen = Vec::new();
    let completed = tokio::time::timeout(secs(60), async {
        loop {
            match live.recv().await {
                Delivery::Event(stored) => {
                    let Some(e) = stored.event.clone() else {
                        continue;
                    };
                    if let Some(c) = &e.context_compaction {
                        seen.push(c.status);
                        if c.status == CompactionStatus::Completed {
                            return c.clone();
                        }
                    }
                }
                Delivery::Lagged => continue,
                Delivery::Closed => panic!("stream ended"),
            }
        }
    })
    .await
    .expect("a completed compaction within a minute");
    let _ = stop_tx.send(true);
    tokio::time::timeout(secs(5), task)
        .await
        .expect("drive stops")
        .expect("no panic");
    assert_eq!(seen.first(), Some(&CompactionStatus::Started));
    assert!(seen.contains(&CompactionStatus::InProgress), "{seen:?}");
    assert!(completed.after_tokens.expect("after") < completed.before_tokens);
    let requests = s.requests.lock().expect("lock");
    assert_eq!(requests.len(), 2);
    let len = |i: usize| {
        requests[i]["messages"]
            .as_array()
            .map(Vec::len)
            .unwrap_or(0)
    };
    assert!(len(1) < len(0), "the retry sends fewer messages");
    assert_eq!(requests[0]["model"], "stub-model");
}
