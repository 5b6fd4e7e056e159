//! Test oracles shared by the integration tests (each test binary includes this
//! module): independent transcriptions of rules, built on public API only.

use ctxguard_core::cut::{Cut, HEAD_RATIO};
use ctxguard_core::tokens::{Rank, TokenCounter};

/// The token cut of `body` to `limit` tokens from its full token list `ids`,
/// as SPEC §5 states it: unchanged when it fits, else 60 % of the limit from the
/// head and the rest from the tail, each decoded lossily, between markers.
pub fn cut_of_ids(body: &str, ids: &[Rank], limit: i64, counter: &TokenCounter) -> Cut {
    let total = ids.len();
    let limit = usize::try_from(limit.max(0)).unwrap_or(usize::MAX);
    if total <= limit {
        return Cut {
            rendered: body.to_string(),
            total_tokens: total as i64,
            truncated: false,
            kept: 0,
            dropped: 0,
        };
    }
    let head = ((limit as f64 * HEAD_RATIO) as usize).max(1).min(limit);
    let tail = limit - head;
    let marker = format!("\u{2026}{} tokens truncated\u{2026}", total - limit);
    Cut {
        rendered: format!(
            "{marker}\n{}\n{marker}\n{}",
            counter.decode_lossy(&ids[..head]),
            counter.decode_lossy(&ids[total - tail..])
        ),
        total_tokens: total as i64,
        truncated: true,
        kept: limit as i64,
        dropped: (total - limit) as i64,
    }
}
