//! # ctxguard-web
//!
//! The status toolbar and the attachment budget preview: how much context is
//! left, whether a compaction runs, the compactions so far and the turns left
//! before the next, kept current over SSE or by the host page, and restored
//! from `localStorage` after a reload.
//!
//! Layers, all plain Rust and tested natively: [`state`] (the toolbar state
//! machine) with [`ids`], [`run_clock`], [`history`] and [`forecast`];
//! [`view`] (what it renders); [`saved`] (the stored record); [`public_state`]
//! (the JSON-safe `state` hosts read); [`config`] (element attributes and
//! endpoints); [`backoff`], [`attachments`], [`attachment_budget`] and
//! [`i18n`].
//!
//! On wasm32 the browser side sits on top (feature `components`): `live` (a
//! session's state, saved and observed), `sse` (the stream hook), `storage`,
//! `preview_engine`, the Leptos views in `components`, and, with the default
//! feature `elements`, the custom elements' controllers that the package
//! `pkg/toolbar/` (npm `ctxguard-toolbar`) wraps. The feature `engine` alone
//! (`--no-default-features`) builds the preview engine instead: the second
//! module, holding core's tokenizer and nothing of Leptos, that the preview
//! element loads on first use.
//!
//! ## A Rust host
//!
//! The components are public for Leptos apps; the custom elements mount the
//! same ones:
//!
//! ```ignore
//! use ctxguard_web::components::{use_now_ms, AttachmentPanel, StatusToolbar};
//! use ctxguard_web::config::Endpoints;
//! use ctxguard_web::i18n::Lang;
//! use ctxguard_web::live::LiveToolbar;
//! use ctxguard_web::preview_engine::LocalPreviewer;
//! use ctxguard_web::sse::use_status_stream;
//! use leptos::prelude::*;
//! use std::rc::Rc;
//!
//! #[component]
//! fn ChatStatus(session: String) -> impl IntoView {
//!     // Restored from localStorage at once, then kept current over SSE and saved.
//!     let live = LiveToolbar::restore(&session);
//!     let endpoints = Endpoints { server: String::new(), session: session.clone(), token: None };
//!     use_status_stream(endpoints, live.clone());
//!     let state = live.state();
//!     let budget = Signal::derive(move || state.with(|t| t.attachment_budget()));
//!     view! {
//!         <StatusToolbar state=state now_ms=use_now_ms(1_000) lang=Lang::En session=session />
//!         // LocalPreviewer links core's tokenizer into this module.
//!         <AttachmentPanel budget=budget lang=Lang::En previewer=Rc::new(LocalPreviewer) />
//!     }
//! }
//! ```

pub mod attachment_budget;
pub mod attachments;
pub mod backoff;
pub mod config;
pub mod connection;
pub mod forecast;
pub mod history;
pub mod i18n;
pub mod ids;
pub mod outcome;
pub mod public_state;
pub mod run_clock;
pub mod saved;
pub mod state;
pub mod view;

#[cfg(all(target_arch = "wasm32", feature = "components"))]
pub mod components;
#[cfg(all(target_arch = "wasm32", feature = "elements"))]
pub mod elements;
#[cfg(all(target_arch = "wasm32", feature = "engine"))]
pub mod engine;
#[cfg(all(target_arch = "wasm32", feature = "components"))]
pub mod live;
#[cfg(all(target_arch = "wasm32", feature = "components"))]
pub mod preview_engine;
#[cfg(all(target_arch = "wasm32", feature = "components"))]
pub mod sse;
#[cfg(all(target_arch = "wasm32", feature = "components"))]
pub mod storage;

#[cfg(test)]
mod testing;
