//! # ctxguard-web
//!
//! The status toolbar and the attachment budget preview: how much context is
//! left, whether a compaction runs, the compactions so far and the turns left
//! before the next, kept current over SSE or by the host page, and restored
//! from `localStorage` after a reload.
//!
//! Layers: [`state`] (the toolbar state machine) with [`ids`], [`run_clock`],
//! [`history`] and [`forecast`]; [`view`] (what it renders); [`saved`] (the
//! stored record); [`public_state`] (the JSON-safe `state` hosts read);
//! [`config`] (element attributes); [`backoff`], [`attachments`],
//! [`attachment_budget`] and [`i18n`]. All plain Rust, tested natively.
//! On wasm32 the Leptos views and browser bindings sit on top.

pub mod attachment_budget;
pub mod attachments;
pub mod backoff;
pub mod forecast;
pub mod history;
pub mod i18n;
pub mod ids;
pub mod run_clock;
pub mod saved;
pub mod state;
pub mod view;

#[cfg(test)]
mod testing;
