//! # ctxguard-web
//!
//! The status toolbar and the attachment budget preview: how much context is
//! left, whether a compaction runs, the compactions so far and the turns left
//! before the next, kept current over SSE or by the host page, and restored
//! from `localStorage` after a reload.
//!
//! Layers, all plain Rust and tested natively: [`machine`] (the toolbar's
//! state machine: `state` with `ids`, `run_clock`, `history`, `forecast`,
//! `turn_end`, `outcome`, `connection` and `projection`); [`view`] (what it renders);
//! [`saved`] (the stored record); [`public_state`] (the JSON-safe `state`
//! hosts read); [`config`] (element attributes and endpoints); [`backoff`],
//! [`attachment_budget`] and [`i18n`]. The attachment preview's rows and
//! report are core's (`ctxguard_core::attachment::preview_files`).
//!
//! On wasm32 the browser side sits on top (feature `components`): `browser`
//! (`live`, a session's state, saved and observed; `js_text`, long strings
//! across the boundary; `sse`, the stream hook; `storage`; `previewer`), the
//! Leptos views in `components`, and, with the default feature `elements`,
//! the custom elements' controllers that the package `pkg/toolbar/` (npm
//! `ctxguard-toolbar`) wraps. The preview's parsers and tokenizer are another
//! crate, `ctxguard-preview-engine` (`web/engine/`): the package's second
//! module, which the preview element runs in a Worker; this crate links it
//! only with the feature `local-preview`.
//!
//! A Rust host (a Leptos app) mounts the same components the custom elements
//! do: `elements/toolbar.rs` and `elements/preview.rs` are the worked
//! examples (`browser::live::LiveToolbar::restore`, `browser::sse::use_status_stream`,
//! `components::StatusToolbar`, `components::AttachmentPanel`).

pub mod attachment_budget;
pub mod backoff;
pub mod config;
pub mod i18n;
pub mod js_contract;
pub mod json;
pub mod machine;
pub mod public_state;
pub mod saved;
pub mod text_bound;
pub mod view;

#[cfg(all(target_arch = "wasm32", feature = "components"))]
pub mod browser;
#[cfg(all(target_arch = "wasm32", feature = "components"))]
pub mod components;
#[cfg(all(target_arch = "wasm32", feature = "elements"))]
pub mod elements;

#[cfg(test)]
mod testing;
