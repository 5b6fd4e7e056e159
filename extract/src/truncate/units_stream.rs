//! The head + tail strategy over units as a parser reads them ([`units`]'s
//! output to the byte, without the list of every unit).
//!
//! A parser hands each unit to a [`UnitSink`] as it reads it, tagged with
//! its segment: the output shows every unit of segment 0, then every unit
//! of segment 1 (python-docx's `doc.paragraphs`, then the rows of
//! `doc.tables`, which a body interleaves). Each segment keeps its first
//! units while they hold fewer code points than the limit, and a ring of its
//! last units (at most twice the limit in code points, [`RING_UNITS`] units);
//! each kept unit is cut to one code point past the limit, since the output
//! is never longer. Everything else is counted, not kept. When the units the
//! output shows are at hand (the usual case: the tail kept is about half the
//! limit), that is the whole cost. Otherwise (units far longer than the
//! average at the end, or more units than the ring holds) the counts decide
//! which units are shown, and the parser reads the document a second time
//! into windows that keep exactly those, each window at most one limit of
//! code points. So a document costs O(limit) memory whatever its size, and
//! at most two reads.
//!
//! A negative limit cuts from the end (Python's `s[:-n]`), which needs every
//! unit: then every unit is kept, as the whole-list strategy keeps them.
//!
//! [`units`]: super::units

use super::units::{whole_length, Plan, Unit};
use super::{effective_limit, StrategyError, Truncated};
use crate::chars;
use std::collections::VecDeque;
use std::ops::Range;

/// Most units a segment keeps in its head or its ring (past these, the
/// second read finds the units shown).
const RING_UNITS: usize = 100_000;

/// Where a parser hands its units, in reading order.
pub(crate) trait UnitSink {
    /// One unit of `segment` (segments are shown in their order, each unit in reading order).
    fn unit(&mut self, segment: usize, text: &str);
}

/// A unit as kept: cut to `budget` code points, with the code points kept.
fn kept(text: &str, budget: i64) -> (Box<str>, i64) {
    let cut = if budget == i64::MAX {
        text
    } else {
        chars::prefix(text, budget)
    };
    (Box::from(cut), chars::len(cut))
}

/// Truncates the units `read` hands its sink as [`super::units`] truncates
/// their list. `read` runs once, or twice when the units shown were not
/// kept on the first read (it must hand the same units each time).
pub(crate) fn units_streamed<E>(
    unit: Unit,
    max_length: i64,
    segments: usize,
    read: &mut dyn FnMut(&mut dyn UnitSink) -> Result<(), E>,
    strategy: impl Fn(StrategyError) -> E,
) -> Result<Truncated, E> {
    let mut first = UnitsStream::new(unit, max_length, segments);
    read(&mut first)?;
    match first.finish().map_err(&strategy)? {
        Ok(truncated) => Ok(truncated),
        Err(mut again) => {
            read(&mut again)?;
            Ok(again.finish())
        }
    }
}

/// The first read: each segment's head and ring, and the counts.
pub(crate) struct UnitsStream {
    unit: Unit,
    max_length: i64,
    /// Code points a kept unit is cut to (all of them under a negative limit).
    budget: i64,
    segments: Vec<Segment>,
}

/// What the first read keeps of one segment.
#[derive(Default)]
struct Segment {
    total: usize,
    /// Code points of every unit.
    chars: i64,
    head: Vec<Box<str>>,
    head_chars: i64,
    ring: VecDeque<(Box<str>, i64)>,
    ring_chars: i64,
}

impl Segment {
    fn push(&mut self, text: &str, budget: i64) {
        self.total += 1;
        self.chars += chars::len(text);
        let (text, len) = kept(text, budget);
        if self.ring.is_empty() && self.head_chars < budget && self.head.len() < RING_UNITS {
            self.head.push(text);
            self.head_chars += len;
            return;
        }
        self.ring.push_back((text, len));
        self.ring_chars += len;
        while self.ring.len() > 1 {
            let oldest = self.ring.front().map_or(0, |u| u.1);
            let too_long = self.ring_chars - oldest >= budget.saturating_mul(2);
            if !too_long && self.ring.len() <= RING_UNITS {
                break;
            }
            self.ring.pop_front();
            self.ring_chars -= oldest;
        }
    }

