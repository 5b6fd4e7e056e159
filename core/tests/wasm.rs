//! Browser tests (wasm32, headless Chromium): every public conformance vector
//! through the same core entry points the native tests use, then the JS-facing
//! layer of the `wasm` feature: argument validation, error messages, and plain
//! object outputs; `wasm/guard.rs` drives the guard classes as a JS host does.
//!
//! Run: `cargo test -p ctxguard-core --target wasm32-unknown-unknown --test wasm` (tests/wasm-host/run.sh)
#![cfg(target_arch = "wasm32")]

use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

const VECTORS: &str = include_str!("../../tests/conformance/vectors.jsonl");

#[wasm_bindgen_test]
fn every_public_vector_passes_in_the_browser() {
    let summary = ctxguard_core::conformance::run_jsonl(VECTORS);
    let total = summary.passed + summary.failures.len();
    assert!(total >= 412, "expected at least 412 vectors, found {total}");
    assert!(
        summary.failures.is_empty(),
        "{} of {total} vectors failed, first: {:?}",
        summary.failures.len(),
        &summary.failures[..summary.failures.len().min(3)]
    );
}

#[cfg(all(feature = "wasm", target_arch = "wasm32"))]
mod js_api {
    use ctxguard_core::wasm::*;
    use js_sys::{Array, Object, Reflect, JSON};
    use wasm_bindgen::{JsCast, JsValue};
    use wasm_bindgen_test::*;

    pub(super) fn js(json: &str) -> JsValue {
        JSON::parse(json).expect("test JSON is valid")
    }

    pub(super) fn s(text: &str) -> JsValue {
        JsValue::from_str(text)
    }

    pub(super) fn n(value: f64) -> JsValue {
        JsValue::from_f64(value)
    }

    /// The message of the JS `Error` a failing call throws.
    fn message<T: std::fmt::Debug>(result: Result<T, Thrown>) -> String {
        let err = result.expect_err("the call must throw");
        let value = JsValue::from(err);
        assert!(
            value.is_instance_of::<js_sys::Error>(),
            "thrown value is an Error"
        );
        let err: js_sys::Error = value.unchecked_into();
        String::from(err.message())
    }

    pub(super) fn get(obj: &JsValue, key: &str) -> JsValue {
        Reflect::get(obj, &s(key)).expect("property read")
    }

    /// A plain object: its prototype is Object.prototype (not a Map).
    fn assert_plain_object(v: &JsValue) {
        assert!(v.is_object() && !Array::is_array(v), "an object");
        assert!(!v.is_instance_of::<js_sys::Map>(), "not a Map");
        let proto = Object::get_prototype_of(v);
        assert_eq!(
            JsValue::from(proto),
            JsValue::from(Object::get_prototype_of(&Object::new()))
        );
    }

    fn stringify(v: &JsValue) -> String {
        String::from(JSON::stringify(v).expect("serialisable"))
    }

