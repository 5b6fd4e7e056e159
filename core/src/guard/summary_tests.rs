//! Unit tests of a summary compaction driven through the guard (SPEC §8 step
//! 2): the request, retries and fallbacks, the replacement, the heartbeats.

use super::testing::*;
use super::*;
use crate::message::Content;
use crate::protocol::{failure_reason, CompactionStatus};
use crate::tokens::Tokens;
use crate::tool_output::COMPACTED_FLAG;
use serde_json::json;

#[test]
fn request_holds_the_history_and_a_final_instruction_turn() {
    let request = need_summary(spec_history(), &limits(10, 5_000));
    let msgs = request.messages();
    assert_eq!(&msgs[..4], &spec_history()[..]);
    assert_eq!(msgs[4].role, "user");
    assert_eq!(text_of(&msgs[4]), SUMMARY_INSTRUCTION);
    assert_eq!(request.attempt(), 1);
    assert_eq!(request.removed_history_items(), 0);
    let started = &request.started().compaction;
    assert_eq!(started.status, CompactionStatus::Started);
    assert_eq!(started.created_at, "2026-06-23T14:55:34.512345+00:00");
    assert_eq!(started.before_tokens, request.before_tokens());
    assert_eq!((started.trigger_limit, started.target_limit), (10, 5_000));
    assert!(!started.used_legacy_fallback);
    assert!(request
        .started()
        .to_status_event("resp_1")
        .validate()
        .is_ok());
}

/// SPEC §8: `[system, old user, assistant, latest user]` whose first attempt
/// fails with "context length exceeded" is retried with `[system, assistant,
/// latest user]` and records 1 removed item.
#[test]
fn context_too_long_retry_sheds_the_oldest_and_counts_it() {
    let request = need_summary(spec_history(), &limits(10, 5_000));
    let err = SummaryError::new("Error code: 400 - context length exceeded").with_status(400);
    let AfterError::Retry(request) = request.on_error(&err, T0 + 1_000_000).expect("runs") else {
        panic!("a context error retries")
    };
    let texts: Vec<&str> = request.messages().iter().map(text_of).collect();
    assert_eq!(
        texts,
        [
            "You are helpful.",
            "old answer",
            "latest question",
            SUMMARY_INSTRUCTION
        ]
    );
    assert_eq!(request.attempt(), 2);
    assert_eq!(request.removed_history_items(), 1);
    let ready = request
        .on_summary("  the summary  ", T0 + 2_000_000)
        .expect("runs");
    let replacement = ready.replacement.as_ref().expect("completed");
    assert_eq!(replacement.removed_history_items, 1);
    assert_eq!(replacement.summary_text, "the summary");
    let trace = ready
        .traces
        .iter()
        .find(|t| t.name == "context_protection.summary_compact")
        .expect("trace");
    assert_eq!(trace.attributes["status"], "completed");
    assert_eq!(trace.attributes["removed_history_items"], 1);
    assert_eq!(trace.attributes["duration_ms"], 2000.0);
}

#[test]
fn context_error_classification() {
    assert!(
        !SummaryError::new("invalid parameter")
            .with_status(400)
            .is_context_too_long(),
        "a bare 400 is not one"
    );
    assert!(SummaryError::new("输入长度超过限制").is_context_too_long());
    assert!(SummaryError::new("请求的上下文长度过大").is_context_too_long());
    assert!(SummaryError::new("payload")
        .with_status(413)
        .is_context_too_long());
    assert!(
        SummaryError::new("This model's Maximum Context Length is 8192 tokens")
            .is_context_too_long()
    );
    assert!(SummaryError::new("{\"code\": \"context_length_exceeded\"}").is_context_too_long());
    assert!(
        SummaryError::new("prompt is too long: 210000 tokens > 200000 maximum")
            .is_context_too_long()
    );
    assert!(!SummaryError::new("rate limited")
        .with_status(429)
        .is_context_too_long());
}

