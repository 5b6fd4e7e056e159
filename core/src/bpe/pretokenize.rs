//! Hand-written pre-tokenizers, equivalent to tiktoken's regular expressions
//! (o200k, cl100k and the GPT-2 pattern of r50k/p50k) under the backtracking,
//! leftmost-first semantics fancy-regex gives them, but in one forward pass
//! with no regex to compile. Each `*_next` returns the end of the piece that
//! starts at `p`; every position starts a piece, so pieces tile the text.
//!
//! o200k's and cl100k's pieces go through `ascii` first, which finds the
//! pieces made of ASCII bytes eight bytes at a time; it hands anything a
//! non-ASCII byte may decide to the general paths here (`o200k_general`,
//! `cl100k_general`), which read chars and their Unicode classes. The tests
//! compare both on every offset of texts over every class they tell apart.

mod ascii;

use super::unicode::{
    class, FOLD_D, FOLD_E, FOLD_L, FOLD_M, FOLD_R, FOLD_S, FOLD_T, FOLD_V, LETTER, LOWERISH,
    NUMBER, SPACE, UPPERISH,
};

/// Which pre-tokenizer an encoding uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Pattern {
    /// o200k_base (and o200k_harmony).
    O200k,
    /// cl100k_base.
    Cl100k,
    /// r50k_base / p50k_base (GPT-2).
    Gpt2,
}

/// One pre-tokenizer: where the piece that starts at byte `p` ends.
pub(crate) trait Split {
    fn end(s: &str, p: usize) -> usize;
}

/// o200k_base's pre-tokenizer.
pub(crate) struct O200k;
/// cl100k_base's.
pub(crate) struct Cl100k;
/// r50k_base's and p50k_base's (GPT-2).
pub(crate) struct Gpt2;

impl Split for O200k {
    #[inline(always)]
    fn end(s: &str, p: usize) -> usize {
        match ascii::o200k_word(s.as_bytes(), p) {
            Some(e) => e,
            None => o200k_next(s, p),
        }
    }
}

impl Split for Cl100k {
    #[inline(always)]
    fn end(s: &str, p: usize) -> usize {
        match ascii::cl100k_word(s.as_bytes(), p) {
            Some(e) => e,
            None => cl100k_next(s, p),
        }
    }
}

impl Split for Gpt2 {
    #[inline(always)]
    fn end(s: &str, p: usize) -> usize {
        gpt2_next(s, p)
    }
}

/// The end of the piece that starts at byte `p` of `s` (before its end)
/// under the pre-tokenizer `P`: always past `p` and on a char boundary.
#[inline(always)]
pub(crate) fn next_end<P: Split>(s: &str, p: usize) -> usize {
    let end = P::end(s, p);
    // Defensive: never stall, never split a character.
    if end > p {
        end
    } else {
        p + char_len(s, p)
    }
}

/// The char starting at byte `i` (which is a char boundary of valid UTF-8), decoded by hand:
/// `str` slicing would re-check the boundary on every step of the hot loop.
#[inline]
fn at(s: &str, i: usize) -> Option<char> {
    let b = s.as_bytes();
    let b0 = *b.get(i)?;
    if b0 < 0x80 {
        return Some(b0 as char);
    }
    let cont = |k: usize| u32::from(*b.get(i + k).unwrap_or(&0x80) & 0x3F);
    let cp = if b0 < 0xE0 {
        (u32::from(b0 & 0x1F) << 6) | cont(1)
    } else if b0 < 0xF0 {
        (u32::from(b0 & 0x0F) << 12) | (cont(1) << 6) | cont(2)
    } else {
        (u32::from(b0 & 0x07) << 18) | (cont(1) << 12) | (cont(2) << 6) | cont(3)
    };
    char::from_u32(cp)
}

#[inline]
fn char_len(s: &str, i: usize) -> usize {
    at(s, i).map_or(1, char::len_utf8)
}

#[inline]
fn cls(s: &str, i: usize) -> u16 {
    at(s, i).map_or(0, class)
}

#[inline]
fn is_nl(c: char) -> bool {
    c == '\r' || c == '\n'
}

/// `[^\r\n\p{L}\p{N}]`.
#[inline]
fn is_prefix(c: char) -> bool {
    !is_nl(c) && class(c) & (LETTER | NUMBER) == 0
}

