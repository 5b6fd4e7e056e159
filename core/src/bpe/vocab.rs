//! A vocabulary in memory, held as merges: which token two adjacent tokens
//! make, by their ranks. Every token of tiktoken's vocabularies is the BPE
//! of its own bytes, reached by merging two tokens of lower rank (its
//! parents; `build.rs` checks this), so a table from parent pairs to tokens
//! answers every merge BPE makes, and the rank of a piece that is one token
//! is what merging its bytes gives. No table from bytes to ranks is needed.
//!
//! Direct tables answer the one- and two-byte tokens every merge starts
//! from; the tokens' lengths are set up with the merges, and the parents
//! answer whether two tokens stay apart where long pieces' windows meet
//! ([`Vocabulary::valid_pair`]), so only decoding builds the tokens' bytes
//! (on first use).

use super::tables::{Parents, Tokens};
use std::sync::OnceLock;

const NONE: u32 = u32::MAX;

/// Tokens whose merges one call of the set-up inserts (even: `Parents::range` starts each).
const SETUP_CHUNK: usize = 4096;
const _: () = assert!(SETUP_CHUNK % 2 == 0);

/// Bits of a merge-table slot that hold `rank + 1` (every vocabulary has fewer than 2^18 ranks).
const RANK_BITS: u32 = 18;
const RANK_MASK: u64 = (1 << RANK_BITS) - 1;

/// Every rank's bytes: `data[offsets[r]..offsets[r + 1]]`.
#[derive(Debug, Default)]
pub(crate) struct TokenBytes {
    offsets: Vec<u32>,
    data: Vec<u8>,
}

impl TokenBytes {
    fn from_tokens(tokens: Tokens) -> Self {
        let mut offsets = Vec::with_capacity(tokens.lens.len() + 1);
        let mut at = 0u32;
        for &len in tokens.lens.iter() {
            offsets.push(at);
            at += u32::from(len);
        }
        offsets.push(at);
        TokenBytes {
            offsets,
            data: tokens.data.into_owned(),
        }
    }

    #[inline]
    fn get(&self, rank: u32) -> &[u8] {
        let r = rank as usize;
        match (self.offsets.get(r), self.offsets.get(r + 1)) {
            (Some(&a), Some(&b)) => self.data.get(a as usize..b as usize).unwrap_or_default(),
            _ => &[],
        }
    }
}

/// Where a vocabulary's parents are, and so its token bytes when first asked for.
#[derive(Debug)]
enum Source {
    /// An embedded parents table, read in place.
    Parents(Parents<'static>),
    /// Found at construction (each rank's parents; a single byte's are itself twice).
    Built(Box<[(u32, u32)]>),
}

/// One vocabulary: merges by parent ranks, direct tables for short tokens, bytes on demand.
pub(crate) struct Vocabulary {
    /// Open addressing over `(l << 18 | r) << 18 | (t + 1)` (0 = empty), where
    /// tokens `l` and `r` merge into `t`; Fibonacci hashing of `l << 18 | r`.
    merges: Box<[u64]>,
    mask: usize,
    shift: u32,
    /// Rank of every two-byte token by `(b0 << 8) | b1`, `NONE` when none: merges start with these.
    pairs: Box<[u32]>,
    /// Rank of every single byte.
    bytes: [u32; 256],
    /// Number of ranks (including empty ones).
    count: usize,
    tokens: OnceLock<TokenBytes>,
    /// Every rank's byte length (0 for unused ranks), set up with the merges
    /// (a sum a token, where building the bytes on first use cost a long
    /// piece 13 M instructions): the windowed merge measures tokens without their bytes.
    lens: Box<[u8]>,
    source: Source,
}

impl std::fmt::Debug for Vocabulary {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Vocabulary")
            .field("tokens", &self.count)
            .finish()
    }
}

#[inline]
fn u32_at(b: &[u8], i: usize) -> u64 {
    b.get(i..)
        .and_then(<[u8]>::first_chunk::<4>)
        .map_or(0, |c| u64::from(u32::from_le_bytes(*c)))
}

#[inline]
fn u64_at(b: &[u8], i: usize) -> u64 {
    b.get(i..)
        .and_then(<[u8]>::first_chunk::<8>)
        .map_or(0, |c| u64::from_le_bytes(*c))
}

/// Eight bytes of `b` at `i`, little-endian, zero-padded past its end.
#[inline(always)]
pub(crate) fn load8(b: &[u8], i: usize) -> u64 {
    match b.get(i..).and_then(<[u8]>::first_chunk::<8>) {
        Some(c) => u64::from_le_bytes(*c),
        None => load8_tail(b, i),
    }
}

