//! The piece cache: natural text repeats its words, and a repeated piece
//! should cost one probe of a small table instead of a merge.
//!
//! Keys are the pieces' bytes, so an entry answers any text: pieces of up
//! to 16 bytes (nearly all) are packed inline in the slot; longer ones (up
//! to 64 bytes) are copied into a byte arena and compared with it. Both
//! comparisons are exact, so a hit is the encoding itself. Results of one
//! or two tokens live in the slot, longer ones in a token arena.
//!
//! Each encoder keeps one cache across calls ([`super::Encoder`]), so a
//! second text of the same kind finds most of its words already there. It is
//! bounded: at most [`MAX_BUCKETS`] buckets of two 32-byte slots (2 MiB),
//! [`ARENA_TOKENS`] tokens (1 MiB) and [`ARENA_BYTES`] bytes (1 MiB); an
//! arena that would pass its bound empties the cache (a two-way set per
//! bucket evicts the older entry of a full set).

use super::vocab::{hash, packed, same_bytes};
use super::OutOfMemory;

/// Pieces up to this many bytes are cached.
pub(crate) const MAX_PIECE: usize = 64;
/// Pieces up to this many bytes are keyed inline.
const SHORT: usize = 16;
/// Buckets of a new cache, and the most it grows to (each bucket: two slots, 64 bytes).
const MIN_BUCKETS: usize = 1 << 10;
pub(crate) const MAX_BUCKETS: usize = 1 << 15;
/// Bounds of the arenas (tokens of results longer than two, bytes of keys longer than [`SHORT`]).
pub(crate) const ARENA_TOKENS: usize = 1 << 18;
pub(crate) const ARENA_BYTES: usize = 1 << 20;

#[derive(Debug, Clone, Copy, Default)]
#[repr(C)]
struct Slot {
    /// The piece's bytes as [`words`] packs them (short pieces), or its hash
    /// and its offset in the byte arena (long pieces).
    key: [u64; 2],
    /// Piece length (0 = empty slot).
    len: u32,
    /// Number of tokens.
    count: u32,
    /// The tokens (up to two), or the first token's offset in the token arena.
    value: [u32; 2],
}

/// The bucket hash of a short piece's key.
#[inline(always)]
fn short_hash(key: [u64; 2], len: usize) -> u64 {
    (key[0] ^ key[1].rotate_left(29) ^ len as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15)
}

/// Two slots in one cache line: the newer entry first.
#[derive(Debug, Clone, Copy, Default)]
#[repr(C, align(64))]
struct Bucket([Slot; 2]);

/// A cache of encoded pieces.
#[derive(Debug, Default)]
pub(crate) struct PieceCache {
    buckets: Vec<Bucket>,
    tokens: Vec<u32>,
    bytes: Vec<u8>,
    /// Entries stored since the table last grew.
    stored: usize,
}

/// Where a missed piece goes: its key and bucket.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Probe {
    key: [u64; 2],
    bucket: usize,
}

impl PieceCache {
    /// Whether the table has been made (a cache is made for the first long text).
    pub(crate) fn is_ready(&self) -> bool {
        !self.buckets.is_empty()
    }

    /// Makes the table if it does not exist yet, sized for a text of `len`
    /// bytes (a bucket per 32 bytes: about one per six distinct pieces of
    /// prose), or grows it to that size. It grows further as entries come.
    pub(crate) fn prepare(&mut self, len: usize) -> Result<(), OutOfMemory> {
        let want = (len / 32)
            .next_power_of_two()
            .clamp(MIN_BUCKETS, MAX_BUCKETS);
        if self.buckets.len() < want {
            if self.buckets.is_empty() {
                OutOfMemory::reserve(&mut self.buckets, want)?;
                self.buckets.resize(want, Bucket::default());
            } else {
                self.grow(want)?;
            }
        }
        Ok(())
    }

