//! The property checks of ctxguard's fuzz targets, one module per entry point
//! of core: each takes the fuzzer's bytes, runs the entry point, and panics
//! when a property the project promises does not hold (a crash is a panic
//! too). The cargo-fuzz crate in `fuzz/` runs them under libFuzzer on
//! nightly; `tests/replay.rs` runs every file of `fuzz/corpus/<target>/` and
//! `fuzz/regressions/<target>/` through them on stable, so `cargo test
//! --workspace` (and so `.ci/run`) checks every crash ever found.
//!
//! Adding a target: a module `src/<name>.rs` with `pub fn check(data: &[u8])`
//! and its name in `targets!` below; then cargo-fuzz's side of it, a `[[bin]]`
//! stanza in `fuzz/Cargo.toml` and the one-line `fuzz/fuzz_targets/<name>.rs`
//! (copy a neighbour's), and a few seed inputs in `fuzz/corpus/<name>/`. The
//! replay test fails until all of them exist.
//!
//! Inputs are readable: JSON where the entry point takes JSON, otherwise a
//! first line of parameters and the text after it (each module says which).

#![cfg_attr(not(test), deny(clippy::unwrap_used))]

pub mod document;
pub mod input;
pub mod oracle;
pub mod source;

/// One fuzz target: its name (the `[[bin]]`, corpus and regressions folder
/// name) and its check.
pub struct Target {
    /// The target's name.
    pub name: &'static str,
    /// Runs one input; panics when a property fails.
    pub check: fn(&[u8]),
}

impl Target {
    /// The registered target called `name`.
    pub fn named(name: &str) -> Option<&'static Target> {
        TARGETS.iter().find(|t| t.name == name)
    }
}

macro_rules! targets {
    ($($(#[$doc:meta])* $name:ident),* $(,)?) => {
        $($(#[$doc])* pub mod $name;)*
        /// Every target, in registration order.
        pub static TARGETS: &[Target] = &[$(Target { name: stringify!($name), check: $name::check }),*];
    };
}

targets! {
    /// `protocol::StatusEvent::{parse, from_payload}` and `ContextState::parse`.
    status_event,
    /// `message::parse_messages`, then `TokenCounter::count_messages`.
    message_count,
    /// `attachment::preview_messages`.
    attachment_preview,
    /// `attachment::compose_block` / `compose_message`.
    attachment_block,
    /// `tool_output::{render, render_raw, extract_raw}`.
    tool_output,
    /// `read_attachment::read_page`, page after page.
    read_attachment,
    /// The BPE engine of every encoding against tiktoken-rs.
    token_count,
    /// The toolbar state machine, `ctxguard_web::machine::state::Toolbar`.
    toolbar,
    /// The guard, `guard::Guard`, driven through summaries, retries and fallbacks.
    guard,
    /// The relay's publish body, `protocol::parse_event_batch`.
    publish_body,
    /// `ctxguard_extract::upload` of `.docx` files.
    document_docx,
    /// `ctxguard_extract::upload` of `.pptx` files.
    document_pptx,
    /// `ctxguard_extract::upload` of `.xlsx` files.
    document_xlsx,
    /// `ctxguard_extract::upload` of `.csv` files.
    document_csv,
    /// `ctxguard_extract::upload` of an unknown extension (decoding, sniffing).
    document_text,
    /// `ctxguard_extract::upload` of images.
    document_image,
    /// `ctxguard_extract::upload` of `.xmind` files.
    document_xmind,
    /// `ctxguard_extract::upload` of `.zip` files.
    document_zip,
    /// `ctxguard_extract::upload` of `.pdf` files.
    document_pdf,
}
