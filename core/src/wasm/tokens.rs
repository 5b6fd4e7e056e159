//! Token counts for JS hosts: a text, UTF-8 bytes, or a chat message list with
//! its per-message and reply-priming overhead (SPEC §1); and the sure splits
//! `ctxguard-core/pool` cuts large inputs at (`crate::split`).

use super::args::{
    bool_arg, bytes_arg, counter_arg, fail, messages_arg, non_negative_int_arg, saturating_usize,
    string_arg, JsResult, Thrown,
};
use crate::split::next_split;
use crate::Error;
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

/// Tokens of UTF-8 `bytes` under `model`'s encoding, exactly `countTokens` of the text they hold.
///
/// Invalid UTF-8 throws an `Error` whose `offset` property is the byte offset of the first invalid byte.
#[wasm_bindgen(js_name = countTokenBytes)]
pub fn count_token_bytes(
    #[wasm_bindgen(unchecked_param_type = "Uint8Array")] bytes: JsValue,
    #[wasm_bindgen(unchecked_param_type = "string")] model: JsValue,
) -> JsResult<f64> {
    let counter = counter_arg(&model)?;
    let bytes = bytes_arg(&bytes, "bytes")?;
    match counter.try_count_bytes(&bytes) {
        Ok(tokens) => Ok(tokens as f64),
        Err(e @ Error::InvalidUtf8 { offset }) => {
            Err(Thrown::new(&format!("bytes: {e}")).with_field("offset", (offset as f64).into()))
        }
        Err(e) => Err(fail("bytes", e)),
    }
}

/// The first offset at or after `offset` of `bytes` (a window of a text, starting up to 16 bytes
/// before `offset`) where `model`'s pre-tokenizer always splits, so that counts of the parts add
/// up; `atEnd` says the window ends where the text does. `-1` when the window has none.
#[wasm_bindgen(js_name = nextSplit)]
pub fn next_split_js(
    #[wasm_bindgen(unchecked_param_type = "Uint8Array")] bytes: JsValue,
    #[wasm_bindgen(unchecked_param_type = "string")] model: JsValue,
    #[wasm_bindgen(unchecked_param_type = "number")] offset: JsValue,
    #[wasm_bindgen(js_name = atEnd, unchecked_param_type = "boolean")] at_end: JsValue,
) -> JsResult<f64> {
    let encoding = counter_arg(&model)?.encoding();
    let bytes = bytes_arg(&bytes, "bytes")?;
    let offset = saturating_usize(non_negative_int_arg(&offset, "offset")?);
    let at_end = bool_arg(&at_end, "atEnd")?;
    Ok(next_split(&bytes, encoding, offset, at_end).map_or(-1.0, |k| k as f64))
}
