//! Sure splits: byte offsets where an encoding's pre-tokenizer always splits,
//! whatever the text holds before and after beyond a few characters, so that
//! cutting a text only at such offsets and counting the parts gives the count
//! of the whole (`count(s) == count(s[..k]) + count(s[k..])`). The CLI's
//! streaming count and the npm package's `TokenPool` cut large inputs here.
//!
//! # Why these offsets
//!
//! A piece of the pre-tokenizer depends only on the text from where it starts
//! (no pattern looks behind) and on whether the text ends after it (cl100k's
//! `\s++$`, every `(?!\S)`). So the pieces of `s[k..]` are those of `s` from
//! `k` on as soon as `k` is a piece boundary of `s`; and the pieces of
//! `s[..k]` are those of `s` before `k` when no piece's match before `k`
//! decides differently because the text ends at `k`. Every scan of the
//! patterns runs over one class (letters, digits, whitespace, punctuation)
//! and stops at the first character outside it; the rules below pick `k`
//! where the piece before `k` ends at `k` in `s`, and where seeing the end of
//! the text at `k` (instead of the character there) ends it the same way.
//!
//! With `p` the character before `k`, `n` the character at `k`:
//!
//! 1. **After a word** (all encodings): `p` is a letter (`\p{L}`) and `n` is
//!    not. Letters are only ever in word pieces (`\p{L}+`, a prefix then
//!    letters, a contraction), and a word piece stops at the first
//!    non-letter. o200k's words also take marks (`\p{M}`) and a contraction
//!    (`'s`, `'ll`, …) after the letters, so there `n` is neither a mark nor
//!    `'`. (Never between a space or a punctuation character and a letter:
//!    ` x`, `.x` are one piece.)
//! 2. **After a number** (all encodings): `p` is `\p{N}` and `n` is not.
//!    Digits are only ever in number pieces (`\p{N}{1,3}`, ` ?\p{N}+`), cut
//!    from the left of their run, so the last one ends at the run's end
//!    (never inside a digit run: `1234` is `123`, `4`).
//! 3. **After a line break** (cl100k, o200k): `p` is `\r` or `\n`, and the
//!    whitespace from `k` on holds no `\r`/`\n` and ends before a
//!    non-whitespace character (seen within [`LOOK_AHEAD_BYTES`]). The
//!    whitespace piece `\s*[\r\n]` (o200k: `\s*[\r\n]+`) then ends at the last
//!    line break of its run, which is `k`, and cl100k's `\s++$` cannot match
//!    it; cut at `k`, the run ends the text, and `\s++$` (o200k: the same
//!    `\s*[\r\n]+`) ends it at `k` too. A punctuation run's tail `[\r\n]*`
//!    also stops at `k`, except o200k's `[\r\n/]*` before a `/`: there `n` is
//!    not `/`.
//! 4. **Inside whitespace** (r50k, p50k: the GPT-2 pattern, which knows no
//!    line breaks): either `p` and `n` are whitespace and the character after
//!    `n` is not (`\s+(?!\S)` leaves the last whitespace character to the
//!    next piece, and takes the rest whole when the text ends there); or `p`
//!    is whitespace other than a space between two non-whitespace characters
//!    (it is a piece of its own: only a space prefixes a word).
//!
//! Nothing else is a sure split: runs of spaces in cl100k and o200k are cut
//! before their last space only when no line break precedes them, which
//! takes an unbounded look-behind; `\s++$` makes cl100k's trailing
//! whitespace one piece. The rules look at most [`LOOK_BEHIND_BYTES`] before
//! an offset and [`LOOK_AHEAD_BYTES`] after it. An offset inside a UTF-8
//! sequence, or next to bytes that are not valid UTF-8, is never a split.
//!
//! A split is also safe for UTF-8 validation: it has a whole character on
//! each side, so the first invalid byte of the whole is the first invalid
//! byte of the first part that has one, at the same offset.

use crate::bpe::pretokenize::Pattern;
use crate::bpe::unicode::{class, LETTER, LOWERISH, NUMBER, SPACE, UPPERISH};
use crate::encoding::Encoding;

/// Bytes before an offset that [`next_split`] may look at (a window should start this far before it).
pub const LOOK_BEHIND_BYTES: usize = 16;

/// Bytes after an offset that [`next_split`] looks at to decide it (a run of
/// whitespace after a line break longer than this is not cut).
pub const LOOK_AHEAD_BYTES: usize = 64;

/// The first sure split of `encoding` at or after byte `from` of `bytes`.
///
/// `bytes` is a window of the text, which may start up to
/// [`LOOK_BEHIND_BYTES`] before `from` (and may start or end inside a
/// character); `at_end` says whether it ends where the text ends. The start
/// and the end of the window are never returned. `None` when there is no
/// sure split in the window, or when deciding the next candidate needs bytes
/// past its end (and `!at_end`): a larger window may have one. Linear in the
/// bytes scanned.
pub fn next_split(bytes: &[u8], encoding: Encoding, from: usize, at_end: bool) -> Option<usize> {
    let rule = Rule::of(encoding.pattern());
    let window = Window { bytes, at_end };
    let mut k = from.max(1);
    while k < bytes.len() {
        if !is_continuation(bytes[k]) {
            match rule.splits_at(&window, k) {
                Verdict::Split => return Some(k),
                Verdict::NoSplit => {}
                Verdict::NeedMore => return None,
            }
        }
        k += 1;
    }
    None
}

