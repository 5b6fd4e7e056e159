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
//! endpoints); [`backoff`], [`attachment_budget`] and [`i18n`]. The
//! attachment preview's rows and report are core's
//! (`ctxguard_core::attachment::preview_files`).
//!
//! On wasm32 the browser side sits on top (feature `components`): `live` (a
//! session's state, saved and observed), `js_text` (long strings across the boundary), `sse` (the stream hook), `storage`,
//! `previewer`, the Leptos views in `components`, and, with the default
//! feature `elements`, the custom elements' controllers that the package
//! `pkg/toolbar/` (npm `ctxguard-toolbar`) wraps. The preview's parsers and
//! tokenizer are another crate, `ctxguard-preview-engine` (`web/engine/`): the
//! package's second module, which the preview element runs in a Worker; this
//! crate links it only with the feature `local-preview`.
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
//! use ctxguard_web::components::UploadLimits;
//! use ctxguard_web::previewer::LocalPreviewer; // feature local-preview
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
//!         let limits = UploadLimits { max_text_length: 500_000, max_upload_bytes: 100 << 20 };
//!         // LocalPreviewer links the parsers and core's tokenizer into this module.
//!         <AttachmentPanel budget=budget limits=limits lang=Lang::En previewer=Rc::new(LocalPreviewer) />
//!     }
//! }
//! ```

pub mod attachment_budget;
pub mod backoff;
pub mod config;
pub mod connection;
pub mod forecast;
pub mod history;
pub mod i18n;
pub mod ids;
pub mod json;
pub mod outcome;
pub mod projection;
pub mod public_state;
pub mod run_clock;
pub mod saved;
pub mod state;
pub mod text_bound;
pub mod turn_end;
pub mod view;

#[cfg(all(target_arch = "wasm32", feature = "components"))]
pub mod components;
#[cfg(all(target_arch = "wasm32", feature = "elements"))]
pub mod elements;
#[cfg(all(target_arch = "wasm32", feature = "components"))]
pub mod js_text;
#[cfg(all(target_arch = "wasm32", feature = "components"))]
pub mod live;
#[cfg(all(target_arch = "wasm32", feature = "components"))]
pub mod previewer;
#[cfg(all(target_arch = "wasm32", feature = "components"))]
pub mod sse;
#[cfg(all(target_arch = "wasm32", feature = "components"))]
pub mod storage;

#[cfg(test)]
mod testing;