/// `[^\s\p{L}\p{N}]`.
#[inline]
fn is_punct(c: char) -> bool {
    class(c) & (SPACE | LETTER | NUMBER) == 0
}

/// Advances over chars whose class has any of `mask`.
#[inline]
fn run(s: &str, mut i: usize, mask: u16) -> usize {
    while let Some(c) = at(s, i) {
        if class(c) & mask == 0 {
            break;
        }
        i += c.len_utf8();
    }
    i
}

/// Up to three `\p{N}`.
fn numbers3(s: &str, mut i: usize) -> usize {
    for _ in 0..3 {
        match at(s, i) {
            Some(c) if class(c) & NUMBER != 0 => i += c.len_utf8(),
            _ => break,
        }
    }
    i
}

/// `(?i:'s|'t|'re|'ve|'m|'ll|'d)?` at `i`.
fn contraction(s: &str, i: usize) -> usize {
    if at(s, i) != Some('\'') {
        return i;
    }
    let j = i + 1;
    let Some(c1) = at(s, j) else { return i };
    let k = j + c1.len_utf8();
    let m1 = class(c1);
    if m1 & (FOLD_S | FOLD_T | FOLD_M | FOLD_D) != 0 {
        return k;
    }
    let second = |fold: u16| {
        at(s, k)
            .filter(|c| class(*c) & fold != 0)
            .map(|c| k + c.len_utf8())
    };
    if m1 & FOLD_R != 0 {
        return second(FOLD_E).unwrap_or(i);
    }
    if m1 & FOLD_V != 0 {
        return second(FOLD_E).unwrap_or(i);
    }
    if m1 & FOLD_L != 0 {
        return second(FOLD_L).unwrap_or(i);
    }
    i
}

/// o200k alternative 1 without prefix: `[U]*[L']+` (backtracking as a regex would), then a contraction.
fn o200k_lower_word(s: &str, start: usize) -> Option<usize> {
    let mut i = start;
    let mut last_lowerish_end = None;
    while let Some(c) = at(s, i) {
        let m = class(c);
        if m & UPPERISH == 0 {
            break;
        }
        i += c.len_utf8();
        if m & LOWERISH != 0 {
            last_lowerish_end = Some(i);
        }
    }
    let j = run(s, i, LOWERISH);
    let end = if j > i { j } else { last_lowerish_end? };
    Some(contraction(s, end))
}

/// o200k alternative 2 without prefix: `[U]+[L']*`, then a contraction.
fn o200k_upper_word(s: &str, start: usize) -> Option<usize> {
    let i = run(s, start, UPPERISH);
    if i == start {
        return None;
    }
    Some(contraction(s, run(s, i, LOWERISH)))
}

/// ` ?[^\s\p{L}\p{N}]+` then `[\r\n/]*` (o200k) or `[\r\n]*` (cl100k) or nothing (GPT-2).
fn punct_run(s: &str, p: usize, tail: &[u8]) -> Option<usize> {
    let c0 = at(s, p)?;
    let start = if c0 == ' ' && at(s, p + 1).is_some_and(is_punct) {
        p + 1
    } else if is_punct(c0) {
        p
    } else {
        return None;
    };
    let mut i = start;
    while let Some(c) = at(s, i) {
        if !is_punct(c) {
            break;
        }
        i += c.len_utf8();
    }
    while s.as_bytes().get(i).is_some_and(|b| tail.contains(b)) {
        i += 1;
    }
    Some(i)
}

/// A whitespace run at `p`: (end of run, end after its last `\r`/`\n`, start of its last char, chars in it).
fn space_run(s: &str, p: usize) -> (usize, Option<usize>, usize, usize) {
    let mut i = p;
    let mut last_nl_end = None;
    let mut last_start = p;
    let mut count = 0;
    while let Some(c) = at(s, i) {
        if class(c) & SPACE == 0 {
            break;
        }
        last_start = i;
        i += c.len_utf8();
        count += 1;
        if is_nl(c) {
            last_nl_end = Some(i);
        }
    }
    (i, last_nl_end, last_start, count)
}

/// `\s+(?!\S)|\s` (or `\s+`) on a run not reaching the end: all but the last char, or the single char.
fn space_before_word(run_end: usize, last_start: usize, count: usize) -> usize {
    if count >= 2 {
        last_start
    } else {
        run_end
    }
}