    /// The key and bucket hash of the piece `text[at..at + len]` (of 1 to [`MAX_PIECE`] bytes).
    #[inline(always)]
    fn key(text: &[u8], at: usize, len: usize) -> ([u64; 2], u64) {
        if len <= SHORT {
            let key = packed(text, at, len);
            (key, short_hash(key, len))
        } else {
            let h = hash(text.get(at..at + len).unwrap_or_default());
            ([h, 0], h)
        }
    }

    #[inline]
    fn bucket_of(&self, h: u64) -> usize {
        (h >> 40) as usize & (self.buckets.len() - 1)
    }

    #[inline(always)]
    fn matches(&self, s: &Slot, key: [u64; 2], text: &[u8], at: usize, len: usize) -> bool {
        if s.len as usize != len || s.key[0] != key[0] {
            return false;
        }
        if len <= SHORT {
            return s.key[1] == key[1];
        }
        let stored = s.key[1] as usize;
        match (self.bytes.get(stored..stored + len), text.get(at..at + len)) {
            (Some(a), Some(b)) => same_bytes(a, b),
            _ => false,
        }
    }

    /// Looks the piece `text[at..at + len]` up (the table must exist): its
    /// tokens on a hit, else the probe to store them with.
    #[inline(always)]
    pub(crate) fn get(&self, text: &[u8], at: usize, len: usize) -> Result<&[u32], Probe> {
        let (key, h) = Self::key(text, at, len);
        let bucket = self.bucket_of(h);
        let b = &self.buckets[bucket];
        for s in &b.0 {
            if self.matches(s, key, text, at, len) {
                return Ok(match s.count {
                    1 => &s.value[..1],
                    2 => &s.value[..],
                    n => {
                        let at = s.value[0] as usize;
                        self.tokens.get(at..at + n as usize).unwrap_or_default()
                    }
                });
            }
        }
        Err(Probe { key, bucket })
    }

    /// Stores the tokens of `piece`, which `probe` missed.
    pub(crate) fn put(
        &mut self,
        probe: Probe,
        piece: &[u8],
        tokens: &[u32],
    ) -> Result<(), OutOfMemory> {
        let long_key = piece.len() > SHORT;
        let long_value = tokens.len() > 2;
        if (long_value && self.tokens.len() + tokens.len() > ARENA_TOKENS)
            || (long_key && self.bytes.len() + piece.len() > ARENA_BYTES)
        {
            self.clear();
        }
        let mut key = probe.key;
        if long_key {
            key[1] = self.bytes.len() as u64;
            OutOfMemory::reserve(&mut self.bytes, piece.len())?;
            self.bytes.extend_from_slice(piece);
        }
        let value = match *tokens {
            [a] => [a, 0],
            [a, b] => [a, b],
            _ => {
                let at = self.tokens.len() as u32;
                OutOfMemory::reserve(&mut self.tokens, tokens.len())?;
                self.tokens.extend_from_slice(tokens);
                [at, 0]
            }
        };
        let slot = Slot {
            key,
            len: piece.len() as u32,
            count: tokens.len() as u32,
            value,
        };
        let b = &mut self.buckets[probe.bucket].0;
        b[1] = b[0];
        b[0] = slot;
        self.stored += 1;
        if self.stored >= self.buckets.len() && self.buckets.len() < MAX_BUCKETS {
            self.grow(self.buckets.len() * 4)?;
        }
        Ok(())
    }

    /// `size` buckets (at most [`MAX_BUCKETS`]), the entries moved over (arenas kept).
    fn grow(&mut self, size: usize) -> Result<(), OutOfMemory> {
        let size = size.min(MAX_BUCKETS);
        let mut bigger: Vec<Bucket> = Vec::new();
        OutOfMemory::reserve(&mut bigger, size)?;
        bigger.resize(size, Bucket::default());
        let old = std::mem::replace(&mut self.buckets, bigger);
        // Older entries first, so that each set keeps its newer one in front.
        for way in [1, 0] {
            for s in old.iter().map(|b| b.0[way]).filter(|s| s.len != 0) {
                let h = if s.len as usize <= SHORT {
                    short_hash(s.key, s.len as usize)
                } else {
                    s.key[0]
                };
                let b = &mut self.buckets[(h >> 40) as usize & (size - 1)].0;
                b[1] = b[0];
                b[0] = s;
            }
        }
        self.stored = 0;
        Ok(())
    }