#[test]
fn other_errors_fall_back_to_the_source_passed_history() {
    let mut history = spec_history();
    history.insert(2, calling("c1", "grep"));
    history.insert(3, tool_result("c1", "grep", "found it"));
    let request = need_summary(history, &limits(10, 5_000));
    let err = SummaryError::new("invalid parameter").with_status(400);
    let AfterError::Fallback(ready) = request.on_error(&err, T0 + 3_000_000).expect("runs") else {
        panic!("a bare 400 falls back")
    };
    assert!(ready.replacement.is_none());
    assert_eq!(ready.messages.len(), 6);
    assert!(
        text_of(&ready.messages[3]).starts_with("[tool_output name=grep "),
        "the source pass stays applied"
    );
    let [event] = &ready.events[..] else {
        panic!("one fallback event")
    };
    assert_eq!(event.compaction.status, CompactionStatus::Fallback);
    assert_eq!(
        event.compaction.failure_reason.as_deref(),
        Some(failure_reason::FAILED)
    );
    assert_eq!(
        event.compaction.created_at,
        "2026-06-23T14:55:34.512345+00:00"
    );
    let trace = ready
        .traces
        .iter()
        .find(|t| t.name == "context_protection.summary_compact")
        .expect("trace");
    assert_eq!(trace.attributes["failure_reason"], failure_reason::FAILED);
    assert_eq!(trace.attributes["used_legacy_fallback"], false);
}

#[test]
fn at_most_three_retries_then_fallback() {
    let mut history = vec![Message::system("s")];
    for i in 0..20 {
        history.push(Message::new(
            if i % 2 == 0 { "user" } else { "assistant" },
            format!("turn {i}"),
        ));
    }
    history.push(Message::user("now"));
    let mut request = need_summary(history, &limits(10, 5_000));
    let err = SummaryError::new("maximum context length exceeded");
    let mut sizes = vec![request.messages().len()];
    for _ in 0..3 {
        request = match request.on_error(&err, T0).expect("runs") {
            AfterError::Retry(r) => r,
            AfterError::Fallback(_) => panic!("fewer than 3 retries"),
        };
        sizes.push(request.messages().len());
    }
    // 20 removable → shed 5, then 15 → 4, then 11 → 3 (quarters rounded up).
    assert_eq!(sizes, [23, 18, 14, 11]);
    assert_eq!(request.removed_history_items(), 12);
    assert_eq!(request.attempt(), 4);
    let AfterError::Fallback(ready) = request.on_error(&err, T0).expect("runs") else {
        panic!("4th error falls back")
    };
    assert_eq!(
        ready.events[0].compaction.failure_reason.as_deref(),
        Some(failure_reason::FAILED)
    );
}

#[test]
fn context_error_with_nothing_removable_falls_back() {
    let history = vec![Message::system("s"), Message::user("only")];
    let request = need_summary(history, &limits(1, 5_000));
    let AfterError::Fallback(_) = request
        .on_error(&SummaryError::new("x").with_status(413), T0)
        .expect("runs")
    else {
        panic!("no removable message left")
    };
}

#[test]
fn trims_the_oldest_to_fit_the_target_in_one_pass() {
    let mut history = vec![Message::system("s")];
    for i in 0..40 {
        history.push(Message::new(
            if i % 2 == 0 { "user" } else { "assistant" },
            "filler words ".repeat(20),
        ));
    }
    history.push(Message::user("current"));
    let target = 600;
    let request = need_summary(history.clone(), &limits(10, target));
    assert!(
        request.input_tokens() <= target,
        "{} > {target}",
        request.input_tokens()
    );
    let msgs = request.messages();
    assert_eq!(msgs[0], history[0]);
    assert_eq!(
        msgs[msgs.len() - 2],
        history[history.len() - 1],
        "current user kept"
    );
    assert_eq!(
        request.removed_history_items(),
        history.len() - (msgs.len() - 1)
    );
    // The kept middle is the newest suffix of the history.
    let kept = msgs.len() - 1;
    assert_eq!(&msgs[1..kept], &history[history.len() - (kept - 1)..]);
}

