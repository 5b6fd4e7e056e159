use super::*;
use crate::testing::*;
use crate::view::Source;
use serde_json::json;

#[test]
fn shows_remaining_usage_and_bar_shares() {
    let mut t = Toolbar::new();
    assert!(t.view(T0).metrics.is_none());
    assert_eq!(apply(&mut t, 1, &event(32_000)), EventOutcome::Applied);
    let m = t.view(T0).metrics.expect("metrics after an event");
    assert_eq!(m.remaining_percent, 75);
    assert_eq!((m.used_tokens, m.window_tokens), (32_000, 128_000));
    assert!(!m.over_trigger);
    assert!((m.used_percent - 25.0).abs() < 1e-9);
    assert!((m.trigger_percent - 78.75).abs() < 1e-9);
    assert!((m.target_percent - 70.0).abs() < 1e-9);
    assert!(m.breakdown.is_none());
}

#[test]
fn remaining_percent_is_clamped() {
    let mut t = Toolbar::new();
    let mut e = event(1);
    e["context_metrics"]["display_remaining_percent"] = json!(140);
    apply(&mut t, 1, &e);
    assert_eq!(t.view(T0).metrics.expect("metrics").remaining_percent, 100);
    e["context_metrics"]["display_remaining_percent"] = json!(0);
    apply(&mut t, 2, &e);
    assert_eq!(t.view(T0).metrics.expect("metrics").remaining_percent, 0);
    // A negative count (a Wegent backend over its window sends them) reads as 0.
    e["context_metrics"]["display_remaining_percent"] = json!(-3);
    assert_eq!(apply(&mut t, 3, &e), EventOutcome::Applied);
    assert_eq!(t.view(T0).metrics.expect("metrics").remaining_percent, 0);
    assert_eq!(t.view(T0).last_event_id, Some(3));
}

#[test]
fn over_trigger_follows_the_event() {
    let mut t = Toolbar::new();
    apply(&mut t, 1, &event(120_000));
    assert!(t.view(T0).metrics.expect("metrics").over_trigger);
    apply(&mut t, 2, &event(50_000));
    assert!(!t.view(T0).metrics.expect("metrics").over_trigger);
}

#[test]
fn events_apply_in_id_order() {
    let mut t = Toolbar::new();
    assert_eq!(apply(&mut t, 5, &event(10_000)), EventOutcome::Applied);
    assert_eq!(apply(&mut t, 4, &event(90_000)), EventOutcome::Stale);
    assert_eq!(apply(&mut t, 5, &event(90_000)), EventOutcome::Stale);
    assert_eq!(t.view(T0).metrics.expect("metrics").used_tokens, 10_000);
    assert_eq!(apply(&mut t, 9, &event(20_000)), EventOutcome::Applied);
    assert_eq!(t.last_event_id(), Some(9));
    assert_eq!(t.ignored().stale, 2);
    assert_eq!(t.ignored().rejected(), 0);
}

