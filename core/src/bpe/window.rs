//! Long pieces merged window by window, so that a megabyte with no break
//! costs a window's worth of working memory instead of tens of bytes per byte.
//!
//! Why the result stays exact (the argument of GitHub's `bpe` crate): call a
//! token sequence *valid* when BPE, run on its bytes, gives it back. Every
//! text has exactly one valid sequence, its encoding; any run of consecutive
//! tokens of a valid sequence is valid; and two valid sequences joined end to
//! end are valid when the pair of tokens at the junction is — when BPE
//! encodes the bytes of those two tokens as exactly those two tokens.
//!
//! So a long piece is merged in windows: each window's encoding is cut at a
//! token boundary a margin before the window's end (the tokens before the cut
//! form a valid sequence for their bytes), the next window starts at the cut,
//! and the junction pair is checked. A junction that fails moves the next
//! window's start back over a few more of the kept tokens (1, 2, 4, …) until
//! it passes; if that runs out, or the windows re-read more than a few times
//! the piece's bytes, the piece is merged whole after all. Whatever path is
//! taken, every junction of the output was checked, so the output is the
//! piece's encoding; and the bytes merged stay linear in the piece.

use super::merge::{merge, Scratch};
use super::sink::Sink;
use super::vocab::Vocabulary;
use super::OutOfMemory;

/// Window and margin sizes, in bytes.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Shape {
    /// Bytes merged at once.
    pub(crate) window: usize,
    /// Bytes at a window's end whose tokens are not kept (the next window redoes them).
    pub(crate) margin: usize,
}

/// The shape the encoders use: a window's parts and tree fit in the L2 cache.
pub(crate) const SHAPE: Shape = Shape {
    window: 4096,
    margin: 128,
};

/// Puts the tokens of `piece` (longer than a window) into `sink`.
pub(crate) fn encode_long(
    vocab: &Vocabulary,
    piece: &[u8],
    sink: &mut impl Sink,
    scratch: &mut Scratch,
    shape: Shape,
) -> Result<(), OutOfMemory> {
    let mut window = std::mem::take(&mut scratch.window);
    let mut recent = std::mem::take(&mut scratch.recent);
    let done = windows(vocab, piece, sink, scratch, shape, &mut window, &mut recent);
    scratch.window = window;
    scratch.recent = recent;
    if !done? {
        scratch.stats.fallbacks += 1;
        let mut whole = Vec::new();
        OutOfMemory::reserve(&mut whole, piece.len() / 2 + 1)?;
        merge(vocab, piece, &mut whole, scratch)?;
        scratch.note_peak(whole.capacity() * std::mem::size_of::<u32>());
        sink.put(&whole)?;
    }
    Ok(())
}