    #[wasm_bindgen_test]
    fn token_ledger_matches_a_full_recount_and_validates_its_arguments() {
        let history = r#"[{"role":"system","content":"be brief"},{"role":"user","content":"hello <attachment>[Attachment: a | ID: 1 | Type: t]\nbody</attachment>"},{"role":"assistant","content":"hi"}]"#;
        let mut ledger = TokenLedger::new(s("gpt-4o"), JsValue::NULL).expect("valid model");
        ledger.push_all(js(history)).expect("valid messages");
        ledger
            .push(js(r#"{"role":"tool","content":"output"}"#))
            .expect("valid message");
        let mut all: Vec<serde_json::Value> = serde_json::from_str(history).expect("json");
        all.push(serde_json::json!({"role":"tool","content":"output"}));
        let full = count_messages(js(&serde_json::to_string(&all).expect("json")), s("gpt-4o"))
            .expect("counts");
        assert_eq!(ledger.used_tokens(), full);
        assert_eq!(ledger.length(), 4);
        let snap = ledger.snapshot().expect("snapshot");
        let used = Reflect::get(&snap, &s("used_input_tokens"))
            .expect("field")
            .as_f64();
        assert_eq!(used, Some(full));
        assert!(Reflect::get(&snap, &s("breakdown"))
            .expect("field")
            .is_object());
        ledger.truncate(n(1.0)).expect("valid length");
        assert_eq!(ledger.length(), 1);
        let text = message(ledger.push(s("nope")));
        assert!(text.starts_with("message"), "{text}");
        let text = message(TokenLedger::new(n(3.0), JsValue::NULL).map(|_| ()));
        assert!(text.starts_with("model"), "{text}");
    }

    /// A JS value made by running `body` (getters and proxies that JSON cannot express).
    fn made_by(body: &str) -> JsValue {
        js_sys::Function::new_no_args(body)
            .call0(&JsValue::NULL)
            .expect("test JS runs")
    }

    // Regression: `TokenLedger.truncate` took a u32, so NaN, 0.5, -1 and 2^53 were
    // converted (to 0, 0, 4294967295 and 0) instead of refused.
    #[wasm_bindgen_test]
    fn token_ledger_truncate_validates_its_length() {
        let mut ledger = TokenLedger::new(s("gpt-4o"), JsValue::NULL).expect("valid model");
        ledger
            .push_all(js(
                r#"[{"role":"user","content":"a"},{"role":"user","content":"b"}]"#,
            ))
            .expect("valid messages");
        for (length, problem) in [
            (f64::NAN, "length: expected an integer, got NaN"),
            (0.5, "length: expected an integer, got 0.5"),
            (-1.0, "length: must be ≥ 0, got -1"),
            (
                9_007_199_254_740_992.0,
                "length: expected a safe integer (at most 2^53 - 1 in size), got 9007199254740992",
            ),
        ] {
            assert_eq!(message(ledger.truncate(n(length))), problem);
            assert_eq!(ledger.length(), 2, "a refused truncate keeps every message");
        }
        assert_eq!(
            message(ledger.truncate(s("1"))),
            "length: expected an integer, got the string \"1\""
        );
        ledger
            .truncate(n(5.0))
            .expect("past the end keeps everything");
        assert_eq!(ledger.length(), 2);
    }

    // Regression: `TokenLedger.push` let a getter's `throw "boom"` pass through as a
    // bare string (and out of every export that reads objects).
    #[wasm_bindgen_test]
    fn a_throwing_getter_becomes_an_error_at_its_path() {
        let mut ledger = TokenLedger::new(s("gpt-4o"), JsValue::NULL).expect("valid model");
        let message_with_getter =
            made_by(r#"return { role: "user", get content() { throw "boom"; } };"#);
        assert_eq!(
            message(ledger.push(message_with_getter)),
            "message.content: reading it threw the string \"boom\""
        );
        let throwing_proxy = made_by(
            r#"return [{ role: "user", content: "hi" }, new Proxy({}, { ownKeys() { throw new RangeError("no keys"); } })];"#,
        );
        assert_eq!(
            message(ledger.push_all(throwing_proxy)),
            "messages[1]: reading it threw RangeError: no keys"
        );
        let throwing_item = made_by(
            r#"const list = [1]; Object.defineProperty(list, 0, { get() { throw 7; } }); return list;"#,
        );
        assert_eq!(
            message(allocate_budget_js(throwing_item, n(1.0))),
            "sizes[0]: reading it threw the number 7"
        );
        assert_eq!(ledger.length(), 0);
        ledger
            .push(js(r#"{"role":"user","content":"still usable"}"#))
            .expect("valid message");
        assert_eq!(ledger.length(), 1);
    }

    #[wasm_bindgen_test]
    fn counts_tokens_and_messages() {
        assert_eq!(
            count_tokens(s("hello world"), s("gpt-4o")).expect("counts"),
            2.0
        );
        assert_eq!(count_tokens(s(""), s("gpt-4o")).expect("counts"), 0.0);
        assert_eq!(count_messages(js("[]"), s("gpt-4o")).expect("counts"), 3.0);
        assert_eq!(
            count_messages(js(r#"[{"role":"user","content":"hello"}]"#), s("gpt-4o"))
                .expect("counts"),
            9.0
        );
    }

    #[wasm_bindgen_test]
    fn wrong_types_name_the_argument() {
        assert_eq!(
            message(count_tokens(n(5.0), s("gpt-4o"))),
            "text: expected a string, got the number 5"
        );
        assert_eq!(
            message(count_tokens(s("x"), JsValue::UNDEFINED)),
            "model: expected a string, got undefined"
        );
        assert_eq!(
            message(count_messages(js(r#"{"role":"user"}"#), s("gpt-4o"))),
            "messages: expected an array of message objects, got a value of type object"
        );
        assert_eq!(
            message(count_messages(js("[1]"), s("gpt-4o"))),
            "messages[0]: expected a message object"
        );
        let m = message(count_messages(
            js(r#"[{"role":"user","content":"a"},{"role":5}]"#),
            s("gpt-4o"),
        ));
        assert!(
            m.starts_with("messages[1]: invalid type: integer `5`"),
            "{m}"
        );
        assert_eq!(
            message(is_text_readable_mime_js(JsValue::NULL)),
            "mime: expected a string, got null"
        );
    }

    #[wasm_bindgen_test]
    fn non_json_values_are_refused_with_their_path() {
        let f = js_sys::Function::new_no_args("return 1");
        let msgs = js(r#"[{"role":"user","content":[{"type":"text","text":"a"},{"type":"x"}]}]"#);
        let part = Reflect::get(
            &get(&Reflect::get(&msgs, &n(0.0)).expect("item"), "content"),
            &n(1.0),
        )
        .expect("part");
        Reflect::set(&part, &s("f"), &f).expect("set");
        assert_eq!(
            message(count_messages(msgs, s("gpt-4o"))),
            "messages[0].content[1].f: a value of type function is not a JSON value"
        );
        let nan = js(r#"[{"role":"user","content":"a"}]"#);
        Reflect::set(
            &Reflect::get(&nan, &n(0.0)).expect("item"),
            &s("score"),
            &n(f64::NAN),
        )
        .expect("set");
        assert_eq!(
            message(count_messages(nan, s("gpt-4o"))),
            "messages[0].score: NaN is not a JSON number"
        );
        let deep = (0..200).fold(JsValue::from(Array::new()), |inner, _| {
            Array::of1(&inner).into()
        });
        let wrapped = Array::of1(&js(r#"{"role":"user"}"#));
        Reflect::set(&wrapped.get(0), &s("deep"), &deep).expect("set");
        let m = message(count_messages(wrapped.into(), s("gpt-4o")));
        assert!(m.ends_with("nested more than 128 levels deep"), "{m}");
    }

    #[wasm_bindgen_test]
    fn context_config_is_a_plain_object() {
        let limits =
            context_config(s("o3-mini"), JsValue::UNDEFINED, JsValue::UNDEFINED).expect("limits");
        assert_plain_object(&limits);
        assert_eq!(
            stringify(&limits),
            r#"{"context_window":200000,"reserved_output_tokens":20000,"available_tokens":180000,"trigger_limit":162000,"target_limit":125999}"#
        );
        let custom =
            context_config(s("m"), js(r#"{"context_window":200000}"#), n(90000.0)).expect("limits");
        assert_eq!(get(&custom, "trigger_limit"), n(90000.0));
        assert_eq!(get(&custom, "target_limit"), n(89999.0));
        assert_eq!(
            message(context_config(
                s("m"),
                js(r#"{"context_window":-1}"#),
                JsValue::NULL
            )),
            "modelConfig.context_window: must be ≥ 0, got -1"
        );
        let m = message(context_config(
            s("m"),
            js(r#"{"context_window":"big"}"#),
            JsValue::NULL,
        ));
        assert!(
            m.starts_with("modelConfig: invalid type: string \"big\""),
            "{m}"
        );
        assert_eq!(
            message(context_config(s("m"), JsValue::NULL, n(1.5))),
            "autoCompactTokenLimit: expected an integer, got 1.5"
        );
        assert_eq!(
            message(context_config(s("m"), s("x"), JsValue::NULL)),
            "modelConfig: expected an object {context_window?, max_output_tokens?}, got the string \"x\""
        );
    }

    #[wasm_bindgen_test]
    fn metrics_have_the_wire_fields_and_a_breakdown() {
        let msgs = js(
            r#"[{"role":"system","content":"be brief"},{"role":"user","content":"hello <attachment>[Attachment: a.txt | ID: 1 | Type: text/plain | Size: 5 bytes | URL: /api/attachments/1/download]\nhello</attachment>"}]"#,
        );
        let snap = context_metrics(
            msgs.clone(),
            s("gpt-4o"),
            JsValue::UNDEFINED,
            JsValue::UNDEFINED,
        )
        .expect("snapshot");
        assert_plain_object(&snap);
        let keys: Vec<String> = Object::keys(snap.unchecked_ref::<Object>())
            .iter()
            .map(|k| k.as_string().expect("key"))
            .collect();
        assert_eq!(
            keys,
            [
                "context_window",
                "reserved_output_tokens",
                "available_input_tokens",
                "used_input_tokens",
                "remaining_input_tokens",
                "remaining_percent",
                "display_remaining_tokens",
                "display_remaining_percent",
                "trigger_limit",
                "target_limit",
                "is_over_trigger",
                "breakdown"
            ]
        );
        let used = get(&snap, "used_input_tokens").as_f64().expect("number");
        assert_eq!(
            used,
            count_messages(msgs.clone(), s("gpt-4o")).expect("counts")
        );
        let breakdown = get(&snap, "breakdown");
        assert_plain_object(&breakdown);
        let sum: f64 = [
            "system",
            "user",
            "assistant",
            "tool_outputs",
            "attachments",
            "overhead",
        ]
        .iter()
        .map(|k| get(&breakdown, k).as_f64().expect("number"))
        .sum();
        assert_eq!(sum, used);
        assert!(get(&breakdown, "attachments").as_f64().expect("number") > 0.0);

        let baseline = Object::new();
        Reflect::set(&baseline, &s("input_tokens"), &n(1000.0)).expect("set");
        Reflect::set(&baseline, &s("messages"), &msgs).expect("set");
        let with_base = context_metrics(msgs.clone(), s("gpt-4o"), JsValue::NULL, baseline.into())
            .expect("snapshot");
        assert_eq!(get(&with_base, "used_input_tokens"), n(1000.0));
        assert!(get(&with_base, "breakdown").is_undefined());
        assert_eq!(
            message(context_metrics(
                msgs.clone(),
                s("gpt-4o"),
                JsValue::NULL,
                js(r#"{"input_tokens":5}"#)
            )),
            "baseline: missing required field \"messages\""
        );
        assert_eq!(
            message(context_metrics(
                msgs,
                s("gpt-4o"),
                JsValue::NULL,
                js(r#"{"input_tokens":-5,"messages":[]}"#)
            )),
            "baseline.input_tokens: must be ≥ 0, got -5"
        );
    }

    #[wasm_bindgen_test]
    fn allocations_are_an_array_and_negative_limits_throw() {
        let out =
            allocate_budget_js(js("[1, 90000, 90000, 1, 7]"), n(4000.0)).expect("allocations");
        assert!(Array::is_array(&out));
        assert_eq!(stringify(&out), "[1,1995,1996,1,7]");
        assert_eq!(
            message(allocate_budget_js(js("[1, -2]"), n(4.0))),
            "sizes[1]: must be ≥ 0, got -2"
        );
        assert_eq!(
            message(allocate_budget_js(js("[1]"), n(-4.0))),
            "budget: must be ≥ 0, got -4"
        );
        assert_eq!(
            message(allocate_budget_js(js("[1]"), s("4"))),
            "budget: expected an integer, got the string \"4\""
        );
        assert_eq!(
            message(allocate_budget_js(js("[1]"), n(1e300))),
            "budget: expected a safe integer (at most 2^53 - 1 in size), got 1e+300"
        );
    }

    #[wasm_bindgen_test]
    fn tool_output_renders_and_validates_policy() {
        let policy = js(r#"{"kind":"tokens","limit":64}"#);
        let out = render_tool_output(s("ok"), policy.clone(), s("gpt-4o"), JsValue::UNDEFINED)
            .expect("renders");
        assert_eq!(
            out,
            "[tool_output name=unknown total_tokens=1 truncated=false]\nok"
        );
        let raw = js(r#"{"text":"ok","tool_name":"run shell","exit_code":0,"wall_time":1.25}"#);
        let out =
            render_tool_output(raw, policy.clone(), s("gpt-4o"), JsValue::TRUE).expect("renders");
        assert!(
            out.starts_with("[tool_output name=run_shell ")
                && out.ends_with("\n[exit_code=0 wall_time=1.2s]"),
            "{out}"
        );
        assert_eq!(
            message(render_tool_output(
                s("ok"),
                js(r#"{"kind":"tokens","limit":-1}"#),
                s("gpt-4o"),
                JsValue::NULL
            )),
            "policy.limit: must be ≥ 0, got -1"
        );
        let m = message(render_tool_output(
            s("ok"),
            js(r#"{"kind":"lines","limit":1}"#),
            s("gpt-4o"),
            JsValue::NULL,
        ));
        assert!(m.starts_with("policy: unknown variant `lines`"), "{m}");
        assert_eq!(
            message(render_tool_output(
                s("ok"),
                js(r#"{"kind":"tokens"}"#),
                s("gpt-4o"),
                JsValue::NULL
            )),
            "policy: missing required field \"limit\""
        );
        assert_eq!(
            message(render_tool_output(
                js(r#"{"tool_name":"x"}"#),
                policy.clone(),
                s("gpt-4o"),
                JsValue::NULL
            )),
            "raw: missing required field \"text\""
        );
        assert_eq!(
            message(render_tool_output(n(1.0), policy.clone(), s("gpt-4o"), JsValue::NULL)),
            "raw: expected a string or an object {text, tool_name?, exit_code?, wall_time?}, got the number 1"
        );
        assert_eq!(
            message(render_tool_output(s("ok"), policy, s("gpt-4o"), s("yes"))),
            "emergency: expected a boolean, got the string \"yes\""
        );
    }

    #[wasm_bindgen_test]
    fn preview_returns_messages_traces_and_segments() {
        let body = "word ".repeat(400);
        let text = format!(
            "see <attachment>[Attachment: a.txt | ID: 7 | Type: text/plain | Size: 2.0 KB | URL: /api/attachments/7/download]\n{body}</attachment>"
        );
        let msgs = Array::of1(&js(&format!(
            r#"{{"role":"user","content":{}}}"#,
            serde_json::to_string(&text).expect("json")
        )));
        let out = preview_attachments(msgs.into(), s("gpt-4o"), n(50.0)).expect("preview");
        assert_plain_object(&out);
        let traces = get(&out, "traces");
        assert!(Array::is_array(&traces));
        let trace = Array::from(&traces).get(0);
        assert_plain_object(&trace);
        assert_eq!(
            get(&trace, "name"),
            s("context_protection.attachment_preview")
        );
        let attributes = get(&trace, "attributes");
        assert_plain_object(&attributes);
        assert_eq!(get(&attributes, "status"), s("applied"));
        let segment = Array::from(&get(&out, "segments")).get(0);
        assert_eq!(get(&segment, "attachment_id"), s("7"));
        assert_eq!(get(&segment, "truncated"), JsValue::TRUE);
        let content = get(&Array::from(&get(&out, "messages")).get(0), "content")
            .as_string()
            .expect("string");
        assert!(content.contains("| Truncated: yes]"), "{content}");
        assert_eq!(
            message(preview_attachments(js("[]"), s("gpt-4o"), n(-1.0))),
            "limit: must be ≥ 0, got -1"
        );
    }

    #[wasm_bindgen_test]
    fn header_and_mime() {
        let header = build_attachment_header(js(
            r#"{"attachment_id":3,"filename":"C:\\docs\\a.txt","mime_type":"text/plain","file_size":1280,"sandbox_path":"/w/a.txt"}"#,
        ))
        .expect("header");
        assert_eq!(
            header,
            "[Attachment: a.txt | ID: 3 | Type: text/plain | Size: 1.2 KB | URL: /api/attachments/3/download | File Path(already in sandbox): /w/a.txt]"
        );
        assert_eq!(
            message(build_attachment_header(js(
                r#"{"attachment_id":3,"filename":"a"}"#
            ))),
            "args: missing required field \"file_size\""
        );
        assert_eq!(
            message(build_attachment_header(js(
                r#"{"attachment_id":3,"filename":"a","file_size":-1}"#
            ))),
            "args.file_size: must be ≥ 0, got -1"
        );
        assert!(is_text_readable_mime_js(s("application/ld+json")).expect("bool"));
        assert!(!is_text_readable_mime_js(s("image/png")).expect("bool"));
    }

    #[wasm_bindgen_test]
    fn read_attachment_pages() {
        let doc = js(
            r#"{"text":"abcdef","name":"a.txt","mime_type":"text/plain","source_truncated":true}"#,
        );
        let page = read_attachment_page(doc.clone(), n(1.0), n(0.0), n(4.0), n(100.0), s("gpt-4"))
            .expect("page");
        assert_plain_object(&page);
        assert_eq!(
            stringify(&page),
            r#"{"status":"success","attachment_id":1,"name":"a.txt","mime_type":"text/plain","offset":0,"chars_read":4,"total_chars":6,"next_offset":4,"has_more":true,"source_truncated":true,"content":"abcd"}"#
        );
        let last = read_attachment_page(doc.clone(), n(1.0), n(4.0), n(4.0), n(100.0), s("gpt-4"))
            .expect("page");
        assert_eq!(get(&last, "next_offset"), JsValue::NULL);
        assert!(get(&last, "warning").is_string());
        let far = read_attachment_page(
            doc.clone(),
            n(1.0),
            n(4294967297.0),
            n(4.0),
            n(100.0),
            s("gpt-4"),
        )
        .expect("page");
        assert_eq!(
            get(&far, "chars_read"),
            n(0.0),
            "offsets past 2^32 do not wrap on wasm32"
        );
        let missing =
            read_attachment_page(JsValue::NULL, n(1.0), n(0.0), n(0.0), n(0.0), s("gpt-4"))
                .expect("page");
        assert_eq!(get(&missing, "status"), s("error"));
        assert_eq!(
            message(read_attachment_page(
                doc.clone(),
                n(1.0),
                n(0.0),
                n(-4.0),
                n(100.0),
                s("gpt-4")
            )),
            "limit: must be ≥ 0, got -4"
        );
        assert_eq!(
            message(read_attachment_page(
                doc,
                n(1.0),
                n(0.0),
                n(0.0),
                n(-1.0),
                s("gpt-4")
            )),
            "pageTokenLimit: must be ≥ 0, got -1"
        );
        assert_eq!(
            message(read_attachment_page(
                js(r#"{"name":"a"}"#),
                n(1.0),
                n(0.0),
                n(0.0),
                n(0.0),
                s("gpt-4")
            )),
            "doc: missing required field \"text\""
        );
    }

    #[wasm_bindgen_test]
    fn emit_throttling() {
        let prev = js(r#"{"remaining_percent":40,"is_over_trigger":false}"#);
        let cur = js(r#"{"remaining_percent":39,"is_over_trigger":false,"used_input_tokens":5}"#);
        assert!(
            should_emit_status_update(prev.clone(), cur.clone(), s("after_tool_end"))
                .expect("bool")
        );
        assert!(
            !should_emit_status_update(cur.clone(), cur.clone(), s("after_tool_end"))
                .expect("bool")
        );
        assert!(
            should_emit_status_update(JsValue::NULL, cur.clone(), s("after_tool_end"))
                .expect("bool")
        );
        assert_eq!(
            message(should_emit_status_update(prev.clone(), cur.clone(), s("later"))),
            "phase: unknown phase \"later\" (expected one of build_messages, after_tool_end, after_compaction, summary_compact, final)"
        );
        assert_eq!(
            message(should_emit_status_update(
                prev,
                js(r#"{"remaining_percent":3}"#),
                s("final")
            )),
            "current: missing required field \"is_over_trigger\""
        );
    }

    #[wasm_bindgen_test]
    fn status_events_parse_to_plain_objects() {
        let data = r#"{"type":"response.status.updated","response_id":"resp_1","phase":"summary_compact","extra":1,
          "context_metrics":{"context_window":100,"reserved_output_tokens":10,"available_input_tokens":90,"used_input_tokens":95,
          "remaining_input_tokens":0,"remaining_percent":0,"display_remaining_tokens":5,"display_remaining_percent":5,
          "trigger_limit":81,"target_limit":63,"is_over_trigger":true},
          "context_compaction":{"type":"summary_compact","status":"in_progress","before_tokens":95,"trigger_limit":81,
          "target_limit":63,"used_legacy_fallback":false,"created_at":"2026-06-23T14:55:34Z"}}"#;
        let event = parse_status_event(s(data)).expect("event");
        assert_plain_object(&event);
        assert_plain_object(&get(&event, "context_metrics"));
        assert_eq!(
            get(&get(&event, "context_compaction"), "status"),
            s("in_progress")
        );
        assert!(
            get(&event, "extra").is_undefined(),
            "unknown fields are dropped"
        );
        let m = message(parse_status_event(s("{not json")));
        assert!(
            m.starts_with("data: invalid status event: key must be a string"),
            "{m}"
        );
        let m = message(parse_status_event(s(
            &data.replace("summary_compact\",\"extra", "later\",\"extra")
        )));
        assert!(
            m.starts_with("data: invalid status event: unknown phase \"later\""),
            "{m}"
        );
        assert_eq!(
            message(parse_status_event(js("{}"))),
            "data: expected a string, got a value of type object"
        );
    }
}

#[cfg(all(feature = "wasm", target_arch = "wasm32"))]
#[path = "wasm/guard.rs"]
mod guard_api;

#[cfg(all(feature = "wasm", target_arch = "wasm32"))]
#[path = "wasm/history.rs"]
mod history_api;
