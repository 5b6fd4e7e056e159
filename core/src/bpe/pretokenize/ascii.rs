//! The pre-tokenizers' ASCII fast paths for o200k and cl100k: pieces that
//! start with an ASCII byte and stay in ASCII, found eight bytes at a time.
//!
//! Each load of eight bytes (a `u64`, the same code natively and in wasm32)
//! is classified into byte-lane masks (0x80 in each lane of the class:
//! letters, capitals, lower case, digits, whitespace, line ends,
//! punctuation) with a few additions and ands (SWAR), and a run's end is the
//! first lane outside its class, by `trailing_zeros`. Bytes past the text's
//! end load as zero, which is in no class but punctuation: every run is cut
//! at the text's end.
//!
//! Exactness first: every function answers `None` where a byte above 0x7F
//! (a non-ASCII letter, digit, mark, space or case fold) could change the
//! piece, and the general path of `pretokenize` decides instead. The tests
//! compare every answer with the general path's at every offset.

use super::super::unicode::{ASCII, LETTER, LOWERISH, NUMBER, SPACE, UPPERISH};
use super::super::vocab::load8;

/// Byte kinds of the first byte's dispatch, derived from the class table
/// (bytes above 0x7F are `HIGH`: the general path decides for them).
const K_UPPER: u8 = 1;
const K_LOWER: u8 = 1 << 1;
const K_DIGIT: u8 = 1 << 2;
const K_SPACE: u8 = 1 << 3;
/// `[^\s\p{L}\p{N}]`.
const K_PUNCT: u8 = 1 << 4;
/// `[^\r\n\p{L}\p{N}]`.
const K_PREFIX: u8 = 1 << 5;
const K_HIGH: u8 = 1 << 6;
const K_LETTER: u8 = K_UPPER | K_LOWER;

static KIND: [u8; 256] = {
    let mut kind = [K_HIGH; 256];
    let mut b = 0;
    while b < 128 {
        let m = ASCII[b];
        let mut k = 0;
        if m & UPPERISH != 0 {
            k |= K_UPPER;
        }
        if m & LOWERISH != 0 {
            k |= K_LOWER;
        }
        if m & NUMBER != 0 {
            k |= K_DIGIT;
        }
        if m & SPACE != 0 {
            k |= K_SPACE;
        }
        if m & (SPACE | LETTER | NUMBER) == 0 {
            k |= K_PUNCT;
        }
        if m & (LETTER | NUMBER) == 0 && b != b'\r' as usize && b != b'\n' as usize {
            k |= K_PREFIX;
        }
        kind[b] = k;
        b += 1;
    }
    kind
};

/// The kind of byte `i` of `b` (0 past its end).
#[inline(always)]
fn kind(b: &[u8], i: usize) -> u8 {
    b.get(i).map_or(0, |&x| KIND[usize::from(x)])
}

const ONES: u64 = 0x0101_0101_0101_0101;
const HIGHS: u64 = 0x8080_8080_8080_8080;

/// For each byte of `x`, 0x80 where it is in `lo..=hi` (both ASCII), else 0.
#[inline(always)]
fn in_range(x: u64, lo: u8, hi: u8) -> u64 {
    let x7 = x & !HIGHS;
    let ge = x7 + u64::from(0x80 - lo) * ONES;
    let le = u64::from(0x80 + hi) * ONES - x7;
    ge & le & !x & HIGHS
}

/// `[A-Za-z]` lanes (setting bit 5 maps capitals onto lower case and nothing else into it).
#[inline(always)]
fn letter_lanes(x: u64) -> u64 {
    in_range(x | (0x20 * ONES), b'a', b'z')
}

/// ASCII `\s` lanes: `\t`, `\n`, vertical tab, form feed, `\r` and the space.
#[inline(always)]
fn space_lanes(x: u64) -> u64 {
    in_range(x, 0x09, 0x0D) | in_range(x, b' ', b' ')
}

/// `\r` and `\n` lanes.
#[inline(always)]
fn line_end_lanes(x: u64) -> u64 {
    in_range(x, b'\n', b'\n') | in_range(x, b'\r', b'\r')
}