#[inline(never)]
fn load8_tail(b: &[u8], i: usize) -> u64 {
    let rest = b.get(i..).unwrap_or_default();
    let mut buf = [0u8; 8];
    let n = rest.len().min(8);
    buf[..n].copy_from_slice(&rest[..n]);
    u64::from_le_bytes(buf)
}

/// The bytes `b[i..i + len]` (`len` at most 16) as two little-endian words, zero-padded.
#[inline(always)]
pub(crate) fn packed(b: &[u8], i: usize, len: usize) -> [u64; 2] {
    let mask = |n: usize| {
        if n >= 8 {
            u64::MAX
        } else {
            (1u64 << (8 * n)) - 1
        }
    };
    if len <= 8 {
        [load8(b, i) & mask(len), 0]
    } else {
        [load8(b, i), load8(b, i + 8) & mask(len - 8)]
    }
}

/// Two words that together hold every byte of a slice of up to 16 bytes
/// (overlapping loads from both ends, no loop); longer slices fold 8-byte chunks.
#[inline]
pub(crate) fn words(bytes: &[u8]) -> (u64, u64) {
    let n = bytes.len();
    match n {
        0 => (0, 0),
        1..=3 => (
            u64::from(bytes[0]) | u64::from(bytes[n / 2]) << 8 | u64::from(bytes[n - 1]) << 16,
            0,
        ),
        4..=8 => (u32_at(bytes, 0), u32_at(bytes, n - 4)),
        9..=16 => (u64_at(bytes, 0), u64_at(bytes, n - 8)),
        _ => {
            const K: u64 = 0x9E37_79B9_7F4A_7C15;
            let mut h = 0u64;
            let mut chunks = bytes.chunks_exact(8);
            for c in &mut chunks {
                h = (h.rotate_left(23) ^ u64_at(c, 0)).wrapping_mul(K);
            }
            (h, u64_at(bytes, n - 8))
        }
    }
}

/// A hash of a piece's bytes (the piece memo's).
#[inline]
pub(crate) fn hash(bytes: &[u8]) -> u64 {
    let (a, b) = words(bytes);
    let h = (a ^ 0x517c_c1b7_2722_0a95).wrapping_mul(0x9E37_79B9_7F4A_7C15)
        ^ (b ^ bytes.len() as u64).wrapping_mul(0xC2B2_AE3D_27D4_EB4F);
    h ^ (h >> 29)
}

/// Byte equality of short slices: inline, where slice equality calls `memcmp`
/// (a byte loop in wasm, a call natively).
#[inline]
pub(crate) fn same_bytes(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    if a.len() <= 16 {
        return words(a) == words(b);
    }
    let (mut x, mut y) = (a.chunks_exact(8), b.chunks_exact(8));
    for (p, q) in (&mut x).zip(&mut y) {
        if u64_at(p, 0) != u64_at(q, 0) {
            return false;
        }
    }
    x.remainder().iter().zip(y.remainder()).all(|(p, q)| p == q)
}

impl Vocabulary {
    /// An empty vocabulary of `count` ranks whose single bytes are `bytes` (merges added next).
    fn empty(count: usize, bytes: [u32; 256], source: Source) -> Self {
        assert!(
            count < RANK_MASK as usize,
            "vocabulary of {count} ranks does not fit the merge table's {RANK_BITS}-bit rank field"
        );
        let slots = (count * 2).next_power_of_two().max(16);
        Vocabulary {
            merges: vec![0u64; slots].into_boxed_slice(),
            mask: slots - 1,
            shift: 64 - slots.trailing_zeros(),
            pairs: vec![NONE; 1 << 16].into_boxed_slice(),
            bytes,
            count,
            tokens: OnceLock::new(),
            lens: vec![0; count].into_boxed_slice(),
            source,
        }
    }

    #[inline]
    fn slot(&self, key: u64) -> usize {
        (key.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> self.shift) as usize
    }

    /// Records that `l` and `r` merge into `t` (`byte_of[rank]`: the byte of a single-byte rank).
    fn insert(&mut self, l: u32, r: u32, t: u32, byte_of: &[u8; 256]) {
        let key = (u64::from(l) << RANK_BITS) | u64::from(r);
        let mut i = self.slot(key);
        while self.merges[i] != 0 {
            i = (i + 1) & self.mask;
        }
        self.merges[i] = (key << RANK_BITS) | (u64::from(t) + 1);
        if let (Some(&a), Some(&b)) = (byte_of.get(l as usize), byte_of.get(r as usize)) {
            self.pairs[(usize::from(a) << 8) | usize::from(b)] = t;
        }
    }

