//! On-demand reading of an attachment's extracted text (`read_attachment`),
//! as a pure function over the fetched document: the host fetches, core
//! decides the page, its size in tokens, and what the model is told.

use crate::tokens::TokenCounter;
use serde::{Deserialize, Serialize};

/// Default page size in tokens.
pub const DEFAULT_PAGE_TOKEN_LIMIT: i64 = 15_000;
/// Characters fetched per page token.
pub const CHARS_PER_TOKEN: i64 = 4;
/// Calls allowed in one turn.
pub const MAX_CALLS_PER_TURN: u32 = 30;
/// What the model is told when the parsed text ends early.
pub const TRUNCATED_SOURCE_WARNING: &str = "End of extracted text reached, but the original file was truncated during parsing \u{2014} this is NOT the complete file. Some content beyond this point is unavailable.";

/// An attachment's extracted text and metadata, as the host fetched it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Document {
    /// The extracted text.
    #[serde(default)]
    pub text: String,
    /// File name.
    #[serde(default)]
    pub name: String,
    /// MIME type.
    #[serde(default)]
    pub mime_type: String,
    /// Whether parsing stopped before the end of the file.
    #[serde(default)]
    pub source_truncated: bool,
}

/// The tool's JSON result.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "status", rename_all = "lowercase")]
pub enum ReadResult {
    /// A page of text.
    Success {
        /// Attachment id.
        attachment_id: i64,
        /// File name.
        name: String,
        /// MIME type.
        mime_type: String,
        /// Start of the page in characters (negative offsets read from 0).
        offset: i64,
        /// Characters in `content`.
        chars_read: i64,
        /// Characters of the whole text.
        total_chars: i64,
        /// Where the next page starts, or null at the end.
        next_offset: Option<i64>,
        /// Whether text remains after this page.
        has_more: bool,
        /// Whether parsing stopped before the end of the file.
        source_truncated: bool,
        /// The page.
        content: String,
        /// Set when the text ended but the source was truncated.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        warning: Option<String>,
    },
    /// The attachment has no text.
    Empty {
        /// Attachment id.
        attachment_id: i64,
        /// Always "Attachment has no extractable text".
        message: String,
    },
    /// The attachment could not be read.
    Error {
        /// What went wrong.
        message: String,
    },
    /// Too many calls this turn.
    Rejected {
        /// Always the call-limit message.
        message: String,
    },
}

/// The window of characters the host should fetch: min(limit, page_tokens × 4), or page_tokens × 4 when limit ≤ 0.
pub fn window_chars(limit: i64, page_token_limit: i64) -> i64 {
    // Saturating: Python's integers do not overflow, and a huge page limit must not panic here.
    let cap = page_token_limit.max(1).saturating_mul(CHARS_PER_TOKEN);
    if limit <= 0 {
        cap
    } else {
        limit.min(cap)
    }
}

/// One `read_attachment` call: the page of `doc` from `offset`, at most `page_token_limit` tokens.
pub fn read_page(
    doc: Option<&Document>,
    attachment_id: i64,
    offset: i64,
    limit: i64,
    page_token_limit: i64,
    counter: &TokenCounter,
) -> ReadResult {
    let Some(doc) = doc else {
        return ReadResult::Error {
            message: "Attachment not found".into(),
        };
    };
    let total_chars = doc.text.chars().count() as i64;
    if total_chars == 0 {
        return ReadResult::Empty {
            attachment_id,
            message: "Attachment has no extractable text".into(),
        };
    }
    let offset = offset.max(0);
    let page_token_limit = if page_token_limit <= 0 {
        DEFAULT_PAGE_TOKEN_LIMIT
    } else {
        page_token_limit
    };
    let window = window_chars(limit, page_token_limit);
    let window_text: String = doc
        .text
        .chars()
        // Saturating: on wasm32 `as usize` would wrap offsets past 4 GiB.
        .skip(usize::try_from(offset).unwrap_or(usize::MAX))
        .take(usize::try_from(window).unwrap_or(usize::MAX))
        .collect();
    let ids = counter.encode(&window_text);
    // The reference decodes the clamped prefix lossily: a page that ends inside a
    // character ends with U+FFFD, which counts as read (see README, "Reference quirks").
    let content = match usize::try_from(page_token_limit) {
        Ok(keep) if keep < ids.len() => counter.decode_lossy(&ids[..keep]),
        _ => window_text,
    };
    let chars_read = content.chars().count() as i64;
    let end = offset.saturating_add(chars_read);
    let next_offset = (end < total_chars).then_some(end);
    let has_more = next_offset.is_some();
    ReadResult::Success {
        attachment_id,
        name: doc.name.clone(),
        mime_type: doc.mime_type.clone(),
        offset,
        chars_read,
        total_chars,
        next_offset,
        has_more,
        source_truncated: doc.source_truncated,
        content,
        warning: (doc.source_truncated && !has_more).then(|| TRUNCATED_SOURCE_WARNING.to_string()),
    }
}