/// ASCII `[^\s\p{L}\p{N}]` lanes (zero bytes past the text's end among them).
#[inline(always)]
fn punct_lanes(x: u64) -> u64 {
    !(letter_lanes(x) | in_range(x, b'0', b'9') | space_lanes(x) | x) & HIGHS
}

/// How many lanes from the lowest on are set in the lane mask `m`.
#[inline(always)]
fn leading_lanes(m: u64) -> usize {
    (!m & HIGHS).trailing_zeros() as usize / 8
}

/// The end of the run of bytes whose lanes `class` sets, from `i` on, eight
/// at a time, cut at the text's end.
#[inline(always)]
fn run_of(b: &[u8], mut i: usize, class: impl Fn(u64) -> u64) -> usize {
    loop {
        let n = leading_lanes(class(load8(b, i)));
        i += n;
        if n < 8 || i >= b.len() {
            return i.min(b.len());
        }
    }
}

/// An ASCII word's start and its first bytes, as one load found them.
#[derive(Clone, Copy)]
struct Word {
    /// The offset of its first letter.
    start: usize,
    /// The eight bytes loaded at the piece's start, shifted so that the first
    /// letter is in the lowest lane.
    head: u64,
    /// How many lanes of `head` are loaded bytes: 8, or 7 after a prefix
    /// byte (the top lane is then zero, which ends every run).
    lanes: usize,
}

impl Word {
    /// The word that starts at `p` or after one prefix byte there
    /// (`[^\r\n\p{L}\p{N}]`, not an apostrophe unless `apostrophe_prefix`);
    /// `None` when no ASCII letter starts there.
    #[inline(always)]
    fn at(b: &[u8], p: usize, apostrophe_prefix: bool) -> Option<Word> {
        let x = load8(b, p);
        let c0 = x as u8;
        if KIND[usize::from(c0)] & K_LETTER != 0 {
            return Some(Word {
                start: p,
                head: x,
                lanes: 8,
            });
        }
        // Past the text's end the second byte loads as zero, which is no letter.
        let c1 = (x >> 8) as u8;
        let prefix = KIND[usize::from(c0)] & K_PREFIX != 0 && (apostrophe_prefix || c0 != b'\'');
        (prefix && KIND[usize::from(c1)] & K_LETTER != 0).then_some(Word {
            start: p + 1,
            head: x >> 8,
            lanes: 7,
        })
    }

    /// The end of `[A-Z]*[a-z]*` (o200k's word shapes): most words take the one load.
    #[inline(always)]
    fn case_end(self, b: &[u8]) -> usize {
        let Word { start, head, lanes } = self;
        let u = leading_lanes(in_range(head, b'A', b'Z'));
        if u == lanes {
            let i = run_of(b, start + lanes, |x| in_range(x, b'A', b'Z'));
            return run_of(b, i, |x| in_range(x, b'a', b'z'));
        }
        // Shifting in zero bytes from the top: they end the lower-case run.
        let l = leading_lanes(in_range(head >> (8 * u), b'a', b'z'));
        if u + l < lanes {
            start + u + l
        } else {
            run_of(b, start + lanes, |x| in_range(x, b'a', b'z'))
        }
    }

    /// The end of `[A-Za-z]*` (cl100k's words).
    #[inline(always)]
    fn letters_end(self, b: &[u8]) -> usize {
        let n = leading_lanes(letter_lanes(self.head));
        if n < self.lanes {
            self.start + n
        } else {
            run_of(b, self.start + self.lanes, letter_lanes)
        }
    }

    /// The byte at `end` (0 past the text's end), from the load when it holds it.
    #[inline(always)]
    fn byte_at(self, b: &[u8], end: usize) -> u8 {
        let lane = end - self.start;
        if lane < self.lanes {
            (self.head >> (8 * lane)) as u8
        } else {
            b.get(end).copied().unwrap_or(0)
        }
    }
}

