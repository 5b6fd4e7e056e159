//! What the toolbar shows of the send being written. The projection itself
//! (core's rule over the draft's count and the linked preview's block) is made
//! in the toolbar's worker, beside the tokenizer (the engine's `send` module),
//! so this module only holds the numbers it sends back: the ghost segment's
//! place, "after sending: N% left" and the consequence, read from the worker's
//! answer ([`ProjectionShown::from_value`]).

use ctxguard_core::projection::Outcome;
use ctxguard_core::tokens::Tokens;
use ctxguard_core::value_fields::Fields;
use serde_json::Value;

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

/// Field `name` of `fields` as a number (absent or not a number: 0).
fn number(fields: Fields, name: &str) -> f64 {
    fields.float(name).unwrap_or(0.0)
}

impl ProjectionShown {
    /// The worker's `{detail, ghost_start_percent, ghost_width_percent}` as the toolbar draws
    /// it (`None`: nothing is being written, or an outcome it does not know); a missing number
    /// reads as 0 and the percentages are held to 0–100.
    pub fn from_value(projection: &Value) -> Option<ProjectionShown> {
        let fields = Fields::of(projection)?;
        let detail = Fields::of(fields.get("detail")?)?;
        let outcome = match detail.get("outcome")?.as_str()? {
            "fits" => Outcome::Fits,
            "compacts" => Outcome::Compacts {
                expected_after_tokens: number(detail, "expected_after_tokens") as i64,
                expected_after_percent: number(detail, "expected_after_percent") as i64,
            },
            "too_large" => Outcome::TooLarge {
                exceeds_input: detail.flag("exceeds_input").unwrap_or(false),
            },
            _ => return None,
        };
        Some(ProjectionShown {
            added_tokens: number(detail, "added_tokens") as i64,
            remaining_percent: (number(detail, "remaining_percent") as i64).clamp(0, 100),
            outcome,
            ghost_start_percent: number(fields, "ghost_start_percent").clamp(0.0, 100.0),
            ghost_width_percent: number(fields, "ghost_width_percent").clamp(0.0, 100.0),
        })
    }

    /// The outcome's name, as the event's detail spells it: `fits`, `compacts` or `too_large`.
    pub fn outcome_name(&self) -> &'static str {
        match self.outcome {
            Outcome::Fits => "fits",
            Outcome::Compacts { .. } => "compacts",
            Outcome::TooLarge { .. } => "too_large",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_workers_answer_reads_as_drawn() {
        let compacts = json!({
            "detail": {"outcome": "compacts", "added_tokens": 1200, "remaining_percent": 104,
                       "expected_after_tokens": 40000, "expected_after_percent": 61},
            "ghost_start_percent": 80.5, "ghost_width_percent": 130
        });
        assert_eq!(
            ProjectionShown::from_value(&compacts),
            Some(ProjectionShown {
                added_tokens: 1200,
                remaining_percent: 100,
                outcome: Outcome::Compacts {
                    expected_after_tokens: 40_000,
                    expected_after_percent: 61
                },
                ghost_start_percent: 80.5,
                ghost_width_percent: 100.0,
            })
        );
        let too_large = json!({"detail": {"outcome": "too_large", "exceeds_input": true}});
        let read = ProjectionShown::from_value(&too_large).expect("a projection");
        assert_eq!(
            read.outcome,
            Outcome::TooLarge {
                exceeds_input: true
            }
        );
        assert_eq!((read.added_tokens, read.ghost_width_percent), (0, 0.0));
        assert_eq!(read.outcome_name(), "too_large");
        for nothing in [
            json!(null),
            json!({}),
            json!({"detail": null}),
            json!({"detail": {"outcome": "later"}}),
            json!({"detail": {"outcome": 1}}),
        ] {
            assert_eq!(ProjectionShown::from_value(&nothing), None, "{nothing}");
        }
    }
}
