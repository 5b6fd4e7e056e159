//! The state machine's history, forecast, host events, and what it makes of
//! implausible ids and server clocks (one bad id used to freeze the toolbar,
//! and a server clock off by minutes showed a wrong elapsed time).

use super::*;
use crate::testing::*;
use serde_json::json;

const MINUTE: f64 = 60_000.0;

fn compacting_secs(t: &Toolbar, now_ms: f64) -> u64 {
    match t.view(now_ms).compaction {
        CompactionView::Compacting { elapsed_secs, .. } => elapsed_secs,
        other => panic!("expected compacting, got {other:?}"),
    }
}

// ---------- implausible ids ----------

#[test]
fn an_id_of_2_pow_64_minus_1_does_not_freeze_the_toolbar() {
    let mut t = Toolbar::new();
    assert_eq!(apply(&mut t, 1, &event(1_000)), EventOutcome::Applied);
    let out = t.apply_event(
        Some("18446744073709551615"),
        EVENT_NAME,
        &event(99_000).to_string(),
        T0,
    );
    assert_eq!(out, EventOutcome::Malformed);
    assert_eq!(apply(&mut t, 2, &event(2_000)), EventOutcome::Applied);
    assert_eq!(t.view(T0).metrics.expect("metrics").used_tokens, 2_000);
    // Also as the very first event, and from a host.
    let mut t = Toolbar::new();
    assert_eq!(
        t.apply_host_event(
            Some(u64::MAX),
            &event(9).to_string().parse().expect("json"),
            T0
        ),
        EventOutcome::Malformed
    );
    assert_eq!(apply(&mut t, 2, &event(2_000)), EventOutcome::Applied);
}

#[test]
fn a_far_jump_does_not_stop_the_events_after_it() {
    let mut t = Toolbar::new();
    apply(&mut t, 5, &event(1_000));
    let far = 5 + (1u64 << 40);
    assert_eq!(apply(&mut t, far, &event(50_000)), EventOutcome::Applied);
    // The stream goes on where it was: the far id was the odd one out.
    assert_eq!(apply(&mut t, 6, &event(2_000)), EventOutcome::Applied);
    assert_eq!(apply(&mut t, 7, &event(3_000)), EventOutcome::Applied);
    assert_eq!(t.last_event_id(), Some(7));
    assert_eq!(t.view(T0).metrics.expect("metrics").used_tokens, 3_000);
}

#[test]
fn relay_ids_in_microseconds_apply_after_any_pause() {
    // The relay numbers events max(previous + 1, now in Unix microseconds).
    let mut t = Toolbar::new();
    let id0 = 1_782_226_534_512_345;
    apply(&mut t, id0, &event(1_000));
    for (pause_us, used) in [(2_000_000, 2_000), (3_600_000_000, 3_000), (1, 4_000)] {
        let id = t.last_event_id().expect("an id") + pause_us;
        assert_eq!(apply(&mut t, id, &event(used)), EventOutcome::Applied);
        assert_eq!(t.view(T0).metrics.expect("metrics").used_tokens, used);
    }
}

#[test]
fn a_bad_id_within_reach_is_outvoted_by_the_events_after_it() {
    let mut t = Toolbar::new();
    apply(&mut t, 100, &event(1_000));
    assert_eq!(apply(&mut t, 900_000, &event(1_500)), EventOutcome::Applied);
    assert_eq!(apply(&mut t, 101, &event(2_000)), EventOutcome::Stale);
    assert_eq!(apply(&mut t, 102, &event(3_000)), EventOutcome::Stale);
    assert_eq!(apply(&mut t, 103, &event(4_000)), EventOutcome::Applied);
    assert_eq!(apply(&mut t, 104, &event(5_000)), EventOutcome::Applied);
    assert_eq!(t.view(T0).metrics.expect("metrics").used_tokens, 5_000);
}

// ---------- implausible server clocks ----------

#[test]
fn a_server_clock_10_minutes_behind_shows_0s_at_the_start() {
    let mut t = Toolbar::new();
    let now = T0 + 10.0 * MINUTE; // the browser is 10 minutes ahead of created_at
    apply_at(&mut t, 1, &compaction_event("started", json!({})), now);
    assert_eq!(compacting_secs(&t, now), 0);
    apply_at(
        &mut t,
        2,
        &compaction_event("in_progress", json!({})),
        now + 15_000.0,
    );
    assert_eq!(compacting_secs(&t, now + 16_500.0), 16);
    // The next compaction, first seen as a heartbeat, uses the learnt offset.
    apply_at(
        &mut t,
        3,
        &compaction_event("completed", json!({"after_tokens": 1})),
        now + 20_000.0,
    );
    let second_start = "2026-06-23T14:58:34.000000+00:00"; // 3 minutes after T0 (server)
    let seen = T0 + 13.0 * MINUTE + 30_000.0; // 30 s into it (local)
    apply_at(
        &mut t,
        4,
        &compaction_at("in_progress", second_start, json!({})),
        seen,
    );
    assert_eq!(compacting_secs(&t, seen), 30);
}

