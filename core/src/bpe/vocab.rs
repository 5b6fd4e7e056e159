//! A vocabulary in memory: every rank's bytes in one buffer, an
//! open-addressing table from bytes to rank, and direct tables for the one-
//! and two-byte tokens every merge starts from. Built in O(vocabulary) from
//! the embedded tables ([`super::tables`]).

use super::tables::Tokens;
use std::borrow::Cow;

/// One vocabulary: token bytes by rank, and a rank lookup by bytes.
pub(crate) struct Vocabulary {
    data: Cow<'static, [u8]>,
    /// Byte offset of each rank's bytes in `data`; one extra entry at the end.
    offsets: Vec<u32>,
    /// Open-addressing table of `tag << RANK_BITS | (rank + 1)` (0 = empty); the tag is 14 bits of
    /// the key's hash, so most probes of a non-token are rejected without reading token bytes.
    table: Vec<u32>,
    mask: usize,
    max_token_len: usize,
    /// Rank of every two-byte token by `(b0 << 8) | b1`, `u32::MAX` when none: merges start with these.
    pairs: Vec<u32>,
    /// Rank of every single byte (`u32::MAX` if a byte were not a token).
    bytes: [u32; 256],
}

impl std::fmt::Debug for Vocabulary {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Vocabulary")
            .field("tokens", &self.len())
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

/// The hash of a token's bytes (the rank table's and the piece memo's).
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

/// Bits of a table slot that hold `rank + 1` (every vocabulary has fewer than 2^18 ranks).
const RANK_BITS: u32 = 18;
const RANK_MASK: u32 = (1 << RANK_BITS) - 1;

/// The slot tag of a hash: bits that the table index (the low bits) does not use.
#[inline]
fn tag(h: u64) -> u32 {
    ((h >> 48) as u32) << RANK_BITS
}

impl Vocabulary {
    /// Builds the lookup over a vocabulary's tokens (see [`tables`]). O(number of tokens).
    pub(crate) fn from_tokens(tokens: Tokens) -> Self {
        let mut offsets = Vec::with_capacity(tokens.lens.len() + 1);
        let mut at = 0u32;
        let mut max_token_len = 0;
        for &len in tokens.lens.iter() {
            offsets.push(at);
            at += u32::from(len);
            max_token_len = max_token_len.max(len as usize);
        }
        offsets.push(at);
        let data = tokens.data;
        let count = offsets.len() - 1;
        assert!(
            count < RANK_MASK as usize,
            "vocabulary of {count} ranks does not fit the table's {RANK_BITS}-bit rank field"
        );
        let slots = (count * 2).next_power_of_two().max(16);
        let mask = slots - 1;
        let mut slots_vec = vec![0u32; slots];
        for rank in 0..count {
            let (a, b) = (offsets[rank] as usize, offsets[rank + 1] as usize);
            if a == b {
                continue; // special token or unused rank
            }
            let h = hash(&data[a..b]);
            let mut i = h as usize & mask;
            while slots_vec[i] != 0 {
                i = (i + 1) & mask;
            }
            slots_vec[i] = tag(h) | (rank as u32 + 1);
        }
        let mut pairs = vec![u32::MAX; 1 << 16];
        let mut bytes = [u32::MAX; 256];
        for rank in 0..count {
            let (a, b) = (offsets[rank] as usize, offsets[rank + 1] as usize);
            match b - a {
                1 => bytes[usize::from(data[a])] = rank as u32,
                2 => pairs[(usize::from(data[a]) << 8) | usize::from(data[a + 1])] = rank as u32,
                _ => {}
            }
        }
        Vocabulary {
            data,
            offsets,
            table: slots_vec,
            mask,
            max_token_len,
            pairs,
            bytes,
        }
    }

    /// Number of ranks (including unused ones).
    pub(crate) fn len(&self) -> usize {
        self.offsets.len() - 1
    }

    /// The bytes of `rank` (empty for unknown ranks).
    #[inline]
    pub(crate) fn token_bytes(&self, rank: u32) -> &[u8] {
        let r = rank as usize;
        if r + 1 >= self.offsets.len() {
            return &[];
        }
        &self.data[self.offsets[r] as usize..self.offsets[r + 1] as usize]
    }

    /// The byte length of `rank`'s token (0 for unknown ranks).
    #[inline]
    pub(crate) fn token_len(&self, rank: u32) -> usize {
        let r = rank as usize;
        match (self.offsets.get(r), self.offsets.get(r + 1)) {
            (Some(&a), Some(&b)) => (b - a) as usize,
            _ => 0,
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

    /// The rank of exactly these bytes, if they are a token.
    #[inline]
    pub(crate) fn rank(&self, bytes: &[u8]) -> Option<u32> {
        if bytes.is_empty() || bytes.len() > self.max_token_len {
            return None;
        }
        let h = hash(bytes);
        let want = tag(h);
        let mut i = h as usize & self.mask;
        loop {
            let slot = self.table[i];
            if slot == 0 {
                return None;
            }
            if slot & !RANK_MASK == want {
                let rank = (slot & RANK_MASK) - 1;
                if same_bytes(self.token_bytes(rank), bytes) {
                    return Some(rank);
                }
            }
            i = (i + 1) & self.mask;
        }
    }
}
