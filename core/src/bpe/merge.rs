//! Byte-pair merging of one piece, exactly as tiktoken merges: repeatedly the
//! adjacent pair with the lowest rank, the leftmost on ties. Pieces of up to
//! 32 bytes use tiktoken's own quadratic scan in fixed arrays (fastest for
//! them); longer ones a tournament tree over a linked list of parts
//! (`MinTree`), O(n log n). Pieces longer than a window
//! are merged window by window ([`super::window`]), so that their working
//! memory does not grow with them.

use super::vocab::Vocabulary;
use super::OutOfMemory;

const NONE: u32 = u32::MAX;

/// Reusable buffers for merging, so encoding a text allocates once.
#[derive(Debug, Default)]
pub(crate) struct Scratch {
    small: SmallParts,
    long_parts: Vec<Part>,
    tree: MinTree,
    compatible: CompatCache,
    /// Buffers of the windowed merge (taken out while it runs).
    pub(crate) window: Vec<u32>,
    pub(crate) recent: Vec<u32>,
    /// What the windowed merge did, for tests and the working-memory figure.
    pub(crate) stats: Stats,
}

/// Counters of the windowed merge of long pieces, and the call's working-memory high-water mark.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Stats {
    /// Windows merged.
    pub(crate) windows: usize,
    /// Window starts moved back because a junction was not a valid token pair.
    pub(crate) repairs: usize,
    /// Long pieces merged whole after all.
    pub(crate) fallbacks: usize,
    /// Most bytes the merge buffers held at once.
    pub(crate) peak_bytes: usize,
}

impl Scratch {
    /// Bytes held by the merge buffers now.
    pub(crate) fn bytes(&self) -> usize {
        use std::mem::size_of;
        self.long_parts.capacity() * size_of::<Part>()
            + self.tree.nodes.capacity() * size_of::<u64>()
            + self.compatible.slots.capacity() * size_of::<(u64, bool)>()
            + (self.window.capacity() + self.recent.capacity()) * size_of::<u32>()
    }

    /// Records the current size of the buffers in the high-water mark (plus `extra` bytes held elsewhere).
    pub(crate) fn note_peak(&mut self, extra: usize) {
        self.stats.peak_bytes = self.stats.peak_bytes.max(self.bytes() + extra);
    }

    /// Whether BPE encodes the bytes of `left` followed by `right` as exactly
    /// these two tokens ([`Vocabulary::valid_pair`], remembered).
    pub(crate) fn compatible(&mut self, vocab: &Vocabulary, left: u32, right: u32) -> bool {
        if let Some(known) = self.compatible.get(left, right) {
            return known;
        }
        let ok = vocab.valid_pair(left, right);
        self.compatible.put(left, right, ok);
        ok
    }
}

/// Appends the tokens BPE merges `bytes` into (no whole-piece lookup first) to `out`.
pub(crate) fn merge(
    vocab: &Vocabulary,
    bytes: &[u8],
    out: &mut Vec<u32>,
    scratch: &mut Scratch,
) -> Result<(), OutOfMemory> {
    if bytes.len() <= SMALL {
        small_merge(vocab, bytes, out, &mut scratch.small)
    } else {
        tree_merge(vocab, bytes, out, scratch)
    }
}

/// Direct-mapped memo of [`Scratch::compatible`]: a long run meets the same junctions again and again.
#[derive(Debug, Default)]
struct CompatCache {
    /// `((left + 1) << 32 | right, answer)`; key 0 = empty.
    slots: Vec<(u64, bool)>,
}

impl CompatCache {
    const BITS: u32 = 10;

    fn slot(key: u64) -> usize {
        (key.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> (64 - Self::BITS)) as usize
    }

    fn get(&self, left: u32, right: u32) -> Option<bool> {
        let key = ((u64::from(left) + 1) << 32) | u64::from(right);
        match self.slots.get(Self::slot(key)) {
            Some(&(k, answer)) if k == key => Some(answer),
            _ => None,
        }
    }

    fn put(&mut self, left: u32, right: u32, answer: bool) {
        if self.slots.is_empty() {
            self.slots = vec![(0, false); 1 << Self::BITS];
        }
        let key = ((u64::from(left) + 1) << 32) | u64::from(right);
        self.slots[Self::slot(key)] = (key, answer);
    }
}

