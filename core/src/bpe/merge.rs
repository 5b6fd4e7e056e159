//! Byte-pair merging of one piece, exactly as tiktoken merges: repeatedly the
//! adjacent pair with the lowest rank, the leftmost on ties. Short pieces use
//! tiktoken's own quadratic scan (fastest for them); long pieces use a radix
//! heap over a linked list of parts ([`super::queue`]), so a megabyte without
//! whitespace stays fast.

use super::queue::MergeQueue;
use super::Vocabulary;

/// Pieces up to this many bytes use the quadratic scan.
const SCAN_LIMIT: usize = 256;
const NONE: u32 = u32::MAX;

/// Reusable buffers for merging, so encoding a text allocates once.
#[derive(Debug, Default)]
pub struct Scratch {
    parts: Vec<(u32, u32)>,
    queue: MergeQueue,
}

/// Appends the tokens of `piece` (not itself a token) to `out`.
pub fn encode_piece(vocab: &Vocabulary, piece: &[u8], out: &mut Vec<u32>, scratch: &mut Scratch) {
    if piece.len() <= SCAN_LIMIT {
        scan_merge(vocab, piece, out, &mut scratch.parts);
    } else {
        queue_merge(vocab, piece, out, &mut scratch.queue);
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

/// One part of a piece being merged, kept together so one cache line serves a merge.
#[derive(Clone, Copy)]
struct Part {
    /// Start of the next live part (`n` = none; dead parts point at `n` too).
    next: u32,
    /// Start of the previous live part (`NONE` = none).
    prev: u32,
    /// Rank of merging this part with its successor (`NONE` = not a token).
    rank: u32,
}

fn queue_merge(vocab: &Vocabulary, piece: &[u8], out: &mut Vec<u32>, queue: &mut MergeQueue) {
    let n = piece.len();
    let end = n as u32;
    let mut parts: Vec<Part> = (0..n)
        .map(|i| Part {
            next: i as u32 + 1,
            prev: (i as u32).wrapping_sub(1),
            rank: if i + 1 < n {
                vocab.pair_rank(piece[i], piece[i + 1])
            } else {
                NONE
            },
        })
        .collect();
    queue.reset();
    for (i, p) in parts.iter().enumerate() {
        if p.rank != NONE {
            queue.push(p.rank, i as u32);
        }
    }
    // End of the part after `i` (which must have a successor).
    let end_after = |parts: &[Part], i: usize| -> usize {
        let j = parts[i].next as usize;
        if j >= n {
            n
        } else {
            parts[j].next as usize
        }
    };
    while let Some((r, i)) = queue.pop() {
        let i = i as usize;
        let part = parts[i];
        if part.rank != r || part.next >= end {
            continue; // stale entry
        }
        // Merge part i with its successor j.
        let j = part.next as usize;
        let k = parts[j].next;
        parts[j] = Part {
            next: end,
            prev: NONE,
            rank: NONE,
        };
        parts[i].next = k;
        if k < end {
            parts[k as usize].prev = i as u32;
            let r = pair_rank(vocab, piece, i, end_after(&parts, i));
            parts[i].rank = r;
            if r != NONE {
                queue.push(r, i as u32);
            }
        } else {
            parts[i].rank = NONE;
        }
        if part.prev != NONE {
            let p = part.prev as usize;
            let r = pair_rank(vocab, piece, p, end_after(&parts, p));
            parts[p].rank = r;
            if r != NONE {
                queue.push(r, p as u32);
            }
        }
    }
    let mut i = 0usize;
    while i < n {
        let j = (parts[i].next as usize).min(n);
        out.push(vocab.rank(&piece[i..j]).unwrap_or(NONE));
        i = j;
    }
}