#[test]
fn malformed_and_unknown_events_change_nothing() {
    let mut t = Toolbar::new();
    apply(&mut t, 1, &event(10_000));
    let before = t.view(T0);
    let bad: Vec<(Option<&str>, &str, String)> = vec![
        (Some("2"), EVENT_NAME, "{not json".into()),
        (
            Some("3"),
            EVENT_NAME,
            json!({"type": "response.status.updated"}).to_string(),
        ),
        (Some("4"), EVENT_NAME, {
            let mut e = event(1);
            e["phase"] = json!(4);
            e.to_string()
        }),
        (Some("5"), EVENT_NAME, {
            let mut e = event(1);
            e["type"] = json!("other");
            e.to_string()
        }),
        (Some("6"), EVENT_NAME, {
            let mut e = event(1);
            e["context_metrics"]["used_input_tokens"] = json!("many");
            e.to_string()
        }),
        (Some("7"), EVENT_NAME, {
            let mut e = compaction_event("started", json!({}));
            e["context_compaction"]["created_at"] = json!("yesterday");
            e.to_string()
        }),
        (Some("8"), EVENT_NAME, {
            let mut e = event(1);
            e["context_metrics"]["context_window"] = json!(null);
            e.to_string()
        }),
        (None, EVENT_NAME, event(1).to_string()),
        (Some("x9"), EVENT_NAME, event(1).to_string()),
        (Some("10"), EVENT_NAME, "null".into()),
    ];
    for (id, name, data) in &bad {
        assert_eq!(
            t.apply_event(*id, name, data, T0),
            EventOutcome::Malformed,
            "{data}"
        );
    }
    assert_eq!(
        t.apply_event(Some("11"), "message", &event(1).to_string(), T0),
        EventOutcome::Unknown
    );
    assert_eq!(t.view(T0).metrics, before.metrics);
    assert_eq!(t.view(T0).compaction, before.compaction);
    assert_eq!(t.last_event_id(), Some(1));
    assert_eq!(t.ignored().malformed, bad.len() as u64);
    assert_eq!(t.ignored().unknown, 1);
    // A later valid event still applies: the bad ids did not advance the cursor.
    assert_eq!(apply(&mut t, 2, &event(20_000)), EventOutcome::Applied);
}

/// An event naming a key twice is malformed here as in core's parser and the
/// relay (one rule, `StatusEvent::accept_text`), whichever of its values would have applied.
#[test]
fn an_event_with_a_repeated_key_is_malformed() {
    let mut t = Toolbar::new();
    let text = event(10_000).to_string();
    let repeated = text.replacen("\"phase\":", "\"phase\":\"turn_end\",\"phase\":", 1);
    assert_ne!(text, repeated);
    let outcome = t.apply_event(Some("1"), EVENT_NAME, &repeated, T0);
    assert_eq!(outcome, EventOutcome::Malformed);
    assert!(t.view(T0).metrics.is_none());
    assert!(ctxguard_core::protocol::StatusEvent::parse(&repeated).is_err());
    assert_eq!(apply(&mut t, 2, &event(10_000)), EventOutcome::Applied);
}

#[test]
fn unknown_fields_are_ignored() {
    let mut t = Toolbar::new();
    let mut e = event(10_000);
    e["surprise"] = json!({"nested": [1, 2]});
    e["context_metrics"]["future_field"] = json!(true);
    assert_eq!(apply(&mut t, 1, &e), EventOutcome::Applied);
}

#[test]
fn compaction_lifecycle() {
    let mut t = Toolbar::new();
    apply(&mut t, 1, &event(90_000));
    assert_eq!(
        t.view(T0).compaction,
        CompactionView::Idle {
            trigger_tokens: Some(100_800)
        }
    );

    apply(&mut t, 2, &compaction_event("started", json!({})));
    assert_eq!(
        t.view(T0 + 12_400.0).compaction,
        CompactionView::Compacting {
            elapsed_secs: 12,
            before_tokens: 110_000,
            target_tokens: 89_600
        }
    );
    apply(&mut t, 3, &compaction_event("in_progress", json!({})));
    assert_eq!(t.view(T0 + 30_000.0).compaction.state(), "compacting");

    apply(
        &mut t,
        4,
        &compaction_event(
            "completed",
            json!({"after_tokens": 40_000, "summary_message_id": "m1"}),
        ),
    );
    assert_eq!(
        t.view(T0).compaction,
        CompactionView::Completed {
            before_tokens: 110_000,
            after_tokens: Some(40_000),
            saved_tokens: Some(70_000)
        }
    );
    // A later event without a compaction record keeps the outcome on show.
    let mut after = event(40_000);
    after["phase"] = json!("after_compaction");
    apply(&mut t, 5, &after);
    assert_eq!(t.view(T0).compaction.state(), "completed");

    apply(
        &mut t,
        6,
        &compaction_event(
            "fallback",
            json!({"failure_reason": "summary_compact_failed"}),
        ),
    );
    assert_eq!(
        t.view(T0).compaction,
        CompactionView::Fallback {
            reason: "summary_compact_failed".into()
        }
    );
}

