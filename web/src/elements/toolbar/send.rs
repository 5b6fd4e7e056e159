//! The toolbar's side of the send being written and of `setUsage`. The
//! element's JavaScript asks the toolbar's worker (the preview's engine, which
//! holds the tokenizer, the model limits and the projection rule) and hands
//! the answers here: `applyUsage` takes the status event made of a provider's
//! usage, `setProjection` the projection to draw; `countingModel` says whose
//! encoding counts the draft. The `ctxguard-projection` event is dispatched by
//! the element's JavaScript, which holds its detail as the worker made it.

use super::super::dom;
use super::ToolbarController;
use crate::machine::projection::ProjectionShown;
use leptos::prelude::WithUntracked;
use wasm_bindgen::prelude::*;

#[wasm_bindgen]
impl ToolbarController {
    /// Applies the status event the worker made of a provider's usage and takes its model;
    /// returns the outcome (`applied`, `stale`, …).
    #[wasm_bindgen(js_name = applyUsage)]
    pub fn apply_usage(&self, model: String, event_json: &str) -> String {
        self.inner
            .live()
            .update(|t| t.apply_usage(model, event_json, js_sys::Date::now()))
            .as_str()
            .to_string()
    }

    /// Draws the worker's projection of the send, its JSON text (`null`: nothing is being
    /// written).
    #[wasm_bindgen(js_name = setProjection)]
    pub fn set_projection(&self, projection_json: &str) {
        let shown = crate::json::read_text(projection_json, ProjectionShown::from_value);
        self.inner.live().update(|t| t.set_projection(shown));
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
}
