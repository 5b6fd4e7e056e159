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
use ctxguard_core::projection::Outcome;
use leptos::prelude::WithUntracked;
use wasm_bindgen::prelude::*;

/// `object[key]` as a number (absent or not a number: 0).
fn number(object: &JsValue, key: &str) -> f64 {
    js_sys::Reflect::get(object, &JsValue::from_str(key))
        .ok()
        .and_then(|v| v.as_f64())
        .filter(|n| n.is_finite())
        .unwrap_or(0.0)
}

/// The worker's `{detail, ghost_start_percent, ghost_width_percent}`, read (null: none).
fn shown(projection: &JsValue) -> Option<ProjectionShown> {
    if !projection.is_object() {
        return None;
    }
    let detail = js_sys::Reflect::get(projection, &JsValue::from_str("detail")).ok()?;
    let outcome = js_sys::Reflect::get(&detail, &JsValue::from_str("outcome"))
        .ok()?
        .as_string()?;
    let outcome = match outcome.as_str() {
        "fits" => Outcome::Fits,
        "compacts" => Outcome::Compacts {
            expected_after_tokens: number(&detail, "expected_after_tokens") as i64,
            expected_after_percent: number(&detail, "expected_after_percent") as i64,
        },
        "too_large" => Outcome::TooLarge {
            exceeds_input: js_sys::Reflect::get(&detail, &JsValue::from_str("exceeds_input"))
                .ok()
                .and_then(|v| v.as_bool())
                .unwrap_or(false),
        },
        _ => return None,
    };
    Some(ProjectionShown {
        added_tokens: number(&detail, "added_tokens") as i64,
        remaining_percent: (number(&detail, "remaining_percent") as i64).clamp(0, 100),
        outcome,
        ghost_start_percent: number(projection, "ghost_start_percent").clamp(0.0, 100.0),
        ghost_width_percent: number(projection, "ghost_width_percent").clamp(0.0, 100.0),
    })
}

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

    /// Draws the worker's projection of the send (null: nothing is being written).
    #[wasm_bindgen(js_name = setProjection)]
    pub fn set_projection(&self, projection: JsValue) {
        let shown = shown(&projection);
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
