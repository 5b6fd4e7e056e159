//! Event ids: which ones move the toolbar forward, and how it recovers when
//! the ids it is given are wrong.
//!
//! Ids only grow, but by how much depends on the source: by one per event
//! (a counter), or by the time since the last event (ctxguard's relay numbers
//! events `max(previous + 1, now in Unix microseconds)`, so an hour's pause is
//! a jump of 3.6 × 10⁹). Trusting every id blindly lets one bad id freeze the
//! toolbar: after an event with id 2^64 − 1 every later event is "stale"
//! until a resync. So:
//!
//! - an id above [`MAX_EVENT_ID`] (2^53 − 1, the largest integer a JavaScript
//!   host can hold exactly, and far beyond any clock in microseconds) is
//!   malformed;
//! - an id more than [`MAX_ID_JUMP`] ahead applies, but tentatively: when the
//!   next event's id lies between the one before the jump and the jump, the
//!   jump was the odd one out, and the cursor follows the sequence back
//!   instead of calling its events stale; any event past the jump confirms it;
//! - [`STALE_RUN_LIMIT`] stale events in a row whose ids strictly increase mean
//!   the cursor, not the source, is wrong (an earlier id was too high though
//!   within reach, or the source renumbered its events lower): the cursor
//!   moves back to the newest of them, which applies.
//!
//! A `/context` snapshot resets all of it ([`EventCursor::reset_to`]).

/// The largest id accepted: `Number.MAX_SAFE_INTEGER`.
pub const MAX_EVENT_ID: u64 = (1 << 53) - 1;

/// A step forward larger than this is taken tentatively.
pub const MAX_ID_JUMP: u64 = 1 << 20;

/// Stale events in a row, with increasing ids, after which the cursor follows them back.
pub const STALE_RUN_LIMIT: usize = 3;

/// What to do with an event of a given id.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IdVerdict {
    /// Apply it.
    Apply,
    /// Apply it, moving the cursor back: the ids before it were the wrong ones.
    Rewind,
    /// Ignore it as stale.
    Stale,
    /// Ignore it as malformed.
    Malformed,
}

/// The last applied id and what is needed to recover from bad ones.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct EventCursor {
    last: Option<u64>,
    /// The id before a tentative jump to `last`.
    before_jump: Option<u64>,
    /// Ids of the stale events seen in a row (cleared by any applied event).
    stale_run: Vec<u64>,
}

impl EventCursor {
    /// A cursor at `last`.
    pub fn at(last: Option<u64>) -> Self {
        EventCursor {
            last,
            ..EventCursor::default()
        }
    }

    /// The last applied id.
    pub fn last(&self) -> Option<u64> {
        self.last
    }

    /// The id a host event without one gets: one past the last applied.
    pub fn next_id(&self) -> u64 {
        self.last
            .map_or(1, |l| l.saturating_add(1))
            .min(MAX_EVENT_ID)
    }

    /// Judges `id` and, when it applies, moves the cursor to it. O(1).
    pub fn judge(&mut self, id: u64) -> IdVerdict {
        if id > MAX_EVENT_ID {
            return IdVerdict::Malformed;
        }
        let Some(last) = self.last else {
            self.advance(id, None);
            return IdVerdict::Apply;
        };
        if id > last {
            let tentative = (id - last > MAX_ID_JUMP).then_some(last);
            self.advance(id, tentative);
            return IdVerdict::Apply;
        }
        if self.before_jump.is_some_and(|before| id > before) {
            // The jump to `last` was the odd one out: the sequence goes on below it.
            self.advance(id, None);
            return IdVerdict::Rewind;
        }
        self.stale(id)
    }

    fn stale(&mut self, id: u64) -> IdVerdict {
        let increasing = self.stale_run.last().is_none_or(|&prev| id > prev);
        if !increasing {
            self.stale_run.clear();
        }
        self.stale_run.push(id);
        if self.stale_run.len() >= STALE_RUN_LIMIT {
            self.advance(id, None);
            return IdVerdict::Rewind;
        }
        IdVerdict::Stale
    }

    fn advance(&mut self, id: u64, before_jump: Option<u64>) {
        self.last = Some(id);
        self.before_jump = before_jump;
        self.stale_run.clear();
    }

    /// Starts over at `id` (a `/context` snapshot, the server's word).
    pub fn reset_to(&mut self, id: u64) {
        *self = EventCursor::at(Some(id));
    }
}

/// An id given as a JavaScript number: a non-negative integer no larger than [`MAX_EVENT_ID`].
pub fn id_from_f64(n: f64) -> Option<u64> {
    (n.is_finite() && n >= 0.0 && n.fract() == 0.0 && n <= MAX_EVENT_ID as f64).then_some(n as u64)
}