#[inline(never)]
fn o200k_next(s: &str, p: usize) -> usize {
    match ascii::o200k_piece(s.as_bytes(), p) {
        Some(e) => e,
        None => o200k_general(s, p),
    }
}

#[inline(never)]
fn cl100k_next(s: &str, p: usize) -> usize {
    match ascii::cl100k_piece(s.as_bytes(), p) {
        Some(e) => e,
        None => cl100k_general(s, p),
    }
}

/// o200k's pieces by the Unicode classes of their chars, whatever they are.
fn o200k_general(s: &str, p: usize) -> usize {
    let Some(c0) = at(s, p) else { return p };
    let m0 = class(c0);
    let after0 = p + c0.len_utf8();
    let prefix = is_prefix(c0);
    // Alternatives 1 and 2, each first with the optional prefix char, then without.
    if prefix {
        if let Some(e) = o200k_lower_word(s, after0) {
            return e;
        }
    }
    if let Some(e) = o200k_lower_word(s, p) {
        return e;
    }
    if prefix {
        if let Some(e) = o200k_upper_word(s, after0) {
            return e;
        }
    }
    if let Some(e) = o200k_upper_word(s, p) {
        return e;
    }
    if m0 & NUMBER != 0 {
        return numbers3(s, p);
    }
    if let Some(e) = punct_run(s, p, b"\r\n/") {
        return e;
    }
    if m0 & SPACE != 0 {
        let (end, last_nl_end, last_start, count) = space_run(s, p);
        if let Some(e) = last_nl_end {
            return e; // \s*[\r\n]+
        }
        if end == s.len() {
            return end; // \s+(?!\S) at the end
        }
        return space_before_word(end, last_start, count);
    }
    after0
}

/// cl100k's pieces by the Unicode classes of their chars, whatever they are.
fn cl100k_general(s: &str, p: usize) -> usize {
    let Some(c0) = at(s, p) else { return p };
    let after0 = p + c0.len_utf8();
    if c0 == '\'' {
        if let Some(c1) = at(s, after0) {
            let k = after0 + c1.len_utf8();
            let m1 = class(c1);
            if m1 & (FOLD_S | FOLD_D | FOLD_M | FOLD_T) != 0 {
                return k;
            }
            let pair = |a: u16, b: u16| m1 & a != 0 && cls(s, k) & b != 0;
            if pair(FOLD_L, FOLD_L) || pair(FOLD_V, FOLD_E) || pair(FOLD_R, FOLD_E) {
                return k + char_len(s, k);
            }
        }
    }
    let m0 = class(c0);
    if is_prefix(c0) && cls(s, after0) & LETTER != 0 {
        return run(s, after0, LETTER);
    }
    if m0 & LETTER != 0 {
        return run(s, p, LETTER);
    }
    if m0 & NUMBER != 0 {
        return numbers3(s, p);
    }
    if let Some(e) = punct_run(s, p, b"\r\n") {
        return e;
    }
    if m0 & SPACE != 0 {
        let (end, last_nl_end, last_start, count) = space_run(s, p);
        if end == s.len() {
            return end; // \s++$
        }
        if let Some(e) = last_nl_end {
            return e; // \s*[\r\n]
        }
        return space_before_word(end, last_start, count);
    }
    after0
}

fn gpt2_next(s: &str, p: usize) -> usize {
    let Some(c0) = at(s, p) else { return p };
    let after0 = p + c0.len_utf8();
    if c0 == '\'' {
        let b = s.as_bytes();
        match (b.get(after0), b.get(after0 + 1)) {
            (Some(b's' | b'd' | b'm' | b't'), _) => return after0 + 1,
            (Some(b'l'), Some(b'l')) | (Some(b'v'), Some(b'e')) | (Some(b'r'), Some(b'e')) => {
                return after0 + 2
            }
            _ => {}
        }
    }
    let m0 = class(c0);
    for mask in [LETTER, NUMBER] {
        if c0 == ' ' && cls(s, after0) & mask != 0 {
            return run(s, after0, mask);
        }
        if m0 & mask != 0 {
            return run(s, p, mask);
        }
    }
    if let Some(e) = punct_run(s, p, b"") {
        return e;
    }
    if m0 & SPACE != 0 {
        let (end, _, last_start, count) = space_run(s, p);
        if end == s.len() {
            return end;
        }
        return space_before_word(end, last_start, count);
    }
    after0
}

#[cfg(test)]
mod tests;