    /// Unit `i` of the segment, when it was kept.
    fn get(&self, i: usize) -> Option<&str> {
        if let Some(unit) = self.head.get(i) {
            return Some(unit);
        }
        let ring_start = self.total - self.ring.len();
        if i >= ring_start {
            return self.ring.get(i - ring_start).map(|u| &*u.0);
        }
        None
    }
}

/// The segment holding unit `i` of the whole list, and `i` within it.
fn locate(totals: impl Iterator<Item = usize>, mut i: usize) -> Option<(usize, usize)> {
    for (s, total) in totals.enumerate() {
        if i < total {
            return Some((s, i));
        }
        i -= total;
    }
    None
}

impl UnitsStream {
    /// A stream of `segments` segments cut at `max_length` code points.
    pub(crate) fn new(unit: Unit, max_length: i64, segments: usize) -> Self {
        let limit = effective_limit(max_length);
        UnitsStream {
            unit,
            max_length,
            budget: if limit < 0 {
                i64::MAX
            } else {
                limit.saturating_add(1)
            },
            segments: (0..segments).map(|_| Segment::default()).collect(),
        }
    }

    /// The truncated text when every unit shown was kept; otherwise the
    /// second read's windows.
    pub(crate) fn finish(self) -> Result<Result<Truncated, Reread>, StrategyError> {
        let total = self.segments.iter().map(|s| s.total).sum();
        let chars = self.segments.iter().map(|s| s.chars).sum();
        let plan = Plan::new(
            self.unit,
            total,
            whole_length(self.unit, total, chars),
            self.max_length,
        )?;
        let segments = &self.segments;
        let item = |i: usize| {
            let (s, j) = locate(segments.iter().map(|s| s.total), i)?;
            segments[s].get(j)
        };
        if let Some(truncated) = plan.assemble(&item) {
            return Ok(Ok(truncated));
        }
        let shown = plan.shown();
        let mut offset = 0;
        let windows = self
            .segments
            .iter()
            .map(|segment| {
                let local = segment.total;
                let within = |r: &Range<usize>| {
                    r.start.clamp(offset, offset + local) - offset
                        ..r.end.clamp(offset, offset + local) - offset
                };
                let picked = Picked {
                    seen: 0,
                    windows: shown.clone().map(|r| Window {
                        range: within(&r),
                        units: Vec::new(),
                        chars: 0,
                    }),
                };
                offset += local;
                picked
            })
            .collect();
        Ok(Err(Reread {
            plan,
            budget: self.budget,
            totals: self.segments.iter().map(|s| s.total).collect(),
            segments: windows,
        }))
    }
}

impl UnitSink for UnitsStream {
    fn unit(&mut self, segment: usize, text: &str) {
        let budget = self.budget;
        if let Some(s) = self.segments.get_mut(segment) {
            s.push(text, budget);
        }
    }
}

/// The second read: the units shown, found by position.
pub(crate) struct Reread {
    plan: Plan,
    budget: i64,
    /// Units per segment, as the first read counted them.
    totals: Vec<usize>,
    segments: Vec<Picked>,
}

/// The windows of one segment the output shows.
struct Picked {
    seen: usize,
    windows: [Window; 2],
}

/// Consecutive units of a segment from the start of `range`, kept until
/// they hold `budget` code points (the output, cut there, needs no more).
struct Window {
    range: Range<usize>,
    units: Vec<Box<str>>,
    chars: i64,
}

impl Reread {
    /// The truncated text.
    pub(crate) fn finish(self) -> Truncated {
        let segments = &self.segments;
        let item = |i: usize| {
            let (s, j) = locate(self.totals.iter().copied(), i)?;
            // The windows hold every unit the output reaches before its limit.
            let found = segments[s].windows.iter().find_map(|w| {
                let k = j.checked_sub(w.range.start)?;
                w.units.get(k).map(|u| &**u)
            });
            Some(found.unwrap_or(""))
        };
        self.plan
            .assemble(&item)
            .expect("the plan counts the units the first read counted, and each is answered")
    }
}

impl UnitSink for Reread {
    fn unit(&mut self, segment: usize, text: &str) {
        let budget = self.budget;
        let Some(picked) = self.segments.get_mut(segment) else {
            return;
        };
        let j = picked.seen;
        picked.seen += 1;
        for w in &mut picked.windows {
            if w.range.contains(&j) && w.chars < budget && j == w.range.start + w.units.len() {
                let (text, len) = kept(text, budget);
                w.units.push(text);
                w.chars += len;
            }
        }
    }
}

#[cfg(test)]
#[path = "units_stream/tests.rs"]
mod tests;
