//! The guard's JS API (`core/src/wasm/guard.rs`), driven as a JS host drives
//! it: every method is looked up on the JS object and called through
//! `Function.prototype.apply`, so argument conversion, the returned plain
//! objects and the thrown `Error`s are the ones a page sees.

use crate::js_api::{get, js, n, s};
use ctxguard_core::wasm::*;
use js_sys::{Array, Function, Object, Reflect, JSON};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_test::*;

/// 2026-06-23T14:55:34.512Z, as `Date.now()` would give it.
const NOW_MS: f64 = 1_782_226_534_512.0;
const CREATED_AT: &str = "2026-06-23T14:55:34.512000+00:00";

pub(crate) fn at(list: &JsValue, index: u32) -> JsValue {
    Reflect::get_u32(list, index).expect("index read")
}

pub(crate) fn len(list: &JsValue) -> u32 {
    assert!(Array::is_array(list), "an array: {}", stringify(list));
    list.unchecked_ref::<Array>().length()
}

pub(crate) fn stringify(v: &JsValue) -> String {
    String::from(JSON::stringify(v).expect("serialisable"))
}

/// `obj.method(...args)` through JS.
fn call(obj: &JsValue, method: &str, args: &[JsValue]) -> Result<JsValue, JsValue> {
    let f: Function = get(obj, method)
        .dyn_into()
        .unwrap_or_else(|_| panic!("{method} is a method"));
    f.apply(obj, &args.iter().collect::<Array>())
}

fn ok(result: Result<JsValue, JsValue>) -> JsValue {
    result.unwrap_or_else(|e| panic!("the call must succeed, threw {e:?}"))
}

/// The `Error` a failing call throws.
fn thrown(result: Result<JsValue, JsValue>) -> js_sys::Error {
    let value = result.expect_err("the call must throw");
    assert!(
        value.is_instance_of::<js_sys::Error>(),
        "thrown value is an Error"
    );
    value.unchecked_into()
}

pub(crate) fn message(result: Result<JsValue, JsValue>) -> String {
    String::from(thrown(result).message())
}

fn assert_plain_object(v: &JsValue) {
    assert!(v.is_object() && !Array::is_array(v), "an object");
    assert_eq!(
        JsValue::from(Object::get_prototype_of(v)),
        JsValue::from(Object::get_prototype_of(&Object::new())),
        "a plain object"
    );
}

/// A guard for gpt-4o with the trigger at 300 tokens (target 299).
fn small_guard(options: &str) -> JsValue {
    let guard = ContextGuard::new(s("gpt-4o"), JsValue::UNDEFINED, js(options))
        .unwrap_or_else(|_| panic!("valid options {options}"));
    JsValue::from(guard)
}

/// `[system, long user, assistant, latest user]`: over a 300-token trigger.
fn long_history() -> JsValue {
    let question = "first question ".repeat(200);
    js(&format!(
        r#"[{{"role":"system","content":"be brief"}},{{"role":"user","content":"{question}"}},
            {{"role":"assistant","content":"first answer"}},{{"role":"user","content":"and now?"}}]"#
    ))
}

fn compaction(event: &JsValue) -> JsValue {
    get(event, "context_compaction")
}

