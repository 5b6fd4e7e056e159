//! The browser side of the toolbar and the preview (wasm32 with the feature
//! `components`): [`live`] (a session's state, saved and observed),
//! [`js_text`] (long strings across the JS boundary), [`sse`] (the stream
//! hook), [`storage`] (`localStorage`) and [`previewer`] (the preview engine's
//! Worker, or the engine linked in with `local-preview`).

pub mod js_text;
pub mod live;
pub mod previewer;
pub mod sse;
pub mod storage;
