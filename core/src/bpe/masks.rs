//! The bitmask pre-tokenizer: the bytes of a 64-byte window classified at
//! once into bit masks (letters by case, digits, whitespace, the space,
//! apostrophes), eight bytes at a time in `u64` words (SWAR: portable, the
//! same in wasm, no `unsafe`), and the window's piece starts under o200k's or
//! cl100k's pattern found from them with bit arithmetic (run starts, carries
//! through runs, a bit reversal for the last newline of a whitespace run), so
//! that the count loop takes piece after piece with a `trailing_zeros`.
//!
//! The window always starts at a piece start, so nothing before it matters.
//! It covers ASCII only: it ends at the first byte above 0x7F, at the end of
//! the text, and before any byte the masks do not decide (an apostrophe, which
//! may begin a contraction; for o200k a `/` after a newline, which a
//! punctuation run's `[\r\n/]*` may take). Only starts that no byte past that
//! end can change are kept: none inside a whitespace run that reaches it. The
//! piece at the last kept start goes to the next window or, when a window
//! starting there keeps nothing after it, to the scalar pre-tokenizer; so the
//! split is the scalar one, and the differential tests check it against
//! tiktoken's regexes all the same.

/// Bytes classified at once.
pub(crate) const WIDTH: usize = 64;

const ONES: u64 = 0x0101_0101_0101_0101;
const HIGHS: u64 = 0x8080_8080_8080_8080;

/// For each byte of `x7` (every byte below 0x80), 0x80 where it is in `lo..=hi`, else 0.
#[inline(always)]
fn in_range(x7: u64, lo: u8, hi: u8) -> u64 {
    let ge = x7.wrapping_add(u64::from(0x80 - lo) * ONES);
    let le = (u64::from(0x80 + hi) * ONES).wrapping_sub(x7);
    ge & le & HIGHS
}

/// The top bits of a word's eight bytes (0x80 each) as eight bits, byte `i` at bit `i`.
#[inline(always)]
fn gather(m: u64) -> u64 {
    (m >> 7).wrapping_mul(0x0102_0408_1020_4080) >> 56
}

/// Bits `0..n` (all of them from `WIDTH` on).
#[inline(always)]
fn below(n: usize) -> u64 {
    if n >= WIDTH {
        u64::MAX
    } else {
        (1u64 << n) - 1
    }
}

/// Which pattern's rules the starts follow.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Rules {
    /// o200k_base: words split before a capital that follows a lower-case letter;
    /// a punctuation run takes `[\r\n/]*` after it.
    O200k,
    /// cl100k_base: a word is a run of letters; a punctuation run takes `[\r\n]*`.
    Cl100k,
}

/// A window of the text and the piece starts found in it.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Block {
    /// Where the window starts in the text (a piece start).
    pub(crate) base: usize,
    /// Bit `i`: byte `base + i` starts a piece (bit 0 always), as far as the window decides.
    starts: u64,
}

impl Block {
    /// A window that holds nothing, so that the first piece loads one.
    pub(crate) const EMPTY: Block = Block {
        base: usize::MAX,
        starts: 0,
    };

    /// The end of the piece that starts at `p`, when `p` is a start this window kept and
    /// another one follows it.
    #[inline(always)]
    pub(crate) fn next(&self, p: usize) -> Option<usize> {
        let o = p.wrapping_sub(self.base);
        if o >= WIDTH || (self.starts >> o) & 1 == 0 {
            return None;
        }
        let later = self.starts & !below(o + 1);
        (later != 0).then(|| self.base + later.trailing_zeros() as usize)
    }

    /// Classifies the window of `b` at `base` (a piece start) and finds its starts.
    #[inline]
    pub(crate) fn at(b: &[u8], base: usize, rules: Rules) -> Block {
        let masks = Masks::at(b, base);
        Block {
            base,
            starts: masks.starts(b, rules),
        }
    }
}

/// The byte classes of a window: bit `i` of each mask is byte `base + i`, for the
/// `len` bytes classified (ASCII bytes of the text; every mask is empty past them).
#[derive(Debug, Clone, Copy)]
struct Masks {
    base: usize,
    len: usize,
    /// `[A-Z]`.
    upper: u64,
    /// `[a-z]`.
    lower: u64,
    /// `[0-9]`.
    digit: u64,
    /// `[\t\n\x0B\x0C\r]`: the whitespace other than the space (newlines among it).
    control: u64,
    /// ` `.
    space: u64,
}

