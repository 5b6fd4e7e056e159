//! Typed errors of the core: what was wrong with the input and what to do about it.

use crate::tokens::Tokens;
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
    /// Bytes to count as text are not UTF-8: where the first invalid byte is.
    #[error("not valid UTF-8 at byte offset {offset}: decode the text to UTF-8 first")]
    InvalidUtf8 {
        /// Offset of the first byte that does not start or continue a valid character.
        offset: usize,
    },
    /// The history stays over the trigger limit because of a payload that must
    /// never be cut; the text is the reference's fail-fast message, word for word.
    #[error("Current context still exceeds the safe input budget after compaction, and at least one protected payload cannot be truncated safely. Narrow the request or avoid direct injection for this turn.")]
    BypassedPayloadTooLarge {
        /// Tokens in use after every reduction.
        used_tokens: Tokens,
        /// The trigger limit that is still exceeded.
        trigger_limit: Tokens,
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