/// o200k's most common pieces, an ASCII word with or without one prefix byte
/// (` word`, `Word`, `(word`), eight bytes at a time; `None` for everything
/// else, including a word that a non-ASCII byte or an apostrophe may extend.
#[inline(always)]
pub(super) fn o200k_word(b: &[u8], p: usize) -> Option<usize> {
    let word = Word::at(b, p, true)?;
    let j = word.case_end(b);
    let c = word.byte_at(b, j);
    (c < 0x80 && c != b'\'').then_some(j)
}

/// cl100k's most common pieces, `[^\r\n\p{L}\p{N}]?[A-Za-z]+`, eight bytes at
/// a time; `None` for everything else (an apostrophe first may be a
/// contraction), including a word that a non-ASCII byte may extend.
#[inline(always)]
pub(super) fn cl100k_word(b: &[u8], p: usize) -> Option<usize> {
    let word = Word::at(b, p, false)?;
    let j = word.letters_end(b);
    (word.byte_at(b, j) < 0x80).then_some(j)
}

/// `(?i:'s|'t|'re|'ve|'m|'ll|'d)` at `i`: its end, or `i` where there is
/// none; `None` where a non-ASCII byte could be part of one.
#[inline]
fn contraction(b: &[u8], i: usize) -> Option<usize> {
    if b.get(i) != Some(&b'\'') {
        return Some(i);
    }
    let second = |fold: u8| match b.get(i + 2) {
        Some(&c) if c >= 0x80 => None,
        Some(&c) if c | 0x20 == fold => Some(i + 3),
        _ => Some(i),
    };
    match b.get(i + 1).map(|&c| c | 0x20) {
        Some(c) if c >= 0x80 => None,
        Some(b's' | b't' | b'm' | b'd') => Some(i + 2),
        Some(b'r' | b'v') => second(b'e'),
        Some(b'l') => second(b'l'),
        _ => Some(i),
    }
}

/// Which of the two patterns an ASCII piece is cut by.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Rules {
    /// o200k: case-shaped words and their contractions, `[\r\n/]*` after
    /// punctuation, a whitespace run's last line end before the text's end.
    O200k,
    /// cl100k: contractions as pieces of their own, `\p{L}+` words,
    /// `[\r\n]*` after punctuation, the text's end before the last line end.
    Cl100k,
}

/// o200k's pieces that start with an ASCII byte and stay in ASCII; `None` sends the rest to the general path.
#[inline]
pub(super) fn o200k_piece(b: &[u8], p: usize) -> Option<usize> {
    if let Some(word) = Word::at(b, p, true) {
        let j = word.case_end(b);
        if kind(b, j) & K_HIGH != 0 {
            return None;
        }
        return contraction(b, j);
    }
    piece(b, p, Rules::O200k)
}

/// cl100k's pieces that start with an ASCII byte and stay in ASCII; `None` sends the rest to the general path.
#[inline]
pub(super) fn cl100k_piece(b: &[u8], p: usize) -> Option<usize> {
    if b.get(p) == Some(&b'\'') {
        let e = contraction(b, p)?;
        if e > p {
            return Some(e);
        }
    }
    if let Some(word) = Word::at(b, p, true) {
        let j = word.letters_end(b);
        return (kind(b, j) & K_HIGH == 0).then_some(j);
    }
    piece(b, p, Rules::Cl100k)
}

/// The pieces that are not words: numbers, punctuation, whitespace.
#[inline]
fn piece(b: &[u8], p: usize, rules: Rules) -> Option<usize> {
    let c0 = *b.get(p)?;
    let k0 = KIND[usize::from(c0)];
    let k1 = kind(b, p + 1);
    if k1 & K_HIGH != 0 {
        return None; // a non-ASCII letter after a prefix char, or a run that goes on
    }
    if k0 & K_DIGIT != 0 {
        // `\p{N}{1,3}`: the zero bytes past the end are no digits.
        let n = leading_lanes(in_range(load8(b, p), b'0', b'9')).min(3);
        return (n == 3 || kind(b, p + n) & K_HIGH == 0).then_some(p + n);
    }
    if k0 & K_SPACE != 0 && !(c0 == b' ' && k1 & K_PUNCT != 0) {
        if k1 & K_SPACE == 0 {
            // One whitespace char before an ASCII non-space or the end: a piece under every rule.
            return Some(p + 1);
        }
        return space_piece(b, p, rules);
    }
    // ` ?[^\s\p{L}\p{N}]+` then `[\r\n/]*` (o200k) or `[\r\n]*` (cl100k).
    let start = if k0 & K_PUNCT != 0 {
        p
    } else if c0 == b' ' && k1 & K_PUNCT != 0 {
        p + 1
    } else {
        return None;
    };
    let mut i = if kind(b, start + 1) & K_PUNCT == 0 {
        start + 1
    } else {
        run_of(b, start + 1, punct_lanes)
    };
    if kind(b, i) & K_HIGH != 0 {
        return None;
    }
    while let Some(b'\r' | b'\n') = b.get(i) {
        i += 1;
    }
    if rules == Rules::O200k {
        while let Some(b'\r' | b'\n' | b'/') = b.get(i) {
            i += 1;
        }
    }
    Some(i)
}