impl Masks {
    /// Classifies `b[base..]` up to `WIDTH` bytes, the end of the text or the first byte above 0x7F.
    #[inline]
    fn at(b: &[u8], base: usize) -> Masks {
        let rest = b.get(base..).unwrap_or_default();
        let mut padded = [0u8; WIDTH];
        let chunk: &[u8; WIDTH] = match rest.first_chunk::<WIDTH>() {
            Some(chunk) => chunk,
            None => {
                padded[..rest.len()].copy_from_slice(rest);
                &padded
            }
        };
        let (mut upper, mut lower, mut digit, mut control, mut space) = (0, 0, 0, 0, 0);
        let mut len = WIDTH;
        let mut apostrophe = WIDTH;
        for (w, word) in chunk.chunks_exact(8).enumerate() {
            let x = u64::from_le_bytes(word.try_into().unwrap_or_default());
            let high = x & HIGHS;
            let x7 = x ^ high;
            // ASCII capitals are the bytes whose lower-case fold is in a..z and whose bit 5 is clear.
            let letter = in_range(x7 | (0x20 * ONES), b'a', b'z');
            let up = letter & !(x7 << 2);
            let shift = 8 * w;
            upper |= gather(up) << shift;
            lower |= gather(letter ^ up) << shift;
            digit |= gather(in_range(x7, b'0', b'9')) << shift;
            control |= gather(in_range(x7, b'\t', b'\r')) << shift;
            space |= gather(in_range(x7, b' ', b' ')) << shift;
            let quote = in_range(x7, b'\'', b'\'') & !high;
            if (high | quote) != 0 {
                // The window ends here: at the first byte above 0x7F, or before an apostrophe.
                let at = |m: u64| {
                    if m == 0 {
                        WIDTH
                    } else {
                        shift + m.trailing_zeros() as usize / 8
                    }
                };
                len = at(high);
                apostrophe = at(quote);
                break;
            }
        }
        let len = len.min(apostrophe).min(rest.len());
        let keep = below(len);
        Masks {
            base,
            len,
            upper: upper & keep,
            lower: lower & keep,
            digit: digit & keep,
            control: control & keep,
            space: space & keep,
        }
    }

    /// The piece starts the window decides, bit 0 included (see the module doc for the rules).
    fn starts(&self, b: &[u8], rules: Rules) -> u64 {
        let byte = |i: usize| b.get(self.base + i).copied();
        // Newlines: the control bytes that are `\r` or `\n` (few; tested one by one).
        let mut newline = 0u64;
        let mut controls = self.control;
        while controls != 0 {
            let i = controls.trailing_zeros() as usize;
            if matches!(byte(i), Some(b'\r' | b'\n')) {
                newline |= 1 << i;
            }
            controls &= controls - 1;
        }
        // Where the window's decisions end: its length, or a byte the masks do not decide.
        let mut undecided = 0u64;
        if rules == Rules::O200k {
            let mut n = newline;
            while n != 0 {
                let i = n.trailing_zeros() as usize;
                if i + 1 < WIDTH && byte(i + 1) == Some(b'/') {
                    undecided |= 1 << (i + 1);
                }
                n &= n - 1;
            }
        }
        let end = self.len.min(undecided.trailing_zeros() as usize);
        if end == 0 {
            return 1;
        }
        let letter = self.upper | self.lower;
        let white = self.control | self.space;
        // `[^\r\n\p{L}\p{N}]` whitespace, and `[^\s\p{L}\p{N}]`.
        let blank = white & !newline;
        let punct = below(end) & !(letter | self.digit | white);

        // Words: a run of letters starts a piece, at the byte before it when that byte is a
        // prefix: a blank, or punctuation alone (not after more punctuation, nor after a
        // space, which ` ?[^\s\p{L}\p{N}]+` takes with it).
        let word_start = letter & !(letter << 1);
        let lone = punct & !(punct << 1) & !(self.space << 1);
        let prefix = blank | lone;
        let mut starts = (word_start & !(prefix << 1)) | ((word_start >> 1) & prefix);
        if rules == Rules::O200k {
            // `[A-Z]*[a-z]+|[A-Z]+[a-z]*`: a capital after a lower-case letter starts a word.
            starts |= self.upper & (self.lower << 1);
        }
        // `\p{N}{1,3}`: a run of digits, then every third digit of it.
        let digits = self.digit;
        let mut every_third = digits & !(digits << 1);
        while every_third != 0 {
            starts |= every_third;
            every_third = (every_third << 3) & digits & (digits << 1) & (digits << 2);
        }
        // ` ?[^\s\p{L}\p{N}]+`: a punctuation run, from the space before it when there is one
        // (that space is the last byte of a whitespace run, a start below).
        starts |= punct & !(punct << 1) & !(self.space << 1);
        // `[\r\n]*` after a punctuation run: its newlines join it; the whitespace after them
        // starts a piece.
        let taken_from = newline & (punct << 1);
        let after_taken = newline.wrapping_add(taken_from) & !newline;
        let taken = after_taken.wrapping_sub(taken_from) & newline;
        // Whitespace runs: `\s*[\r\n]+` to the last newline, then `\s+(?!\S)` all but the last
        // byte, then that byte (which may be a word's prefix or the space of a punctuation run).
        let white_start = white & !(white << 1);
        starts |= (white_start & !taken) | (after_taken & blank);
        starts |= blank & !(white >> 1);
        // The blank bytes after a run's last newline: its last bytes, found from the end
        // (bits reversed, so that a carry runs from the run's end toward its start).
        let (white_r, blank_r) = (white.reverse_bits(), blank.reverse_bits());
        let last_blank_r = white_r & !(white_r << 1) & blank_r;
        let before_tail_r = blank_r.wrapping_add(last_blank_r) & !blank_r;
        starts |= (before_tail_r >> 1).reverse_bits() & blank;

        // Keep the starts below `end`, and none inside a whitespace run that reaches it
        // (a byte past `end` may extend the run, or decide `\s+(?!\S)`).
        let keep = if (white >> (end - 1)) & 1 != 0 {
            let run = 63 - (white_start & below(end)).leading_zeros() as usize;
            below(run + 1)
        } else {
            below(end)
        };
        (starts & keep) | 1
    }
}