    /// Forgets every entry (the table keeps its size).
    fn clear(&mut self) {
        self.buckets.fill(Bucket::default());
        self.tokens.clear();
        self.bytes.clear();
        self.stored = 0;
    }

    /// Bytes held by the cache.
    #[cfg(test)]
    pub(crate) fn bytes(&self) -> usize {
        self.buckets.capacity() * std::mem::size_of::<Bucket>()
            + self.tokens.capacity() * std::mem::size_of::<u32>()
            + self.bytes.capacity()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cache() -> PieceCache {
        let mut c = PieceCache::default();
        c.prepare(0).unwrap();
        c
    }

    /// Looks a whole slice up, as a piece of a text of its own.
    fn get<'c>(c: &'c PieceCache, piece: &[u8]) -> Result<&'c [u32], Probe> {
        c.get(piece, 0, piece.len())
    }

    #[test]
    fn hits_only_the_same_bytes() {
        let mut c = cache();
        let p = get(&c, b"alpha").unwrap_err();
        c.put(p, b"alpha", &[7]).unwrap();
        assert_eq!(get(&c, b"alpha"), Ok(&[7u32][..]));
        assert!(get(&c, b"beta").is_err());
        assert!(get(&c, b"alph").is_err());
        // The same bytes inside a longer text hit; the text around them does not count.
        assert_eq!(c.get(b"an alpha and more", 3, 5), Ok(&[7u32][..]));
        assert!(c.get(b"an alphabet", 3, 6).is_err());
        let long = b"alphabetically-long-piece-of-text";
        let p = get(&c, long).unwrap_err();
        c.put(p, long, &[1, 2, 3]).unwrap();
        assert_eq!(get(&c, long), Ok(&[1u32, 2, 3][..]));
        assert_eq!(
            c.get(b"(alphabetically-long-piece-of-text)", 1, long.len()),
            Ok(&[1u32, 2, 3][..])
        );
        assert!(get(&c, b"alphabetically-long-piece-of-texT").is_err());
        let p = get(&c, b"two").unwrap_err();
        c.put(p, b"two", &[4, 5]).unwrap();
        assert_eq!(get(&c, b"two"), Ok(&[4u32, 5][..]));
        for len in 1..=16 {
            let piece = &b"0123456789abcdefXYZ"[..len];
            let p = get(&c, piece).unwrap_err();
            c.put(p, piece, &[len as u32]).unwrap();
            assert_eq!(c.get(b"0123456789abcdefXYZ", 0, len), Ok(&[len as u32][..]));
        }
    }

    #[test]
    fn zero_bytes_do_not_alias_shorter_pieces() {
        let mut c = cache();
        let p = get(&c, b"a").unwrap_err();
        c.put(p, b"a", &[1]).unwrap();
        assert!(get(&c, b"a\0").is_err());
        assert!(get(&c, b"a\0\0\0\0\0\0\0\0").is_err());
    }

    #[test]
    fn growing_keeps_entries_and_the_bounds_hold() {
        let mut c = cache();
        let pieces: Vec<String> = (0..200_000)
            .map(|i| format!("piece {i} of a fairly long key"))
            .collect();
        for (i, p) in pieces.iter().enumerate() {
            if let Err(probe) = get(&c, p.as_bytes()) {
                c.put(probe, p.as_bytes(), &[i as u32, 1, 2]).unwrap();
            }
            assert!(c.buckets.len() <= MAX_BUCKETS);
            assert!(c.tokens.len() <= ARENA_TOKENS && c.bytes.len() <= ARENA_BYTES);
        }
        let last = pieces.last().unwrap();
        assert_eq!(get(&c, last.as_bytes()), Ok(&[199_999u32, 1, 2][..]));
        assert_eq!(c.buckets.len(), MAX_BUCKETS);
    }
}
