//! The pre-tokenizers' ASCII fast paths for o200k and cl100k: pieces that
//! start with an ASCII byte and stay in ASCII.
//!
//! Words, most of the pieces of prose and code, are found eight bytes at a
//! time: one load (a `u64`, the same code natively and in wasm32) is
//! classified into byte-lane masks (0x80 in each lane of a class: capitals,
//! lower case, letters) with a few additions and ands (SWAR), and the word's
//! end is the first lane outside the class, by `trailing_zeros`. The other
//! pieces (numbers, punctuation, whitespace) are one to three bytes in most
//! text and are read byte by byte from a table of kinds: classifying their
//! runs eight bytes at a time measured slower (callgrind, `count_once` on
//! the bench's code: 49.5 -> 50.5 instructions a byte for whitespace runs).
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

/// How many lanes from the lowest on are set in the lane mask `m`.
#[inline(always)]
fn leading_lanes(m: u64) -> usize {
    (!m & HIGHS).trailing_zeros() as usize / 8
}

/// The end of the run of bytes whose lanes `class` sets, from `i` on, eight
/// at a time. The class must not hold the zero byte: the zero bytes loaded
/// past the text's end then end every run there.
#[inline(always)]
fn run_of(b: &[u8], mut i: usize, class: impl Fn(u64) -> u64) -> usize {
    loop {
        let n = leading_lanes(class(load8(b, i)));
        i += n;
        if n < 8 {
            return i;
        }
    }
}

/// The end of `[A-Z]*[a-z]*` at `q` (o200k's word shapes): most words take one load.
#[inline(always)]
fn case_end(b: &[u8], q: usize) -> usize {
    let x = load8(b, q);
    let u = leading_lanes(in_range(x, b'A', b'Z'));
    if u == 8 {
        let i = run_of(b, q + 8, |x| in_range(x, b'A', b'Z'));
        return run_of(b, i, |x| in_range(x, b'a', b'z'));
    }
    // Shifting in zero bytes from the top: they end the lower-case run.
    let l = leading_lanes(in_range(x >> (8 * u), b'a', b'z'));
    if u + l < 8 {
        q + u + l
    } else {
        run_of(b, q + 8, |x| in_range(x, b'a', b'z'))
    }
}

/// The end of `[A-Za-z]*` at `q` (cl100k's words).
#[inline(always)]
fn letters_end(b: &[u8], q: usize) -> usize {
    let n = leading_lanes(letter_lanes(load8(b, q)));
    if n < 8 {
        q + n
    } else {
        run_of(b, q + 8, letter_lanes)
    }
}

/// Where a word's first letter is: at `p`, or after one prefix byte
/// (`[^\r\n\p{L}\p{N}]`, not an apostrophe unless `apostrophe_prefix`);
/// `None` when no ASCII letter starts there.
#[inline(always)]
fn word_start(b: &[u8], p: usize, apostrophe_prefix: bool) -> Option<usize> {
    let k0 = kind(b, p);
    if k0 & K_LETTER != 0 {
        Some(p)
    } else if k0 & K_PREFIX != 0
        && kind(b, p + 1) & K_LETTER != 0
        && (apostrophe_prefix || b.get(p) != Some(&b'\''))
    {
        Some(p + 1)
    } else {
        None
    }
}

/// o200k's most common pieces, an ASCII word with or without one prefix byte
/// (` word`, `Word`, `(word`), eight bytes at a time; `None` for everything
/// else, including a word that a non-ASCII byte or an apostrophe may extend.
#[inline(always)]
pub(super) fn o200k_word(b: &[u8], p: usize) -> Option<usize> {
    let j = case_end(b, word_start(b, p, true)?);
    match b.get(j) {
        Some(&c) if c >= 0x80 || c == b'\'' => None,
        _ => Some(j),
    }
}

