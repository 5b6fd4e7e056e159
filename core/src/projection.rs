//! What sending the message being written will do to the context window,
//! before it is sent: the current snapshot plus the send (the user message as
//! the backend counts it and the attachment block after the preview's cut)
//! gives the projected snapshot and the guard's verdict on the next turn.
//!
//! The rule follows SPEC §8 as the guard runs it before the reply:
//! - projected used below the trigger: the message [fits](Outcome::Fits);
//! - at or over the trigger: a summary compaction runs first, aiming at the
//!   target limit ([`Outcome::Compacts`]); it can only work when what it may
//!   never drop (the new message, the system messages and its own instruction
//!   turn) fits within the target, which is when the trim is applicable;
//! - otherwise the summary is not applicable ([`Outcome::TooLarge`]): the
//!   guard falls back, cuts the longest tool results to 30 % (the emergency
//!   pass) and sends over the trigger, and a message larger than the model's
//!   input space is refused by the model itself.

use crate::budget::ContextLimits;
use crate::guard::{instruction_turn, GuardCounter};
use crate::message::Message;
use crate::protocol::ContextMetricsSnapshot;
use crate::tokens::{TokenCounter, Tokens};
use serde::{Deserialize, Serialize};

/// The send being projected, in tokens.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Send {
    /// The user message's cost as the backend counts it: `count_messages([m]) − 3`
    /// (its text plus the per-message overhead), see [`message_tokens`].
    pub message_tokens: Tokens,
    /// The attachment block after the preview's cut (0 without attachments).
    pub block_tokens: Tokens,
    /// Tokens a summary compaction keeps whatever its budget, besides the new message:
    /// the system messages and the summariser's instruction turn ([`summary_floor_tokens`]).
    pub kept_tokens: Tokens,
}

impl Send {
    /// Tokens the send adds to the history: the message and its attachment block.
    pub fn added_tokens(&self) -> Tokens {
        self.message_tokens
            .max(0)
            .saturating_add(self.block_tokens.max(0))
    }
}

/// What the guard does on the turn the send starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "outcome", rename_all = "snake_case")]
pub enum Outcome {
    /// Under the trigger: sent as it is.
    Fits,
    /// At or over the trigger: a summary compaction runs before the reply and brings the
    /// context down to about the target limit.
    Compacts {
        /// The size compaction aims for: the target limit.
        expected_after_tokens: Tokens,
        /// `display_remaining_percent` at that size (the headline's rounding).
        expected_after_percent: i64,
    },
    /// Over the trigger and too large for compaction to help: the summary is not applicable
    /// (what it may never drop exceeds the target), so the guard cuts tool results and sends
    /// over the trigger.
    TooLarge {
        /// Whether the send alone (with what is always kept) exceeds the model's input space,
        /// so the model will refuse the request.
        exceeds_input: bool,
    },
}

/// The projected snapshot and the guard's verdict.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Projection {
    /// Tokens the send adds.
    pub added_tokens: Tokens,
    /// The snapshot once the send is in the history (before any compaction).
    pub metrics: ContextMetricsSnapshot,
    /// What the guard will do.
    #[serde(flatten)]
    pub outcome: Outcome,
}

/// Projects `send` onto the `current` snapshot (the limits are the snapshot's own).
pub fn project(current: &ContextMetricsSnapshot, send: &Send) -> Projection {
    let limits = ContextLimits {
        context_window: current.context_window,
        reserved_output_tokens: current.reserved_output_tokens,
        available_tokens: current.available_input_tokens,
        trigger_limit: current.trigger_limit,
        target_limit: current.target_limit,
    };
    let added_tokens = send.added_tokens();
    let used = current
        .used_input_tokens
        .max(0)
        .saturating_add(added_tokens);
    let metrics = ContextMetricsSnapshot::from_used(used, &limits);
    let outcome = if !metrics.is_over_trigger {
        Outcome::Fits
    } else {
        let floor = added_tokens.saturating_add(send.kept_tokens.max(0));
        if floor <= limits.target_limit {
            let after = ContextMetricsSnapshot::from_used(limits.target_limit, &limits);
            Outcome::Compacts {
                expected_after_tokens: limits.target_limit,
                expected_after_percent: after.display_remaining_percent.clamp(0, 100),
            }
        } else {
            Outcome::TooLarge {
                exceeds_input: floor > limits.available_tokens,
            }
        }
    };
    Projection {
        added_tokens,
        metrics,
        outcome,
    }
}

