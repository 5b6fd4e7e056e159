//! The demo's summarisers, answering the guard's [`SummaryRequest`]s
//! (`ctxguard_core::guard::SummaryRequest::messages`):
//!
//! - [`ExtractiveSummarizer`] (`extractive.rs`), embedded and the default: it
//!   writes nothing of its own but picks the leading sentence of each turn and
//!   the key line of each tool output (errors and warnings first), newest
//!   first, up to a token budget. No network, no model; deterministic.
//! - [`HttpSummarizer`] (`http.rs`, `--summarizer-url`): POSTs `{model,
//!   messages}` to any OpenAI-compatible chat-completions endpoint and reads
//!   `choices[0].message.content`; an HTTP error becomes a `SummaryError`
//!   with its status and the provider's message, so the guard's
//!   context-too-long rules (413, `context_length_exceeded`, ...) apply.
//!
//! [`SummaryRequest`]: ctxguard_core::guard::SummaryRequest

mod calls;
mod extractive;
mod http;
#[cfg(test)]
pub(crate) mod testing;

pub use extractive::{ExtractiveSummarizer, DEFAULT_SUMMARY_TOKENS};
pub use http::{HttpSummarizer, HttpSummarizerConfig};
