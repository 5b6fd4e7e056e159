//! The JavaScript API of ctxguard-core (feature `wasm`), as the npm package in
//! `pkg/core/` exports it: a thin facade over the Rust API with JS-cased names.
//!
//! Every function validates its arguments and throws a JS `Error` whose
//! message starts with the argument's path (`policy.limit: must be ≥ 0, got -1`);
//! nothing panics and no exception of the caller's passes through. Data objects
//! cross the boundary as plain JS objects and arrays with the wire's snake_case
//! field names.
//!
//! The facade is three things, one file each:
//! - `wasm/args.rs`: JS values in, core's types out and back, and [`Thrown`],
//!   the one error type every export throws (`wasm/growth.rs`: the memory
//!   grown in geometric steps while a long array is read, by `growth.rs`'s rule);
//! - `wasm/types.d.ts`: the TypeScript declarations of every data type, appended
//!   to the package's `.d.ts` at build time (the exports' own signatures name
//!   them), after the wire contracts' (`protocol/wire.d.ts`, which the toolbar
//!   package shares);
//! - the exports by concept: `tokens`, `metrics` (limits and snapshots),
//!   `tool_output`, `attachment` (blocks, headers, preview, pages), `status`
//!   (throttling and parsing status events), `ledger` (`TokenLedger`), `guard`
//!   (`ContextGuard`, `SummaryRequest`, `isContextTooLongError`) and
//!   `checkpoint` (the guard's history helpers).
//!
//! Encodings are built on the first call that needs them: a page that only
//! counts for o200k models never parses cl100k.

use wasm_bindgen::prelude::*;

mod args;
mod attachment;
mod checkpoint;
mod growth;
mod guard;
mod ledger;
mod metrics;
mod status;
mod tokens;
mod tool_output;

pub use args::Thrown;
pub use attachment::{
    allocate_budget_js, build_attachment_header, compose_attachment_block,
    is_text_readable_mime_js, preview_attachments, read_attachment_page,
};
pub use checkpoint::{
    latest_checkpoint_js, reload_messages_js, sanitize_tool_pairs_js,
    select_recent_user_messages_js,
};
pub use guard::{is_context_too_long_error_js, ContextGuard, SummaryRequest};
pub use ledger::TokenLedger;
pub use metrics::{context_config, context_metrics};
pub use status::{parse_status_event, should_emit_status_update};
pub use tokens::{count_messages, count_token_bytes, count_tokens, next_split_js};
pub use tool_output::render_tool_output;

/// The wire contracts' declarations, shared with the toolbar package's.
#[wasm_bindgen(typescript_custom_section)]
const TS_WIRE: &str = include_str!("protocol/wire.d.ts");

#[wasm_bindgen(typescript_custom_section)]
const TS_TYPES: &str = include_str!("wasm/types.d.ts");

#[cfg(feature = "panic-hook")]
#[wasm_bindgen(start)]
fn start() {
    console_error_panic_hook::set_once();
}
