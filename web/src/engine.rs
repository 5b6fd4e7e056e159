//! The preview engine's JavaScript API (feature `engine`): the second
//! WebAssembly module of the toolbar package, loaded by
//! `<ctxguard-attachment-preview>` the first time it is given files. It holds
//! core's tokenizer, block composition and preview pass, and nothing of the
//! toolbar.

use wasm_bindgen::prelude::*;

/// A [`crate::attachments::PreviewRequest`] as JSON in, a
/// [`crate::attachments::PreviewReport`] as JSON out.
#[wasm_bindgen(js_name = previewAttachments)]
pub fn preview_attachments(request_json: &str) -> Result<String, JsError> {
    crate::attachments::preview_json(request_json).map_err(|e| JsError::new(&e))
}
