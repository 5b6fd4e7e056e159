//! Typed errors of the core: what was wrong with the input and what to do about it.

use thiserror::Error;

/// Why a core operation refused its input.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Error {
    /// A JSON payload did not have the expected shape.
    #[error("invalid {what}: {detail}")]
    InvalidInput {
        /// Which argument or payload was wrong.
        what: &'static str,
        /// The parser's explanation.
        detail: String,
    },
    /// A numeric argument was outside its allowed range.
    #[error("{what} must be {expected}, got {got}")]
    OutOfRange {
        /// Which argument.
        what: &'static str,
        /// The allowed range in words.
        expected: &'static str,
        /// The rejected value.
        got: String,
    },
    /// Working memory for tokenizing a text could not be had (the host is out of memory).
    #[error("out of memory: a buffer of {bytes} bytes could not be allocated while tokenizing")]
    OutOfMemory {
        /// Bytes the buffer that could not grow asked for.
        bytes: usize,
    },
    /// The history stays over the trigger limit because of a payload that must never be cut.
    #[error("the request is still over the context limit ({used_tokens} of {trigger_limit} tokens) because a knowledge-base result that must not be cut is too large: narrow the request or the knowledge-base scope")]
    BypassedPayloadTooLarge {
        /// Tokens in use after every reduction.
        used_tokens: i64,
        /// The trigger limit that is still exceeded.
        trigger_limit: i64,
    },
}

impl Error {
    /// Builds an [`Error::InvalidInput`] from any displayable cause.
    pub fn invalid(what: &'static str, detail: impl std::fmt::Display) -> Self {
        Error::InvalidInput {
            what,
            detail: detail.to_string(),
        }
    }
}

/// Result type of the core.
pub type Result<T> = std::result::Result<T, Error>;
