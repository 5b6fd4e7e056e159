//! The embedded vocabulary formats written by `build.rs`: o200k as its
//! tokens' parents (the two tokens each one merges from, in byte planes that
//! compress well), read in place; a plain table (one length byte per rank,
//! then the bytes in rank order); and a derived table (references into a
//! base vocabulary plus literals), expanded on first use of its encoding,
//! which keeps cl100k and r50k out of the download at a few milliseconds' cost.

use std::borrow::Cow;

/// A vocabulary's tokens in rank order: their lengths and their concatenated bytes.
#[derive(Debug, Clone)]
pub(crate) struct Tokens {
    /// Byte length of each rank's token (0 = special or unused rank).
    pub(crate) lens: Cow<'static, [u8]>,
    /// Every token's bytes, in rank order.
    pub(crate) data: Cow<'static, [u8]>,
}

fn u32_at(table: &[u8], at: usize) -> usize {
    u32::from_le_bytes([table[at], table[at + 1], table[at + 2], table[at + 3]]) as usize
}

impl Tokens {
    /// The tokens of a plain table, borrowed from it.
    pub(crate) fn plain(table: &'static [u8]) -> Self {
        let count = u32_at(table, 0);
        Tokens {
            lens: Cow::Borrowed(&table[4..4 + count]),
            data: Cow::Borrowed(&table[4 + count..]),
        }
    }

    /// The tokens of a derived table, resolved against `base`.
    pub(crate) fn derived(table: &[u8], base: &Tokens) -> Self {
        let mut base_offsets = Vec::with_capacity(base.lens.len() + 1);
        let mut at = 0usize;
        for &len in base.lens.iter() {
            base_offsets.push(at);
            at += usize::from(len);
        }
        base_offsets.push(at);
        let count = u32_at(table, 0);
        let refs_len = u32_at(table, 4);
        let refs = &table[8..8 + refs_len];
        let lit_at = 8 + refs_len;
        let lit_count = u32_at(table, lit_at);
        let lit_lens = &table[lit_at + 4..lit_at + 4 + lit_count];
        let mut lit_data = lit_at + 4 + lit_count;
        let mut lit = 0usize;
        let mut lens = Vec::with_capacity(count);
        let mut data = Vec::with_capacity(table.len() * 2);
        let mut prev = 0i64;
        let mut i = 0usize;
        while lens.len() < count {
            let mut z = 0u64;
            let mut shift = 0;
            loop {
                let b = refs[i];
                i += 1;
                z |= u64::from(b & 0x7f) << shift;
                shift += 7;
                if b < 0x80 {
                    break;
                }
            }
            if z == 0 {
                let len = usize::from(lit_lens[lit]);
                lit += 1;
                data.extend_from_slice(&table[lit_data..lit_data + len]);
                lit_data += len;
                lens.push(len as u8);
            } else {
                let z = z - 1;
                let delta = ((z >> 1) as i64) ^ -((z & 1) as i64);
                prev += delta;
                let r = prev as usize;
                let token = &base.data[base_offsets[r]..base_offsets[r + 1]];
                data.extend_from_slice(token);
                lens.push(token.len() as u8);
            }
        }
        Tokens {
            lens: Cow::Owned(lens),
            data: Cow::Owned(data),
        }
    }

    /// These tokens followed by `more`'s ranks (an extension's table).
    pub(crate) fn then(self, more: Tokens) -> Self {
        Tokens {
            lens: Cow::Owned([&self.lens[..], &more.lens[..]].concat()),
            data: Cow::Owned([&self.data[..], &more.data[..]].concat()),
        }
    }
}

/// An embedded parents table (see `build.rs`): ranks 0 to 255 are single
/// bytes, every later rank the merge of two earlier ones.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Parents<'a> {
    count: usize,
    bytes: &'a [u8; 256],
    /// The low and middle bytes of every left parent, the same of every right one, then the nibbles.
    l_lo: &'a [u8],
    l_mid: &'a [u8],
    r_lo: &'a [u8],
    r_mid: &'a [u8],
    high: &'a [u8],
}

impl<'a> Parents<'a> {
    pub(crate) fn parse(table: &'a [u8]) -> Self {
        let count = u32_at(table, 0);
        let m = count - 256;
        let (bytes, rest) = table[4..].split_at(256);
        let (l_lo, rest) = rest.split_at(m);
        let (l_mid, rest) = rest.split_at(m);
        let (r_lo, rest) = rest.split_at(m);
        let (r_mid, high) = rest.split_at(m);
        Parents {
            count,
            bytes: bytes.try_into().unwrap_or(&[0; 256]),
            l_lo,
            l_mid,
            r_lo,
            r_mid,
            high,
        }
    }