    /// The vocabulary of an embedded parents table: O(number of tokens), no hashing of bytes.
    pub(crate) fn from_parents(table: &'static [u8]) -> Self {
        let parents = Parents::parse(table);
        let mut bytes = [NONE; 256];
        let byte_of = *parents.bytes();
        for (rank, &b) in byte_of.iter().enumerate() {
            bytes[usize::from(b)] = rank as u32;
        }
        let mut vocab = Vocabulary::empty(parents.count(), bytes, Source::Parents(parents));
        vocab.lens.iter_mut().take(256).for_each(|len| *len = 1);
        // In calls of a few thousand tokens each, through a pointer the
        // optimisers cannot inline: a wasm JIT without on-stack replacement
        // (V8) then runs most of the set-up in optimised code.
        let chunk: fn(&mut Vocabulary, &Parents<'_>, usize, usize, &[u8; 256]) =
            Self::insert_parents;
        let chunk = std::hint::black_box(chunk);
        let m = parents.count() - 256;
        let mut at = 0;
        while at < m {
            let end = (at + SETUP_CHUNK).min(m);
            chunk(&mut vocab, &parents, at, end, &byte_of);
            at = end;
        }
        vocab
    }

    /// Inserts the merges of ranks `256 + from` to `256 + to`.
    #[inline(never)]
    fn insert_parents(
        &mut self,
        parents: &Parents<'_>,
        from: usize,
        to: usize,
        byte_of: &[u8; 256],
    ) {
        for (i, (l, r)) in (from..to).zip(parents.range(from, to)) {
            self.insert(l, r, (i + 256) as u32, byte_of);
            let len = |t: u32| self.lens.get(t as usize).copied().unwrap_or(0);
            let sum = len(l).saturating_add(len(r));
            if let Some(at) = self.lens.get_mut(i + 256) {
                *at = sum;
            }
        }
    }

    /// The vocabulary of a token list whose ranks 0 to 255 are the single
    /// bytes: each token's parents are found by merging its bytes with the
    /// merges of the tokens before it, which stops one merge short of it.
    pub(crate) fn from_tokens(tokens: Tokens) -> Self {
        let mut bytes = [NONE; 256];
        let mut byte_of = [0u8; 256];
        for (rank, (&len, &b)) in tokens
            .lens
            .iter()
            .zip(tokens.data.iter())
            .take(256)
            .enumerate()
        {
            assert!(len == 1, "rank {rank} is not a single byte");
            bytes[usize::from(b)] = rank as u32;
            byte_of[rank] = b;
        }
        assert!(
            bytes.iter().all(|&r| r != NONE),
            "a vocabulary lacks a single-byte token; the engine assumes every byte is one"
        );
        let count = tokens.lens.len();
        let mut vocab = Vocabulary::empty(count, bytes, Source::Built(Box::default()));
        let mut found: Vec<(u32, u32)> = (0..count as u32).map(|t| (t, t)).collect();
        let mut scratch = super::merge::Scratch::default();
        let mut parts = Vec::new();
        let mut at = 0usize;
        for (rank, &len) in tokens.lens.iter().enumerate() {
            let token = &tokens.data[at..at + usize::from(len)];
            at += usize::from(len);
            if rank < 256 || token.is_empty() {
                continue;
            }
            parts.clear();
            super::merge::merge(&vocab, token, &mut parts, &mut scratch)
                .unwrap_or_else(|e| super::out_of_memory(e.into()));
            let [l, r] = parts[..] else {
                panic!("token {rank} is not the merge of two tokens of lower rank")
            };
            vocab.insert(l, r, rank as u32, &byte_of);
            found[rank] = (l, r);
        }
        vocab.source = Source::Built(found.into_boxed_slice());
        vocab.lens = tokens.lens.to_vec().into_boxed_slice();
        let _ = vocab.tokens.set(TokenBytes::from_tokens(tokens));
        vocab
    }

    /// Number of ranks (including unused ones).
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.count
    }

    /// The rank of the token `l` and `r` merge into, or `u32::MAX`.
    #[inline]
    pub(crate) fn merge(&self, l: u32, r: u32) -> u32 {
        let key = (u64::from(l) << RANK_BITS) | u64::from(r);
        let mut i = self.slot(key);
        loop {
            let s = self.merges[i & self.mask];
            if s == 0 {
                return NONE;
            }
            if s >> RANK_BITS == key {
                return (s & RANK_MASK) as u32 - 1;
            }
            i += 1;
        }
    }

    /// The rank of a two-byte sequence, or `u32::MAX`: one array read.
    #[inline]
    pub(crate) fn pair_rank(&self, b0: u8, b1: u8) -> u32 {
        self.pairs[(usize::from(b0) << 8) | usize::from(b1)]
    }

