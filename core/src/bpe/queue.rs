//! The priority queue of merge candidates for long pieces: `(rank, start)`
//! pairs popped lowest rank first, leftmost on ties, as tiktoken merges.
//!
//! BPE is nearly monotone: merging the pair of rank `r` almost always creates
//! pairs of higher ranks. So the queue is a radix heap over ranks (a monotone
//! queue whose buckets are plain vectors, read and written sequentially); the
//! candidates of the lowest rank are sorted by position once, when that rank
//! comes up. The rare push at or below that rank goes to a small binary heap
//! that is consulted first. A binary heap over a megabyte piece instead misses
//! cache at every level of every operation.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// Reusable queue; its buckets keep their capacity from piece to piece.
#[derive(Debug)]
pub struct MergeQueue {
    /// Whether a rank has come up yet (before that, every push is bucketed).
    started: bool,
    /// The rank that came up last; every bucketed candidate's rank is above it,
    /// except those in bucket 0.
    last: u32,
    /// Bucket 0 holds the candidates of rank `last`, sorted by descending start
    /// once `started`; bucket `b` those whose rank's highest bit differing from
    /// `last` is bit `b - 1`. Keys are `rank << 32 | start`.
    buckets: [Vec<u64>; 33],
    /// Candidates pushed at or below `last`: each is below every bucketed one
    /// except bucket 0's, with which it is compared.
    low: BinaryHeap<Reverse<u64>>,
}

impl Default for MergeQueue {
    fn default() -> Self {
        MergeQueue {
            started: false,
            last: 0,
            buckets: std::array::from_fn(|_| Vec::new()),
            low: BinaryHeap::new(),
        }
    }
}

#[inline]
fn rank_of(key: u64) -> u32 {
    (key >> 32) as u32
}

impl MergeQueue {
    /// Empties the queue.
    pub fn reset(&mut self) {
        self.started = false;
        self.last = 0;
        self.buckets.iter_mut().for_each(Vec::clear);
        self.low.clear();
    }

    #[inline]
    fn bucket(&self, rank: u32) -> usize {
        (32 - (rank ^ self.last).leading_zeros()) as usize
    }

    /// Adds the candidate of merging the part at `start` whose pair has `rank`.
    #[inline]
    pub fn push(&mut self, rank: u32, start: u32) {
        let key = (u64::from(rank) << 32) | u64::from(start);
        if self.started && rank <= self.last {
            self.low.push(Reverse(key));
        } else {
            let b = self.bucket(rank);
            self.buckets[b].push(key);
        }
    }

    /// The lowest `(rank, start)`, leftmost on ties; candidates may be stale
    /// (the caller checks them against its parts).
    #[inline]
    pub fn pop(&mut self) -> Option<(u32, u32)> {
        if !self.started {
            self.started = true;
            self.refill()?;
        }
        let here = self.buckets[0].last().copied();
        let key = match (self.low.peek(), here) {
            (Some(&Reverse(low)), Some(here)) if low < here => {
                self.low.pop();
                low
            }
            (Some(&Reverse(low)), None) => {
                self.low.pop();
                low
            }
            (_, Some(here)) => {
                self.buckets[0].pop();
                here
            }
            (None, None) => {
                self.refill()?;
                self.buckets[0].pop()?
            }
        };
        Some((rank_of(key), key as u32))
    }

    /// Brings the lowest bucketed rank up into bucket 0, sorted by start, and
    /// spreads the rest of its bucket over the lower buckets (each candidate moves
    /// down, so at most 32 times).
    fn refill(&mut self) -> Option<()> {
        if self.buckets[0].is_empty() {
            let b = (1..33).find(|&b| !self.buckets[b].is_empty())?;
            let mut keys = std::mem::take(&mut self.buckets[b]);
            self.last = keys.iter().map(|&k| rank_of(k)).min()?;
            for &k in &keys {
                let to = self.bucket(rank_of(k));
                self.buckets[to].push(k);
            }
            keys.clear();
            self.buckets[b] = keys;
        }
        // Pushed in increasing start order, mostly: nearly sorted already.
        self.buckets[0].sort_unstable_by(|a, b| b.cmp(a));
        Some(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn drain(q: &mut MergeQueue) -> Vec<(u32, u32)> {
        std::iter::from_fn(|| q.pop()).collect()
    }

    #[test]
    fn pops_lowest_rank_then_leftmost() {
        let mut q = MergeQueue::default();
        q.reset();
        for (r, s) in [(7, 3), (2, 9), (7, 1), (9_000, 0), (2, 4), (64, 2)] {
            q.push(r, s);
        }
        assert_eq!(
            drain(&mut q),
            vec![(2, 4), (2, 9), (7, 1), (7, 3), (64, 2), (9_000, 0)]
        );
    }

    #[test]
    fn a_push_below_the_cursor_comes_out_next() {
        let mut q = MergeQueue::default();
        q.reset();
        q.push(100, 5);
        q.push(100, 1);
        q.push(200, 0);
        assert_eq!(q.pop(), Some((100, 1)));
        q.push(50, 8); // below the last key popped
        q.push(100, 0); // at the popped rank, left of what is pending
        q.push(150, 2);
        assert_eq!(
            drain(&mut q),
            vec![(50, 8), (100, 0), (100, 5), (150, 2), (200, 0)]
        );
    }

    #[test]
    fn reset_forgets_everything_pushed() {
        let mut q = MergeQueue::default();
        q.reset();
        for r in (0..5_000).step_by(7) {
            q.push(r, r);
        }
        assert_eq!(q.pop(), Some((0, 0)));
        q.reset();
        assert_eq!(q.pop(), None);
        q.push(4_999, 1);
        assert_eq!(drain(&mut q), vec![(4_999, 1)]);
    }
}
