//! # ctxguard-core
//!
//! Context-window governance for LLM chat agents, a Rust port of the rules of
//! Wegent's chat_shell that reproduces its numbers and strings exactly:
//!
//! - [`tokens`]: token counts (tiktoken encodings chosen as Python tiktoken
//!   chooses them) and the chat message overhead rules;
//! - [`budget`]: context limits, the reserved-output buffer, trigger and target;
//! - [`metrics`] and [`ledger`]: the 11-field snapshot, provider baselines,
//!   emit throttling, and an incremental per-source ledger;
//! - [`attachment`]: the attachment-preview pass and its header builder;
//! - [`cut`]: the head/tail cut of long bodies, in tokens or bytes;
//! - [`tool_output`]: compact tool-output rendering;
//! - [`read_attachment`]: paging of an attachment's extracted text;
//! - [`split`]: offsets where an encoding always splits, to count a large
//!   text in parts that add up to its count;
//! - [`projection`]: what sending a message will do to the window, before
//!   it is sent (the projected snapshot and the guard's verdict);
//! - [`guard`]: the pre-model-call pipeline (source pass, summary compaction,
//!   emergency pass) as a sans-IO state machine;
//! - [`usage`]: a provider's usage report (OpenAI, Anthropic, AI SDK
//!   shapes) as a snapshot;
//! - [`value_fields`]: typed fields of a JSON object, for readers written by
//!   hand where serde's derived code is too big to ship;
//! - [`traces`] and [`protocol`]: the records and wire events the rules emit.
//!
//! The crate is sans-IO: no network, no clock, no threads. Hosts (the CLI's
//! server, the browser toolbar, a JS app through the `wasm` feature) supply
//! inputs and time, and carry the outputs.
//!
//! ```
//! use ctxguard_core::{budget, metrics, tokens::TokenCounter, Message};
//! let counter = TokenCounter::for_model("gpt-4o");
//! let history = vec![Message::user("hello")];
//! let limits = budget::context_limits("gpt-4o", None, None);
//! let snap = metrics::snapshot(&counter, &history, &limits, None);
//! assert_eq!(snap.used_input_tokens, 9);
//! assert_eq!(snap.trigger_limit, 100_800);
//! ```
#![deny(missing_docs)]
#![cfg_attr(not(test), deny(clippy::unwrap_used))]

pub mod attachment;
pub mod bpe;
pub mod budget;
pub mod conformance;
pub mod cut;
pub mod encoding;
mod error;
// The wasm facade's rule for growing its memory, tested natively.
#[cfg(any(test, all(feature = "wasm", target_arch = "wasm32")))]
mod growth;
pub mod guard;
pub mod ledger;
pub mod message;
pub mod metrics;
pub mod projection;
pub mod protocol;
pub mod pyjson;
pub mod read_attachment;
pub mod split;
pub mod tokens;
pub mod tool_output;
pub mod traces;
pub mod usage;
pub mod value_fields;
#[cfg(all(feature = "wasm", target_arch = "wasm32"))]
pub mod wasm;

pub use error::{Error, Result};
pub use message::{Content, ContentPart, Message, Role, ToolCall};