#[test]
fn first_seen_in_progress_still_means_compacting() {
    // A reconnect mid-compaction: the replayed/cached event is the heartbeat.
    let mut t = Toolbar::new();
    apply(&mut t, 42, &compaction_event("in_progress", json!({})));
    assert_eq!(
        t.view(T0 + 45_000.0).compaction,
        CompactionView::Compacting {
            elapsed_secs: 45,
            before_tokens: 110_000,
            target_tokens: 89_600
        }
    );
    // And through /context.
    let snap: ContextState = serde_json::from_value(json!({
        "event_id": 43, "phase": "summary_compact", "context_metrics": metrics(110_000),
        "context_compaction": compaction_event("in_progress", json!({}))["context_compaction"].clone()
    }))
    .expect("snapshot json");
    let mut t = Toolbar::new();
    t.apply_context(snap, T0 + 1_000.0);
    assert_eq!(t.view(T0 + 61_000.0).compaction.state(), "compacting");
}

#[test]
fn elapsed_falls_back_to_local_time_when_created_at_is_ahead() {
    let mut t = Toolbar::new();
    let mut e = compaction_event("started", json!({}));
    e["context_compaction"]["created_at"] = json!("2030-01-01T00:00:00Z");
    t.apply_event(Some("1"), EVENT_NAME, &e.to_string(), T0);
    match t.view(T0 + 3_500.0).compaction {
        CompactionView::Compacting { elapsed_secs, .. } => assert_eq!(elapsed_secs, 3),
        other => panic!("expected compacting, got {other:?}"),
    }
}

#[test]
fn completed_without_after_tokens() {
    let mut t = Toolbar::new();
    apply(&mut t, 1, &compaction_event("completed", json!({})));
    assert_eq!(
        t.view(T0).compaction,
        CompactionView::Completed {
            before_tokens: 110_000,
            after_tokens: None,
            saved_tokens: None
        }
    );
}

#[test]
fn breakdown_is_passed_through() {
    let mut t = Toolbar::new();
    let mut e = event(12_800);
    e["context_metrics"]["breakdown"] = json!({"system": 1280, "user": 2560, "assistant": 3840,
        "tool_outputs": 2560, "attachments": 1280, "overhead": 1280});
    apply(&mut t, 1, &e);
    let parts = t
        .view(T0)
        .metrics
        .expect("metrics")
        .breakdown
        .expect("breakdown");
    assert_eq!(parts.len(), 6);
    assert_eq!(parts[0].source, Source::System);
    assert_eq!(parts[3].source.as_str(), "tool_outputs");
    assert!((parts[2].percent - 3.0).abs() < 1e-9);
}

#[test]
fn restored_until_confirmed_by_context() {
    let mut live = Toolbar::new();
    apply(&mut live, 7, &compaction_event("started", json!({})));
    let saved = live.saved().expect("state to save");

    let mut t = Toolbar::restored_from(Some(saved.clone()), T0);
    let v = t.view(T0 + 5_000.0);
    assert!(v.restored);
    assert_eq!(v.connection, Connection::Connecting);
    assert_eq!(v.compaction.state(), "compacting");
    assert_eq!(t.last_event_id(), Some(7));

    t.connection_lost();
    assert!(
        t.view(T0).restored,
        "a failed fetch does not confirm anything"
    );

    let mut confirmed = saved.state;
    confirmed.event_id = 9;
    confirmed.context_compaction = None;
    t.apply_context(confirmed, T0);
    let v = t.view(T0);
    assert!(!v.restored);
    assert_eq!(v.compaction.state(), "idle");
    assert_eq!(t.last_event_id(), Some(9));
}

