//! The forecast of turns left before compaction.
//!
//! A turn starts at each event of phase `build_messages`. The growth per turn
//! `g` is the mean of the positive differences of `used_input_tokens` between
//! consecutive turn starts, over the last [`FORECAST_WINDOW`] of them, leaving
//! out any difference across which a compaction ended (or events were
//! missed). With at least [`MIN_DIFFERENCES`] of them and `g > 0`, the turns
//! left are `ceil((trigger_limit − used_input_tokens) / g)`, 0 when usage is
//! at or over the trigger. These inputs are saved with the toolbar's state,
//! so a reload shows the same forecast at once.

use serde::{Deserialize, Serialize};
use std::collections::VecDeque;

/// Differences kept.
pub const FORECAST_WINDOW: usize = 5;
/// Differences needed before a forecast is shown.
pub const MIN_DIFFERENCES: usize = 2;

/// The inputs of the forecast.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct TurnForecast {
    /// `used_input_tokens` at the latest turn start, unless a gap followed it.
    #[serde(default)]
    last_turn_tokens: Option<i64>,
    /// Whether a compaction ended since that turn start.
    #[serde(default)]
    compaction_since: bool,
    /// Positive differences between consecutive turn starts, oldest first.
    #[serde(default)]
    differences: VecDeque<i64>,
}

/// What the forecast says.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Forecast {
    /// Turns left before usage reaches the trigger (0: compaction due).
    pub turns: u64,
    /// The mean growth per turn, in tokens.
    pub tokens_per_turn: f64,
}

impl TurnForecast {
    /// A turn started with `used_tokens` in use. O(1).
    pub fn turn_started(&mut self, used_tokens: i64) {
        if let Some(previous) = self.last_turn_tokens {
            let difference = used_tokens - previous;
            if !self.compaction_since && difference > 0 {
                self.differences.push_back(difference);
                while self.differences.len() > FORECAST_WINDOW {
                    self.differences.pop_front();
                }
            }
        }
        self.last_turn_tokens = Some(used_tokens);
        self.compaction_since = false;
    }

    /// A compaction ended: the next difference is left out.
    pub fn compaction_ended(&mut self) {
        self.compaction_since = true;
    }

    /// Events may have been missed: the next turn start begins afresh.
    pub fn gap(&mut self) {
        self.last_turn_tokens = None;
        self.compaction_since = false;
    }

    /// The mean growth per turn, once [`MIN_DIFFERENCES`] differences are known and it is positive.
    pub fn tokens_per_turn(&self) -> Option<f64> {
        if self.differences.len() < MIN_DIFFERENCES {
            return None;
        }
        let sum: f64 = self.differences.iter().map(|&d| d as f64).sum();
        let g = sum / self.differences.len() as f64;
        (g > 0.0).then_some(g)
    }

    /// The forecast with `used_tokens` in use and compaction at `trigger_tokens`.
    pub fn forecast(&self, used_tokens: i64, trigger_tokens: i64) -> Option<Forecast> {
        let g = self.tokens_per_turn()?;
        let left = (trigger_tokens - used_tokens).max(0) as f64;
        Some(Forecast {
            turns: (left / g).ceil() as u64,
            tokens_per_turn: g,
        })
    }

    /// The inputs as a saved record holds them (then [`TurnForecast::sanitized`]).
    pub fn from_parts(
        last_turn_tokens: Option<i64>,
        compaction_since: bool,
        differences: VecDeque<i64>,
    ) -> Self {
        TurnForecast {
            last_turn_tokens,
            compaction_since,
            differences,
        }
    }

    /// The same inputs with anything a saved copy may have got wrong dropped.
    pub fn sanitized(mut self) -> Self {
        self.differences.retain(|&d| d > 0);
        while self.differences.len() > FORECAST_WINDOW {
            self.differences.pop_front();
        }
        self.last_turn_tokens = self.last_turn_tokens.filter(|&t| t >= 0);
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn turns(f: &mut TurnForecast, used: &[i64]) {
        for &u in used {
            f.turn_started(u);
        }
    }

    #[test]
    fn needs_two_differences() {
        let mut f = TurnForecast::default();
        assert_eq!(f.forecast(0, 100), None);
        turns(&mut f, &[1_000, 2_000]);
        assert_eq!(f.forecast(2_000, 10_000), None);
        f.turn_started(3_500);
        let got = f.forecast(3_500, 10_000).expect("two differences");
        assert_eq!(got.tokens_per_turn, 1_250.0);
        // (10000 - 3500) / 1250 = 5.2 → 6.
        assert_eq!(got.turns, 6);
    }

    #[test]
    fn exact_division_and_due() {
        let mut f = TurnForecast::default();
        turns(&mut f, &[0, 1_000, 2_000]);
        assert_eq!(f.forecast(2_000, 5_000).map(|x| x.turns), Some(3));
        assert_eq!(f.forecast(5_000, 5_000).map(|x| x.turns), Some(0));
        assert_eq!(f.forecast(9_000, 5_000).map(|x| x.turns), Some(0));
    }

    #[test]
    fn only_the_last_five_positive_differences_count() {
        let mut f = TurnForecast::default();
        // Differences: 100, then five of 1000.
        turns(&mut f, &[0, 100, 1_100, 2_100, 3_100, 4_100, 5_100]);
        assert_eq!(f.tokens_per_turn(), Some(1_000.0));
        // A shrinking turn (no compaction) and a flat one add nothing.
        turns(&mut f, &[4_000, 4_000]);
        assert_eq!(f.tokens_per_turn(), Some(1_000.0));
    }

    #[test]
    fn differences_across_a_compaction_or_a_gap_are_left_out() {
        let mut f = TurnForecast::default();
        turns(&mut f, &[10_000, 12_000]);
        f.compaction_ended();
        f.turn_started(30_000); // across the compaction: left out
        assert_eq!(f.tokens_per_turn(), None);
        f.turn_started(34_000);
        assert_eq!(f.tokens_per_turn(), Some(3_000.0));
        f.gap();
        f.turn_started(90_000); // across a gap: left out
        assert_eq!(f.tokens_per_turn(), Some(3_000.0));
    }

    #[test]
    fn round_trips_and_sanitizes() {
        let mut f = TurnForecast::default();
        turns(&mut f, &[1, 5, 12]);
        let text = serde_json::to_string(&f).expect("serialises");
        let back: TurnForecast = serde_json::from_str(&text).expect("parses");
        assert_eq!(back, f);
        let odd: TurnForecast =
            serde_json::from_str(r#"{"last_turn_tokens":-4,"differences":[-3,0,1,2,3,4,5,6]}"#)
                .expect("parses");
        let clean = odd.sanitized();
        assert_eq!(clean.tokens_per_turn(), Some(4.0));
        assert_eq!(clean.last_turn_tokens, None);
    }
}
