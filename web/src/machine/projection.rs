//! What the toolbar shows of the send being written. The projection itself
//! (core's rule over the draft's count and the linked preview's block) is made
//! in the toolbar's worker, beside the tokenizer (the engine's `send` module),
//! so this module only holds the numbers it sends back: the ghost segment's
//! place, "after sending: N% left" and the consequence.

use ctxguard_core::projection::Outcome;
use ctxguard_core::tokens::Tokens;

/// The worker's projection, as the toolbar draws it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ProjectionShown {
    /// Tokens the send adds (the ghost's title).
    pub added_tokens: Tokens,
    /// "After sending: N% left", with the headline's rounding (0–100).
    pub remaining_percent: i64,
    /// What the guard will do on the turn the send starts.
    pub outcome: Outcome,
    /// Where the ghost segment starts, in percent of the window.
    pub ghost_start_percent: f64,
    /// The ghost segment's width, in percent of the window.
    pub ghost_width_percent: f64,
}

impl ProjectionShown {
    /// The outcome's name, as the event's detail spells it: `fits`, `compacts` or `too_large`.
    pub fn outcome_name(&self) -> &'static str {
        match self.outcome {
            Outcome::Fits => "fits",
            Outcome::Compacts { .. } => "compacts",
            Outcome::TooLarge { .. } => "too_large",
        }
    }
}
