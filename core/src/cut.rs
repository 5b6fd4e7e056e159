//! The head/tail cut every long body goes through (tool outputs, attachment
//! previews): a policy in tokens or bytes, 60 % of the budget to the head and
//! the rest to the tail, and `…D tokens truncated…` markers around the kept head.

use crate::tokens::{len_of_tokens, tokens_of_len, Measured, TokenCounter, Tokens};
use serde::{Deserialize, Serialize};

/// Share of a cut's budget that goes to the head.
pub const HEAD_RATIO: f64 = 0.6;
/// Share of the normal limit the emergency policy keeps.
pub const EMERGENCY_RATIO: f64 = 0.3;

/// What a cut limit counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum PolicyKind {
    /// Tokens of the model's encoding.
    Tokens,
    /// UTF-8 bytes.
    Bytes,
}

impl PolicyKind {
    /// The unit's name in markers and headers (`tokens`, `bytes`).
    pub fn unit(self) -> &'static str {
        match self {
            PolicyKind::Tokens => "tokens",
            PolicyKind::Bytes => "bytes",
        }
    }
}

/// How much of a body survives a cut.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct TruncationPolicy {
    /// Unit of `limit`.
    pub kind: PolicyKind,
    /// Most units kept (head + tail).
    pub limit: i64,
}

impl TruncationPolicy {
    /// A token policy.
    pub fn tokens(limit: i64) -> Self {
        TruncationPolicy {
            kind: PolicyKind::Tokens,
            limit,
        }
    }

    /// The emergency variant: same kind, max(1, int(limit × 0.3)).
    pub fn emergency(self) -> Self {
        TruncationPolicy {
            kind: self.kind,
            limit: ((self.limit as f64 * EMERGENCY_RATIO) as i64).max(1),
        }
    }
}

/// The outcome of cutting one body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cut {
    /// The body as the model sees it.
    pub rendered: String,
    /// Tokens of the original body.
    pub total_tokens: Tokens,
    /// Whether anything was removed.
    pub truncated: bool,
    /// Units (tokens or bytes) kept, the policy limit, when truncated.
    pub kept: i64,
    /// Units (tokens or bytes) removed when truncated.
    pub dropped: i64,
}

/// Head and tail budgets of a cut to `limit` units.
fn head_tail_budget(limit: usize) -> (usize, usize) {
    let head = ((limit as f64 * HEAD_RATIO) as usize).max(1).min(limit);
    (head, limit - head)
}

/// Cuts `body` to `policy`: unchanged when it fits, else
/// `…D unit truncated…\n{head}\n…D unit truncated…\n{tail}`.
pub fn truncate_body(body: &str, policy: TruncationPolicy, counter: &TokenCounter) -> Cut {
    match policy.kind {
        PolicyKind::Tokens => truncate_measured(&counter.measure(body), policy.limit, counter),
        PolicyKind::Bytes => {
            let total_tokens = counter.count_text(body);
            let limit = len_of_tokens(policy.limit);
            let total_bytes = body.len();
            if total_bytes <= limit {
                return unchanged(body, total_tokens);
            }
            let (head, tail) = head_tail_budget(limit);
            let head_text = &body[..floor_char_boundary(body, head)];
            let tail_text = &body[ceil_char_boundary(body, total_bytes - tail)..];
            cut(
                PolicyKind::Bytes,
                (head_text, tail_text),
                total_tokens,
                (limit, total_bytes - limit),
            )
        }
    }
}

/// The token cut of a body [`TokenCounter::measure`] counted to `limit`
/// tokens: only the kept head and tail are encoded (the body was counted,
/// not encoded), and the result is the cut of its tokens.
pub fn truncate_measured(measured: &Measured, limit: Tokens, counter: &TokenCounter) -> Cut {
    token_cut(measured.text(), measured.len(), limit, |head, tail| {
        let (head_ids, tail_ids) = counter.head_tail_ids(measured, head, tail);
        (
            counter.decode_lossy(&head_ids),
            counter.decode_lossy(&tail_ids),
        )
    })
}

/// The token cut of a body of `total` tokens to `limit`, with `decode` giving
/// the texts of its first and last tokens (`head + tail` < `total`).
fn token_cut(
    body: &str,
    total: usize,
    limit: Tokens,
    decode: impl FnOnce(usize, usize) -> (String, String),
) -> Cut {
    let limit = len_of_tokens(limit);
    if total <= limit {
        return unchanged(body, tokens_of_len(total));
    }
    let (head, tail) = head_tail_budget(limit);
    let (head_text, tail_text) = decode(head, tail);
    cut(
        PolicyKind::Tokens,
        (&head_text, &tail_text),
        tokens_of_len(total),
        (limit, total - limit),
    )
}

fn unchanged(body: &str, total_tokens: Tokens) -> Cut {
    Cut {
        rendered: body.to_string(),
        total_tokens,
        truncated: false,
        kept: 0,
        dropped: 0,
    }
}

/// The cut body from its `(head, tail)` texts and `(kept, dropped)` units.
fn cut(
    kind: PolicyKind,
    (head, tail): (&str, &str),
    total_tokens: Tokens,
    (kept, dropped): (usize, usize),
) -> Cut {
    let marker = format!("\u{2026}{dropped} {} truncated\u{2026}", kind.unit());
    Cut {
        rendered: format!("{marker}\n{head}\n{marker}\n{tail}"),
        total_tokens,
        truncated: true,
        kept: tokens_of_len(kept),
        dropped: tokens_of_len(dropped),
    }
}

fn floor_char_boundary(s: &str, mut i: usize) -> usize {
    while !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

fn ceil_char_boundary(s: &str, mut i: usize) -> usize {
    while !s.is_char_boundary(i) {
        i += 1;
    }
    i
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::encoding::Encoding;

    #[test]
    fn byte_cuts_drop_partial_characters() {
        let cut = truncate_body(
            "能能能",
            TruncationPolicy {
                kind: PolicyKind::Bytes,
                limit: 4,
            },
            &TokenCounter::for_encoding(Encoding::O200kBase),
        );
        assert_eq!(cut.rendered, "…5 bytes truncated…\n\n…5 bytes truncated…\n");
    }

    #[test]
    fn token_cuts_keep_sixty_percent_at_the_head() {
        let counter = TokenCounter::for_encoding(Encoding::O200kBase);
        let body = "one two three four five six seven eight nine ten";
        let cut = truncate_body(body, TruncationPolicy::tokens(5), &counter);
        assert!(cut.truncated);
        assert_eq!((cut.kept, cut.dropped, cut.total_tokens), (5, 5, 10));
        assert_eq!(
            cut.rendered,
            "…5 tokens truncated…\none two three\n…5 tokens truncated…\n nine ten"
        );
        let fits = truncate_body(body, TruncationPolicy::tokens(10), &counter);
        assert!(!fits.truncated && fits.rendered == body);
        assert_eq!(TruncationPolicy::tokens(10).emergency().limit, 3);
    }
}
