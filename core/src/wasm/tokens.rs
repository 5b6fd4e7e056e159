//! Token counts for JS hosts: a text, or a chat message list with its
//! per-message and reply-priming overhead (SPEC §1).

use super::args::{counter_arg, fail, messages_arg, string_arg, JsResult};
use wasm_bindgen::prelude::*;

/// Number of tokens of `text` under `model`'s encoding (ordinary encoding: special-token text is plain text).
#[wasm_bindgen(js_name = countTokens)]
pub fn count_tokens(
    #[wasm_bindgen(unchecked_param_type = "string")] text: JsValue,
    #[wasm_bindgen(unchecked_param_type = "string")] model: JsValue,
) -> JsResult<f64> {
    let text = string_arg(&text, "text")?;
    // Working memory that cannot be had is a thrown Error, never a trap.
    let tokens = counter_arg(&model)?
        .try_count_text(&text)
        .map_err(|e| fail("text", e))?;
    Ok(tokens as f64)
}

/// Tokens of a chat message list, with the per-message and reply-priming overhead (`[]` counts 3).
#[wasm_bindgen(js_name = countMessages)]
pub fn count_messages(
    #[wasm_bindgen(unchecked_param_type = "Message[]")] messages: JsValue,
    #[wasm_bindgen(unchecked_param_type = "string")] model: JsValue,
) -> JsResult<f64> {
    let messages = messages_arg(&messages, "messages")?;
    Ok(counter_arg(&model)?.count_messages(&messages) as f64)
}