/// Pieces up to this many bytes are scanned in fixed arrays on the stack.
const SMALL: usize = 32;

/// The parts of a piece of at most [`SMALL`] bytes, as a linked list over
/// byte positions: part k's token, its neighbours, and `key[k]`, the merge of
/// parts k and `next[k]` as `rank << 5 | k` (`u32::MAX`: none), so that the
/// smallest key is the lowest rank, leftmost on ties — tiktoken's choice —
/// found by a plain minimum. Kept in the scratch so that a call fills only what it uses.
#[derive(Debug)]
struct SmallParts {
    token: [u32; SMALL],
    key: [u32; SMALL],
    next: [u8; SMALL],
    prev: [u8; SMALL],
}

impl Default for SmallParts {
    fn default() -> Self {
        SmallParts {
            token: [NONE; SMALL],
            key: [NONE; SMALL],
            next: [0; SMALL],
            prev: [0; SMALL],
        }
    }
}

/// A small part's merge key: `rank << 5 | k`, or `u32::MAX` for no merge.
#[inline]
fn small_key(rank: u32, k: usize) -> u32 {
    if rank == NONE {
        NONE
    } else {
        (rank << 5) | k as u32
    }
}

/// tiktoken's scan over at most [`SMALL`] bytes, in fixed arrays.
fn small_merge(
    vocab: &Vocabulary,
    piece: &[u8],
    out: &mut Vec<u32>,
    parts: &mut SmallParts,
) -> Result<(), OutOfMemory> {
    const _: () = assert!(SMALL <= 32, "keys keep the part in 5 bits");
    let n = piece.len().min(SMALL);
    let SmallParts {
        token,
        key,
        next,
        prev,
    } = parts;
    for (k, &b) in piece[..n].iter().enumerate() {
        token[k] = vocab.byte_rank(b);
        next[k] = k as u8 + 1;
        prev[k] = (k as u8).wrapping_sub(1);
    }
    for (k, w) in piece[..n].windows(2).enumerate() {
        key[k] = small_key(vocab.pair_rank(w[0], w[1]), k);
    }
    key[n - 1] = NONE;
    let key = &mut key[..n];
    let mut len = n;
    loop {
        let best = key.iter().fold(NONE, |m, &k| m.min(k));
        if best == NONE {
            break;
        }
        // Part i absorbs its successor j and becomes token r.
        let (r, i) = (best >> 5, (best & 31) as usize);
        let j = usize::from(next[i]) & (SMALL - 1);
        let after = next[j];
        token[i] = r;
        key[j] = NONE;
        next[i] = after;
        len -= 1;
        let a = usize::from(after);
        key[i] = if a < n {
            prev[a & (SMALL - 1)] = i as u8;
            small_key(vocab.merge(r, token[a & (SMALL - 1)]), i)
        } else {
            NONE
        };
        let p = usize::from(prev[i]);
        if p < n {
            key[p] = small_key(vocab.merge(token[p & (SMALL - 1)], r), p);
        }
    }
    OutOfMemory::reserve(out, len)?;
    let mut k = 0;
    while k < n {
        out.push(token[k]);
        k = usize::from(next[k]);
    }
    Ok(())
}

/// One part of a piece being merged: its neighbours and its token.
#[derive(Clone, Copy)]
struct Part {
    /// Start of the next live part (`n` = none).
    next: u32,
    /// Start of the previous live part (`NONE` = none).
    prev: u32,
    /// This part's token.
    token: u32,
}

impl std::fmt::Debug for Part {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Part({}..{}: {})", self.prev, self.next, self.token)
    }
}

/// A tournament tree over the parts' merge candidates: leaf `i` holds
/// `rank << 32 | i` for the pair that starts at part `i` (or `EMPTY`), every
/// inner node the smallest of its four children, so the root is the lowest
/// rank, leftmost on ties — tiktoken's choice — and a change costs one path to
/// the root. Four children rather than two: half the levels to walk, for
/// three comparisons of neighbouring words at each.
///
/// Node `s` is `nodes[s]`, level by level from the root, node 3: the children
/// of node `s` are the four nodes from `4(s - 2)` on, so the parent of node
/// `s` is `s / 4 + 2` and siblings start at multiples of 4. Level `d` starts
/// at node `(4^d + 8) / 3`. The vector ends after the group of the last
/// leaf, so `n` leaves take fewer than `7n / 3 + 6` keys (the binary tree of
/// whole levels it replaced took up to `4n`).
#[derive(Debug, Default)]
struct MinTree {
    /// The node of leaf 0.
    first_leaf: usize,
    nodes: Vec<u64>,
}

