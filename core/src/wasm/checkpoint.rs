//! History helpers of the guard for JS hosts: tool-pair sanitising, the
//! selection of recent user messages a checkpoint keeps, and reloading a
//! stored conversation from its latest compaction checkpoint (SPEC §8).

use super::args::{
    describe, fail, is_array, is_nullish, json_arg, messages_arg, messages_from_json,
    non_negative_int_arg, saturating_usize, string_arg, to_js, JsResult,
};
use crate::guard::{self, Turn, TurnRole};
use crate::tokens::TokenCounter;
use serde_json::Value;
use wasm_bindgen::prelude::*;

/// Keeps a tool result only when an earlier assistant message called it, removes calls that got no
/// result, and drops messages left empty.
#[wasm_bindgen(js_name = sanitizeToolPairs, unchecked_return_type = "Message[]")]
pub fn sanitize_tool_pairs_js(
    #[wasm_bindgen(unchecked_param_type = "Message[]")] messages: JsValue,
) -> JsResult<JsValue> {
    to_js(&guard::sanitize_tool_pairs(messages_arg(
        &messages, "messages",
    )?))
}

/// The most recent user messages (summaries excepted) within `tokenLimit` tokens, newest first, the
/// last one cut to the remaining budget, each marked `checkpoint_retained`; returned oldest first.
#[wasm_bindgen(js_name = selectRecentUserMessages, unchecked_return_type = "Message[]")]
pub fn select_recent_user_messages_js(
    #[wasm_bindgen(unchecked_param_type = "Message[]")] messages: JsValue,
    #[wasm_bindgen(js_name = tokenLimit, unchecked_param_type = "number")] token_limit: JsValue,
    #[wasm_bindgen(unchecked_param_type = "string")] model: JsValue,
) -> JsResult<JsValue> {
    let messages = messages_arg(&messages, "messages")?;
    let token_limit = saturating_usize(non_negative_int_arg(&token_limit, "tokenLimit")?);
    let counter = TokenCounter::for_model(&string_arg(&model, "model")?);
    to_js(&guard::select_recent_user_messages(
        &messages,
        token_limit,
        &counter,
    ))
}

fn turns_arg(v: &JsValue, arg: &str) -> JsResult<Vec<Turn>> {
    if !is_array(v) {
        return Err(fail(
            arg,
            format!("expected an array of turn objects, got {}", describe(v)),
        ));
    }
    let value = json_arg(v, arg)?;
    let items = value.as_array().map(Vec::as_slice).unwrap_or_default();
    items
        .iter()
        .enumerate()
        .map(|(i, item)| {
            let at = format!("{arg}[{i}]");
            let Some(turn) = item.as_object() else {
                return Err(fail(
                    &at,
                    "expected a turn object {role, completed?, messages?}",
                ));
            };
            let role = match turn.get("role").and_then(Value::as_str) {
                Some("user") => TurnRole::User,
                Some("assistant") => TurnRole::Assistant,
                _ => {
                    let got = turn.get("role").map_or("nothing".into(), Value::to_string);
                    return Err(fail(
                        &format!("{at}.role"),
                        format!("expected \"user\" or \"assistant\", got {got}"),
                    ));
                }
            };
            let completed = match turn.get("completed") {
                None | Some(Value::Null) => false,
                Some(Value::Bool(b)) => *b,
                Some(other) => {
                    return Err(fail(
                        &format!("{at}.completed"),
                        format!("expected a boolean, got {other}"),
                    ))
                }
            };
            let messages = match turn.get("messages") {
                None | Some(Value::Null) => Vec::new(),
                Some(list) => messages_from_json(list, &format!("{at}.messages"))?,
            };
            Ok(Turn {
                role,
                completed,
                messages,
            })
        })
        .collect()
}

fn limit_arg(v: &JsValue) -> JsResult<Option<usize>> {
    if is_nullish(v) {
        return Ok(None);
    }
    Ok(Some(saturating_usize(non_negative_int_arg(v, "limit")?)))
}

/// The turns to reload: from the latest checkpoint (the last completed assistant turn whose
/// messages carry `summary_compacted`) on, or all of them without one; with `limit`, the checkpoint
/// plus the newest `limit - 1` turns (the newest `limit` without a checkpoint).
#[wasm_bindgen(js_name = latestCheckpoint, unchecked_return_type = "Turn[]")]
pub fn latest_checkpoint_js(
    #[wasm_bindgen(unchecked_param_type = "Turn[]")] turns: JsValue,
    #[wasm_bindgen(unchecked_optional_param_type = "number | null")] limit: JsValue,
) -> JsResult<JsValue> {
    let turns = turns_arg(&turns, "turns")?;
    to_js(&guard::latest_checkpoint(&turns, limit_arg(&limit)?))
}

/// The model history to reload: the messages of `latestCheckpoint(turns, limit)` in order, tool
/// pairs sanitised.
#[wasm_bindgen(js_name = reloadMessages, unchecked_return_type = "Message[]")]
pub fn reload_messages_js(
    #[wasm_bindgen(unchecked_param_type = "Turn[]")] turns: JsValue,
    #[wasm_bindgen(unchecked_optional_param_type = "number | null")] limit: JsValue,
) -> JsResult<JsValue> {
    let turns = turns_arg(&turns, "turns")?;
    to_js(&guard::reload_messages(&turns, limit_arg(&limit)?))
}
