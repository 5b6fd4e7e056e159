//! The custom elements' Rust halves. `<ctxguard-toolbar>` and
//! `<ctxguard-attachment-preview>` are defined by the package's JavaScript
//! entry (`web/js/ctxguard-toolbar.js`): a small `HTMLElement` subclass per
//! tag that opens a shadow root and hands everything to one controller here
//! ([`ToolbarController`], [`PreviewController`]): attributes in, methods,
//! DOM events out. The controllers mount the same Leptos components a Rust
//! host uses.

mod dom;
mod preview;
mod toolbar;

pub use preview::PreviewController;
pub use toolbar::ToolbarController;

/// Runs once when the module is instantiated: readable panics in the console (the release
/// build aborts after printing), and the task executor the stream hook and the file reader
/// spawn on (before any view is mounted).
#[wasm_bindgen::prelude::wasm_bindgen(start)]
fn start() {
    console_error_panic_hook::set_once();
    let _ = any_spawner::Executor::init_wasm_bindgen();
}