/// Counts `read_attachment` calls in one turn and rejects those past the limit.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CallBudget {
    calls: u32,
}

impl CallBudget {
    /// Registers a call; `Some(rejection)` when the turn's limit is already used up.
    pub fn try_call(&mut self) -> Option<ReadResult> {
        if self.calls >= MAX_CALLS_PER_TURN {
            return Some(ReadResult::Rejected {
                message: format!("read_attachment call limit ({MAX_CALLS_PER_TURN}) reached"),
            });
        }
        self.calls += 1;
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thirty_first_call_is_rejected() {
        let mut budget = CallBudget::default();
        for _ in 0..30 {
            assert!(budget.try_call().is_none());
        }
        assert!(matches!(
            budget.try_call(),
            Some(ReadResult::Rejected { .. })
        ));
    }

    /// Hostile limits: `page_token_limit × 4` and `offset + chars_read` saturate instead of overflowing.
    #[test]
    fn huge_limits_and_offsets_do_not_overflow() {
        assert_eq!(window_chars(0, i64::MAX), i64::MAX);
        assert_eq!(window_chars(10, i64::MAX / 2), 10);
        let doc = Document {
            text: "abc".into(),
            ..Document::default()
        };
        let c = TokenCounter::for_model("gpt-4o");
        let ReadResult::Success {
            chars_read,
            next_offset,
            ..
        } = read_page(Some(&doc), 1, i64::MAX, i64::MAX, i64::MAX, &c)
        else {
            panic!("a page past the end is an empty success")
        };
        assert_eq!((chars_read, next_offset), (0, None));
    }

    /// Checked against the reference: its clamp decodes the
    /// token prefix lossily, so a page ending inside a character ends with
    /// U+FFFD and the next page starts after it. Kept for exactness (the
    /// `read_attachment` cases pin the lossy page) and documented in README.
    #[test]
    fn a_page_that_ends_inside_a_character_counts_the_replacement_as_read() {
        let text = "😀🙂🐍 ends here";
        let c = TokenCounter::for_model("gpt-4o");
        let ids = c.encode(text);
        let split = (1..ids.len())
            .find(|&k| c.decode_lossy(&ids[..k]).ends_with('\u{fffd}'))
            .expect("some token prefix ends inside an emoji");
        let doc = Document {
            text: text.into(),
            ..Document::default()
        };
        let ReadResult::Success {
            content,
            chars_read,
            next_offset,
            ..
        } = read_page(Some(&doc), 1, 0, 0, split as i64, &c)
        else {
            panic!("a page")
        };
        assert!(content.ends_with('\u{fffd}'), "{content:?}");
        assert_eq!(chars_read, content.chars().count() as i64);
        assert_eq!(next_offset, Some(chars_read));
        let next: String = text.chars().skip(chars_read as usize).collect();
        let read: String = content.chars().filter(|c| *c != '\u{fffd}').collect();
        assert!(
            (read.chars().count() + next.chars().count()) < text.chars().count(),
            "the split character is on neither page"
        );
    }

    #[test]
    fn pages_advance_and_end() {
        let doc = Document {
            text: "abcdef".into(),
            name: "a.txt".into(),
            mime_type: "text/plain".into(),
            source_truncated: true,
        };
        let c = TokenCounter::for_model("gpt-4");
        let ReadResult::Success {
            next_offset,
            warning,
            ..
        } = read_page(Some(&doc), 1, 0, 4, 100, &c)
        else {
            panic!("a page")
        };
        assert_eq!((next_offset, warning), (Some(4), None));
        let ReadResult::Success {
            next_offset,
            warning,
            ..
        } = read_page(Some(&doc), 1, 4, 4, 100, &c)
        else {
            panic!("a page")
        };
        assert_eq!(next_offset, None);
        assert!(warning.is_some());
    }
}