    /// Number of ranks.
    pub(crate) fn count(&self) -> usize {
        self.count
    }

    /// The byte of each of ranks 0 to 255.
    pub(crate) fn bytes(&self) -> &'a [u8; 256] {
        self.bytes
    }

    /// The parents of rank `256 + i`.
    #[inline]
    pub(crate) fn get(&self, i: usize) -> (u32, u32) {
        let nibble = u32::from(self.high[i / 2] >> (4 * (i % 2)));
        let l = u32::from(self.l_lo[i]) | u32::from(self.l_mid[i]) << 8 | (nibble & 3) << 16;
        let r = u32::from(self.r_lo[i]) | u32::from(self.r_mid[i]) << 8 | ((nibble >> 2) & 3) << 16;
        (l, r)
    }

    /// The parents of ranks 256, 257, … in order.
    pub(crate) fn iter(&self) -> impl Iterator<Item = (u32, u32)> + 'a {
        self.range(0, self.l_lo.len())
    }

    /// The parents of ranks `256 + from` to `256 + to`, in order: the byte
    /// planes walked together, with no index checked per rank. `from` is
    /// even (a byte of nibbles holds two ranks); an odd one panics rather than
    /// give the ranks after it shifted by one.
    pub(crate) fn range(&self, from: usize, to: usize) -> impl Iterator<Item = (u32, u32)> + 'a {
        assert!(
            from % 2 == 0,
            "Parents::range starts at an even rank, not {from}"
        );
        let Parents {
            l_lo,
            l_mid,
            r_lo,
            r_mid,
            high,
            ..
        } = *self;
        let to = to.min(l_lo.len());
        let from = from.min(to);
        let plane = |p: &'a [u8]| p.get(from..to).unwrap_or_default().iter();
        let nibbles = high
            .get(from / 2..)
            .unwrap_or_default()
            .iter()
            .flat_map(|&h| [h & 15, h >> 4]);
        plane(l_lo)
            .zip(plane(l_mid))
            .zip(plane(r_lo).zip(plane(r_mid)))
            .zip(nibbles)
            .map(|(((&ll, &lm), (&rl, &rm)), nibble)| {
                let nibble = u32::from(nibble);
                let l = u32::from(ll) | u32::from(lm) << 8 | (nibble & 3) << 16;
                let r = u32::from(rl) | u32::from(rm) << 8 | ((nibble >> 2) & 3) << 16;
                (l, r)
            })
    }

    /// Every rank's bytes, each the concatenation of its parents'.
    pub(crate) fn tokens(&self) -> Tokens {
        let mut lens = Vec::with_capacity(self.count);
        let mut starts = Vec::with_capacity(self.count);
        let mut data = Vec::with_capacity(self.count * 8);
        for &b in self.bytes.iter() {
            starts.push(data.len());
            lens.push(1u8);
            data.push(b);
        }
        for (l, r) in self.iter() {
            starts.push(data.len());
            let mut len = 0;
            for p in [l as usize, r as usize] {
                let (at, n) = (starts[p], usize::from(lens[p]));
                data.extend_from_within(at..at + n);
                len += n;
            }
            lens.push(len as u8);
        }
        Tokens {
            lens: Cow::Owned(lens),
            data: Cow::Owned(data),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Parents;

    /// `range` walks the planes together and must give what `get` reads rank
    /// by rank; an odd start (inside a byte of nibbles) is refused, not shifted.
    #[test]
    fn a_range_of_parents_is_what_get_reads_and_an_odd_start_is_refused() {
        let parents = Parents::parse(crate::bpe::O200K_TABLE);
        let m = parents.count() - 256;
        for (from, to) in [(0, 9), (4096, 4099), (m - 4, m), (8, 8), (0, m)] {
            let walked: Vec<(u32, u32)> = parents.range(from, to).collect();
            let read: Vec<(u32, u32)> = (from..to).map(|i| parents.get(i)).collect();
            assert_eq!(walked, read, "ranks {from}..{to}");
        }
        assert!(std::panic::catch_unwind(|| parents.range(1, 10).count()).is_err());
    }
}
