//! # ctxguard-web
//!
//! The status toolbar: how much context is left, whether a compaction runs,
//! and whether the connection is live, for one session, kept current over SSE
//! and restored from `localStorage` after a reload; plus an attachment budget
//! preview that runs core in the browser.
//!
//! Layers: [`state`] (the toolbar state machine), [`saved`] (the stored
//! record), [`backoff`], [`attachments`] and [`i18n`] are plain Rust and tested
//! natively. On wasm32 the Leptos app sits on top: `App` here, the stream hook
//! in `sse`, storage access in `storage`, and the views in `components`.

pub mod attachments;
pub mod backoff;
pub mod i18n;
pub mod saved;
pub mod state;

#[cfg(target_arch = "wasm32")]
mod app;
#[cfg(target_arch = "wasm32")]
pub mod components;
#[cfg(target_arch = "wasm32")]
pub mod sse;
#[cfg(target_arch = "wasm32")]
pub mod storage;

#[cfg(target_arch = "wasm32")]
pub use app::{App, PageParams};