/// cl100k's most common pieces, `[^\r\n\p{L}\p{N}]?[A-Za-z]+`, eight bytes at
/// a time; `None` for everything else (an apostrophe first may be a
/// contraction), including a word that a non-ASCII byte may extend.
#[inline(always)]
pub(super) fn cl100k_word(b: &[u8], p: usize) -> Option<usize> {
    let j = letters_end(b, word_start(b, p, false)?);
    match b.get(j) {
        Some(&c) if c >= 0x80 => None,
        _ => Some(j),
    }
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

/// An ASCII word at `q` byte by byte: `[A-Z]*[a-z]+` or `[A-Z]+`, as o200k's
/// first two alternatives match it; `None` when a non-ASCII byte could change the match.
#[inline]
fn ascii_word(b: &[u8], q: usize) -> Option<usize> {
    let mut i = q;
    while kind(b, i) & K_UPPER != 0 {
        i += 1;
    }
    let mut j = i;
    while kind(b, j) & K_LOWER != 0 {
        j += 1;
    }
    if kind(b, j) & K_HIGH != 0 {
        return None;
    }
    // ASCII capitals are not lowerish: with no lowercase after them, the second alternative takes them.
    (j > q).then_some(j)
}

/// o200k's pieces that start with an ASCII byte and stay in ASCII; `None` sends the rest to the general path.
#[inline(always)]
pub(super) fn o200k_piece(b: &[u8], p: usize) -> Option<usize> {
    let k0 = kind(b, p);
    if k0 & K_LETTER != 0 {
        return contraction(b, ascii_word(b, p)?);
    }
    if k0 & K_PREFIX != 0 && kind(b, p + 1) & K_LETTER != 0 {
        return contraction(b, ascii_word(b, p + 1)?);
    }
    piece(b, p, Rules::O200k)
}

/// cl100k's pieces that start with an ASCII byte and stay in ASCII; `None` sends the rest to the general path.
#[inline(always)]
pub(super) fn cl100k_piece(b: &[u8], p: usize) -> Option<usize> {
    if b.get(p) == Some(&b'\'') {
        let e = contraction(b, p)?;
        if e > p {
            return Some(e);
        }
    }
    if let Some(q) = word_start(b, p, true) {
        let j = letters_end(b, q);
        return (kind(b, j) & K_HIGH == 0).then_some(j);
    }
    piece(b, p, Rules::Cl100k)
}

/// The pieces that are not words: numbers, punctuation, whitespace.
#[inline(always)]
fn piece(b: &[u8], p: usize, rules: Rules) -> Option<usize> {
    let c0 = *b.get(p)?;
    let k0 = KIND[usize::from(c0)];
    let k1 = kind(b, p + 1);
    if k1 & K_HIGH != 0 {
        return None; // a non-ASCII letter after a prefix char, or a run that goes on
    }
    if k0 & K_DIGIT != 0 {
        // `\p{N}{1,3}`.
        let mut i = p + 1;
        while i < p + 3 && kind(b, i) & K_DIGIT != 0 {
            i += 1;
        }
        return (i == p + 3 || kind(b, i) & K_HIGH == 0).then_some(i);
    }
    if k0 & K_SPACE != 0 && !(c0 == b' ' && k1 & K_PUNCT != 0) {
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
    let mut i = start + 1;
    while kind(b, i) & K_PUNCT != 0 {
        i += 1;
    }
    if kind(b, i) & K_HIGH != 0 {
        return None;
    }
    match rules {
        Rules::O200k => {
            while let Some(b'\r' | b'\n' | b'/') = b.get(i) {
                i += 1;
            }
        }
        Rules::Cl100k => {
            while let Some(b'\r' | b'\n') = b.get(i) {
                i += 1;
            }
        }
    }
    Some(i)
}

/// A run of ASCII whitespace at `p` not followed by a non-ASCII byte:
/// `\s*[\r\n]+` (to its last line end), `\s+(?!\S)` (all but its last
/// char before a non-space) or `\s+`, in the order of `rules`. Byte by byte:
/// eight at a time measured slower (most runs are one or two bytes).
#[inline(always)]
fn space_piece(b: &[u8], p: usize, rules: Rules) -> Option<usize> {
    let mut i = p;
    let mut last_line_end = None;
    while kind(b, i) & K_SPACE != 0 {
        i += 1;
        if matches!(b[i - 1], b'\r' | b'\n') {
            last_line_end = Some(i);
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
            let m = if byte < 0x80 {
                ASCII[usize::from(byte)]
            } else {
                0
            };
            for lane in 0..8 {
                let x = u64::from(byte) << (8 * lane);
                let set = |lanes: u64| lanes & (0x80u64 << (8 * lane)) != 0;
                assert_eq!(set(letter_lanes(x)), m & LETTER != 0, "{byte:#x}");
                assert_eq!(set(in_range(x, b'A', b'Z')), m & UPPERISH != 0, "{byte:#x}");
                assert_eq!(set(in_range(x, b'a', b'z')), m & LOWERISH != 0, "{byte:#x}");
                // The other lanes (zero bytes) are in no class.
                let others = !(0xFFu64 << (8 * lane)) & HIGHS;
                assert_eq!(letter_lanes(x) & others, 0);
                assert_eq!(in_range(x, b'a', b'z') & others, 0);
            }
        }
    }
}
