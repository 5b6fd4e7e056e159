//! Event ids: which ones move the toolbar forward, and how it recovers when
//! the ids it is given are wrong.
//!
//! Ids normally grow by one per event (ctxguard's server numbers every
//! session's events from the session's start time in Unix milliseconds), or
//! jump ahead by the events a slow client missed. Trusting every id blindly
//! lets one bad id freeze the toolbar: after an event with id 2^64 − 1 every
//! later event is "stale" until a resync (issue 12, item 7). So:
//!
//! - an id above [`MAX_EVENT_ID`] (2^53 − 1, the largest integer a JavaScript
//!   host can hold exactly) is malformed;
//! - an id more than [`MAX_ID_JUMP`] above the last applied one is held back
//!   (malformed for now): if the very next event continues from it (greater,
//!   by at most [`MAX_ID_JUMP`]) the sequence really moved, and both apply;
//! - [`STALE_RUN_LIMIT`] stale events in a row whose ids strictly increase mean
//!   the cursor, not the source, is wrong (an earlier id was too high, or the
//!   source renumbered its events): the cursor moves back to the newest of
//!   them, which applies.
//!
//! A `/context` snapshot resets all of it ([`EventCursor::reset_to`]).

/// The largest id accepted: `Number.MAX_SAFE_INTEGER`.
pub const MAX_EVENT_ID: u64 = (1 << 53) - 1;

/// The largest step forward taken on one event's word alone.
pub const MAX_ID_JUMP: u64 = 1 << 20;

/// Stale events in a row, with increasing ids, after which the cursor follows them back.
pub const STALE_RUN_LIMIT: usize = 3;

/// What to do with an event of a given id.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum IdVerdict {
    /// Apply it.
    Apply,
    /// Apply the held event `held` first, then this one (a confirmed jump).
    ApplyHeldThen {
        /// Id of the held event.
        held: u64,
    },
    /// Ignore it as stale.
    Stale,
    /// Apply it, moving the cursor back (a run of stale events outvoted the cursor).
    Rewind,
    /// Ignore it as malformed; when `hold` it is kept to see whether the next event confirms it.
    Implausible {
        /// Whether it is held as a jump candidate.
        hold: bool,
    },
}

/// The last applied id and what is needed to recover from bad ones.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct EventCursor {
    last: Option<u64>,
    /// An id that jumped too far, waiting for the next event to confirm it.
    held: Option<u64>,
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

    /// Judges `id` and records what it needs to (held ids, stale runs); the caller
    /// then calls [`EventCursor::advance`] for every id it applies. O(1).
    pub fn judge(&mut self, id: u64) -> IdVerdict {
        if id > MAX_EVENT_ID {
            return IdVerdict::Implausible { hold: false };
        }
        let Some(last) = self.last else {
            return IdVerdict::Apply;
        };
        if id <= last {
            return self.stale(id);
        }
        self.stale_run.clear();
        if id - last <= MAX_ID_JUMP {
            self.held = None;
            return IdVerdict::Apply;
        }
        match self.held.take() {
            Some(held) if id > held && id - held <= MAX_ID_JUMP => {
                IdVerdict::ApplyHeldThen { held }
            }
            _ => {
                self.held = Some(id);
                IdVerdict::Implausible { hold: true }
            }
        }
    }

    fn stale(&mut self, id: u64) -> IdVerdict {
        let increasing = self
            .stale_run
            .last()
            .is_none_or(|&prev| id > prev && id - prev <= MAX_ID_JUMP);
        if !increasing {
            self.stale_run.clear();
        }
        self.stale_run.push(id);
        if self.stale_run.len() >= STALE_RUN_LIMIT {
            self.stale_run.clear();
            self.held = None;
            return IdVerdict::Rewind;
        }
        IdVerdict::Stale
    }

    /// Records that the event `id` was applied.
    pub fn advance(&mut self, id: u64) {
        self.last = Some(id);
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
        c.advance(5);
        assert_eq!(c.judge(4), IdVerdict::Stale);
        assert_eq!(c.judge(5), IdVerdict::Stale);
        assert_eq!(c.judge(6), IdVerdict::Apply);
        c.advance(6);
        assert_eq!(c.judge(6 + MAX_ID_JUMP), IdVerdict::Apply);
        assert_eq!(c.next_id(), 7);
        assert_eq!(EventCursor::default().next_id(), 1);
    }

    #[test]
    fn ids_beyond_safe_integers_are_malformed() {
        let mut c = EventCursor::default();
        assert_eq!(c.judge(u64::MAX), IdVerdict::Implausible { hold: false });
        assert_eq!(
            c.judge(MAX_EVENT_ID + 1),
            IdVerdict::Implausible { hold: false }
        );
        assert_eq!(c.judge(MAX_EVENT_ID), IdVerdict::Apply);
        assert_eq!(cursor(MAX_EVENT_ID).next_id(), MAX_EVENT_ID);
    }

    #[test]
    fn a_far_jump_waits_for_the_next_event() {
        let mut c = cursor(10);
        let far = 10 + MAX_ID_JUMP + 1;
        assert_eq!(c.judge(far), IdVerdict::Implausible { hold: true });
        // The stream goes on where it was: the far id is forgotten.
        assert_eq!(c.judge(11), IdVerdict::Apply);
        c.advance(11);
        assert_eq!(c.judge(far + 1), IdVerdict::Implausible { hold: true });
        assert_eq!(c.judge(far + 2), IdVerdict::ApplyHeldThen { held: far + 1 });
        c.advance(far + 1);
        c.advance(far + 2);
        assert_eq!(c.last(), Some(far + 2));
        // Two unrelated far ids never confirm each other.
        let mut c = cursor(10);
        assert_eq!(c.judge(1 << 40), IdVerdict::Implausible { hold: true });
        assert_eq!(c.judge(1 << 45), IdVerdict::Implausible { hold: true });
        assert_eq!(
            c.judge((1 << 40) + 1),
            IdVerdict::Implausible { hold: true }
        );
    }

    #[test]
    fn a_run_of_increasing_stale_ids_moves_the_cursor_back() {
        let mut c = cursor(900_000);
        assert_eq!(c.judge(101), IdVerdict::Stale);
        assert_eq!(c.judge(102), IdVerdict::Stale);
        assert_eq!(c.judge(103), IdVerdict::Rewind);
        c.advance(103);
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
        c.advance(51);
        assert_eq!(c.judge(42), IdVerdict::Stale);
    }

    #[test]
    fn reset_forgets_held_ids_and_runs() {
        let mut c = cursor(10);
        c.judge(1 << 40);
        c.judge(3);
        c.judge(4);
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