/// The windowed merge; false (with `sink` rolled back to where it was) when the piece must be merged whole.
fn windows(
    vocab: &Vocabulary,
    piece: &[u8],
    sink: &mut impl Sink,
    scratch: &mut Scratch,
    shape: Shape,
    window: &mut Vec<u32>,
    recent: &mut Vec<u32>,
) -> Result<bool, OutOfMemory> {
    let n = piece.len();
    let start_mark = sink.mark();
    // Bytes the windows may merge before the piece is merged whole instead.
    let mut budget = 4 * n + shape.window;
    // The tokens kept from the last window, and the token before them.
    recent.clear();
    let mut before: Option<u32> = None;
    let mut pos = 0usize;
    let mut back = 0usize;
    // Where in the piece `window`'s tokens were merged from.
    let mut last_bytes: Option<(usize, usize)> = None;
    while pos < n {
        let end = (pos + shape.window).min(n);
        if end - pos > budget {
            sink.rollback(start_mark);
            return Ok(false);
        }
        budget -= end - pos;
        let bytes = &piece[pos..end];
        // A run of one byte (or any repeating content) gives the same window again: keep its tokens.
        let same = last_bytes.is_some_and(|(a, b)| piece[a..b] == *bytes);
        if !same {
            window.clear();
            merge(vocab, bytes, window, scratch)?;
            scratch.stats.windows += 1;
            last_bytes = Some((pos, end));
        }
        let first = window[0];
        if let Some(last) = recent.last().copied().or(before) {
            if !scratch.compatible(vocab, last, first) {
                // The cut was not a boundary of the piece's encoding: start the window earlier.
                scratch.stats.repairs += 1;
                back = (back * 2).max(1);
                if back >= recent.len() {
                    sink.rollback(start_mark);
                    return Ok(false);
                }
                let keep = recent.len() - back;
                pos -= recent[keep..]
                    .iter()
                    .map(|&t| vocab.token_len(t))
                    .sum::<usize>();
                sink.rollback(sink.mark() - back);
                recent.truncate(keep);
                continue;
            }
        }
        back = 0;
        // Keep the tokens that end at least a margin before the window's end (all, at the piece's end).
        let (take, taken_bytes) = if end == n {
            (window.len(), end - pos)
        } else {
            let limit = end.saturating_sub(shape.margin);
            let mut at = pos;
            let mut k = 0;
            while let Some(&t) = window.get(k) {
                let len = vocab.token_len(t);
                if at + len > limit && k > 0 {
                    break;
                }
                at += len;
                k += 1;
            }
            (k, at - pos)
        };
        sink.put(&window[..take])?;
        before = recent.last().copied().or(before);
        recent.clear();
        OutOfMemory::reserve(recent, take)?;
        recent.extend_from_slice(&window[..take]);
        pos += taken_bytes;
        scratch.note_peak(0);
    }
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bpe::sink::Count;

    /// The piece merged whole, for comparison.
    fn whole(vocab: &Vocabulary, piece: &[u8]) -> Vec<u32> {
        let mut scratch = Scratch::default();
        let mut out = Vec::new();
        merge(vocab, piece, &mut out, &mut scratch).expect("fits in memory");
        out
    }

    fn windowed(vocab: &Vocabulary, piece: &[u8], shape: Shape) -> (Vec<u32>, Scratch) {
        let mut scratch = Scratch::default();
        let mut out = Vec::new();
        encode_long(vocab, piece, &mut out, &mut scratch, shape).expect("fits in memory");
        let mut count = Count::default();
        encode_long(vocab, piece, &mut count, &mut Scratch::default(), shape)
            .expect("fits in memory");
        assert_eq!(count.0, out.len(), "count and encode agree");
        (out, scratch)
    }

    fn xorshift(seed: &mut u64) -> u64 {
        *seed ^= *seed << 13;
        *seed ^= *seed >> 7;
        *seed ^= *seed << 17;
        *seed
    }

    /// Long runs of the kinds the pre-tokenizers leave whole.
    fn runs() -> Vec<(&'static str, Vec<u8>)> {
        let mut seed = 11u64;
        let mut pick = |alphabet: &[u8], n: usize| -> Vec<u8> {
            (0..n)
                .map(|_| alphabet[(xorshift(&mut seed) % alphabet.len() as u64) as usize])
                .collect()
        };
        let letters = pick(b"abcdefghijklmnopqrstuvwxyz", 6000);
        let base64 = pick(
            b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/",
            6000,
        );
        let few = pick(b"ab", 6000);
        let cjk: Vec<u8> = "上下文治理压缩检查点预览附件读取按需分层统一我们的设计文档说明"
            .chars()
            .cycle()
            .take(2000)
            .collect::<String>()
            .into_bytes();
        let words: Vec<u8> = ["context", "window", "token", "budget", "naïve", "the"]
            .iter()
            .cycle()
            .take(900)
            .flat_map(|w| w.bytes())
            .collect();
        vec![
            ("spaces", vec![b' '; 5000]),
            ("newlines", vec![b'\n'; 5000]),
            ("a", vec![b'a'; 5001]),
            ("letters", letters),
            ("base64", base64),
            ("ab", few),
            ("cjk", cjk),
            ("words", words),
        ]
    }

    #[test]
    fn windows_of_every_size_match_the_whole_merge() {
        let vocab = &crate::bpe::o200k_base().vocab;
        for (name, piece) in runs() {
            let want = whole(vocab, &piece);
            for (window, margin) in [(300, 8), (300, 128), (1024, 0), (1024, 64), (8192, 128)] {
                let (got, _) = windowed(vocab, &piece, Shape { window, margin });
                assert_eq!(got, want, "{name}: window {window}, margin {margin}");
            }
        }
    }

    #[test]
    fn junctions_that_fail_are_repaired_or_merged_whole() {
        // With no margin, cuts fall where the window's end decided them: many junctions fail.
        let vocab = &crate::bpe::o200k_base().vocab;
        let (mut repairs, mut fallbacks) = (0, 0);
        for (name, piece) in runs() {
            // Windows of a few tokens run out of tokens to move back over: those pieces fall back.
            for window in [8, 12, 16, 300] {
                let (got, scratch) = windowed(vocab, &piece, Shape { window, margin: 0 });
                assert_eq!(got, whole(vocab, &piece), "{name}, window {window}");
                repairs += scratch.stats.repairs;
                fallbacks += scratch.stats.fallbacks;
            }
        }
        assert!(
            repairs > 0,
            "no junction failed: the repair path went untested"
        );
        assert!(fallbacks > 0, "no piece fell back: that path went untested");
    }

    #[test]
    fn a_pair_that_merges_further_is_no_junction() {
        let vocab = &crate::bpe::o200k_base().vocab;
        let rank = |s: &str| {
            let t = whole(vocab, s.as_bytes());
            assert_eq!(t.len(), 1, "{s:?} is a token of o200k");
            t[0]
        };
        let mut scratch = Scratch::default();
        assert_eq!(whole(vocab, b"abc"), vec![rank("abc")]);
        assert!(!scratch.compatible(vocab, rank("ab"), rank("c")));
        assert_eq!(
            whole(vocab, b"the window"),
            vec![rank("the"), rank(" window")]
        );
        assert!(scratch.compatible(vocab, rank("the"), rank(" window")));
    }
}
