//! Status updates for JS hosts: whether a `response.status.updated` event is
//! sent (SPEC §3, throttling) and parsing one from its SSE `data:` (SPEC §4).

use super::args::{fail, is_nullish, object_arg, string_arg, to_js, typed, JsResult};
use crate::metrics::{should_emit, EmitState};
use crate::protocol::{Phase, StatusEvent};
use wasm_bindgen::prelude::*;

fn emit_state_arg(v: &JsValue, arg: &str) -> JsResult<EmitState> {
    let shape = "{remaining_percent, is_over_trigger}";
    typed(
        object_arg(v, arg, shape, &["remaining_percent", "is_over_trigger"])?,
        arg,
    )
}

/// Whether a status update is sent: always at turn boundaries and compactions, with no previous
/// snapshot, on a trigger crossing, or when remaining falls into a lower 5% bucket.
#[wasm_bindgen(js_name = shouldEmitStatusUpdate)]
pub fn should_emit_status_update(
    #[wasm_bindgen(unchecked_param_type = "EmitState | null")] previous: JsValue,
    #[wasm_bindgen(unchecked_param_type = "EmitState")] current: JsValue,
    #[wasm_bindgen(unchecked_param_type = "KnownPhase")] phase: JsValue,
) -> JsResult<bool> {
    let previous = if is_nullish(&previous) {
        None
    } else {
        Some(emit_state_arg(&previous, "previous")?)
    };
    let current = emit_state_arg(&current, "current")?;
    let name = string_arg(&phase, "phase")?;
    let Some(phase) = Phase::from_name(&name) else {
        let known: Vec<&str> = Phase::ALL.iter().map(|p| p.as_str()).collect();
        return Err(fail(
            "phase",
            format!(
                "unknown phase {name:?} (expected one of {})",
                known.join(", ")
            ),
        ));
    };
    Ok(should_emit(previous, current, phase))
}

/// Parses and validates the JSON text of one `response.status.updated` SSE `data:` field.
#[wasm_bindgen(js_name = parseStatusEvent, unchecked_return_type = "StatusEvent")]
pub fn parse_status_event(
    #[wasm_bindgen(unchecked_param_type = "string")] data: JsValue,
) -> JsResult<JsValue> {
    let data = string_arg(&data, "data")?;
    let event = StatusEvent::parse(&data).map_err(|e| fail("data", e))?;
    to_js(&event)
}
