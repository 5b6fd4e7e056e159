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
    parts: Vec<ScanPart>,
    queue: MergeQueue,
    pairs: PairCache,
}

impl Scratch {
    /// Buffers for encoding a text of `len` bytes: the pair memo grows with the
    /// text (a megabyte has many distinct pairs; a short text should not pay for a big table).
    pub fn for_text(len: usize) -> Self {
        // One slot per 16 bytes of text, within the bounds `PairCache::rank` applies.
        let bits = (len / 16).next_power_of_two().trailing_zeros();
        Scratch {
            pairs: PairCache {
                slots: Vec::new(),
                bits,
            },
            ..Scratch::default()
        }
    }
}

/// Appends the tokens of `piece` (not itself a token) to `out`.
pub fn encode_piece(vocab: &Vocabulary, piece: &[u8], out: &mut Vec<u32>, scratch: &mut Scratch) {
    if piece.len() <= SCAN_LIMIT {
        scan_merge(vocab, piece, out, &mut scratch.parts, &mut scratch.pairs);
    } else {
        queue_merge(vocab, piece, out, &mut scratch.queue, &mut scratch.pairs);
    }
}

/// Direct-mapped memo of "which token do these two adjacent tokens make":
/// keyed by both ranks (compared whole, so a hit is exact), it answers the
/// pairs natural text repeats from a few cache lines instead of the rank
/// table and the token bytes.
#[derive(Debug, Default)]
struct PairCache {
    /// `((left + 1) << 32 | right, rank of the concatenation or NONE)`; key 0 = empty.
    slots: Vec<(u64, u32)>,
    /// log2 of the number of slots wanted; the table is made with 2^10 to 2^16.
    bits: u32,
}

impl PairCache {
    /// The rank of `left` followed by `right`, whose bytes are `piece[start..end]`.
    #[inline]
    fn rank(
        &mut self,
        vocab: &Vocabulary,
        left: u32,
        right: u32,
        piece: &[u8],
        start: usize,
        end: usize,
    ) -> u32 {
        if self.slots.is_empty() {
            self.bits = self.bits.clamp(10, 16);
            self.slots = vec![(0, NONE); 1 << self.bits];
        }
        let key = ((u64::from(left) + 1) << 32) | u64::from(right);
        let slot = (key.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> (64 - self.bits)) as usize;
        let (k, r) = self.slots[slot];
        if k == key {
            return r;
        }
        let r = vocab.rank(&piece[start..end]).unwrap_or(NONE);
        self.slots[slot] = (key, r);
        r
    }
}

/// A part of a short piece: where it starts, its token, and the rank of merging it with the next.
#[derive(Debug, Clone, Copy)]
struct ScanPart {
    start: u32,
    token: u32,
    rank: u32,
}

fn scan_merge(
    vocab: &Vocabulary,
    piece: &[u8],
    out: &mut Vec<u32>,
    parts: &mut Vec<ScanPart>,
    pairs: &mut PairCache,
) {
    let n = piece.len();
    parts.clear();
    let mut min = (NONE, usize::MAX);
    for i in 0..n {
        let rank = if i + 1 < n {
            vocab.pair_rank(piece[i], piece[i + 1])
        } else {
            NONE
        };
        if rank < min.0 {
            min = (rank, i);
        }
        parts.push(ScanPart {
            start: i as u32,
            token: vocab.byte_rank(piece[i]),
            rank,
        });
    }
    parts.push(ScanPart {
        start: n as u32,
        token: NONE,
        rank: NONE,
    });
    // Rank of merging part `j` with the next (none for the last part).
    let pair_at = |parts: &[ScanPart], pairs: &mut PairCache, j: usize| {
        if j + 2 < parts.len() {
            let (a, b) = (parts[j], parts[j + 1]);
            let end = parts[j + 2].start as usize;
            pairs.rank(vocab, a.token, b.token, piece, a.start as usize, end)
        } else {
            NONE
        }
    };
    while min.0 != NONE {
        let i = min.1;
        // Part i absorbs part i + 1 and becomes token `min.0`.
        parts[i].token = min.0;
        parts.remove(i + 1);
        // Ranks of the two pairs that now include part i.
        if i > 0 {
            parts[i - 1].rank = pair_at(parts, pairs, i - 1);
        }
        parts[i].rank = pair_at(parts, pairs, i);
        min = (NONE, usize::MAX);
        for (j, p) in parts[..parts.len() - 1].iter().enumerate() {
            if p.rank < min.0 {
                min = (p.rank, j);
            }
        }
    }
    out.extend(parts[..parts.len() - 1].iter().map(|p| p.token));
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
    /// This part's token.
    token: u32,
}

fn queue_merge(
    vocab: &Vocabulary,
    piece: &[u8],
    out: &mut Vec<u32>,
    queue: &mut MergeQueue,
    pairs: &mut PairCache,
) {
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
            token: vocab.byte_rank(piece[i]),
        })
        .collect();
    queue.reset();
    for (i, p) in parts.iter().enumerate() {
        if p.rank != NONE {
            queue.push(p.rank, i as u32);
        }
    }
    // Rank of merging part `i` with its successor (which it must have).
    let pair_at = |parts: &[Part], pairs: &mut PairCache, i: usize| -> u32 {
        let j = parts[i].next as usize;
        let end = (parts[j].next as usize).min(n);
        pairs.rank(vocab, parts[i].token, parts[j].token, piece, i, end)
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
            token: NONE,
        };
        parts[i].next = k;
        parts[i].token = r;
        if k < end {
            parts[k as usize].prev = i as u32;
            let r = pair_at(&parts, pairs, i);
            parts[i].rank = r;
            if r != NONE {
                queue.push(r, i as u32);
            }
        } else {
            parts[i].rank = NONE;
        }
        if part.prev != NONE {
            let p = part.prev as usize;
            let r = pair_at(&parts, pairs, p);
            parts[p].rank = r;
            if r != NONE {
                queue.push(r, p as u32);
            }
        }
    }
    let mut i = 0usize;
    while i < n {
        out.push(parts[i].token);
        i = parts[i].next as usize;
    }
}
