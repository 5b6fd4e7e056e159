//! Tool outputs for JS hosts: the compact model-visible rendering of a tool
//! result under a truncation policy (SPEC §5).

use super::args::{
    counter_arg, describe, fail, is_array, non_negative, object_arg, opt_bool_arg, typed, JsResult,
};
use crate::cut::TruncationPolicy;
use crate::tool_output::{render, RawToolOutput, ToolOutputInput};
use wasm_bindgen::prelude::*;

fn tool_output_arg(v: &JsValue) -> JsResult<ToolOutputInput> {
    if let Some(text) = v.as_string() {
        return Ok(ToolOutputInput::Text(text));
    }
    let shape = "{text, tool_name?, exit_code?, wall_time?}";
    if !v.is_object() || is_array(v) {
        return Err(fail(
            "raw",
            format!(
                "expected a string or an object {shape}, got {}",
                describe(v)
            ),
        ));
    }
    let raw: RawToolOutput = typed(object_arg(v, "raw", shape, &["text"])?, "raw")?;
    Ok(ToolOutputInput::Raw(raw))
}

/// The compact model-visible rendering of a tool output under `policy` (the emergency policy when
/// `emergency` is true); re-rendering a rendering is idempotent.
#[wasm_bindgen(js_name = renderToolOutput)]
pub fn render_tool_output(
    #[wasm_bindgen(unchecked_param_type = "string | RawToolOutput")] raw: JsValue,
    #[wasm_bindgen(unchecked_param_type = "TruncationPolicy")] policy: JsValue,
    #[wasm_bindgen(unchecked_param_type = "string")] model: JsValue,
    #[wasm_bindgen(unchecked_optional_param_type = "boolean | null")] emergency: JsValue,
) -> JsResult<String> {
    let raw = tool_output_arg(&raw)?;
    let mut policy: TruncationPolicy = typed(
        object_arg(&policy, "policy", "{kind, limit}", &["kind", "limit"])?,
        "policy",
    )?;
    non_negative(policy.limit, "policy.limit")?;
    if opt_bool_arg(&emergency, "emergency")?.unwrap_or(false) {
        policy = policy.emergency();
    }
    Ok(render(&raw, policy, &counter_arg(&model)?))
}