#[test]
fn nothing_fits_is_not_applicable() {
    let history = vec![
        Message::system("long rules ".repeat(200)),
        Message::user("q"),
    ];
    let ready = proceed(guard().before_model_call(history.clone(), &limits(10, 100), T0));
    let statuses: Vec<_> = ready.events.iter().map(|e| e.compaction.status).collect();
    assert_eq!(
        statuses,
        [CompactionStatus::Started, CompactionStatus::Fallback]
    );
    assert_eq!(
        ready.events[1].compaction.failure_reason.as_deref(),
        Some(failure_reason::NOT_APPLICABLE)
    );
    assert_eq!(ready.messages, history);
}

#[test]
fn empty_summary_is_not_applicable() {
    let request = need_summary(spec_history(), &limits(10, 5_000));
    let ready = request.on_summary(" \n ", T0).expect("runs");
    assert!(ready.replacement.is_none());
    assert_eq!(ready.messages, spec_history());
    assert_eq!(
        ready.events[0].compaction.failure_reason.as_deref(),
        Some(failure_reason::NOT_APPLICABLE)
    );
}

#[test]
fn replacement_is_systems_retained_users_and_one_marked_summary() {
    let mut history = spec_history();
    history[3].extra.insert("id".into(), json!("m4"));
    history.insert(3, calling("c1", "grep"));
    history.insert(4, tool_result("c1", "grep", "found"));
    let request = need_summary(history, &limits(10, 5_000));
    let ready = request
        .on_summary("what happened", T0 + 40_000_000)
        .expect("runs");
    let roles: Vec<&str> = ready.messages.iter().map(|m| m.role.as_str()).collect();
    assert_eq!(roles, ["system", "user", "user", "user"]);
    assert!(!ready.messages[0].has_flag(CHECKPOINT_RETAINED_FLAG));
    for retained in &ready.messages[1..3] {
        assert!(retained.has_flag(CHECKPOINT_RETAINED_FLAG));
    }
    assert_eq!(text_of(&ready.messages[1]), "old question");
    assert_eq!(text_of(&ready.messages[2]), "latest question");
    let summary = &ready.messages[3];
    assert_eq!(
        text_of(summary),
        format!("{SUMMARY_PREFIX}\n\nwhat happened")
    );
    assert!(
        summary.has_flag(COMPACTED_FLAG) && summary.has_flag(SUMMARY_FLAG) && is_summary(summary)
    );
    let kwargs = summary.additional_kwargs.as_ref().expect("markers");
    assert_eq!(kwargs[SUMMARY_VERSION_KEY], 1);
    let id = summary.id().expect("the summary gets an id").to_string();
    assert!(is_uuid4(&id), "{id}");
    let retained_ids: Vec<&str> = ready.messages[1..3]
        .iter()
        .filter_map(Message::id)
        .collect();
    assert_eq!(retained_ids.len(), 2);
    assert!(
        retained_ids
            .iter()
            .all(|r| is_uuid4(r) && *r != id && *r != "m4"),
        "retained copies get fresh ids"
    );
    assert_ne!(retained_ids[0], retained_ids[1]);
    assert!(
        ready.messages[0].id().is_some_and(is_uuid4),
        "a system message without an id gets one"
    );

    let replacement = ready.replacement.as_ref().expect("completed");
    let [event] = &ready.events[..] else {
        panic!("one completed event")
    };
    assert_eq!(event.compaction, replacement.record);
    assert_eq!(event.compaction.status, CompactionStatus::Completed);
    assert_eq!(event.compaction.after_tokens, Some(ready.used_tokens));
    assert_eq!(
        event.compaction.summary_message_id.as_deref(),
        Some(id.as_str())
    );
    assert_eq!(event.metrics.used_input_tokens, ready.used_tokens);
    assert!(ready.changed);
    assert!(event.to_status_event("resp_1").validate().is_ok());

    // The next turn starts from the checkpoint: the summary is never the current user message.
    let next = [ready.messages.clone(), vec![Message::user("follow-up")]].concat();
    let request = need_summary(next, &limits(10, 5_000));
    assert_eq!(
        text_of(&request.messages()[request.messages().len() - 2]),
        "follow-up"
    );
}