/// An id given as text (an SSE `id:` field, or a host's string): decimal digits only.
pub fn id_from_str(s: &str) -> Option<u64> {
    let s = s.trim();
    if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    s.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cursor(last: u64) -> EventCursor {
        EventCursor::at(Some(last))
    }

    #[test]
    fn ordinary_ids_apply_in_order() {
        let mut c = EventCursor::default();
        assert_eq!(c.judge(5), IdVerdict::Apply);
        assert_eq!(c.judge(4), IdVerdict::Stale);
        assert_eq!(c.judge(5), IdVerdict::Stale);
        assert_eq!(c.judge(6), IdVerdict::Apply);
        assert_eq!(c.judge(6 + MAX_ID_JUMP), IdVerdict::Apply);
        assert_eq!(c.last(), Some(6 + MAX_ID_JUMP));
        assert_eq!(c.next_id(), 7 + MAX_ID_JUMP);
        assert_eq!(EventCursor::default().next_id(), 1);
    }

    #[test]
    fn ids_beyond_safe_integers_are_malformed() {
        let mut c = EventCursor::default();
        assert_eq!(c.judge(u64::MAX), IdVerdict::Malformed);
        assert_eq!(c.judge(MAX_EVENT_ID + 1), IdVerdict::Malformed);
        assert_eq!(c.last(), None);
        assert_eq!(c.judge(MAX_EVENT_ID), IdVerdict::Apply);
        assert_eq!(cursor(MAX_EVENT_ID).next_id(), MAX_EVENT_ID);
    }

    #[test]
    fn time_based_ids_jump_and_apply_at_once() {
        // The relay's ids are Unix microseconds: an hour's pause is a jump of 3.6e9.
        let t0 = 1_782_226_534_512_345;
        let mut c = cursor(t0);
        assert_eq!(c.judge(t0 + 3_600_000_000), IdVerdict::Apply);
        assert_eq!(c.judge(t0 + 3_600_000_001), IdVerdict::Apply);
        // The jump is confirmed: what lies before it is stale again.
        assert_eq!(c.judge(t0 + 5), IdVerdict::Stale);
    }

    #[test]
    fn a_far_jump_is_undone_when_the_sequence_goes_on_below_it() {
        let mut c = cursor(10);
        assert_eq!(c.judge(1 << 50), IdVerdict::Apply);
        assert_eq!(c.judge(11), IdVerdict::Rewind);
        assert_eq!(c.last(), Some(11));
        assert_eq!(c.judge(12), IdVerdict::Apply);
        // Not below the id before the jump: stale as ever.
        let mut c = cursor(10);
        c.judge(1 << 50);
        assert_eq!(c.judge(10), IdVerdict::Stale);
        assert_eq!(c.judge(3), IdVerdict::Stale);
    }

    #[test]
    fn a_run_of_increasing_stale_ids_moves_the_cursor_back() {
        let mut c = cursor(900_000);
        assert_eq!(c.judge(101), IdVerdict::Stale);
        assert_eq!(c.judge(102), IdVerdict::Stale);
        assert_eq!(c.judge(103), IdVerdict::Rewind);
        assert_eq!(c.judge(104), IdVerdict::Apply);
    }

    #[test]
    fn repeats_and_replays_out_of_order_do_not_rewind() {
        let mut c = cursor(50);
        for id in [50, 50, 50, 49, 48, 47, 49, 48] {
            assert_eq!(c.judge(id), IdVerdict::Stale, "{id}");
        }
        // An applied event in between resets the run.
        let mut c = cursor(50);
        assert_eq!(c.judge(40), IdVerdict::Stale);
        assert_eq!(c.judge(41), IdVerdict::Stale);
        assert_eq!(c.judge(51), IdVerdict::Apply);
        assert_eq!(c.judge(42), IdVerdict::Stale);
    }

    #[test]
    fn reset_forgets_jumps_and_runs() {
        let mut c = cursor(10);
        c.judge(1 << 40);
        c.judge(3);
        c.reset_to(2);
        assert_eq!(c, cursor(2));
    }

    #[test]
    fn ids_from_js_values() {
        assert_eq!(id_from_f64(7.0), Some(7));
        assert_eq!(id_from_f64(0.0), Some(0));
        assert_eq!(id_from_f64(9_007_199_254_740_991.0), Some(MAX_EVENT_ID));
        for bad in [-1.0, 1.5, f64::NAN, f64::INFINITY, 9_007_199_254_740_992.0] {
            assert_eq!(id_from_f64(bad), None, "{bad}");
        }
        assert_eq!(id_from_str(" 42 "), Some(42));
        for bad in ["", "x9", "-3", "1e3", "4.0", "99999999999999999999999"] {
            assert_eq!(id_from_str(bad), None, "{bad}");
        }
    }
}
