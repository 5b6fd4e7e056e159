//! History helpers of the guard for JS hosts: tool-pair sanitising, the
//! selection of recent user messages a checkpoint keeps, and reloading a
//! stored conversation (the reference backend's turns) from its latest
//! compaction checkpoint (SPEC §8). Each runs the guard step of its kind.

use super::args::{
    describe, fail, int_arg, is_array, is_nullish, map_json_items, messages_arg, string_arg, to_js,
    JsResult,
};
use crate::guard::{self, GuardCounter, Turn, TurnRole, TurnStatus};
use serde_json::Value;
use wasm_bindgen::prelude::*;

/// Keeps a tool result only when an earlier assistant message called it, removes calls that got no
/// result (and their `tool_use` blocks in list content), and drops assistant messages left empty.
#[wasm_bindgen(js_name = sanitizeToolPairs, unchecked_return_type = "Message[]")]
pub fn sanitize_tool_pairs_js(
    #[wasm_bindgen(unchecked_param_type = "Message[]")] messages: JsValue,
) -> JsResult<JsValue> {
    to_js(&guard::sanitize_tool_pairs(messages_arg(
        &messages, "messages",
    )?))
}

/// The user messages a checkpoint retains within `tokenLimit` tokens (summaries excepted), newest
/// first, each costing `countMessages([m])`; the first that does not fit is cut to what is left (kept
/// whole when its text fits). Each is a new message marked `checkpoint_retained` with a fresh uuid4
/// id and no name; returned oldest first.
#[wasm_bindgen(js_name = selectRecentUserMessages, unchecked_return_type = "Message[]")]
pub fn select_recent_user_messages_js(
    #[wasm_bindgen(unchecked_param_type = "Message[]")] messages: JsValue,
    #[wasm_bindgen(js_name = tokenLimit, unchecked_param_type = "number")] token_limit: JsValue,
    #[wasm_bindgen(unchecked_param_type = "string")] model: JsValue,
) -> JsResult<JsValue> {
    let messages = messages_arg(&messages, "messages")?;
    let token_limit = int_arg(&token_limit, "tokenLimit")?;
    let counter = GuardCounter::for_model(&string_arg(&model, "model")?);
    to_js(&guard::recent_user_messages(
        &messages,
        token_limit,
        &counter,
    ))
}

/// One of `names` as its enum value, or an error listing them.
fn one_of<T: Copy>(
    v: Option<&Value>,
    at: impl FnOnce() -> String,
    names: &[(&str, T)],
) -> JsResult<T> {
    let given = v.and_then(Value::as_str);
    names
        .iter()
        .find(|(name, _)| Some(*name) == given)
        .map(|(_, value)| *value)
        .ok_or_else(|| {
            let expected: Vec<String> = names.iter().map(|(n, _)| format!("{n:?}")).collect();
            let got = v.map_or("nothing".into(), Value::to_string);
            fail(
                &at(),
                format!("expected {}, got {got}", expected.join(" or ")),
            )
        })
}

const ROLES: &[(&str, TurnRole)] = &[("USER", TurnRole::User), ("ASSISTANT", TurnRole::Assistant)];

const STATUSES: &[(&str, TurnStatus)] = &[
    ("PENDING", TurnStatus::Pending),
    ("RUNNING", TurnStatus::Running),
    ("COMPLETED", TurnStatus::Completed),
    ("FAILED", TurnStatus::Failed),
    ("CANCELLED", TurnStatus::Cancelled),
    ("DELETE", TurnStatus::Delete),
    ("PENDING_CONFIRMATION", TurnStatus::PendingConfirmation),
];

fn turns_arg(v: &JsValue, arg: &str) -> JsResult<Vec<Turn>> {
    if !is_array(v) {
        return Err(fail(
            arg,
            format!("expected an array of turn objects, got {}", describe(v)),
        ));
    }
    // Each turn converted as it is read; paths are formatted only for an error.
    map_json_items(v, arg, |i, item| {
        let at = || format!("{arg}[{i}]");
        let Value::Object(mut turn) = item else {
            return Err(fail(
                &at(),
                "expected a turn object {role, status, result?, prompt?}",
            ));
        };
        let role = one_of(turn.get("role"), || format!("{}.role", at()), ROLES)?;
        let status = one_of(turn.get("status"), || format!("{}.status", at()), STATUSES)?;
        let prompt = match turn.shift_remove("prompt") {
            None | Some(Value::Null) => None,
            Some(Value::String(p)) => Some(p),
            Some(other) => {
                return Err(fail(
                    &format!("{}.prompt", at()),
                    format!("expected a string, got {other}"),
                ))
            }
        };
        let result = turn.shift_remove("result").filter(|r| !r.is_null());
        Ok(Turn {
            role,
            status,
            result,
            prompt,
        })
    })
}

/// `null`/`undefined` (no limit) or an integer; 0 and negative limits are no limit too.
fn limit_arg(v: &JsValue) -> JsResult<Option<i64>> {
    if is_nullish(v) {
        return Ok(None);
    }
    Ok(Some(int_arg(v, "limit")?))
}

/// The turns a history reload returns (the HTTP history's statuses: completed, cancelled and
/// failed turns): from the latest checkpoint (the last completed assistant turn whose
/// `result.messages_chain` carries `summary_compacted: true`) on, or all of them without one; with a
/// positive `limit`, the checkpoint plus the newest `limit - 1` turns after it (the newest `limit`
/// without a checkpoint).
#[wasm_bindgen(js_name = latestCheckpoint, unchecked_return_type = "Turn[]")]
pub fn latest_checkpoint_js(
    #[wasm_bindgen(unchecked_param_type = "Turn[]")] turns: JsValue,
    #[wasm_bindgen(unchecked_optional_param_type = "number | null")] limit: JsValue,
) -> JsResult<JsValue> {
    let turns = turns_arg(&turns, "turns")?;
    let selected: Vec<&Turn> = guard::checkpoint_reload(&turns, limit_arg(&limit)?, true, None)
        .into_iter()
        .map(|i| &turns[i])
        .collect();
    to_js(&selected)
}

/// The model history to reload: the messages of `latestCheckpoint(turns, limit)` in order (a user
/// turn's `prompt`; an assistant turn's `messages_chain`, or its `value`), tool pairs sanitised.
#[wasm_bindgen(js_name = reloadMessages, unchecked_return_type = "Message[]")]
pub fn reload_messages_js(
    #[wasm_bindgen(unchecked_param_type = "Turn[]")] turns: JsValue,
    #[wasm_bindgen(unchecked_optional_param_type = "number | null")] limit: JsValue,
) -> JsResult<JsValue> {
    let turns = turns_arg(&turns, "turns")?;
    let messages =
        guard::reload_messages(&turns, limit_arg(&limit)?).map_err(|e| fail("turns", e))?;
    to_js(&messages)
}