#[test]
fn a_heartbeat_from_a_far_off_clock_counts_from_when_it_is_seen() {
    // Nothing known about the server clock: ten minutes behind looks like a 10-minute run.
    let mut t = Toolbar::new();
    let now = T0 + 10.0 * MINUTE;
    apply_at(&mut t, 1, &compaction_event("in_progress", json!({})), now);
    assert_eq!(compacting_secs(&t, now + 2_000.0), 2);
    // An hour ahead.
    let mut t = Toolbar::new();
    apply_at(
        &mut t,
        1,
        &compaction_event("in_progress", json!({})),
        T0 - 60.0 * MINUTE,
    );
    assert_eq!(compacting_secs(&t, T0 - 60.0 * MINUTE + 4_000.0), 4);
}

// ---------- history ----------

#[test]
fn every_ended_compaction_is_one_history_entry() {
    let mut t = Toolbar::new();
    apply_at(&mut t, 1, &compaction_event("started", json!({})), T0);
    apply_at(
        &mut t,
        2,
        &compaction_event("in_progress", json!({})),
        T0 + 15_000.0,
    );
    let done = compaction_event("completed", json!({"after_tokens": 40_000}));
    apply_at(&mut t, 3, &done, T0 + 42_000.0);
    // Replayed with a new id, and repeated by a snapshot: still one entry.
    apply_at(&mut t, 4, &done, T0 + 43_000.0);
    let snap: ContextState = serde_json::from_value(json!({"event_id": 5, "phase": "summary_compact",
        "context_metrics": metrics(40_000), "context_compaction": done["context_compaction"].clone()}))
    .expect("snapshot");
    t.apply_context(snap, T0 + 50_000.0);
    assert_eq!(t.history().len(), 1);
    let e = t.history().newest_first().next().expect("an entry");
    assert_eq!(e.status, CompactionStatus::Completed);
    assert_eq!(
        (e.before_tokens, e.after_tokens, e.saved_tokens),
        (110_000, Some(40_000), Some(70_000))
    );
    assert_eq!(e.ended_ms, Some(T0 + 42_000.0));
    assert_eq!(e.duration_ms, Some(42_000.0));
    assert_eq!(t.view(T0).history_count, 1);

    let fell = compaction_at(
        "fallback",
        "2026-06-23T15:10:00Z",
        json!({"failure_reason": "<b>x</b>"}),
    );
    apply_at(&mut t, 6, &fell, T0 + 60.0 * MINUTE);
    let e = t.history().newest_first().next().expect("an entry");
    assert_eq!(e.status, CompactionStatus::Fallback);
    assert_eq!(e.reason.as_deref(), Some("<b>x</b>"));
    assert_eq!(e.duration_ms, None, "its start was never seen");
}

#[test]
fn history_forecast_and_run_survive_a_reload() {
    let mut t = Toolbar::new();
    for (id, used) in [(1, 10_000), (2, 14_000), (3, 20_000)] {
        apply(&mut t, id, &phase_event("build_messages", used));
    }
    apply(
        &mut t,
        4,
        &compaction_at(
            "completed",
            "2026-06-23T14:00:00Z",
            json!({"after_tokens": 9}),
        ),
    );
    apply_at(
        &mut t,
        5,
        &compaction_event("in_progress", json!({})),
        T0 + 20_000.0,
    );
    let before = t.view(T0 + 30_000.0);
    let saved = t.saved().expect("something to save");
    let text = crate::saved::encode("s", &saved, T0);
    let back = crate::saved::decode("s", &text).expect("decodes");
    let r = Toolbar::restored_from(Some(back), T0 + 25_000.0);
    let after = r.view(T0 + 30_000.0);
    assert!(after.restored);
    assert_eq!(after.history_count, 1);
    assert_eq!(after.forecast, before.forecast);
    assert!(after.forecast.is_some());
    assert_eq!(
        after.compaction, before.compaction,
        "same elapsed time after the reload"
    );
}

#[test]
fn cleared_forgets_history_and_forecast_but_not_the_latest_compaction() {
    let mut t = Toolbar::new();
    t.stream_opened();
    let done = compaction_event("completed", json!({"after_tokens": 40_000}));
    apply(&mut t, 1, &done);
    let mut t = t.cleared();
    assert_eq!(t.history().len(), 0);
    assert!(t.view(T0).metrics.is_none());
    assert_eq!(t.connection(), Connection::Live);
    assert_eq!(t.last_event_id(), None);
    let snap: ContextState = serde_json::from_value(json!({"event_id": 1, "phase": "summary_compact",
        "context_metrics": metrics(40_000), "context_compaction": done["context_compaction"].clone()}))
    .expect("snapshot");
    t.apply_context(snap, T0);
    assert_eq!(
        t.history().len(),
        0,
        "the server repeating it does not bring it back"
    );
}