const EMPTY: u64 = u64::MAX;

impl MinTree {
    /// A tree of `n` leaves set from `key(i)`.
    fn build(&mut self, n: usize, key: impl Fn(usize) -> u64) -> Result<(), OutOfMemory> {
        let mut width = 4;
        while width < n {
            width *= 4;
        }
        self.first_leaf = (width + 8) / 3;
        // The inner nodes whose children would lie past the vector have no
        // leaf below them: never written, they stay EMPTY from here on.
        let len = self.first_leaf + n.div_ceil(4).max(1) * 4;
        if self.nodes.len() != len {
            self.nodes.clear();
            OutOfMemory::reserve(&mut self.nodes, len)?;
            self.nodes.resize(len, EMPTY);
        }
        let (used, unused) = self.nodes[self.first_leaf..].split_at_mut(n);
        for (i, leaf) in used.iter_mut().enumerate() {
            *leaf = key(i);
        }
        unused.fill(EMPTY);
        // Children come after their parent: fill the parents from the last group back.
        for g in (4..len).step_by(4).rev() {
            self.nodes[g / 4 + 2] = min4(&self.nodes[g..g + 4]);
        }
        Ok(())
    }

    #[inline]
    fn min(&self) -> u64 {
        self.nodes[3]
    }

    /// Sets leaf `i` and the minima above it (stopping where they do not change).
    #[inline]
    fn set(&mut self, i: usize, key: u64) {
        self.update::<true>(i, key);
    }

    /// Sets leaf `i` and every minimum above it, without looking for where
    /// they stop changing: for the leaf of the root's key, whose whole path changes.
    #[inline]
    fn set_path(&mut self, i: usize, key: u64) {
        self.update::<false>(i, key);
    }

    /// Sets leaf `i` and the minima above it, stopping at the first that does
    /// not change when `STOP` (a constant, so each caller's loop has no test it does not need).
    #[inline]
    fn update<const STOP: bool>(&mut self, i: usize, key: u64) {
        let mut s = self.first_leaf + i;
        self.nodes[s] = key;
        while s > 3 {
            let g = s & !3;
            let m = min4(&self.nodes[g..g + 4]);
            s = s / 4 + 2;
            if STOP && self.nodes[s] == m {
                break;
            }
            self.nodes[s] = m;
        }
    }
}

/// The smallest of four siblings.
#[inline]
fn min4(siblings: &[u64]) -> u64 {
    match *siblings {
        [a, b, c, d] => a.min(b).min(c.min(d)),
        _ => EMPTY,
    }
}

#[inline]
fn candidate(rank: u32, i: usize) -> u64 {
    if rank == NONE {
        EMPTY
    } else {
        (u64::from(rank) << 32) | i as u64
    }
}

