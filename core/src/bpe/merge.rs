//! Byte-pair merging of one piece, exactly as tiktoken merges: repeatedly the
//! adjacent pair with the lowest rank, the leftmost on ties. Short pieces use
//! tiktoken's own quadratic scan (fastest for them); long pieces use a heap
//! over a linked list, O(n log n), so a megabyte without whitespace stays fast.

use super::Vocabulary;
use std::collections::BinaryHeap;

/// Pieces up to this many bytes use the quadratic scan.
const SCAN_LIMIT: usize = 256;
const NONE: u32 = u32::MAX;

/// Reusable buffers for merging, so encoding a text allocates once.
#[derive(Debug, Default)]
pub struct Scratch {
    parts: Vec<(u32, u32)>,
}

/// Appends the tokens of `piece` (not itself a token) to `out`.
pub fn encode_piece(vocab: &Vocabulary, piece: &[u8], out: &mut Vec<u32>, scratch: &mut Scratch) {
    if piece.len() <= SCAN_LIMIT {
        scan_merge(vocab, piece, out, &mut scratch.parts);
    } else {
        heap_merge(vocab, piece, out);
    }
}

#[inline]
fn pair_rank(vocab: &Vocabulary, piece: &[u8], start: usize, end: usize) -> u32 {
    vocab.rank(&piece[start..end]).unwrap_or(NONE)
}

fn scan_merge(vocab: &Vocabulary, piece: &[u8], out: &mut Vec<u32>, parts: &mut Vec<(u32, u32)>) {
    let n = piece.len();
    // (start, rank of merging this part with the next)
    parts.clear();
    let mut min = (NONE, usize::MAX);
    for i in 0..n - 1 {
        let r = vocab.pair_rank(piece[i], piece[i + 1]);
        if r < min.0 {
            min = (r, i);
        }
        parts.push((i as u32, r));
    }
    parts.push((n as u32 - 1, NONE));
    parts.push((n as u32, NONE));
    let rank_at = |parts: &[(u32, u32)], i: usize| {
        if i + 3 < parts.len() {
            pair_rank(vocab, piece, parts[i].0 as usize, parts[i + 3].0 as usize)
        } else {
            NONE
        }
    };
    while min.0 != NONE {
        let i = min.1;
        if i > 0 {
            parts[i - 1].1 = rank_at(parts, i - 1);
        }
        parts[i].1 = rank_at(parts, i);
        parts.remove(i + 1);
        min = (NONE, usize::MAX);
        for (j, &(_, r)) in parts[..parts.len() - 1].iter().enumerate() {
            if r < min.0 {
                min = (r, j);
            }
        }
    }
    for w in parts.windows(2) {
        out.push(
            vocab
                .rank(&piece[w[0].0 as usize..w[1].0 as usize])
                .unwrap_or(NONE),
        );
    }
}

fn heap_merge(vocab: &Vocabulary, piece: &[u8], out: &mut Vec<u32>) {
    let n = piece.len();
    // Parts start at byte positions; `next`/`prev` link the live ones (n = none, dead
    // parts point at n too), `rank[i]` is the rank of merging part i with its successor.
    let mut next: Vec<u32> = (1..=n as u32).collect();
    let mut prev: Vec<u32> = (0..n as u32).map(|i| i.wrapping_sub(1)).collect();
    let rank: Vec<u32> = (0..n)
        .map(|i| {
            if i + 2 <= n {
                pair_rank(vocab, piece, i, i + 2)
            } else {
                NONE
            }
        })
        .collect();
    let mut rank = rank;
    // Max-heap of `!(rank << 32 | start)`: the top is the lowest rank, leftmost on ties.
    let key = |r: u32, i: usize| !((u64::from(r) << 32) | i as u64);
    let initial: Vec<u64> = rank
        .iter()
        .enumerate()
        .filter(|(_, &r)| r != NONE)
        .map(|(i, &r)| key(r, i))
        .collect();
    let mut heap = BinaryHeap::from(initial);
    let end_of = |next: &[u32], i: usize| -> usize {
        let j = next[i] as usize;
        if j >= n {
            n
        } else {
            next[j] as usize
        }
    };
    while let Some(k) = heap.pop() {
        let (r, i) = ((!k >> 32) as u32, (!k & 0xFFFF_FFFF) as usize);
        if rank[i] != r || next[i] as usize >= n {
            continue; // stale entry
        }
        // Merge part i with its successor j.
        let j = next[i] as usize;
        let k = next[j];
        next[i] = k;
        if (k as usize) < n {
            prev[k as usize] = i as u32;
        }
        rank[j] = NONE;
        next[j] = n as u32;
        rank[i] = if (k as usize) < n {
            pair_rank(vocab, piece, i, end_of(&next, i))
        } else {
            NONE
        };
        if rank[i] != NONE {
            heap.push(key(rank[i], i));
        }
        let p = prev[i];
        if p != NONE {
            let p = p as usize;
            rank[p] = pair_rank(vocab, piece, p, end_of(&next, p));
            if rank[p] != NONE {
                heap.push(key(rank[p], p));
            }
        }
    }
    let mut i = 0usize;
    while i < n {
        let j = (next[i] as usize).min(n);
        out.push(vocab.rank(&piece[i..j]).unwrap_or(NONE));
        i = j;
    }
}