#[test]
fn recent_users_are_kept_newest_first_within_the_budget_and_the_last_is_cut() {
    let counter = TokenCounter::for_model("gpt-4o");
    let msgs = vec![
        Message::user("oldest ".repeat(50)),
        Message::assistant("ignored"),
        Message::user("middle ".repeat(50)),
        Message::user("newest"),
    ];
    let each = |m: &Message| counter.count_messages(std::slice::from_ref(m));
    let budget = each(&msgs[3]) + each(&msgs[2]) + 10;
    let selected = recent_user_messages(&msgs, budget, &GuardCounter::reference(counter));
    assert_eq!(selected.len(), 3);
    assert_eq!(without_id(&selected[1]), retained_copy(&msgs[2]));
    assert_eq!(without_id(&selected[2]), retained_copy(&msgs[3]));
    assert_eq!(
        counter.count_text(text_of(&selected[0])),
        10,
        "cut to the remaining 10 tokens"
    );
    assert!("oldest ".repeat(50).starts_with(text_of(&selected[0])));

    // The guard caps the budget at min(20000, target / 2).
    let history = vec![Message::user("word ".repeat(500)), Message::user("now")];
    let request = need_summary(history, &limits(10, 700));
    let ready = request.on_summary("s", T0).expect("runs");
    let retained: Vec<&Message> = ready
        .messages
        .iter()
        .filter(|m| m.has_flag(CHECKPOINT_RETAINED_FLAG))
        .collect();
    let retained_tokens: Tokens = retained
        .iter()
        .map(|m| counter.count_messages(std::slice::from_ref(m)))
        .sum();
    assert_eq!(retained.len(), 2);
    assert!(retained_tokens <= 350 + 8, "{retained_tokens}");
}

fn retained_copy(m: &Message) -> Message {
    let mut m = m.clone();
    m.set_kwarg(CHECKPOINT_RETAINED_FLAG, true.into());
    m
}

fn without_id(m: &Message) -> Message {
    let mut m = m.clone();
    m.extra.remove("id");
    m
}

#[test]
fn heartbeats_every_15_seconds_with_the_same_created_at() {
    let mut request = need_summary(spec_history(), &limits(10, 5_000));
    assert_eq!(request.next_heartbeat_at(), T0 + 15_000_000);
    assert!(request.heartbeat(T0 + 14_999_999).is_none());
    let beat = request.heartbeat(T0 + 15_000_000).expect("due");
    assert_eq!(beat.compaction.status, CompactionStatus::InProgress);
    assert!(beat.compaction.status.is_compacting());
    assert_eq!(
        beat.compaction.created_at,
        request.started().compaction.created_at
    );
    assert_eq!(beat.metrics, request.started().metrics);
    assert!(request.heartbeat(T0 + 16_000_000).is_none());
    assert_eq!(request.next_heartbeat_at(), T0 + 30_000_000);
}

#[test]
fn a_list_reply_is_summarised_from_its_text_parts() {
    let request = need_summary(spec_history(), &limits(10, 5_000));
    let reply: Content = serde_json::from_value(json!([
        {"type": "thinking", "thinking": "Objective: "},
        {"type": "text", "text": "answer the latest question"}
    ]))
    .expect("parts");
    let ready = request.on_summary(reply, T0).expect("runs");
    let replacement = ready.replacement.expect("completed");
    assert_eq!(
        replacement.summary_text,
        "Objective: answer the latest question"
    );
}
