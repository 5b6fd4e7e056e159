//! `countDraft` for the toolbar: the message being written, counted in the
//! worker that already holds the tokenizer (the toolbar's own module has
//! none, to stay small), as the backend counts a user message.

use ctxguard_core::projection::{message_tokens, summary_floor_tokens};
use ctxguard_core::tokens::{TokenCounter, Tokens};

/// The draft's counts: its cost as a user message, and what a summary compaction always keeps
/// besides it (the instruction turn; the toolbar knows no system prompt).
pub fn count_draft(model: &str, text: &str) -> (Tokens, Tokens) {
    let counter = TokenCounter::for_model(model);
    (
        message_tokens(&counter, text),
        summary_floor_tokens(&counter, &[]),
    )
}

#[cfg(target_arch = "wasm32")]
mod wasm {
    use wasm_bindgen::prelude::*;

    /// `[message_tokens, kept_tokens]` of `text` sent as a user message to `model`.
    #[wasm_bindgen(js_name = countDraft)]
    pub fn count_draft(model: &str, text: &str) -> Vec<f64> {
        let (message, kept) = super::count_draft(model, text);
        vec![message as f64, kept as f64]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_draft_costs_its_text_and_the_message_overhead() {
        // count_messages([user "hello"]) = 9 under o200k, less the reply priming.
        assert_eq!(count_draft("gpt-4o", "hello"), (6, 154));
        assert_eq!(count_draft("qwen-max", ""), (5, 152));
    }
}
