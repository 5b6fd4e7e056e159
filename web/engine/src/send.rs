//! The send being written, as the toolbar's worker projects it: the draft's
//! count ([`crate::count_draft`]) and the linked preview's attachment block
//! after its cut. Projected onto the toolbar's current metrics by core's rule
//! ([`ctxguard_core::projection::project`]), it gives what the toolbar shows
//! before sending (the ghost segment, "after sending: N% left", the
//! consequence) and the `ctxguard-projection` event's detail. It runs here,
//! beside the tokenizer, so the toolbar's own module stays small: the toolbar
//! posts its metrics and the send, and gets these numbers back.
//!
//! Rules:
//! - nothing to send (no draft text and no block) is no projection;
//! - the block alone still travels in a user message: its overhead counts;
//! - "N% left" has the headline's rounding (`display_remaining_percent`, 0–100);
//! - the ghost starts where the used part ends and stops at the window's end.

use ctxguard_core::metrics::ContextMetricsSnapshot;
use ctxguard_core::projection::{project, Outcome, Projection, Send};
use ctxguard_core::tokens::Tokens;
use serde::Serialize;

/// What a user message with no text costs the backend: 4 + tok("user") (1 in every encoding).
pub const EMPTY_MESSAGE_TOKENS: Tokens = 5;
/// What a summary compaction keeps when the draft has not been counted yet: its instruction
/// turn under cl100k (152; 154 under o200k), the smaller, so no send is called too large early.
pub const DEFAULT_KEPT_TOKENS: Tokens = 152;

/// The draft's count from the worker.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DraftCount {
    /// The user message's cost (its text and the per-message overhead).
    pub message_tokens: Tokens,
    /// What a summary compaction keeps besides it.
    pub kept_tokens: Tokens,
}

/// The send being written.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct DraftSend {
    /// The draft's count; `None` when there is no text.
    pub draft: Option<DraftCount>,
    /// The linked preview's block after its cut (0 without attachments).
    pub block_tokens: Tokens,
}

impl DraftSend {
    /// The projection onto `metrics`, when there is something to send and metrics are known.
    pub fn project(&self, metrics: Option<&ContextMetricsSnapshot>) -> Option<ProjectionView> {
        let metrics = metrics?;
        let block_tokens = self.block_tokens.max(0);
        if self.draft.is_none() && block_tokens == 0 {
            return None;
        }
        let (message_tokens, kept_tokens) = match self.draft {
            Some(d) => (d.message_tokens.max(0), d.kept_tokens.max(0)),
            None => (EMPTY_MESSAGE_TOKENS, DEFAULT_KEPT_TOKENS),
        };
        let projection = project(
            metrics,
            &Send {
                message_tokens,
                block_tokens,
                kept_tokens,
            },
        );
        let window = metrics.context_window.max(1) as f64;
        let used = metrics
            .used_input_tokens
            .clamp(0, metrics.context_window.max(0));
        let room = (metrics.context_window - used).max(0);
        Some(ProjectionView {
            message_tokens,
            block_tokens,
            remaining_percent: projection.metrics.display_remaining_percent.clamp(0, 100),
            ghost_start_percent: used as f64 / window * 100.0,
            ghost_width_percent: projection.added_tokens.min(room) as f64 / window * 100.0,
            projection,
        })
    }
}

/// What the toolbar shows of a projection, and the event's detail.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ProjectionView {
    /// The user message's cost.
    pub message_tokens: Tokens,
    /// The attachment block's tokens.
    pub block_tokens: Tokens,
    /// "After sending: N% left", with the headline's rounding.
    pub remaining_percent: i64,
    /// Where the ghost segment starts, in percent of the window.
    #[serde(skip)]
    pub ghost_start_percent: f64,
    /// The ghost segment's width, in percent of the window.
    #[serde(skip)]
    pub ghost_width_percent: f64,
    /// Core's projection: the added tokens, the projected snapshot, the outcome.
    #[serde(flatten)]
    pub projection: Projection,
}

impl ProjectionView {
    /// The outcome's name: `fits`, `compacts` or `too_large`.
    pub fn outcome_name(&self) -> &'static str {
        match self.projection.outcome {
            Outcome::Fits => "fits",
            Outcome::Compacts { .. } => "compacts",
            Outcome::TooLarge { .. } => "too_large",
        }
    }
}