/// BPE over a linked list of parts, the next merge always the root of a [`MinTree`].
fn tree_merge(
    vocab: &Vocabulary,
    piece: &[u8],
    out: &mut Vec<u32>,
    scratch: &mut Scratch,
) -> Result<(), OutOfMemory> {
    let n = piece.len();
    let end = n as u32;
    let parts = &mut scratch.long_parts;
    let tree = &mut scratch.tree;
    parts.clear();
    OutOfMemory::reserve(parts, n)?;
    parts.extend((0..n).map(|i| Part {
        next: i as u32 + 1,
        prev: (i as u32).wrapping_sub(1),
        token: vocab.byte_rank(piece[i]),
    }));
    tree.build(n, |i| {
        if i + 1 < n {
            candidate(vocab.pair_rank(piece[i], piece[i + 1]), i)
        } else {
            EMPTY
        }
    })?;
    // Rank of merging part `i` with its successor, if it has one.
    let pair_at = |parts: &[Part], i: usize| -> u64 {
        let j = parts[i].next as usize;
        if j >= n {
            return EMPTY;
        }
        candidate(vocab.merge(parts[i].token, parts[j].token), i)
    };
    loop {
        let key = tree.min();
        if key == EMPTY {
            break;
        }
        let (r, i) = ((key >> 32) as u32, key as u32 as usize);
        // Part i absorbs its successor j and becomes token r.
        let j = parts[i].next as usize;
        let k = parts[j].next;
        parts[i].next = k;
        parts[i].token = r;
        if k < end {
            parts[k as usize].prev = i as u32;
        }
        tree.set(j, EMPTY);
        // Every node above i held its key, the smallest.
        let here = pair_at(parts, i);
        tree.set_path(i, here);
        let p = parts[i].prev;
        if p != NONE {
            let before = pair_at(parts, p as usize);
            tree.set(p as usize, before);
        }
    }
    scratch.note_peak(0);
    let parts = &scratch.long_parts;
    let mut i = 0usize;
    while i < n {
        OutOfMemory::reserve(out, 1)?;
        out.push(parts[i].token);
        i = parts[i].next as usize;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn xorshift(seed: &mut u64) -> u64 {
        *seed ^= *seed << 13;
        *seed ^= *seed >> 7;
        *seed ^= *seed << 17;
        *seed
    }

    /// `unit` cycled to exactly `len` bytes (padded with `x`, which keeps it one o200k piece).
    fn sized(unit: &str, len: usize) -> String {
        let mut s = String::with_capacity(len + 4);
        for c in unit.chars().cycle() {
            if s.len() + c.len_utf8() > len {
                break;
            }
            s.push(c);
        }
        while s.len() < len {
            s.push('x');
        }
        s
    }

    /// The four-way tree's levels end at 4, 16, 64, 256, 1024, 4096
    /// and 16384 leaves; pieces on both sides of each edge (and past the
    /// window of `window.rs`, merged whole by `merge` and window by window by
    /// the encoder) give tiktoken's tokens, through the tree itself (even
    /// below [`SMALL`]), through `merge`, and through the encoder.
    #[test]
    fn the_tree_merges_as_tiktoken_at_every_level_edge() {
        let encoder = crate::bpe::o200k_base();
        let vocab = &encoder.vocab;
        let oracle = tiktoken_rs::o200k_base_singleton();
        let mut seed = 25u64;
        let mut text = |alphabet: &[char], n: usize| -> String {
            (0..n)
                .map(|_| alphabet[(xorshift(&mut seed) % alphabet.len() as u64) as usize])
                .collect()
        };
        let lower: Vec<char> = ('a'..='z').collect();
        let cjk: Vec<char> = ('\u{4e00}'..='\u{9fff}').collect();
        let cyrillic: Vec<char> = ('а'..='я').collect();
        // Each is one piece under o200k's pre-tokenizer, whatever its length.
        let units = [
            ("letters", text(&lower, 17_000)),
            ("cjk", text(&cjk, 6_000)),
            ("cyrillic", text(&cyrillic, 9_000)),
            ("one letter", "a".into()),
            ("two letters", "ab".into()),
        ];
        let edges = [4usize, 16, 32, 64, 256, 1024, 4096, 4096 + 128, 16_384];
        let mut sizes: Vec<usize> = (1..=5).collect();
        for edge in edges {
            sizes.extend(edge - 1..=edge + 1);
        }
        sizes.dedup();
        let mut scratch = Scratch::default();
        for (name, unit) in &units {
            for &len in &sizes {
                let piece = sized(unit, len);
                let want = oracle.encode_ordinary(&piece);
                let mut tree = Vec::new();
                tree_merge(vocab, piece.as_bytes(), &mut tree, &mut scratch).expect("fits");
                assert_eq!(tree, want, "{name}, {len} bytes: the tree");
                let mut merged = Vec::new();
                merge(vocab, piece.as_bytes(), &mut merged, &mut scratch).expect("fits");
                assert_eq!(merged, want, "{name}, {len} bytes: merge");
                assert_eq!(
                    encoder.encode_ordinary(&piece),
                    want,
                    "{name}, {len} bytes: the encoder"
                );
            }
        }
    }
}
