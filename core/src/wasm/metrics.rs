//! Budgets and usage for JS hosts: a model's context limits (SPEC §2) and
//! the context-metrics snapshot of a history (SPEC §3).

use super::args::{
    fail, int_arg, is_nullish, messages_arg, messages_from_json, model_config_arg, non_negative,
    object_arg, string_arg, to_js, JsResult,
};
use crate::budget::context_limits;
use crate::ledger::Ledger;
use crate::metrics::{snapshot, ProviderBaseline};
use crate::tokens::TokenCounter;
use serde_json::Value;
use wasm_bindgen::prelude::*;

/// The context budget of `model`: window, reserved output, available input, trigger and target limits.
#[wasm_bindgen(js_name = contextConfig, unchecked_return_type = "ContextLimits")]
pub fn context_config(
    #[wasm_bindgen(unchecked_param_type = "string")] model: JsValue,
    #[wasm_bindgen(js_name = modelConfig, unchecked_optional_param_type = "ModelConfig | null")]
    model_config: JsValue,
    #[wasm_bindgen(js_name = autoCompactTokenLimit, unchecked_optional_param_type = "number | null")]
    auto_compact_token_limit: JsValue,
) -> JsResult<JsValue> {
    let model = string_arg(&model, "model")?;
    let config = model_config_arg(&model_config)?;
    let auto = if is_nullish(&auto_compact_token_limit) {
        None
    } else {
        Some(int_arg(&auto_compact_token_limit, "autoCompactTokenLimit")?)
    };
    to_js(&context_limits(&model, config.as_ref(), auto))
}

/// The context-metrics snapshot of `messages`; with a provider `baseline` whose messages are still a
/// prefix, used = its input tokens + the new suffix. Without a baseline the snapshot carries a breakdown.
#[wasm_bindgen(js_name = contextMetrics, unchecked_return_type = "ContextMetricsSnapshot")]
pub fn context_metrics(
    #[wasm_bindgen(unchecked_param_type = "Message[]")] messages: JsValue,
    #[wasm_bindgen(unchecked_param_type = "string")] model: JsValue,
    #[wasm_bindgen(js_name = modelConfig, unchecked_optional_param_type = "ModelConfig | null")]
    model_config: JsValue,
    #[wasm_bindgen(unchecked_optional_param_type = "ProviderBaseline | null")] baseline: JsValue,
) -> JsResult<JsValue> {
    let messages = messages_arg(&messages, "messages")?;
    let model_name = string_arg(&model, "model")?;
    let counter = TokenCounter::for_model(&model_name);
    let config = model_config_arg(&model_config)?;
    let baseline = if is_nullish(&baseline) {
        None
    } else {
        let value = object_arg(
            &baseline,
            "baseline",
            "{input_tokens, messages}",
            &["input_tokens", "messages"],
        )?;
        let input_tokens = value
            .get("input_tokens")
            .and_then(Value::as_i64)
            .ok_or_else(|| fail("baseline.input_tokens", "expected an integer"))?;
        non_negative(input_tokens, "baseline.input_tokens")?;
        let prior = messages_from_json(
            value.get("messages").unwrap_or(&Value::Null),
            "baseline.messages",
        )?;
        Some(ProviderBaseline {
            input_tokens,
            messages: prior,
        })
    };
    let limits = context_limits(&model_name, config.as_ref(), None);
    let snap = match &baseline {
        Some(base) => snapshot(&counter, &messages, &limits, Some(base)),
        None => Ledger::from_messages(counter, &messages).snapshot(&limits),
    };
    to_js(&snap)
}