/// `projectSend` for the worker: the metrics as JSON text (the toolbar's `state.metrics`),
/// the draft's counts (`message_tokens` < 0: no draft) and the block's tokens; answers
/// `{detail, ghost_start_percent, ghost_width_percent}` as JSON text, or null when there is
/// nothing to project.
#[cfg(target_arch = "wasm32")]
mod wasm {
    use super::{DraftCount, DraftSend, ProjectionView};
    use ctxguard_core::metrics::ContextMetricsSnapshot;
    use ctxguard_core::tokens::Tokens;
    use serde::Serialize;
    use wasm_bindgen::prelude::*;

    /// What the toolbar is sent back: the event's detail and where the ghost lies.
    #[derive(Serialize)]
    struct Projected<'a> {
        detail: &'a ProjectionView,
        ghost_start_percent: f64,
        ghost_width_percent: f64,
    }

    /// A JS number as a count of tokens (not finite or negative: 0).
    fn tokens(n: f64) -> Tokens {
        if n.is_finite() && n > 0.0 {
            n.min(i64::MAX as f64) as Tokens
        } else {
            0
        }
    }

    /// The projection of the send onto `metrics_json` (null: nothing to send, or no metrics).
    #[wasm_bindgen(js_name = projectSend)]
    pub fn project_send(
        metrics_json: &str,
        message_tokens: f64,
        kept_tokens: f64,
        block_tokens: f64,
    ) -> Result<Option<String>, JsError> {
        let metrics: Option<ContextMetricsSnapshot> = serde_json::from_str(metrics_json)
            .map_err(|e| JsError::new(&format!("projectSend metrics: {e}")))?;
        let send = DraftSend {
            draft: (message_tokens >= 0.0).then(|| DraftCount {
                message_tokens: tokens(message_tokens),
                kept_tokens: tokens(kept_tokens),
            }),
            block_tokens: tokens(block_tokens),
        };
        send.project(metrics.as_ref())
            .map(|view| {
                serde_json::to_string(&Projected {
                    detail: &view,
                    ghost_start_percent: view.ghost_start_percent,
                    ghost_width_percent: view.ghost_width_percent,
                })
                .map_err(|e| JsError::new(&format!("projectSend: {e}")))
            })
            .transpose()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ctxguard_core::budget::context_limits;

    fn at(used: Tokens) -> ContextMetricsSnapshot {
        ContextMetricsSnapshot::from_used(used, &context_limits("gpt-4o", None, None))
    }

    fn typed(message_tokens: Tokens) -> DraftSend {
        DraftSend {
            draft: Some(DraftCount {
                message_tokens,
                kept_tokens: 154,
            }),
            block_tokens: 0,
        }
    }

    #[test]
    fn nothing_to_send_or_no_metrics_is_no_projection() {
        assert_eq!(DraftSend::default().project(Some(&at(10))), None);
        assert_eq!(typed(6).project(None), None);
    }

    #[test]
    fn the_block_alone_travels_in_a_message_with_its_overhead() {
        let send = DraftSend {
            draft: None,
            block_tokens: 1000,
        };
        let p = send.project(Some(&at(10_000))).expect("a block to send");
        assert_eq!(p.projection.added_tokens, 1005);
        assert_eq!(p.message_tokens, EMPTY_MESSAGE_TOKENS);
    }

    #[test]
    fn the_ghost_follows_the_used_part_and_stops_at_the_window() {
        let mut send = typed(12_800);
        let p = send.project(Some(&at(64_000))).expect("a draft");
        assert_eq!((p.ghost_start_percent, p.ghost_width_percent), (50.0, 10.0));
        // (128000 − 76800) / 128000 = 40 % left after sending.
        assert_eq!(p.remaining_percent, 40);
        assert_eq!(p.outcome_name(), "fits");
        send.block_tokens = 500_000;
        let p = send.project(Some(&at(64_000))).expect("a draft");
        assert_eq!(p.ghost_width_percent, 50.0);
        assert_eq!(p.remaining_percent, 0);
        assert_eq!(p.outcome_name(), "too_large");
    }

    #[test]
    fn the_detail_carries_the_numbers_and_the_outcome() {
        let p = typed(1000).project(Some(&at(100_000))).expect("a draft");
        let v = serde_json::to_value(&p).expect("a detail");
        assert_eq!(v["outcome"], "compacts");
        assert_eq!(v["added_tokens"], 1000);
        assert_eq!(v["message_tokens"], 1000);
        assert_eq!(v["block_tokens"], 0);
        assert_eq!(v["remaining_percent"], 21);
        assert_eq!(v["expected_after_tokens"], 78_400);
        assert_eq!(v["metrics"]["used_input_tokens"], 101_000);
        assert!(v.get("ghost_width_percent").is_none());
    }
}