#[wasm_bindgen_test]
fn one_compaction_through_the_js_api() {
    let guard = small_guard(r#"{"auto_compact_token_limit":300}"#);
    let limits = ok(call(&guard, "limits", &[]));
    assert_eq!(get(&limits, "trigger_limit"), n(300.0));
    assert_eq!(get(&limits, "target_limit"), n(299.0));

    let decision = ok(call(
        &guard,
        "beforeModelCall",
        &[long_history(), n(NOW_MS), s("resp_1")],
    ));
    assert_plain_object(&decision);
    assert_eq!(get(&decision, "kind"), s("need_summary"));
    let first = get(&decision, "request");
    assert_eq!(ok(call(&first, "attempt", &[])), n(1.0));
    let input = ok(call(&first, "messages", &[]));
    let last = at(&input, len(&input) - 1);
    assert_eq!(get(&last, "role"), s("user"));
    assert!(get(&last, "content")
        .as_string()
        .is_some_and(|t| t.starts_with("You are performing a CONTEXT CHECKPOINT COMPACTION.")));
    let input_tokens = ok(call(&first, "inputTokens", &[]))
        .as_f64()
        .expect("number");
    assert!(input_tokens <= 299.0, "{input_tokens}");
    let before = ok(call(&first, "beforeTokens", &[]))
        .as_f64()
        .expect("number");
    assert!(before >= 300.0, "{before}");

    let started = ok(call(&first, "started", &[]));
    assert_plain_object(&started);
    assert_eq!(get(&started, "type"), s("response.status.updated"));
    assert_eq!(get(&started, "response_id"), s("resp_1"));
    assert_eq!(get(&started, "phase"), s("summary_compact"));
    assert_eq!(get(&compaction(&started), "status"), s("started"));
    assert_eq!(get(&compaction(&started), "created_at"), s(CREATED_AT));
    assert_eq!(get(&compaction(&started), "before_tokens"), n(before));
    assert_eq!(
        get(&get(&started, "context_metrics"), "used_input_tokens"),
        n(before)
    );
    // The events are valid SPEC §4 wire objects.
    let wire = s(&stringify(&started));
    assert!(parse_status_event(wire).is_ok());

    // Heartbeats every 15 s, same created_at.
    assert!(ok(call(&first, "heartbeat", &[n(NOW_MS + 1_000.0)])).is_null());
    let beat = ok(call(&first, "heartbeat", &[n(NOW_MS + 15_000.0)]));
    assert_eq!(get(&compaction(&beat), "status"), s("in_progress"));
    assert_eq!(get(&compaction(&beat), "created_at"), s(CREATED_AT));
    assert_eq!(
        ok(call(&first, "nextHeartbeatAtMs", &[])),
        n(NOW_MS + 30_000.0)
    );

    // The first attempt is too long for the summariser: retry with less.
    let after_error = ok(call(
        &first,
        "onError",
        &[
            js(r#"{"message":"prompt is too long","status":400}"#),
            n(NOW_MS + 16_000.0),
        ],
    ));
    assert_plain_object(&after_error);
    assert_eq!(get(&after_error, "kind"), s("retry"));
    let retry = get(&after_error, "request");
    assert_eq!(ok(call(&retry, "attempt", &[])), n(2.0));
    assert!(len(&ok(call(&retry, "messages", &[]))) < len(&input));
    assert!(
        message(call(&first, "messages", &[]))
            .starts_with("request: this summary request was already answered"),
        "a request answers once"
    );

    let done = ok(call(
        &retry,
        "onSummary",
        &[s("  summary of the work  "), n(NOW_MS + 20_000.0)],
    ));
    assert_plain_object(&done);
    assert_eq!(get(&done, "kind"), s("proceed"));
    assert_eq!(get(&done, "changed"), JsValue::TRUE);
    let used = get(&done, "used_tokens");
    assert!(used.as_f64().is_some_and(|u| u < 300.0), "{used:?}");
    assert_eq!(get(&get(&done, "metrics"), "used_input_tokens"), used);

    let events = get(&done, "events");
    assert_eq!(len(&events), 1);
    let completed = at(&events, 0);
    assert_eq!(get(&completed, "response_id"), s("resp_1"));
    let record = compaction(&completed);
    assert_eq!(get(&record, "status"), s("completed"));
    assert_eq!(get(&record, "after_tokens"), used);
    assert_eq!(get(&record, "before_tokens"), n(before));
    assert_eq!(get(&record, "created_at"), s(CREATED_AT));
    assert!(parse_status_event(s(&stringify(&completed))).is_ok());

    let replacement = get(&done, "replacement");
    assert_plain_object(&replacement);
    assert_eq!(get(&replacement, "summary_text"), s("summary of the work"));
    assert_eq!(get(&replacement, "removed_history_items"), n(2.0));
    assert_eq!(
        get(&replacement, "summary_message_id"),
        get(&record, "summary_message_id")
    );
    assert_eq!(stringify(&get(&replacement, "record")), stringify(&record));

    // system, the retained "and now?", the summary.
    let messages = get(&done, "messages");
    assert_eq!(len(&messages), 3);
    let retained = get(&at(&messages, 1), "additional_kwargs");
    assert_eq!(get(&retained, "checkpoint_retained"), JsValue::TRUE);
    let summary = at(&messages, 2);
    let kwargs = get(&summary, "additional_kwargs");
    assert_eq!(get(&kwargs, "summary_compacted"), JsValue::TRUE);
    assert_eq!(get(&kwargs, "summary_compact_version"), n(1.0));
    assert_eq!(get(&summary, "id"), get(&record, "summary_message_id"));

    let traces = get(&done, "traces");
    let names: Vec<String> = (0..len(&traces))
        .map(|i| get(&at(&traces, i), "name").as_string().unwrap_or_default())
        .collect();
    assert!(
        names
            .iter()
            .any(|n| n == "context_protection.summary_compact"),
        "{names:?}"
    );
    assert!(
        message(call(&retry, "onSummary", &[s("again"), n(NOW_MS)])).contains("already answered")
    );
}

#[wasm_bindgen_test]
fn under_the_trigger_it_proceeds_and_other_errors_fall_back() {
    let guard = small_guard(r#"{"auto_compact_token_limit":300}"#);
    let short = js(r#"[{"role":"user","content":"hi"}]"#);
    let decision = ok(call(&guard, "beforeModelCall", &[short, n(NOW_MS)]));
    assert_plain_object(&decision);
    let keys: Vec<String> = Object::keys(decision.unchecked_ref::<Object>())
        .iter()
        .filter_map(|k| k.as_string())
        .collect();
    let expected = [
        "kind",
        "messages",
        "used_tokens",
        "metrics",
        "changed",
        "replacement",
        "events",
        "traces",
    ];
    assert_eq!(keys, expected);
    assert_eq!(get(&decision, "kind"), s("proceed"));
    assert_eq!(get(&decision, "used_tokens"), n(9.0));
    assert_eq!(get(&get(&decision, "metrics"), "trigger_limit"), n(300.0));
    assert_eq!(get(&decision, "changed"), JsValue::FALSE);
    assert!(get(&decision, "replacement").is_null());
    assert_eq!(len(&get(&decision, "events")), 0);
    assert_eq!(len(&get(&decision, "traces")), 0);
    assert_eq!(
        stringify(&get(&decision, "messages")),
        r#"[{"role":"user","content":"hi"}]"#
    );

    // The source pass marks tool outputs compacted.
    let with_tool = js(r#"[{"role":"user","content":"q"},
            {"role":"assistant","content":"","tool_calls":[{"id":"c1","type":"function","function":{"name":"sh","arguments":"{}"}}]},
            {"role":"tool","tool_call_id":"c1","name":"sh","content":"ok","id":"t1"}]"#);
    let decision = ok(call(&guard, "beforeModelCall", &[with_tool, n(NOW_MS)]));
    assert_eq!(get(&decision, "changed"), JsValue::TRUE);
    let tool = at(&get(&decision, "messages"), 2);
    assert_eq!(
        get(&get(&tool, "additional_kwargs"), "compacted"),
        JsValue::TRUE
    );

    // A bare failure is not a context error: fall back to the uncompacted history.
    let decision = ok(call(
        &guard,
        "beforeModelCall",
        &[long_history(), n(NOW_MS)],
    ));
    let request = get(&decision, "request");
    let fallback = ok(call(
        &request,
        "onError",
        &[
            js(r#"{"message":"invalid parameter","status":400}"#),
            n(NOW_MS + 5.0),
        ],
    ));
    assert_eq!(get(&fallback, "kind"), s("fallback"));
    assert!(get(&fallback, "replacement").is_null());
    let events = get(&fallback, "events");
    assert_eq!(len(&events), 1);
    let record = compaction(&at(&events, 0));
    assert_eq!(get(&record, "status"), s("fallback"));
    assert_eq!(get(&record, "failure_reason"), s("summary_compact_failed"));
    assert_eq!(get(&at(&events, 0), "response_id"), s(""));
    assert_eq!(len(&get(&fallback, "messages")), 4);

    // An empty summary falls back as not applicable; so does an explicit give-up with that reason.
    let decision = ok(call(
        &guard,
        "beforeModelCall",
        &[long_history(), n(NOW_MS)],
    ));
    let empty = ok(call(
        &get(&decision, "request"),
        "onSummary",
        &[s("  "), n(NOW_MS)],
    ));
    assert_eq!(get(&empty, "kind"), s("fallback"));
    let reason = get(
        &compaction(&at(&get(&empty, "events"), 0)),
        "failure_reason",
    );
    assert_eq!(reason, s("summary_compact_not_applicable"));
    let decision = ok(call(
        &guard,
        "beforeModelCall",
        &[long_history(), n(NOW_MS)],
    ));
    let gave_up = ok(call(&get(&decision, "request"), "fallBack", &[n(NOW_MS)]));
    assert_eq!(get(&gave_up, "kind"), s("fallback"));
    let reason = get(
        &compaction(&at(&get(&gave_up, "events"), 0)),
        "failure_reason",
    );
    assert_eq!(reason, s("summary_compact_failed"));

    // A JS Error is a SummaryFailure too; retries stop after max_overflow_retries.
    let guard = small_guard(r#"{"auto_compact_token_limit":300,"max_overflow_retries":0}"#);
    let decision = ok(call(
        &guard,
        "beforeModelCall",
        &[long_history(), n(NOW_MS)],
    ));
    let too_long = js_sys::Error::new("context_length_exceeded");
    let out = ok(call(
        &get(&decision, "request"),
        "onError",
        &[too_long.into(), n(NOW_MS)],
    ));
    assert_eq!(get(&out, "kind"), s("fallback"));
}

#[wasm_bindgen_test]
fn a_bypassed_payload_throws_a_typed_error() {
    let guard = small_guard(r#"{"auto_compact_token_limit":300,"summary_enabled":false}"#);
    let payload = format!(
        r#"{{\"mode\":\"direct_injection\",\"chunks\":[\"{}\"]}}"#,
        "fact ".repeat(2000)
    );
    let history = js(&format!(
        r#"[{{"role":"user","content":"q"}},
            {{"role":"assistant","content":"","tool_calls":[{{"id":"kb","type":"function","function":{{"name":"knowledge_base_search","arguments":"{{}}"}}}}]}},
            {{"role":"tool","tool_call_id":"kb","name":"knowledge_base_search","content":"{payload}"}},
            {{"role":"user","content":"now"}}]"#
    ));
    let error = thrown(call(&guard, "beforeModelCall", &[history, n(NOW_MS)]));
    let text = String::from(error.message());
    assert_eq!(
        text,
        "history: Current context still exceeds the safe input budget after compaction, and at least \
         one protected payload cannot be truncated safely. Narrow the request or avoid direct \
         injection for this turn."
    );
    let error = JsValue::from(error);
    assert_eq!(get(&error, "code"), s("bypassed_payload_too_large"));
    assert_eq!(get(&error, "trigger_limit"), n(300.0));
    assert!(get(&error, "used_tokens")
        .as_f64()
        .is_some_and(|u| u >= 300.0));
    // The guard is still usable.
    let short = js(r#"[{"role":"user","content":"hi"}]"#);
    assert!(call(&guard, "beforeModelCall", &[short, n(NOW_MS)]).is_ok());
}

#[wasm_bindgen_test]
fn bad_arguments_throw_errors_naming_them() {
    let new = |model: JsValue, config: JsValue, options: JsValue| {
        ContextGuard::new(model, config, options)
            .map(JsValue::from)
            .map_err(JsValue::from)
    };
    assert_eq!(
        message(new(n(4.0), JsValue::UNDEFINED, JsValue::UNDEFINED)),
        "model: expected a string, got the number 4"
    );
    assert_eq!(
        message(new(s("m"), js(r#"{"context_window":-1}"#), JsValue::NULL)),
        "modelConfig.context_window: must be ≥ 0, got -1"
    );
    let m = message(new(
        s("m"),
        JsValue::NULL,
        js(r#"{"summaryEnabled":false}"#),
    ));
    assert!(
        m.starts_with("options: unknown field `summaryEnabled`"),
        "{m}"
    );
    assert_eq!(
        message(new(
            s("m"),
            JsValue::NULL,
            js(r#"{"tool_output_policy":{"kind":"tokens","limit":-2}}"#)
        )),
        "options.tool_output_policy.limit: must be ≥ 0, got -2"
    );
    assert_eq!(
        message(new(
            s("m"),
            JsValue::NULL,
            js(r#"{"tool_policy_overrides":{"sh":{"kind":"bytes","limit":-1}}}"#)
        )),
        "options.tool_policy_overrides[\"sh\"].limit: must be ≥ 0, got -1"
    );
    assert_eq!(
        message(new(
            s("m"),
            JsValue::NULL,
            js(r#"{"heartbeat_interval_ms":-5}"#)
        )),
        "options.heartbeat_interval_ms: must be ≥ 0, got -5"
    );
    assert_eq!(
        message(new(s("m"), JsValue::NULL, s("fast"))),
        "options: expected an object of GuardOptions, got the string \"fast\""
    );

    let guard = small_guard("{}");
    let history = js(r#"[{"role":"user","content":"hi"}]"#);
    assert_eq!(
        message(call(&guard, "beforeModelCall", std::slice::from_ref(&history))),
        "nowMs: expected a time in milliseconds since the Unix epoch (e.g. Date.now()), got undefined"
    );
    assert_eq!(
        message(call(&guard, "beforeModelCall", &[history.clone(), n(-1.0)])),
        "nowMs: expected a time in milliseconds between 0 and 8.64e15, got -1"
    );
    assert_eq!(
        message(call(
            &guard,
            "beforeModelCall",
            &[history.clone(), n(f64::NAN)]
        )),
        "nowMs: expected a time in milliseconds between 0 and 8.64e15, got NaN"
    );
    assert_eq!(
        message(call(
            &guard,
            "beforeModelCall",
            &[history.clone(), n(NOW_MS), n(7.0)]
        )),
        "responseId: expected a string, got the number 7"
    );
    assert_eq!(
        message(call(&guard, "beforeModelCall", &[js("[1]"), n(NOW_MS)])),
        "history[0]: expected a message object"
    );

    let guard = small_guard(r#"{"auto_compact_token_limit":300}"#);
    let decision = ok(call(
        &guard,
        "beforeModelCall",
        &[long_history(), n(NOW_MS)],
    ));
    let request = get(&decision, "request");
    assert_eq!(
        message(call(
            &request,
            "onError",
            &[js(r#"{"message":"x","status":700}"#), n(NOW_MS)]
        )),
        "error.status: expected an HTTP status (100-599), got 700"
    );
    assert_eq!(
        message(call(
            &request,
            "onError",
            &[js(r#"{"status":413}"#), n(NOW_MS)]
        )),
        "error.message: expected a string, got undefined"
    );
    assert_eq!(
        message(call(&request, "onError", &[n(5.0), n(NOW_MS)])),
        "error: expected a string or an object {message, status?}, got the number 5"
    );
    assert_eq!(
        message(call(&request, "onSummary", &[JsValue::NULL, n(NOW_MS)])),
        "reply: expected a string or an array of content parts, got null"
    );
    assert_eq!(
        message(call(&request, "fallBack", &[n(NOW_MS), s("tired")])),
        "reason: unknown failure reason \"tired\" (expected summary_compact_failed or summary_compact_not_applicable)"
    );
    // Rejected arguments do not spend the request.
    assert_eq!(ok(call(&request, "attempt", &[])), n(1.0));
}

#[wasm_bindgen_test]
fn strict_counting_counts_tool_calls_as_the_metrics_do() {
    let args = format!(r#"{{\"q\":\"{}\"}}"#, "needle ".repeat(100));
    let history = format!(
        r#"[{{"role":"user","content":"q"}},
            {{"role":"assistant","content":"","tool_calls":[{{"id":"c1","type":"function","function":{{"name":"grep","arguments":"{args}"}}}}]}},
            {{"role":"tool","tool_call_id":"c1","name":"grep","content":"found","id":"t1","additional_kwargs":{{"compacted":true}}}}]"#
    );
    let used = |options: &str| {
        let guard = small_guard(options);
        let ready = ok(call(&guard, "beforeModelCall", &[js(&history), n(NOW_MS)]));
        assert_eq!(get(&ready, "kind"), s("proceed"));
        get(&ready, "used_tokens").as_f64().expect("number")
    };
    let metrics = count_messages(js(&history), s("gpt-4o")).expect("counts");
    let reference = used(r#"{"auto_compact_token_limit":100000}"#);
    let strict = used(r#"{"auto_compact_token_limit":100000,"strict_counting":true}"#);
    assert_eq!(strict, metrics);
    assert!(
        reference + 100.0 < strict,
        "the reference's guard counts no tool-call arguments"
    );
    let m = message(
        ContextGuard::new(
            s("gpt-4o"),
            JsValue::NULL,
            js(r#"{"strict_counting":"yes"}"#),
        )
        .map(JsValue::from)
        .map_err(JsValue::from),
    );
    assert!(m.starts_with("options: invalid type: string"), "{m}");
}

#[wasm_bindgen_test]
fn a_summary_reply_may_be_content_parts() {
    let guard = small_guard(r#"{"auto_compact_token_limit":300}"#);
    let decision = ok(call(
        &guard,
        "beforeModelCall",
        &[long_history(), n(NOW_MS)],
    ));
    let request = get(&decision, "request");
    let reply =
        js(r#"[{"type":"thinking","thinking":"Objective: "},{"type":"text","text":"answer"}]"#);
    let done = ok(call(&request, "onSummary", &[reply, n(NOW_MS)]));
    assert_eq!(
        get(&get(&done, "replacement"), "summary_text"),
        s("Objective: answer")
    );
}
