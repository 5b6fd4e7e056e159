//! The incremental token ledger for JS hosts: append messages as the
//! conversation grows and read a snapshot in O(1), instead of recounting the
//! whole history on every update as `contextMetrics` does.

use super::args::{
    json_arg, messages_arg, messages_from_json, model_config_arg, non_negative_int_arg,
    saturating_usize, string_arg, to_js, JsResult,
};
use crate::budget::{context_limits, ContextLimits};
use crate::ledger::Ledger;
use crate::tokens::TokenCounter;
use serde_json::Value;
use wasm_bindgen::prelude::*;

/// A running count of a growing history (per-message counts cached, breakdown kept).
#[wasm_bindgen(js_name = TokenLedger)]
pub struct TokenLedger {
    ledger: Ledger,
    limits: ContextLimits,
}

#[wasm_bindgen(js_class = TokenLedger)]
impl TokenLedger {
    /// An empty ledger for `model` (and an optional model config).
    #[wasm_bindgen(constructor)]
    pub fn new(
        #[wasm_bindgen(unchecked_param_type = "string")] model: JsValue,
        #[wasm_bindgen(js_name = modelConfig, unchecked_optional_param_type = "ModelConfig | null")]
        model_config: JsValue,
    ) -> JsResult<TokenLedger> {
        let model = string_arg(&model, "model")?;
        let config = model_config_arg(&model_config)?;
        Ok(TokenLedger {
            ledger: Ledger::new(TokenCounter::for_model(&model)),
            limits: context_limits(&model, config.as_ref(), None),
        })
    }

    /// Appends one message; costs only that message's tokens.
    pub fn push(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "Message")] message: JsValue,
    ) -> JsResult<()> {
        let value = json_arg(&message, "message")?;
        for m in messages_from_json(&Value::Array(vec![value]), "message")? {
            self.ledger.push(&m);
        }
        Ok(())
    }

    /// Appends several messages in order.
    #[wasm_bindgen(js_name = pushAll)]
    pub fn push_all(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "Message[]")] messages: JsValue,
    ) -> JsResult<()> {
        for m in messages_arg(&messages, "messages")? {
            self.ledger.push(&m);
        }
        Ok(())
    }

    /// Keeps only the first `length` messages (after a compaction replaced the tail, push the new ones);
    /// `length` is a non-negative integer, as every count the API takes.
    pub fn truncate(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "number")] length: JsValue,
    ) -> JsResult<()> {
        let length = non_negative_int_arg(&length, "length")?;
        self.ledger.truncate(saturating_usize(length));
        Ok(())
    }

    /// Number of messages counted.
    #[wasm_bindgen(getter)]
    pub fn length(&self) -> u32 {
        u32::try_from(self.ledger.len()).unwrap_or(u32::MAX)
    }

    /// Tokens of the whole history, as `countMessages` would give.
    #[wasm_bindgen(js_name = usedTokens)]
    pub fn used_tokens(&self) -> f64 {
        self.ledger.used_tokens() as f64
    }

    /// The context-metrics snapshot of the history, with its per-source breakdown: O(1).
    #[wasm_bindgen(unchecked_return_type = "ContextMetricsSnapshot")]
    pub fn snapshot(&self) -> JsResult<JsValue> {
        to_js(&self.ledger.snapshot(&self.limits))
    }
}
