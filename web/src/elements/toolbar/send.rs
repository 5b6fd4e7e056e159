//! The toolbar's methods for a host that knows only its provider's usage
//! (`setUsage`) and for the send being written (`setDraftCount`,
//! `setBlockTokens`, read by the element's JavaScript from the draft and the
//! linked preview), and the `ctxguard-projection` event they cause.

use super::super::dom;
use super::ToolbarController;
use crate::js_text;
use crate::projection::DraftCount;
use crate::state::Toolbar;
use ctxguard_core::tokens::Tokens;
use ctxguard_core::usage::ProviderUsage;
use leptos::prelude::*;
use wasm_bindgen::prelude::*;
use web_sys::HtmlElement;

/// A JS number as a count of tokens (not finite or negative: 0).
fn tokens(n: f64) -> Tokens {
    if n.is_finite() && n > 0.0 {
        n.min(i64::MAX as f64) as Tokens
    } else {
        0
    }
}

#[wasm_bindgen]
impl ToolbarController {
    /// Builds the snapshot of a provider's usage (core's `usage` rules; the `model` and
    /// `context-window` attributes when the object has none) and applies it like a status
    /// event. Throws a TypeError saying what to give when it cannot be read.
    #[wasm_bindgen(js_name = setUsage)]
    pub fn set_usage(&self, usage: JsValue) -> Result<String, JsValue> {
        let value = dom::json_text(&usage)
            .and_then(|text| serde_json::from_str::<serde_json::Value>(&text).ok())
            .unwrap_or(serde_json::Value::Null);
        let host = &self.inner.host;
        let model = dom::attribute(host, "model");
        let window = dom::attribute(host, "context-window")
            .and_then(|w| w.trim().parse::<Tokens>().ok())
            .filter(|w| *w > 0);
        let (model, metrics) = ProviderUsage::from_json(&value)
            .and_then(|u| u.snapshot(model.as_deref(), window))
            .map_err(|e| js_sys::TypeError::new(&format!("setUsage: {e}")))?;
        let outcome = self
            .inner
            .live()
            .update(|t| t.apply_usage(model, metrics, js_sys::Date::now()));
        Ok(outcome.as_str().to_string())
    }

    /// The draft's count from the worker (`messageTokens` < 0: no draft).
    #[wasm_bindgen(js_name = setDraftCount)]
    pub fn set_draft_count(&self, message_tokens: f64, kept_tokens: f64) {
        let draft = (message_tokens >= 0.0).then(|| DraftCount {
            message_tokens: tokens(message_tokens),
            kept_tokens: tokens(kept_tokens),
        });
        self.inner
            .live()
            .update(|t| t.update_send(|s| s.draft = draft));
    }

    /// The linked preview's block after its cut (0 without attachments).
    #[wasm_bindgen(js_name = setBlockTokens)]
    pub fn set_block_tokens(&self, block_tokens: f64) {
        self.inner
            .live()
            .update(|t| t.update_send(|s| s.block_tokens = tokens(block_tokens)));
    }

    /// The model whose encoding counts the draft (the metrics' model, else the `model`
    /// attribute, else the preview's default).
    #[wasm_bindgen(js_name = countingModel)]
    pub fn counting_model(&self) -> String {
        let live = self.inner.live();
        live.state()
            .with_untracked(|t| t.model().map(str::to_string))
            .or_else(|| dom::attribute(&self.inner.host, "model"))
            .unwrap_or_else(|| live.state().with_untracked(|t| t.attachment_budget().model))
    }

    /// The current projection (the `ctxguard-projection` detail), null when nothing is written.
    pub fn projection(&self) -> JsValue {
        self.inner.live().state().with_untracked(projection_detail)
    }
}

/// The `ctxguard-projection` detail of `toolbar`: the numbers and the outcome, or null.
fn projection_detail(toolbar: &Toolbar) -> JsValue {
    toolbar
        .projection()
        .map_or(JsValue::NULL, |p| js_text::serialize_to_js(&p))
}

/// Dispatches `ctxguard-projection` when the projection changed between `before` and `after`.
pub(super) fn notify_projection(host: &HtmlElement, before: &Toolbar, after: &Toolbar) {
    if before.projection() != after.projection() {
        dom::dispatch(host, "ctxguard-projection", &projection_detail(after));
    }
}