/// A run of ASCII whitespace at `p` not followed by a non-ASCII byte:
/// `\s*[\r\n]+` (to its last line end), `\s+(?!\S)` (all but its last
/// char before a non-space) or `\s+`, in the order of `rules`.
#[inline]
fn space_piece(b: &[u8], p: usize, rules: Rules) -> Option<usize> {
    let mut i = p;
    let mut last_line_end = None;
    loop {
        let x = load8(b, i);
        let n = leading_lanes(space_lanes(x));
        let run = if n == 8 {
            HIGHS
        } else {
            HIGHS & ((1 << (8 * n)) - 1)
        };
        let ends = line_end_lanes(x) & run;
        if ends != 0 {
            last_line_end = Some(i + (63 - ends.leading_zeros() as usize) / 8 + 1);
        }
        // The zero bytes past the end are no spaces: `i` stays within the text.
        i += n;
        if n < 8 || i >= b.len() {
            break;
        }
    }
    if kind(b, i) & K_HIGH != 0 {
        return None; // the run may go on in non-ASCII whitespace
    }
    let at_end = i == b.len();
    Some(match (rules, last_line_end) {
        (Rules::O200k, Some(e)) => e,
        _ if at_end => i,
        (_, Some(e)) => e,
        // All but its last char when it has two or more.
        (_, None) if i - p >= 2 => i - 1,
        (_, None) => i,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each lane of a load classifies its byte as the class table does, in every position.
    #[test]
    fn lane_masks_agree_with_the_class_table() {
        for byte in 0..=255u8 {
            for lane in 0..8 {
                let x = u64::from(byte) << (8 * lane);
                let bit = 0x80u64 << (8 * lane);
                let set = |m: u64| m & bit != 0;
                let m = if byte < 0x80 {
                    ASCII[usize::from(byte)]
                } else {
                    0
                };
                let ascii = byte < 0x80;
                assert_eq!(set(letter_lanes(x)), ascii && m & LETTER != 0, "{byte:#x}");
                assert_eq!(
                    set(in_range(x, b'A', b'Z')),
                    ascii && m & UPPERISH != 0,
                    "{byte:#x}"
                );
                assert_eq!(
                    set(in_range(x, b'a', b'z')),
                    ascii && m & LOWERISH != 0,
                    "{byte:#x}"
                );
                assert_eq!(
                    set(in_range(x, b'0', b'9')),
                    ascii && m & NUMBER != 0,
                    "{byte:#x}"
                );
                assert_eq!(set(space_lanes(x)), ascii && m & SPACE != 0, "{byte:#x}");
                assert_eq!(
                    set(punct_lanes(x)),
                    ascii && m & (SPACE | LETTER | NUMBER) == 0,
                    "{byte:#x}"
                );
                assert_eq!(
                    set(line_end_lanes(x)),
                    byte == b'\r' || byte == b'\n',
                    "{byte:#x}"
                );
                // The other lanes (zero bytes) are only ever punctuation.
                let others = !(0xFFu64 << (8 * lane)) & HIGHS;
                assert_eq!(letter_lanes(x) & others, 0);
                assert_eq!(space_lanes(x) & others, 0);
                assert_eq!(punct_lanes(x) & others, others);
            }
        }
    }
}