/// The cost of a user message with `text` as the backend counts it: `count_messages([m]) − 3`.
pub fn message_tokens(counter: &TokenCounter, text: &str) -> Tokens {
    counter.count_message(&Message::user(text))
}

/// What a summary compaction keeps whatever its budget, besides the current user message:
/// the cost of `system` messages plus `count_messages([instruction turn])` (SPEC §8 b), as the
/// guard counts them.
pub fn summary_floor_tokens(counter: &TokenCounter, system: &[Message]) -> Tokens {
    let guard = GuardCounter::reference(*counter);
    system.iter().map(|m| guard.cost(m)).sum::<Tokens>() + guard.count(&[instruction_turn()])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::budget::context_limits;

    fn at(used: Tokens) -> ContextMetricsSnapshot {
        // gpt-4o: window 128000, available 112000, trigger 100800, target 78400.
        ContextMetricsSnapshot::from_used(used, &context_limits("gpt-4o", None, None))
    }

    fn send(message: Tokens, block: Tokens) -> Send {
        Send {
            message_tokens: message,
            block_tokens: block,
            kept_tokens: 154,
        }
    }

    #[test]
    fn under_the_trigger_the_send_fits_and_adds_message_and_block() {
        let p = project(&at(50_000), &send(1_000, 10_000));
        assert_eq!(p.outcome, Outcome::Fits);
        assert_eq!(p.added_tokens, 11_000);
        assert_eq!(p.metrics.used_input_tokens, 61_000);
        // (128000 − 61000) / 128000 = 52.3 % → 52, as the headline truncates.
        assert_eq!(p.metrics.display_remaining_percent, 52);
        assert!(!p.metrics.is_over_trigger);
    }

    #[test]
    fn reaching_the_trigger_exactly_compacts_to_the_target() {
        let p = project(&at(100_000), &send(800, 0));
        assert_eq!(p.metrics.used_input_tokens, 100_800);
        assert_eq!(
            p.outcome,
            Outcome::Compacts {
                expected_after_tokens: 78_400,
                // (128000 − 78400) / 128000 = 38.75 % → 38.
                expected_after_percent: 38,
            }
        );
        let below = project(&at(100_000), &send(799, 0));
        assert_eq!(below.outcome, Outcome::Fits);
    }

    #[test]
    fn a_send_larger_than_the_target_cannot_be_compacted_away() {
        // 78400 − 154 kept = 78246 is the largest send the summary can keep.
        let edge = project(&at(30_000), &send(78_246, 0));
        assert!(matches!(edge.outcome, Outcome::Compacts { .. }));
        let over = project(&at(30_000), &send(78_247, 0));
        assert_eq!(
            over.outcome,
            Outcome::TooLarge {
                exceeds_input: false
            }
        );
        let huge = project(&at(0), &send(1_000, 111_847));
        assert_eq!(
            huge.outcome,
            Outcome::TooLarge {
                exceeds_input: true
            }
        );
    }

    #[test]
    fn percentages_saturate_past_the_window_and_negative_inputs_add_nothing() {
        let p = project(&at(120_000), &send(20_000, 0));
        assert_eq!(p.metrics.display_remaining_percent, 0);
        assert_eq!(p.metrics.remaining_input_tokens, 0);
        let nothing = project(&at(10), &send(-5, -7));
        assert_eq!(nothing.added_tokens, 0);
        assert_eq!(nothing.metrics.used_input_tokens, 10);
    }

    #[test]
    fn the_message_costs_its_text_plus_the_per_message_overhead() {
        let counter = TokenCounter::for_model("gpt-4o");
        // count_messages([user "hello"]) is 9 (the crate's example): minus the reply priming.
        assert_eq!(message_tokens(&counter, "hello"), 6);
        // 154 under o200k, 152 under cl100k (SPEC §8 b) with no system message.
        assert_eq!(summary_floor_tokens(&counter, &[]), 154);
        let cl100k = TokenCounter::for_model("gpt-4");
        assert_eq!(summary_floor_tokens(&cl100k, &[]), 152);
    }

    #[test]
    fn the_projection_serialises_flat_with_its_outcome_named() {
        let p = project(&at(100_000), &send(800, 0));
        let v = serde_json::to_value(&p).expect("a projection serialises");
        assert_eq!(v["outcome"], "compacts");
        assert_eq!(v["expected_after_tokens"], 78_400);
        assert_eq!(v["added_tokens"], 800);
        assert_eq!(v["metrics"]["used_input_tokens"], 100_800);
    }
}