// ---------- forecast ----------

#[test]
fn forecast_from_turn_starts() {
    let mut t = Toolbar::new();
    apply(&mut t, 1, &phase_event("build_messages", 60_000));
    apply(&mut t, 2, &phase_event("after_tool_end", 70_000));
    apply(&mut t, 3, &phase_event("build_messages", 70_000));
    assert_eq!(t.view(T0).forecast, None, "one difference is not enough");
    apply(&mut t, 4, &phase_event("build_messages", 76_000));
    let f = t.view(T0).forecast.expect("two differences");
    assert_eq!(f.tokens_per_turn, 8_000.0);
    // (100800 - 76000) / 8000 = 3.1 → 4
    assert_eq!(f.turns, 4);
    apply(&mut t, 5, &phase_event("after_tool_end", 101_000));
    assert_eq!(t.view(T0).forecast.expect("forecast").turns, 0);
    // A compaction ends: the difference across it is left out.
    apply(
        &mut t,
        6,
        &compaction_event("completed", json!({"after_tokens": 30_000})),
    );
    apply(&mut t, 7, &phase_event("build_messages", 30_000));
    assert_eq!(
        t.view(T0).forecast.expect("forecast").tokens_per_turn,
        8_000.0
    );
}

#[test]
fn a_context_resync_at_the_same_id_keeps_the_turn_sequence() {
    let mut t = Toolbar::new();
    apply(&mut t, 1, &phase_event("build_messages", 1_000));
    apply(&mut t, 2, &phase_event("build_messages", 2_000));
    let same: ContextState = serde_json::from_value(
        json!({"event_id": 2, "phase": "build_messages", "context_metrics": metrics(2_000)}),
    )
    .expect("snapshot");
    t.apply_context(same, T0);
    apply(&mut t, 3, &phase_event("build_messages", 3_000));
    assert_eq!(t.forecast_inputs().tokens_per_turn(), Some(1_000.0));
    // A snapshot further on: events were missed, the next difference is left out.
    let later: ContextState = serde_json::from_value(
        json!({"event_id": 9, "phase": "after_tool_end", "context_metrics": metrics(50_000)}),
    )
    .expect("snapshot");
    t.apply_context(later, T0);
    apply(&mut t, 10, &phase_event("build_messages", 52_000));
    apply(&mut t, 11, &phase_event("build_messages", 55_000));
    assert_eq!(t.forecast_inputs().tokens_per_turn(), Some(5_000.0 / 3.0));
}

// ---------- host events ----------

#[test]
fn host_events_in_both_shapes_numbered_by_the_toolbar() {
    let mut t = Toolbar::new();
    t.fed_by_host();
    assert_eq!(t.connection(), Connection::Host);
    let mut wegent = phase_event("build_messages", 5_000);
    let map = wegent.as_object_mut().expect("object");
    map.remove("type");
    map.remove("response_id");
    map.insert("task_id".into(), json!(7));
    map.insert("subtask_id".into(), json!(42));
    assert_eq!(t.apply_host_event(None, &wegent, T0), EventOutcome::Applied);
    assert_eq!(t.last_event_id(), Some(1));
    assert_eq!(
        t.apply_host_event(None, &event(6_000), T0),
        EventOutcome::Applied
    );
    assert_eq!(t.last_event_id(), Some(2));
    assert_eq!(
        t.apply_host_event(Some(2), &event(7_000), T0),
        EventOutcome::Stale
    );
    assert_eq!(
        t.apply_host_event(Some(10), &event(8_000), T0),
        EventOutcome::Applied
    );
    let mut other = event(1);
    other["type"] = json!("chat:message");
    assert_eq!(t.apply_host_event(None, &other, T0), EventOutcome::Unknown);
    for bad in [
        json!(null),
        json!([1]),
        json!("x"),
        json!({"phase": "final"}),
        json!({"task_id": 1}),
    ] {
        assert_eq!(
            t.apply_host_event(None, &bad, T0),
            EventOutcome::Malformed,
            "{bad}"
        );
    }
    assert_eq!(
        t.reject_malformed(Some("id"), "not an integer"),
        EventOutcome::Malformed
    );
    assert_eq!(t.view(T0).metrics.expect("metrics").used_tokens, 8_000);
    assert_eq!(t.ignored().malformed, 6);
    assert_eq!(t.ignored().unknown, 1);
    assert_eq!(
        t.connection(),
        Connection::Host,
        "events never change the source"
    );
}
