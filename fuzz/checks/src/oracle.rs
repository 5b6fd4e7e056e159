//! The independent references the checks compare core with: tiktoken-rs for
//! tokens, and Python's string rules where the reference relies on them.

use ctxguard_core::encoding::Encoding;
use ctxguard_core::tokens::TokenCounter;

/// The four base encodings, each with core's counter and tiktoken-rs's.
pub fn encodings() -> [(Encoding, &'static tiktoken_rs::CoreBPE); 4] {
    [
        (Encoding::O200kBase, tiktoken_rs::o200k_base_singleton()),
        (Encoding::Cl100kBase, tiktoken_rs::cl100k_base_singleton()),
        (Encoding::P50kBase, tiktoken_rs::p50k_base_singleton()),
        (Encoding::R50kBase, tiktoken_rs::r50k_base_singleton()),
    ]
}

/// tiktoken-rs's token count of `text` (ordinary encoding: special-token text is plain text).
pub fn tiktoken_count(bpe: &tiktoken_rs::CoreBPE, text: &str) -> usize {
    bpe.encode_ordinary(text).len()
}

/// Core's counter for `encoding`.
pub fn counter(encoding: Encoding) -> TokenCounter {
    TokenCounter::for_encoding(encoding)
}

/// Python's `str.isspace` for one character: Unicode White_Space plus the
/// separators U+001C–U+001F (bidirectional class B or S).
pub fn py_isspace(c: char) -> bool {
    c.is_whitespace() || ('\u{1c}'..='\u{1f}').contains(&c)
}

/// Whether Python's `s.strip()` leaves something.
pub fn py_non_blank(s: &str) -> bool {
    s.chars().any(|c| !py_isspace(c))
}
