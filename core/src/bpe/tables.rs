//! The embedded vocabulary formats written by `build.rs`, read into token
//! lists: a plain table (one length byte per rank, then the bytes in rank
//! order) is used in place; a derived table (references into a base
//! vocabulary plus literals) is expanded on first use of its encoding, which
//! keeps cl100k and r50k out of the download at a few milliseconds' cost.

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
