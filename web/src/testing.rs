//! Fixtures of the state machine's tests: events and snapshots as JSON, and
//! applying them at a fixed time.

use crate::machine::state::{EventOutcome, Toolbar};
use ctxguard_core::protocol::EVENT_NAME;
use serde_json::{json, Value};

/// 2026-06-23T14:55:34Z, the `created_at` of [`compaction_event`].
pub const T0: f64 = 1_782_226_534_000.0;

/// Metrics of a 128,000-token window with `used` tokens in use (trigger 100,800, target 89,600).
pub fn metrics(used: i64) -> Value {
    let window = 128_000;
    let reserved = 16_000;
    let available = window - reserved;
    json!({
        "context_window": window, "reserved_output_tokens": reserved, "available_input_tokens": available,
        "used_input_tokens": used, "remaining_input_tokens": (available - used).max(0),
        "remaining_percent": ((available - used).max(0) * 100 / available),
        "display_remaining_tokens": (window - used).max(0),
        "display_remaining_percent": ((window - used).max(0) * 100 / window),
        "trigger_limit": 100_800, "target_limit": 89_600, "is_over_trigger": used >= 100_800
    })
}

/// An `after_tool_end` event with `used` tokens in use.
pub fn event(used: i64) -> Value {
    json!({"type": "response.status.updated", "response_id": "resp_1", "phase": "after_tool_end",
           "context_metrics": metrics(used)})
}

/// A `summary_compact` event whose record has `status` and the fields of `extra`.
pub fn compaction_event(status: &str, extra: Value) -> Value {
    let mut c = json!({"type": "summary_compact", "status": status, "before_tokens": 110_000,
        "trigger_limit": 100_800, "target_limit": 89_600, "used_legacy_fallback": false,
        "created_at": "2026-06-23T14:55:34.000000+00:00"});
    for (k, v) in extra.as_object().expect("extra is an object") {
        c[k] = v.clone();
    }
    json!({"type": "response.status.updated", "response_id": "resp_1", "phase": "summary_compact",
           "context_metrics": metrics(110_000), "context_compaction": c})
}

/// Applies `data` as SSE event `id` at [`T0`].
pub fn apply(t: &mut Toolbar, id: u64, data: &Value) -> EventOutcome {
    t.apply_event(Some(&id.to_string()), EVENT_NAME, &data.to_string(), T0)
}

/// An event of `phase` with `used` tokens in use.
pub fn phase_event(phase: &str, used: i64) -> Value {
    let mut e = event(used);
    e["phase"] = json!(phase);
    e
}

/// A compaction event whose record has `created_at`.
pub fn compaction_at(status: &str, created_at: &str, extra: Value) -> Value {
    let mut e = compaction_event(status, extra);
    e["context_compaction"]["created_at"] = json!(created_at);
    e
}

/// Applies `data` as SSE event `id` at `now_ms`.
pub fn apply_at(t: &mut Toolbar, id: u64, data: &Value, now_ms: f64) -> EventOutcome {
    t.apply_event(Some(&id.to_string()), EVENT_NAME, &data.to_string(), now_ms)
}
