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

use super::OutOfMemory;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// Reusable queue; its buckets keep their capacity from piece to piece.
#[derive(Debug)]
pub(crate) struct MergeQueue {
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
    /// Bytes held by the queue's buffers.
    pub(crate) fn bytes(&self) -> usize {
        let keys: usize = self.buckets.iter().map(Vec::capacity).sum();
        (keys + self.low.capacity()) * std::mem::size_of::<u64>()
    }

    /// Empties the queue.
    pub(crate) fn reset(&mut self) {
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
    pub(crate) fn push(&mut self, rank: u32, start: u32) -> Result<(), OutOfMemory> {
        let key = (u64::from(rank) << 32) | u64::from(start);
        if self.started && rank <= self.last {
            if self.low.len() == self.low.capacity() {
                let more = self.low.len().max(16);
                self.low.try_reserve(more).map_err(|_| OutOfMemory {
                    bytes: (self.low.len() + more) * std::mem::size_of::<u64>(),
                })?;
            }
            self.low.push(Reverse(key));
        } else {
            let b = self.bucket(rank);
            OutOfMemory::reserve(&mut self.buckets[b], 1)?;
            self.buckets[b].push(key);
        }
        Ok(())
    }

    /// The lowest `(rank, start)`, leftmost on ties; candidates may be stale
    /// (the caller checks them against its parts).
    #[inline]
    pub(crate) fn pop(&mut self) -> Result<Option<(u32, u32)>, OutOfMemory> {
        if !self.started {
            self.started = true;
            if !self.refill()? {
                return Ok(None);
            }
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
                if !self.refill()? {
                    return Ok(None);
                }
                match self.buckets[0].pop() {
                    Some(key) => key,
                    None => return Ok(None),
                }
            }
        };
        Ok(Some((rank_of(key), key as u32)))
    }

    /// Brings the lowest bucketed rank up into bucket 0, sorted by start, and
    /// spreads the rest of its bucket over the lower buckets (each candidate moves
    /// down, so at most 32 times). False when the queue is empty.
    fn refill(&mut self) -> Result<bool, OutOfMemory> {
        if self.buckets[0].is_empty() {
            let Some(b) = (1..33).find(|&b| !self.buckets[b].is_empty()) else {
                return Ok(false);
            };
            let mut keys = std::mem::take(&mut self.buckets[b]);
            let Some(last) = keys.iter().map(|&k| rank_of(k)).min() else {
                return Ok(false);
            };
            self.last = last;
            for &k in &keys {
                let to = self.bucket(rank_of(k));
                OutOfMemory::reserve(&mut self.buckets[to], 1)?;
                self.buckets[to].push(k);
            }
            keys.clear();
            self.buckets[b] = keys;
        }
        // Pushed in increasing start order, mostly: nearly sorted already.
        self.buckets[0].sort_unstable_by(|a, b| b.cmp(a));
        Ok(true)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn drain(q: &mut MergeQueue) -> Vec<(u32, u32)> {
        std::iter::from_fn(|| q.pop().expect("small queues fit in memory")).collect()
    }

    fn push(q: &mut MergeQueue, rank: u32, start: u32) {
        q.push(rank, start).expect("small queues fit in memory");
    }

    #[test]
    fn pops_lowest_rank_then_leftmost() {
        let mut q = MergeQueue::default();
        q.reset();
        for (r, s) in [(7, 3), (2, 9), (7, 1), (9_000, 0), (2, 4), (64, 2)] {
            push(&mut q, r, s);
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
        push(&mut q, 100, 5);
        push(&mut q, 100, 1);
        push(&mut q, 200, 0);
        assert_eq!(q.pop().unwrap(), Some((100, 1)));
        push(&mut q, 50, 8); // below the last key popped
        push(&mut q, 100, 0); // at the popped rank, left of what is pending
        push(&mut q, 150, 2);
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
            push(&mut q, r, r);
        }
        assert_eq!(q.pop().unwrap(), Some((0, 0)));
        q.reset();
        assert_eq!(q.pop().unwrap(), None);
        push(&mut q, 4_999, 1);
        assert_eq!(drain(&mut q), vec![(4_999, 1)]);
    }
}