#[cfg(test)]
mod tests {
    use super::super::pretokenize::{next_end, next_end_masked, Cl100k, O200k, Split};
    use super::super::unicode::{ASCII, LETTER, LOWERISH, NUMBER, SPACE};
    use super::*;

    #[test]
    fn every_ascii_byte_is_in_the_masks_its_class_says() {
        let bytes: Vec<u8> = (0..128).filter(|&b| b != b'\'').chain([b'a']).collect();
        for base in (0..128).step_by(WIDTH) {
            let m = Masks::at(&bytes, base);
            assert_eq!(m.len, WIDTH);
            for i in 0..WIDTH {
                let byte = bytes[base + i];
                let class = ASCII[usize::from(byte)];
                let has = |mask: u64| (mask >> i) & 1 != 0;
                assert_eq!(
                    has(m.upper),
                    class & LETTER != 0 && class & LOWERISH == 0,
                    "{byte:#x}"
                );
                assert_eq!(has(m.lower), class & LOWERISH != 0, "{byte:#x}");
                assert_eq!(has(m.digit), class & NUMBER != 0, "{byte:#x}");
                assert_eq!(has(m.control | m.space), class & SPACE != 0, "{byte:#x}");
                assert_eq!(has(m.space), byte == b' ', "{byte:#x}");
            }
        }
    }

    #[test]
    fn a_window_ends_at_the_first_non_ascii_byte_or_the_end_of_the_text() {
        assert_eq!(Masks::at(b"ab 1", 0).len, 4);
        assert_eq!(Masks::at("ab\u{e9}cd".as_bytes(), 0).len, 2);
        assert_eq!(Masks::at(b"abcdefgh", 8).len, 0);
    }

    /// Every piece of `text`, through the windows and through the scalar path alone.
    fn both<P: Split>(text: &str) -> (Vec<usize>, Vec<usize>) {
        let (mut masked, mut scalar) = (vec![], vec![]);
        let mut block = Block::EMPTY;
        let mut p = 0;
        while p < text.len() {
            p = next_end_masked::<P>(text, p, &mut block);
            masked.push(p);
        }
        p = 0;
        while p < text.len() {
            p = next_end::<P>(text, p);
            scalar.push(p);
        }
        (masked, scalar)
    }

    #[test]
    fn windows_split_random_texts_as_the_scalar_path_does() {
        // Bytes and sequences that meet every rule: case changes, digit runs, punctuation runs
        // and their newline (and `/`) tails, whitespace runs with and without newlines, the
        // undecided apostrophe and non-ASCII letters, digits, punctuation and spaces.
        const PARTS: [&str; 26] = [
            "a", "b", "Z", "Q", "x", "1", "2", " ", " ", "  ", "\n", "\r\n", "\t", "\x0b", ".",
            ",", "/", "(", "'", "'s", "\u{e9}", "\u{4e00}", "\u{a0}", "\u{660}", "\u{3002}", "--",
        ];
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        for round in 0..20_000 {
            let n = (next() % 160) as usize;
            let mut text = String::new();
            for _ in 0..n {
                // Mostly ASCII letters and spaces, as text is.
                let r = next();
                let part = if r % 3 == 0 {
                    PARTS[(r >> 8) as usize % PARTS.len()]
                } else {
                    PARTS[(r >> 8) as usize % 10]
                };
                text.push_str(part);
            }
            let (masked, scalar) = both::<O200k>(&text);
            assert_eq!(masked, scalar, "o200k, round {round}: {text:?}");
            let (masked, scalar) = both::<Cl100k>(&text);
            assert_eq!(masked, scalar, "cl100k, round {round}: {text:?}");
        }
    }

    #[test]
    fn windows_split_known_texts_as_the_scalar_path_does() {
        for text in [
            "Hello world, it's 12345 o'clock.\n\n  fn main() {\r\n\tlet x = a/b; // ok\n}\n",
            "HTTPServer fooBar ABCdef aBc 1.5x ..b .b  .b \t.b x./b x.\n/b .\n\n  foo",
            "a  \n  b\n \n x\n\n\n   \t  y  ",
            "  ",
            ".\n",
        ] {
            let (masked, scalar) = both::<O200k>(text);
            assert_eq!(masked, scalar, "o200k: {text:?}");
            let (masked, scalar) = both::<Cl100k>(text);
            assert_eq!(masked, scalar, "cl100k: {text:?}");
        }
    }
}