    /// The rank of one byte as a token (every byte is one in tiktoken's vocabularies).
    #[inline]
    pub(crate) fn byte_rank(&self, b: u8) -> u32 {
        self.bytes[usize::from(b)]
    }

    fn tokens(&self) -> &TokenBytes {
        self.tokens.get_or_init(|| match &self.source {
            Source::Parents(parents) => TokenBytes::from_tokens(parents.tokens()),
            Source::Built(_) => TokenBytes::default(),
        })
    }

    /// The two tokens `rank` was merged from (a single byte, an unused rank: itself twice).
    #[inline]
    fn parents(&self, rank: u32) -> (u32, u32) {
        match &self.source {
            Source::Parents(parents) => match (rank as usize).checked_sub(256) {
                Some(i) if i < parents.count() - 256 => parents.get(i),
                _ => (rank, rank),
            },
            Source::Built(found) => found.get(rank as usize).copied().unwrap_or((rank, rank)),
        }
    }

    /// Whether BPE, run on the bytes of `left` followed by those of `right`,
    /// gives back exactly these two tokens (a junction of the windowed merge
    /// holds): no merge across the junction comes before the merges that made
    /// them. The two tokens' merges are undone from the latest (the larger
    /// rank) down, the pair across the junction checked at each step (the
    /// rule of GitHub's `bpe` crate): a few probes, no bytes looked at.
    pub(crate) fn valid_pair(&self, mut left: u32, mut right: u32) -> bool {
        // A merge across the junction of rank below this would have come first.
        let mut limit = u32::MAX;
        loop {
            let across = self.merge(left, right);
            if across != NONE && across < limit {
                return false;
            }
            if left > right {
                limit = left;
                left = self.parents(left).1;
                if left == limit {
                    limit = right + 1;
                    right = self.parents(right).0;
                    if right + 1 == limit {
                        return true;
                    }
                }
            } else {
                limit = right + 1;
                right = self.parents(right).0;
                if right + 1 == limit {
                    limit = left;
                    left = self.parents(left).1;
                    if left == limit {
                        return true;
                    }
                }
            }
        }
    }

    /// The bytes of `rank` (empty for unknown ranks).
    #[inline]
    pub(crate) fn token_bytes(&self, rank: u32) -> &[u8] {
        self.tokens().get(rank)
    }

    /// The byte length of `rank`'s token (0 for unknown ranks).
    #[inline]
    pub(crate) fn token_len(&self, rank: u32) -> usize {
        usize::from(self.lens.get(rank as usize).copied().unwrap_or(0))
    }
}

#[cfg(test)]
mod tests {
    use crate::bpe::merge::{merge, Scratch};

    fn xorshift(seed: &mut u64) -> u64 {
        *seed ^= *seed << 13;
        *seed ^= *seed >> 7;
        *seed ^= *seed << 17;
        *seed
    }

    /// The junction check that looks at no bytes (kept for speed) says what merging
    /// the two tokens' bytes says, on random pairs of every encoding (short
    /// tokens, where junctions merge most, and any), and token lengths
    /// computed from the parents are the bytes' lengths.
    #[test]
    fn valid_pair_agrees_with_merging_the_two_tokens_bytes() {
        let encoders = [
            crate::bpe::o200k_base(),
            crate::bpe::cl100k_base(),
            crate::bpe::r50k_base(),
        ];
        let mut seed = 2025u64;
        let mut scratch = Scratch::default();
        for encoder in encoders {
            let vocab = &encoder.vocab;
            let count = vocab.len() as u64;
            for rank in 0..count as u32 {
                assert_eq!(
                    vocab.token_len(rank),
                    vocab.token_bytes(rank).len(),
                    "rank {rank}"
                );
            }
            let (mut valid, mut invalid) = (0, 0);
            for k in 0..40_000 {
                let range = if k % 2 == 0 { 3_000 } else { count };
                let left = (xorshift(&mut seed) % range) as u32;
                let right = (xorshift(&mut seed) % range) as u32;
                let (a, b) = (vocab.token_bytes(left), vocab.token_bytes(right));
                if a.is_empty() || b.is_empty() {
                    continue;
                }
                let mut out = Vec::new();
                merge(vocab, &[a, b].concat(), &mut out, &mut scratch).expect("fits");
                let want = out == [left, right];
                assert_eq!(
                    vocab.valid_pair(left, right),
                    want,
                    "{left} {right}: {a:?} {b:?}"
                );
                if want {
                    valid += 1;
                } else {
                    invalid += 1;
                }
            }
            assert!(
                valid > 1_000 && invalid > 1_000,
                "both answers are tried: {valid} valid, {invalid} not"
            );
        }
    }
}
