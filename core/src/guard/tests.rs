//! Unit tests of the guard pipeline (SPEC §8): the source pass, the trigger,
//! the emergency pass and its fail-fast error, and how the guard counts.

use super::testing::*;
use super::*;
use crate::message::ToolCall;
use crate::tool_output::COMPACTED_FLAG;
use crate::Error;
use serde_json::json;

#[test]
fn source_pass_renders_and_marks_tool_outputs_once() {
    let mut done = tool_result("c0", "grep", "already compact");
    done.set_kwarg(COMPACTED_FLAG, true.into());
    let history = vec![
        Message::user("q"),
        calling("c1", "run shell"),
        tool_result("c1", "run shell", &"line of output\n".repeat(6000)),
        done.clone(),
        kb_payload(10),
    ];
    let ready = proceed(guard().before_model_call(history.clone(), &limits(100_000, 70_000), T0));
    assert!(ready.changed);
    let cut = text_of(&ready.messages[2]);
    assert!(
        cut.starts_with("[tool_output name=run_shell total_tokens="),
        "{cut:.80}"
    );
    assert!(cut.contains(" kept_tokens=15000 "));
    assert!(ready.messages[2].has_flag(COMPACTED_FLAG));
    assert_eq!(
        ready.messages[3], done,
        "compacted messages are not rendered again"
    );
    assert_eq!(
        ready.messages[4], history[4],
        "knowledge-base direct injections bypass"
    );
    assert_eq!(
        ready.used_tokens,
        guard().guard_counter().count(&ready.messages)
    );
    assert!(ready.events.is_empty());
    let trace = &ready.traces[0];
    assert_eq!(trace.name, "context_protection.tool_output");
    assert_eq!(trace.attributes["messages_truncated"], 1);
    assert_eq!(trace.attributes["emergency"], false);

    // A second call sees nothing left to do.
    let again =
        proceed(guard().before_model_call(ready.messages.clone(), &limits(100_000, 70_000), T0));
    assert!(!again.changed);
    assert_eq!(again.messages, ready.messages);
}

#[test]
fn under_the_trigger_proceeds_unchanged() {
    let ready = proceed(guard().before_model_call(spec_history(), &limits(10_000, 7_000), T0));
    assert!(!ready.changed && ready.replacement.is_none() && ready.traces.is_empty());
    assert_eq!(ready.messages, spec_history());
    assert!(!ready.metrics.is_over_trigger);
}

#[test]
fn emergency_pass_recuts_largest_first_after_a_fallback() {
    let big = "alpha beta gamma delta ".repeat(4000);
    let history = vec![
        Message::user("q"),
        calling("c1", "cat"),
        tool_result("c1", "cat", &big),
        calling("c2", "ls"),
        tool_result("c2", "ls", &"x y ".repeat(2000)),
        Message::user("now"),
    ];
    // Summary off: straight from the source pass to the emergency pass.
    let config = GuardConfig {
        summary_enabled: false,
        ..GuardConfig::default()
    };
    let g = Guard::with_config(TokenCounter::for_model("gpt-4o"), config);
    let ready = proceed(g.before_model_call(history, &limits(12_000, 8_000), T0));
    assert!(ready.used_tokens < 12_000);
    assert!(
        text_of(&ready.messages[2]).contains(" kept_tokens=4500 "),
        "the largest is re-cut to 30%"
    );
    assert!(
        text_of(&ready.messages[4]).contains("truncated=false]"),
        "stopped once under the trigger"
    );
    let names: Vec<_> = ready
        .traces
        .iter()
        .map(|t| t.attributes["emergency"].clone())
        .collect();
    assert_eq!(names, [json!(false), json!(true)]);
}

#[test]
fn a_bypassed_payload_that_keeps_it_over_fails_with_a_clear_error() {
    let history = vec![
        Message::user("q"),
        calling("kb", "knowledge_base_search"),
        kb_payload(3000),
        Message::user("now"),
    ];
    let err = guard()
        .before_model_call(history.clone(), &limits(1_000, 100), T0)
        .expect_err("cannot fit");
    let Error::BypassedPayloadTooLarge {
        used_tokens,
        trigger_limit,
    } = &err
    else {
        panic!("typed error")
    };
    assert_eq!(*trigger_limit, 1_000);
    assert!(*used_tokens >= 1_000);
    assert!(
        err.to_string()
            .starts_with("Current context still exceeds the safe input budget"),
        "the reference's fail-fast message: {err}"
    );

    // Through a failed summary too.
    let request = need_summary(history, &limits(1_000, 5_000));
    assert!(request.on_error(&SummaryError::new("boom"), T0).is_err());
}

#[test]
fn tool_messages_without_an_id_are_not_rendered() {
    let mut id_less = tool_result("c1", "grep", &"line\n".repeat(40_000));
    id_less.extra.remove("id");
    let history = vec![Message::user("q"), calling("c1", "grep"), id_less.clone()];
    let ready = proceed(guard().before_model_call(history, &limits(100_000, 70_000), T0));
    assert_eq!(
        ready.messages[2], id_less,
        "the reference cannot upsert a message without an id"
    );
    assert!(!ready.changed);
}

/// Reference quirk: the summariser's input is rebuilt without the names of
/// user, system and assistant messages (tool messages keep theirs).
#[test]
fn the_summariser_sees_no_names_but_tool_names() {
    let mut alice = Message::user("from alice");
    alice.name = Some("alice".into());
    let history = vec![
        alice,
        calling("c1", "grep"),
        tool_result("c1", "grep", "found"),
        Message::user("now"),
    ];
    let request = need_summary(history, &limits(10, 5_000));
    let names: Vec<Option<&str>> = request
        .messages()
        .iter()
        .map(|m| m.name.as_deref())
        .collect();
    assert_eq!(names, [None, None, Some("grep"), None, None]);
    assert_eq!(
        request.history()[0].name.as_deref(),
        Some("alice"),
        "the history keeps it"
    );
}

/// Reference quirk: tool-call arguments count nothing inside the guard; `strict_counting` counts them.
#[test]
fn strict_counting_counts_tool_calls_toward_the_trigger() {
    let mut call = calling("c1", "grep");
    call.tool_calls = Some(vec![serde_json::from_value::<ToolCall>(json!({
        "id": "c1", "type": "function",
        "function": {"name": "grep", "arguments": json!({"q": "needle ".repeat(300)}).to_string()}
    }))
    .expect("valid call")]);
    let mut result = tool_result("c1", "grep", "found");
    result.set_kwarg(COMPACTED_FLAG, true.into());
    let history = vec![Message::user("q"), call, result, Message::user("now")];
    let counter = TokenCounter::for_model("gpt-4o");
    let metrics_count = counter.count_messages(&history);
    let reference = guard();
    let guard_count = reference.guard_counter().count(&history);
    assert!(
        metrics_count > guard_count + 300,
        "{metrics_count} vs {guard_count}"
    );
    let between = limits(guard_count + 50, 5_000);
    let ready = proceed(reference.before_model_call(history.clone(), &between, T0));
    assert!(
        !ready.metrics.is_over_trigger,
        "the reference does not see the arguments"
    );
    let strict = Guard::with_config(
        counter,
        GuardConfig {
            strict_counting: true,
            ..GuardConfig::default()
        },
    );
    let Decision::NeedSummary(request) = strict
        .before_model_call(history, &between, T0)
        .expect("runs")
    else {
        panic!("strict counting sees the arguments and compacts");
    };
    assert_eq!(request.before_tokens(), metrics_count);
}