/// Which of the rules an encoding's pre-tokenizer admits.
#[derive(Debug, Clone, Copy)]
enum Rule {
    O200k,
    Cl100k,
    Gpt2,
}

impl Rule {
    fn of(pattern: Pattern) -> Rule {
        match pattern {
            Pattern::O200k => Rule::O200k,
            Pattern::Cl100k => Rule::Cl100k,
            Pattern::Gpt2 => Rule::Gpt2,
        }
    }

    /// Whether `k` (the start of a UTF-8 sequence in the window) is a sure split.
    fn splits_at(self, w: &Window, k: usize) -> Verdict {
        let Some((p, p_start)) = w.char_before(k) else {
            return Verdict::NoSplit;
        };
        let n = match w.char_at(k) {
            Decoded::Char(c) => c,
            Decoded::Invalid => return Verdict::NoSplit,
            Decoded::Truncated => return Verdict::NeedMore,
        };
        let (pc, nc) = (class(p), class(n));
        // 1. After a word.
        if pc & LETTER != 0 && nc & LETTER == 0 {
            let word_goes_on =
                matches!(self, Rule::O200k) && (nc & (UPPERISH | LOWERISH) != 0 || n == '\'');
            if !word_goes_on {
                return Verdict::Split;
            }
        }
        // 2. After a number.
        if pc & NUMBER != 0 && nc & NUMBER == 0 {
            return Verdict::Split;
        }
        match self {
            Rule::O200k | Rule::Cl100k => {
                // 3. After a line break.
                if !is_newline(p) || (matches!(self, Rule::O200k) && n == '/') {
                    return Verdict::NoSplit;
                }
                w.line_break_ends_at(k)
            }
            Rule::Gpt2 => {
                // 4. Inside whitespace.
                if pc & SPACE == 0 {
                    return Verdict::NoSplit;
                }
                if nc & SPACE != 0 {
                    return match w.char_at(k + n.len_utf8()) {
                        Decoded::Char(c) if class(c) & SPACE == 0 => Verdict::Split,
                        Decoded::Truncated => Verdict::NeedMore,
                        _ => Verdict::NoSplit,
                    };
                }
                let alone = p != ' '
                    && w.char_before(p_start)
                        .is_some_and(|(c, _)| class(c) & SPACE == 0);
                if alone {
                    Verdict::Split
                } else {
                    Verdict::NoSplit
                }
            }
        }
    }
}

/// What a rule says of a candidate offset.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Verdict {
    Split,
    NoSplit,
    /// Deciding needs bytes past the window's end.
    NeedMore,
}

/// A character read from the window.
enum Decoded {
    Char(char),
    /// Not valid UTF-8 (or cut by the text's end).
    Invalid,
    /// Cut by the window's end, before the text's end.
    Truncated,
}

/// The bytes the rules look at, and whether the text ends with them.
struct Window<'a> {
    bytes: &'a [u8],
    at_end: bool,
}

impl Window<'_> {
    /// The character that starts at `i`.
    fn char_at(&self, i: usize) -> Decoded {
        let Some(&lead) = self.bytes.get(i) else {
            return if self.at_end {
                Decoded::Invalid
            } else {
                Decoded::Truncated
            };
        };
        let len = match lead {
            0x00..=0x7F => return Decoded::Char(char::from(lead)),
            0xC2..=0xDF => 2,
            0xE0..=0xEF => 3,
            0xF0..=0xF4 => 4,
            _ => return Decoded::Invalid,
        };
        let Some(seq) = self.bytes.get(i..i + len) else {
            // Valid so far and cut by the window: the text may complete it.
            let have = &self.bytes[i..];
            return if self.at_end || !valid_prefix(have) {
                Decoded::Invalid
            } else {
                Decoded::Truncated
            };
        };
        match std::str::from_utf8(seq).ok().and_then(|s| s.chars().next()) {
            Some(c) => Decoded::Char(c),
            None => Decoded::Invalid,
        }
    }

    /// The whole character that ends at `i` and where it starts, if the window has it.
    fn char_before(&self, i: usize) -> Option<(char, usize)> {
        let start = (i.saturating_sub(4)..i)
            .rev()
            .find(|&j| !is_continuation(self.bytes[j]))?;
        match self.char_at(start) {
            Decoded::Char(c) if start + c.len_utf8() == i => Some((c, start)),
            _ => None,
        }
    }

    /// Rule 3 at `k` (just after a line break): whether the whitespace from
    /// `k` on holds no line break and ends before a non-whitespace character.
    fn line_break_ends_at(&self, k: usize) -> Verdict {
        let mut i = k;
        while i < k + LOOK_AHEAD_BYTES {
            let c = match self.char_at(i) {
                Decoded::Char(c) => c,
                Decoded::Invalid => return Verdict::NoSplit,
                Decoded::Truncated => return Verdict::NeedMore,
            };
            if class(c) & SPACE == 0 {
                return Verdict::Split;
            }
            if is_newline(c) {
                return Verdict::NoSplit;
            }
            i += c.len_utf8();
        }
        Verdict::NoSplit
    }
}

/// Whether the start of a sequence, cut short, could still become a valid character.
fn valid_prefix(have: &[u8]) -> bool {
    matches!(std::str::from_utf8(have), Err(e) if e.error_len().is_none())
}

fn is_continuation(b: u8) -> bool {
    b & 0xC0 == 0x80
}

fn is_newline(c: char) -> bool {
    c == '\r' || c == '\n'
}

#[cfg(test)]
mod tests;
