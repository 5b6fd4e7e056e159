//! The guard's history helpers for JS hosts (`core/src/wasm/checkpoint.rs`):
//! tool-pair sanitising, the retained users, the reference's stored turns and
//! the context-too-long classifier, with the errors their arguments raise.

use crate::guard_api::{at, len, message, stringify};
use crate::js_api::{get, js, n, s};
use ctxguard_core::wasm::*;
use js_sys::Object;
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_test::*;

#[wasm_bindgen_test]
fn bad_arguments_name_the_argument() {
    assert_eq!(
        message(
            select_recent_user_messages_js(js("[]"), n(1.5), s("gpt-4o")).map_err(JsValue::from)
        ),
        "tokenLimit: expected an integer, got 1.5"
    );
    assert_eq!(
        message(
            reload_messages_js(js(r#"[{"role":"bot"}]"#), JsValue::UNDEFINED)
                .map_err(JsValue::from)
        ),
        "turns[0].role: expected \"USER\" or \"ASSISTANT\", got \"bot\""
    );
    assert_eq!(
        message(
            latest_checkpoint_js(
                js(r#"[{"role":"USER","status":"DONE"}]"#),
                JsValue::UNDEFINED
            )
            .map_err(JsValue::from)
        ),
        "turns[0].status: expected \"PENDING\" or \"RUNNING\" or \"COMPLETED\" or \"FAILED\" or \
         \"CANCELLED\" or \"DELETE\" or \"PENDING_CONFIRMATION\", got \"DONE\""
    );
    assert_eq!(
        message(
            latest_checkpoint_js(
                js(r#"[{"role":"USER","status":"COMPLETED","prompt":7}]"#),
                JsValue::UNDEFINED
            )
            .map_err(JsValue::from)
        ),
        "turns[0].prompt: expected a string, got 7"
    );
    let bad_chain =
        r#"[{"role":"ASSISTANT","status":"COMPLETED","result":{"messages_chain":[{"role":9}]}}]"#;
    assert!(message(
        reload_messages_js(js(bad_chain), JsValue::UNDEFINED)
            .map(|_| JsValue::NULL)
            .map_err(JsValue::from)
    )
    .starts_with("turns: invalid messages: message 0"));
    assert_eq!(
        message(latest_checkpoint_js(js("[]"), n(1.5)).map_err(JsValue::from)),
        "limit: expected an integer, got 1.5"
    );
    assert_eq!(
        message(sanitize_tool_pairs_js(js("{}")).map_err(JsValue::from)),
        "messages: expected an array of message objects, got a value of type object"
    );
}

#[wasm_bindgen_test]
fn free_functions_of_the_guard() {
    let messages = js(r#"[{"role":"user","content":"q"},
            {"role":"tool","tool_call_id":"gone","content":"orphan"},
            {"role":"assistant","content":"a"}]"#);
    let clean = sanitize_tool_pairs_js(messages).expect("sanitises");
    assert_eq!(
        stringify(&clean),
        r#"[{"role":"user","content":"q"},{"role":"assistant","content":"a"}]"#
    );

    let users = js(
        r#"[{"role":"user","content":"one","name":"alice","id":"m1"},{"role":"assistant","content":"a"},{"role":"user","content":"two"}]"#,
    );
    let recent = select_recent_user_messages_js(users, n(1000.0), s("gpt-4o")).expect("selects");
    assert_eq!(len(&recent), 2);
    let mut ids = Vec::new();
    for (i, text) in ["one", "two"].iter().enumerate() {
        let m = at(&recent, i as u32);
        let keys: Vec<String> = Object::keys(m.unchecked_ref::<Object>())
            .iter()
            .filter_map(|k| k.as_string())
            .collect();
        assert_eq!(
            keys,
            ["role", "content", "additional_kwargs", "id"],
            "no name"
        );
        assert_eq!(get(&m, "content"), s(text));
        assert_eq!(
            stringify(&get(&m, "additional_kwargs")),
            r#"{"checkpoint_retained":true}"#
        );
        let id = get(&m, "id").as_string().expect("an id");
        assert!(
            id.len() == 36 && id.as_bytes()[14] == b'4' && id != "m1",
            "a fresh uuid4: {id}"
        );
        ids.push(id);
    }
    assert_ne!(ids[0], ids[1]);
    // The limit is the reference's: each message costs countMessages([m]); nothing fits in 0 tokens.
    let none = select_recent_user_messages_js(
        js(r#"[{"role":"user","content":"x"}]"#),
        n(-5.0),
        s("gpt-4o"),
    );
    assert_eq!(len(&none.expect("selects")), 0);

    let turns = js(
        r#"[{"role":"USER","status":"COMPLETED","result":null,"prompt":"u1"},
            {"role":"ASSISTANT","status":"COMPLETED","result":{"value":"a1","messages_chain":[
              {"role":"user","content":"[COMPACT SUMMARY] s","additional_kwargs":{"summary_compacted":true}},
              {"role":"assistant","content":"a1"}]}},
            {"role":"USER","status":"COMPLETED","prompt":"u2"},
            {"role":"ASSISTANT","status":"DELETE","result":{"value":"gone"}}]"#,
    );
    let reloaded = reload_messages_js(turns.clone(), JsValue::UNDEFINED).expect("reloads");
    let contents: Vec<String> = (0..len(&reloaded))
        .map(|i| {
            get(&at(&reloaded, i), "content")
                .as_string()
                .unwrap_or_default()
        })
        .collect();
    assert_eq!(contents, ["[COMPACT SUMMARY] s", "a1", "u2"]);
    let one = latest_checkpoint_js(turns.clone(), n(1.0)).expect("selects");
    assert_eq!(len(&one), 1);
    assert_eq!(get(&at(&one, 0), "role"), s("ASSISTANT"));
    assert_eq!(get(&at(&one, 0), "status"), s("COMPLETED"));
    // A limit of 0 is no limit (the reference's rule), not "the checkpoint alone".
    assert_eq!(
        len(&latest_checkpoint_js(turns, n(0.0)).expect("selects")),
        2
    );

    let too_long = |v: JsValue| is_context_too_long_error_js(v).expect("valid failure");
    assert!(too_long(s("输入长度超过限制")));
    assert!(too_long(js(r#"{"message":"whatever","status":413}"#)));
    assert!(!too_long(js(
        r#"{"message":"invalid parameter","status":400}"#
    )));
    assert!(too_long(
        js_sys::Error::new("This model's maximum context length is 8192").into()
    ));
    assert!(too_long(js(
        r#"{"message":"BadRequest: PROMPT IS TOO LONG"}"#
    )));
    assert!(!too_long(js(
        r#"{"message":"İnput is too long","status":400}"#
    )));
    assert!(!too_long(s("Error code: 413")));
}