#[test]
fn context_replaces_even_at_a_lower_id() {
    let mut t = Toolbar::new();
    apply(&mut t, 500, &event(90_000));
    let snap: ContextState = serde_json::from_value(
        json!({"event_id": 3, "phase": "build_messages", "context_metrics": metrics(1_000)}),
    )
    .expect("snapshot json");
    t.apply_context(snap, T0);
    assert_eq!(t.last_event_id(), Some(3));
    assert_eq!(t.view(T0).metrics.expect("metrics").used_tokens, 1_000);
    assert_eq!(apply(&mut t, 4, &event(2_000)), EventOutcome::Applied);
}

#[test]
fn context_parse_tolerates_empty_sessions_and_rejects_garbage() {
    let s = ContextState::parse(r#"{"event_id":0,"phase":null,"context_metrics":null}"#)
        .expect("empty session");
    assert!(s.context_metrics.is_none());
    let mut t = Toolbar::new();
    t.apply_context(s, T0);
    assert!(t.view(T0).metrics.is_none());
    assert!(t.saved().is_none());
    assert!(ContextState::parse("[]").is_err());
    assert!(ContextState::parse(r#"{"error":"unknown session"}"#).is_err());
    let bad_time = json!({"event_id": 1, "context_metrics": metrics(1),
        "context_compaction": {"type": "summary_compact", "status": "started", "before_tokens": 1, "trigger_limit": 1,
        "target_limit": 1, "used_legacy_fallback": false, "created_at": "soon"}});
    assert!(ContextState::parse(&bad_time.to_string()).is_err());
}

#[test]
fn connection_states() {
    let mut t = Toolbar::new();
    assert_eq!(t.connection(), Connection::Connecting);
    t.stream_opened();
    assert_eq!(t.connection(), Connection::Live);
    t.connection_lost();
    assert_eq!(t.connection(), Connection::Reconnecting);
    for _ in 1..OFFLINE_AFTER_FAILURES {
        t.connection_lost();
    }
    assert_eq!(t.connection(), Connection::Offline);
    assert_eq!(t.view(T0).offline_reason, Some(OfflineReason::Unreachable));
    t.stream_opened();
    assert_eq!(t.connection(), Connection::Live);
    assert_eq!(t.view(T0).offline_reason, None);

    t.set_browser_offline(true);
    assert_eq!(t.connection(), Connection::Offline);
    t.connection_lost();
    assert_eq!(
        t.view(T0).offline_reason,
        Some(OfflineReason::BrowserOffline)
    );
    t.set_browser_offline(false);
    assert_eq!(t.connection(), Connection::Reconnecting);

    t.session_not_found();
    assert_eq!(
        t.view(T0).offline_reason,
        Some(OfflineReason::UnknownSession)
    );
}

#[test]
fn attachment_budget_defaults_and_overrides() {
    let t = Toolbar::new();
    let b = t.attachment_budget();
    assert_eq!(b.model, "gpt-4o");
    assert_eq!(b.limit_tokens, 15_000);

    let mut t = Toolbar::new();
    let mut m = metrics(1);
    m["context_window"] = json!(8_000);
    let snap: ContextState =
        serde_json::from_value(json!({"event_id": 1, "context_metrics": m, "model": "gpt-4"}))
            .expect("snapshot json");
    t.apply_context(snap, T0);
    assert_eq!(
        t.attachment_budget(),
        AttachmentBudget {
            model: "gpt-4".into(),
            limit_tokens: 4_000
        }
    );

    let snap: ContextState = serde_json::from_value(
        json!({"event_id": 2, "context_metrics": metrics(1), "attachment_limit": 900}),
    )
    .expect("snapshot json");
    t.apply_context(snap, T0);
    assert_eq!(
        t.attachment_budget(),
        AttachmentBudget {
            model: "gpt-4".into(),
            limit_tokens: 900
        }
    );
}

// ---------- a real Wegent-style host ----------

/// A Wegent `chat:status_updated` payload of `sse` (no `type`, task and subtask ids).
fn wegent(mut sse: serde_json::Value) -> serde_json::Value {
    let map = sse.as_object_mut().expect("object");
    map.remove("type");
    map.remove("response_id");
    map.insert("task_id".into(), json!(7));
    map.insert("subtask_id".into(), json!(42));
    sse
}

#[test]
fn a_late_in_progress_of_an_ended_compaction_is_stale() {
    for end in ["completed", "fallback"] {
        let mut t = Toolbar::new();
        t.fed_by_host();
        let at = |s| wegent(compaction_event(s, json!({"after_tokens": 40_000})));
        assert_eq!(
            t.apply_host_event(None, &at("started"), T0),
            EventOutcome::Applied
        );
        // Wegent's join handler: the live end first, then the cached heartbeat.
        assert_eq!(
            t.apply_host_event(None, &at(end), T0 + 9_000.0),
            EventOutcome::Applied
        );
        let before = t.clone();
        for late in ["in_progress", "started"] {
            assert_eq!(
                t.apply_host_event(None, &at(late), T0 + 9_500.0),
                EventOutcome::Stale,
                "{end} then {late}"
            );
        }
        assert_eq!(t.view(T0 + 10_000.0).compaction.state(), end);
        assert!(!t.is_compacting());
        assert_eq!(t.history().len(), 1);
        assert_eq!(t.last_event_id(), before.last_event_id());
        assert_eq!(t.ignored().stale, 2);
        let why = t.last_refusal().expect("a reason");
        assert_eq!(why.outcome, EventOutcome::Stale);
        assert_eq!(why.field.as_deref(), Some("context_compaction.created_at"));
        // The next compaction (another created_at) runs as usual.
        let mut next = compaction_event("in_progress", json!({}));
        next["context_compaction"]["created_at"] = json!("2026-06-23T15:10:00Z");
        assert_eq!(
            t.apply_host_event(None, &wegent(next), T0 + 20_000.0),
            EventOutcome::Applied
        );
        assert!(t.is_compacting());
    }
}

#[test]
fn a_turn_that_ends_mid_compaction_interrupts_it() {
    let mut t = Toolbar::new();
    t.fed_by_host();
    assert!(
        !t.turn_ended(Some(TurnEnd::Done)),
        "nothing running: nothing to interrupt"
    );
    t.apply_host_event(None, &compaction_event("in_progress", json!({})), T0);
    assert!(t.is_compacting());
    assert!(t.turn_ended(Some(TurnEnd::Cancelled)));
    assert!(!t.is_compacting());
    assert_eq!(
        t.view(T0 + 1_000.0).compaction,
        CompactionView::Interrupted {
            reason: Some(TurnEnd::Cancelled)
        }
    );
    assert_eq!(t.view(T0).compaction.state(), "interrupted");
    assert!(t.history().is_empty(), "not a completed compaction");
    assert_eq!(
        t.interrupted().map(|i| i.reason),
        Some(Some(TurnEnd::Cancelled))
    );
    // Its late heartbeat does not bring it back.
    assert_eq!(
        t.apply_host_event(
            None,
            &compaction_event("in_progress", json!({})),
            T0 + 2_000.0
        ),
        EventOutcome::Stale
    );
    // A reload shows it interrupted still.
    let reloaded = Toolbar::restored_from(t.saved(), T0 + 5_000.0);
    assert_eq!(
        reloaded.view(T0 + 5_000.0).compaction.state(),
        "interrupted"
    );
    assert!(!reloaded.is_compacting());
    // Its real end, should one come after all, is recorded.
    let done = compaction_event("completed", json!({"after_tokens": 40_000}));
    assert_eq!(
        t.apply_host_event(None, &done, T0 + 3_000.0),
        EventOutcome::Applied
    );
    assert_eq!(t.history().len(), 1);
    assert_eq!(t.view(T0).compaction.state(), "completed");
    assert_eq!(t.interrupted(), None);
}

#[test]
fn a_compaction_silent_past_the_watch_shows_stalled() {
    let mut t = Toolbar::new();
    t.watch_stalls(Some(120_000.0));
    apply_at(&mut t, 1, &compaction_event("started", json!({})), T0);
    assert_eq!(t.view(T0 + 120_000.0).compaction.state(), "compacting");
    assert_eq!(
        t.view(T0 + 125_000.0).compaction,
        CompactionView::Stalled {
            elapsed_secs: 125,
            quiet_secs: 125
        }
    );
    assert!(
        t.is_compacting(),
        "stalled is still running, as far as anyone knows"
    );
    // Its next event: compacting again, the elapsed time unbroken.
    apply_at(
        &mut t,
        2,
        &compaction_event("in_progress", json!({})),
        T0 + 130_000.0,
    );
    assert_eq!(
        t.view(T0 + 131_000.0).compaction,
        CompactionView::Compacting {
            elapsed_secs: 131,
            before_tokens: 110_000,
            target_tokens: 89_600
        }
    );
    // Without a watch (a host feeds it), never stalled.
    t.watch_stalls(None);
    assert_eq!(t.view(T0 + 900_000.0).compaction.state(), "compacting");
    t.watch_stalls(Some(1_000.0));
    assert_eq!(t.cleared().view(T0).compaction.state(), "idle");
}

#[test]
fn unknown_phases_update_the_metrics() {
    let mut t = Toolbar::new();
    t.fed_by_host();
    let mut cold = wegent(event(64_000));
    cold["phase"] = json!("persisted");
    assert_eq!(t.apply_host_event(None, &cold, T0), EventOutcome::Applied);
    assert_eq!(t.view(T0).metrics.expect("metrics").used_tokens, 64_000);
    assert_eq!(t.phase().map(ReceivedPhase::as_str), Some("persisted"));
    assert_eq!(t.view(T0).compaction.state(), "idle");
    let mut sse = event(70_000);
    sse["phase"] = json!("a_newer_phase");
    assert_eq!(apply(&mut t, 5, &sse), EventOutcome::Applied);
    assert_eq!(t.view(T0).metrics.expect("metrics").used_tokens, 70_000);
    // Saved as no phase (the saved /context state holds the five), the metrics kept.
    let saved = t.saved().expect("saved");
    assert_eq!(saved.state.phase, None);
    // Only a missing or mistyped field is malformed.
    let mut bad = wegent(event(1));
    bad["phase"] = json!(["build_messages"]);
    assert_eq!(t.apply_host_event(None, &bad, T0), EventOutcome::Malformed);
    assert_eq!(
        t.last_refusal().and_then(|r| r.field.as_deref()),
        Some("phase")
    );
}

#[test]
fn out_of_range_numbers_are_clamped_and_the_window_exceeded() {
    let mut t = Toolbar::new();
    apply(&mut t, 1, &event(90_000));
    let mut over = event(140_000);
    let m = &mut over["context_metrics"];
    m["remaining_input_tokens"] = json!(-28_000);
    m["remaining_percent"] = json!(-25);
    m["display_remaining_tokens"] = json!(-12_000);
    m["display_remaining_percent"] = json!(-9);
    assert_eq!(apply(&mut t, 2, &over), EventOutcome::Applied);
    let v = t.view(T0).metrics.expect("metrics");
    assert_eq!(v.remaining_percent, 0);
    assert_eq!(v.used_tokens, 140_000);
    assert!(v.exceeded);
    assert!((v.used_percent - 100.0).abs() < 1e-9, "the bar is full");
    let m = t.metrics().expect("metrics");
    assert_eq!((m.remaining_percent, m.display_remaining_tokens), (0, 0));
    let mut high = event(1_000);
    high["context_metrics"]["remaining_percent"] = json!(250);
    assert_eq!(apply(&mut t, 3, &high), EventOutcome::Applied);
    assert_eq!(t.metrics().expect("metrics").remaining_percent, 100);
    assert!(!t.view(T0).metrics.expect("metrics").exceeded);
}

#[test]
fn every_ignored_event_says_why() {
    let mut t = Toolbar::new();
    apply(&mut t, 3, &event(1_000));
    let mut cases: Vec<(EventOutcome, String)> = Vec::new();
    let mut check = |t: &mut Toolbar, outcome: EventOutcome, field: Option<&'static str>| {
        let r = t.last_refusal().expect("a refusal").clone();
        assert_eq!(
            (r.outcome, r.field.as_deref()),
            (outcome, field),
            "{}",
            r.reason
        );
        assert!(!r.reason.is_empty() && r.reason.len() < 200, "{}", r.reason);
        cases.push((r.outcome, r.reason));
    };
    assert_eq!(apply(&mut t, 2, &event(5)), EventOutcome::Stale);
    check(&mut t, EventOutcome::Stale, Some("id"));
    let mut e = event(5);
    e["context_metrics"]["used_input_tokens"] = json!("lots");
    assert_eq!(apply(&mut t, 4, &e), EventOutcome::Malformed);
    check(
        &mut t,
        EventOutcome::Malformed,
        Some("context_metrics.used_input_tokens"),
    );
    assert_eq!(
        t.apply_event(Some("5"), "ping", "{}", T0),
        EventOutcome::Unknown
    );
    check(&mut t, EventOutcome::Unknown, None);
    assert_eq!(
        t.apply_event(None, EVENT_NAME, "{}", T0),
        EventOutcome::Malformed
    );
    check(&mut t, EventOutcome::Malformed, Some("id"));
    let mut other = event(5);
    other["type"] = json!("chat:message");
    assert_eq!(t.apply_host_event(None, &other, T0), EventOutcome::Unknown);
    check(&mut t, EventOutcome::Unknown, Some("type"));
    assert_eq!(
        t.apply_host_text(None, "{\"phase\":", T0),
        EventOutcome::Malformed
    );
    check(&mut t, EventOutcome::Malformed, None);
    assert_eq!(cases.len(), 6);
    assert_eq!(t.ignored().rejected() + t.ignored().stale, 6);
    assert!(
        cases[0].1.contains("at or below the last applied id 3"),
        "{}",
        cases[0].1
    );
}

#[test]
fn the_host_says_how_its_socket_is() {
    let mut t = Toolbar::new();
    t.fed_by_host();
    assert_eq!(t.view(T0).connection, Connection::Host);
    for state in [
        Connection::Live,
        Connection::Reconnecting,
        Connection::Offline,
    ] {
        t.host_connection(state);
        assert_eq!(t.view(T0).connection, state);
    }
    assert_eq!(t.view(T0).offline_reason, Some(OfflineReason::HostSaid));
    t.host_connection(Connection::Host);
    assert_eq!(t.view(T0).connection, Connection::Host);
    assert_eq!(t.view(T0).offline_reason, None);
}

#[test]
fn a_long_failure_reason_stays_whole_in_the_state_only() {
    let mut t = Toolbar::new();
    apply(&mut t, 1, &compaction_event("started", json!({})));
    let reason = "r".repeat(10 << 20);
    apply(
        &mut t,
        2,
        &compaction_event("fallback", json!({ "failure_reason": reason })),
    );
    // The record the host reads keeps every character …
    let kept = t.compaction().and_then(|c| c.failure_reason.as_deref());
    assert_eq!(kept.map(str::len), Some(10 << 20));
    // … while the history and the saved copy keep what is shown: a bounded prefix.
    let shown = crate::text_bound::MAX_SHOWN_CHARS + 1;
    let entry = t.history().newest_first().next().expect("one entry");
    assert_eq!(
        entry.reason.as_deref().map(|r| r.chars().count()),
        Some(shown)
    );
    let saved = t.saved().expect("saved");
    let stored = saved.state.context_compaction.as_ref();
    let stored = stored
        .and_then(|c| c.failure_reason.as_deref())
        .expect("reason");
    assert_eq!(stored.chars().count(), shown);
    assert!(stored.ends_with('…') && reason.starts_with(stored.trim_end_matches('…')));
    let text = crate::saved::encode("s", &saved, 0.0);
    assert!(text.len() < 10_000, "{} bytes saved", text.len());
}
