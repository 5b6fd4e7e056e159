//! The per-call memo of encoded pieces: natural text repeats its words, and a
//! repeated piece should cost one probe of a small, cache-resident table
//! instead of a rank-table lookup (three cache misses) or a merge.
//!
//! Pieces of up to 16 bytes, most of them, are keyed by their bytes packed
//! inline in the slot; longer ones (up to 64 bytes) by where they occurred
//! in the text, verified against it. Both comparisons are exact, so a hit is
//! the encoding itself. Single tokens are stored in the slot; longer results
//! in an arena.

use super::OutOfMemory;

/// Pieces up to this many bytes are memoised.
pub(crate) const MAX_PIECE: usize = 64;
const SHORT: usize = 16;
/// Slots of the memo of a text shorter than [`LARGE_TEXT`] bytes, and of a longer one.
const WAYS: usize = 1 << 13;
const LARGE_WAYS: usize = 1 << 15;
const LARGE_TEXT: usize = 1 << 18;
/// The arena is dropped (with every entry that points into it) past this many tokens.
const ARENA_LIMIT: usize = 1 << 20;

#[derive(Debug, Clone, Copy, Default)]
struct Slot {
    /// The piece's bytes, little-endian and zero-padded (short pieces), or its
    /// start in the text in `key[0]` (long pieces).
    key: [u64; 2],
    /// Piece length (0 = empty slot).
    len: u32,
    /// Number of tokens; 1 means `value` is the token itself.
    count: u32,
    /// The token, or the first token's index in the arena.
    value: u32,
}

/// Memo of the pieces of one text.
#[derive(Debug, Default)]
pub(crate) struct PieceMemo {
    slots: Vec<Slot>,
    arena: Vec<u32>,
    /// Slots to make on first use (a power of two).
    ways: usize,
}

/// A probe's key: the piece packed (short) or its position (long), and the slot.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Probe {
    key: [u64; 2],
    len: u32,
    slot: usize,
}

impl PieceMemo {
    /// The memo for a text of `len` bytes: a megabyte of prose has tens of thousands of distinct words.
    pub(crate) fn for_text(len: usize) -> Self {
        PieceMemo {
            ways: if len >= LARGE_TEXT { LARGE_WAYS } else { WAYS },
            ..PieceMemo::default()
        }
    }

    /// Looks `piece` (at byte `start` of `text`) up: its tokens on a hit, else the probe to store them with.
    #[inline]
    pub(crate) fn get(
        &mut self,
        text: &[u8],
        start: usize,
        piece: &[u8],
    ) -> Result<Result<&[u32], Probe>, OutOfMemory> {
        if self.slots.is_empty() {
            let ways = self.ways.max(WAYS);
            OutOfMemory::reserve(&mut self.slots, ways)?;
            self.slots.resize(ways, Slot::default());
        }
        let len = piece.len() as u32;
        let (key, h) = if piece.len() <= SHORT {
            // Two words holding every byte: with the length, an exact key.
            let (a, b) = super::vocab::words(piece);
            let key = [a, b];
            let h = (key[0] ^ key[1].rotate_left(29) ^ u64::from(len))
                .wrapping_mul(0x9E37_79B9_7F4A_7C15);
            (key, h)
        } else {
            ([start as u64, 0], super::vocab::hash(piece))
        };
        let slot = (h >> 40) as usize & (self.slots.len() - 1);
        let s = self.slots[slot];
        let hit = s.len == len
            && if piece.len() <= SHORT {
                s.key == key
            } else {
                let s0 = s.key[0] as usize;
                text.get(s0..s0 + piece.len())
                    .is_some_and(|t| super::vocab::same_bytes(t, piece))
            };
        if hit {
            return Ok(Ok(if s.count == 1 {
                std::slice::from_ref(&self.slots[slot].value)
            } else {
                &self.arena[s.value as usize..(s.value + s.count) as usize]
            }));
        }
        Ok(Err(Probe { key, len, slot }))
    }

    /// Stores the tokens of the piece `probe` was made for.
    #[inline]
    pub(crate) fn put(&mut self, probe: Probe, tokens: &[u32]) -> Result<(), OutOfMemory> {
        let value = if let [one] = tokens {
            *one
        } else {
            if self.arena.len() + tokens.len() > ARENA_LIMIT {
                self.arena.clear();
                for s in &mut self.slots {
                    if s.count != 1 {
                        s.len = 0;
                    }
                }
            }
            let at = self.arena.len() as u32;
            OutOfMemory::reserve(&mut self.arena, tokens.len())?;
            self.arena.extend_from_slice(tokens);
            at
        };
        self.slots[probe.slot] = Slot {
            key: probe.key,
            len: probe.len,
            count: tokens.len() as u32,
            value,
        };
        Ok(())
    }

    /// Bytes held by the memo's tables.
    pub(crate) fn bytes(&self) -> usize {
        self.slots.capacity() * std::mem::size_of::<Slot>()
            + self.arena.capacity() * std::mem::size_of::<u32>()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hits_only_the_same_bytes() {
        let text =
            b"alpha beta alpha alphabetically-long-piece-of-text alphabetically-long-piece-of-text";
        let mut memo = PieceMemo::default();
        let p = memo.get(text, 0, b"alpha").unwrap().unwrap_err();
        memo.put(p, &[7]).unwrap();
        assert_eq!(memo.get(text, 11, b"alpha").unwrap(), Ok(&[7u32][..]));
        assert!(memo.get(text, 6, b"beta").unwrap().is_err());
        assert!(memo.get(text, 0, b"alph").unwrap().is_err());
        let long = b"alphabetically-long-piece-of-text";
        let (a, b) = (17, 17 + long.len() + 1);
        assert_eq!(
            (&text[a..a + long.len()], &text[b..b + long.len()]),
            (&long[..], &long[..])
        );
        let p = memo.get(text, a, long).unwrap().unwrap_err();
        memo.put(p, &[1, 2, 3]).unwrap();
        assert_eq!(
            memo.get(text, b, &text[b..b + long.len()]).unwrap(),
            Ok(&[1u32, 2, 3][..])
        );
        assert!(memo
            .get(text, b, b"alphabetically-long-piece-of-texT")
            .unwrap()
            .is_err());
    }

    #[test]
    fn zero_bytes_do_not_alias_shorter_pieces() {
        let text = b"a\0a";
        let mut memo = PieceMemo::default();
        let p = memo.get(text, 0, b"a").unwrap().unwrap_err();
        memo.put(p, &[1]).unwrap();
        assert!(memo.get(text, 0, b"a\0").unwrap().is_err());
    }
}
