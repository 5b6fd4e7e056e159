//! ctxguard's own BPE engine: tiktoken's exact output, with no start-up
//! parsing and linear-time behaviour on adversarial input.
//!
//! - The vocabularies are generated at build time from tiktoken-rs's data
//!   (`build.rs`): o200k as one length byte per rank plus the token bytes in
//!   rank order, cl100k and r50k as references into o200k and cl100k
//!   (`tables`), embedded with `include_bytes!`; start-up only fills an
//!   open-addressing table of ranks (O(vocabulary), `vocab`).
//! - Pre-tokenization is hand-written (`pretokenize`) instead of a regex.
//! - Merging follows tiktoken's rule: a scan for short pieces, a tournament
//!   tree for longer ones (`merge`), with per-call memos of pieces
//!   (`memo`) and of pairs; pieces longer than a window are merged window by
//!   window with checked junctions (`window`), so one count's working memory
//!   stays bounded whatever the text.
//!
//! Only [`Encoder`] and the four shared encoders are public. tiktoken-rs stays
//! the oracle: the differential tests compare both engines on the conformance
//! corpus and on generated text.

mod memo;
mod merge;
pub(crate) mod pretokenize;
mod sink;
mod tables;
pub(crate) mod unicode;
mod vocab;
mod window;

use pretokenize::Pattern;
use sink::{Count, Sink};
use std::sync::LazyLock;
use tables::Tokens;
use vocab::Vocabulary;

/// A buffer of the engine could not grow: how many bytes it asked for in all.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct OutOfMemory {
    pub(crate) bytes: usize,
}

impl OutOfMemory {
    /// Makes room for `additional` more items in `v` (growing it as `Vec` does), or says what was refused.
    #[inline]
    pub(crate) fn reserve<T>(v: &mut Vec<T>, additional: usize) -> Result<(), OutOfMemory> {
        if v.capacity() - v.len() >= additional {
            return Ok(());
        }
        v.try_reserve(additional).map_err(|_| OutOfMemory {
            bytes: v
                .len()
                .saturating_add(additional)
                .saturating_mul(std::mem::size_of::<T>()),
        })
    }
}

impl From<OutOfMemory> for crate::Error {
    fn from(e: OutOfMemory) -> Self {
        crate::Error::OutOfMemory { bytes: e.bytes }
    }
}

/// A tokenizer: a vocabulary and its pre-tokenizer.
#[derive(Debug)]
pub struct Encoder {
    vocab: Vocabulary,
    pattern: Pattern,
}

/// Below this many bytes a text is counted without the piece memo (its table would cost more).
const MEMO_FROM: usize = 4096;
/// Bytes of text encoded per call of `Encoder::run_span`.
const SPAN: usize = 16 << 10;

/// What encoding one text carries from span to span.
struct RunState {
    /// The tokens of the piece being merged.
    tokens: Vec<u32>,
    memo: memo::PieceMemo,
    memoise: bool,
    /// Where the next piece starts.
    at: usize,
}

impl Encoder {
    fn new(tokens: Tokens, pattern: Pattern) -> Self {
        Encoder {
            vocab: Vocabulary::from_tokens(tokens),
            pattern,
        }
    }

    /// Ordinary encoding (special-token text is plain text), token for token as tiktoken.
    ///
    /// Aborts, as a `Vec` that cannot grow does, if memory runs out; see [`Self::try_encode_ordinary`].
    pub fn encode_ordinary(&self, text: &str) -> Vec<u32> {
        self.try_encode_ordinary(text).unwrap_or_else(out_of_memory)
    }

    /// Number of tokens of `text`, without collecting them.
    ///
    /// Aborts, as a `Vec` that cannot grow does, if memory runs out; see [`Self::try_count_ordinary`].
    pub fn count_ordinary(&self, text: &str) -> usize {
        self.try_count_ordinary(text).unwrap_or_else(out_of_memory)
    }

    /// [`Self::encode_ordinary`], or [`crate::Error::OutOfMemory`] when a buffer cannot grow.
    pub fn try_encode_ordinary(&self, text: &str) -> crate::Result<Vec<u32>> {
        let mut out = Vec::new();
        OutOfMemory::reserve(&mut out, text.len() / 4 + 1)?;
        self.run(text, &mut out, &mut merge::Scratch::for_text(text.len()))?;
        Ok(out)
    }

    /// [`Self::count_ordinary`], or [`crate::Error::OutOfMemory`] when a buffer cannot grow.
    ///
    /// The working memory of one count is bounded by a constant whatever the
    /// text's length or its longest piece — at most about 6 MB: 1 MB of piece
    /// memo slots, 1 MB of pair memo slots, up to 4 MB of memoised tokens, and
    /// about 120 KB for merging one window of a long piece — and it is freed
    /// when the count returns.
    pub fn try_count_ordinary(&self, text: &str) -> crate::Result<usize> {
        let mut count = Count::default();
        self.run(text, &mut count, &mut merge::Scratch::for_text(text.len()))?;
        Ok(count.0)
    }

    /// Encodes `text` piece by piece into `sink`.
    ///
    /// In texts long enough to repeat themselves, pieces are memoised for the
    /// length of the call ([`memo`]): a repeated word then costs one probe of a
    /// small table instead of a rank lookup or a merge.
    fn run(
        &self,
        text: &str,
        sink: &mut impl Sink,
        scratch: &mut merge::Scratch,
    ) -> Result<(), OutOfMemory> {
        let mut state = RunState {
            tokens: Vec::new(),
            memo: memo::PieceMemo::for_text(text.len()),
            memoise: text.len() >= MEMO_FROM && text.len() <= u32::MAX as usize,
            at: 0,
        };
        let mut pieces = pretokenize::pieces(text, self.pattern);
        while state.at < text.len() {
            let until = state.at + SPAN;
            self.run_span(text, &mut pieces, until, &mut state, sink, scratch)?;
        }
        let held = state.memo.bytes() + state.tokens.capacity() * std::mem::size_of::<u32>();
        scratch.note_peak(held);
        Ok(())
    }

    /// Encodes the pieces that start before byte `until`. A call of its own
    /// (not inlined into [`Self::run`]) so that a JIT that compiles a wasm
    /// function better after its first calls (V8's tiering) speeds up the rest
    /// of a long text, not only the next one.
    #[inline(never)]
    fn run_span(
        &self,
        text: &str,
        pieces: &mut pretokenize::Pieces<'_>,
        until: usize,
        state: &mut RunState,
        sink: &mut impl Sink,
        scratch: &mut merge::Scratch,
    ) -> Result<(), OutOfMemory> {
        let bytes = text.as_bytes();
        let RunState {
            tokens,
            memo,
            memoise,
            at,
        } = state;
        while *at < until {
            let Some(pb) = pieces.next() else {
                *at = text.len();
                break;
            };
            let start = *at;
            *at += pb.len();
            let probe = if *memoise && pb.len() <= memo::MAX_PIECE {
                match memo.get(bytes, start, pb)? {
                    Ok(hit) => {
                        sink.put(hit)?;
                        continue;
                    }
                    Err(probe) => Some(probe),
                }
            } else {
                None
            };
            if let Some(r) = self.vocab.rank(pb) {
                sink.put(&[r])?;
                if let Some(probe) = probe {
                    memo.put(probe, &[r])?;
                }
                continue;
            }
            if pb.len() > window::SHAPE.window {
                window::encode_long(&self.vocab, pb, sink, scratch, window::SHAPE)?;
                continue;
            }
            tokens.clear();
            merge::merge(&self.vocab, pb, tokens, scratch)?;
            if let Some(probe) = probe {
                memo.put(probe, tokens)?;
            }
            sink.put(tokens)?;
        }
        Ok(())
    }

    /// The bytes of a token sequence (may split a UTF-8 character at either end).
    pub fn decode_bytes(&self, tokens: &[u32]) -> Vec<u8> {
        let mut out = Vec::with_capacity(tokens.len() * 4);
        for &t in tokens {
            out.extend_from_slice(self.vocab.token_bytes(t));
        }
        out
    }
}

/// What `Vec` does when it cannot grow: report the size and abort.
fn out_of_memory<T>(e: crate::Error) -> T {
    let bytes = match e {
        crate::Error::OutOfMemory { bytes } => bytes,
        _ => 0,
    };
    let layout = std::alloc::Layout::array::<u8>(bytes).unwrap_or(std::alloc::Layout::new::<u8>());
    std::alloc::handle_alloc_error(layout)
}

macro_rules! table {
    ($file:literal) => {
        include_bytes!(concat!(env!("OUT_DIR"), "/", $file))
    };
}

static O200K_TABLE: &[u8] = table!("o200k_base.vocab");
static CL100K_TABLE: &[u8] = table!("cl100k_base.derived");
static R50K_TABLE: &[u8] = table!("r50k_base.derived");
static P50K_EXTRA: &[u8] = table!("p50k_extra.vocab");

fn cl100k_tokens() -> Tokens {
    Tokens::derived(CL100K_TABLE, &Tokens::plain(O200K_TABLE))
}

fn r50k_tokens() -> Tokens {
    Tokens::derived(R50K_TABLE, &cl100k_tokens())
}

static O200K: LazyLock<Encoder> =
    LazyLock::new(|| Encoder::new(Tokens::plain(O200K_TABLE), Pattern::O200k));
static CL100K: LazyLock<Encoder> = LazyLock::new(|| Encoder::new(cl100k_tokens(), Pattern::Cl100k));
static R50K: LazyLock<Encoder> = LazyLock::new(|| Encoder::new(r50k_tokens(), Pattern::Gpt2));
static P50K: LazyLock<Encoder> =
    LazyLock::new(|| Encoder::new(r50k_tokens().then(Tokens::plain(P50K_EXTRA)), Pattern::Gpt2));

/// The shared o200k_base encoder, built on first use.
pub fn o200k_base() -> &'static Encoder {
    &O200K
}

/// The shared cl100k_base encoder, built on first use.
pub fn cl100k_base() -> &'static Encoder {
    &CL100K
}

/// The shared p50k_base encoder, built on first use.
pub fn p50k_base() -> &'static Encoder {
    &P50K
}

/// The shared r50k_base encoder, built on first use.
pub fn r50k_base() -> &'static Encoder {
    &R50K
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The most bytes the merge buffers and memo held at once while counting `text`.
    fn working_bytes(encoder: &Encoder, text: &str) -> usize {
        let mut count = Count::default();
        let mut scratch = merge::Scratch::for_text(text.len());
        encoder
            .run(text, &mut count, &mut scratch)
            .expect("fits in memory");
        scratch.stats.peak_bytes
    }

    /// Issue 12: one long run with no break cost about 60 bytes of memory per byte
    /// (16 MB of spaces grew wasm memory to 980 MB). Its working memory is now bounded
    /// by a constant: the same at 1 MiB and at 2 MiB (where the per-call memos have
    /// reached their largest size), and a few MB at most.
    #[test]
    fn working_memory_of_a_long_run_does_not_grow_with_it() {
        let encoder = o200k_base();
        let mut seed = 5u64;
        let mut letters = |n: usize| -> String {
            (0..n)
                .map(|_| {
                    seed ^= seed << 13;
                    seed ^= seed >> 7;
                    seed ^= seed << 17;
                    char::from(b'a' + (seed % 26) as u8)
                })
                .collect()
        };
        type Make = fn(usize) -> String;
        let kinds: [(&str, Make); 3] = [
            ("spaces", |n| " ".repeat(n)),
            ("newlines", |n| "\n".repeat(n)),
            ("one letter", |n| "a".repeat(n)),
        ];
        let mut cases: Vec<(String, String, String)> = kinds
            .iter()
            .map(|(name, make)| (name.to_string(), make(1 << 20), make(2 << 20)))
            .collect();
        cases.push(("random letters".into(), letters(1 << 20), letters(2 << 20)));
        for (name, small, large) in cases {
            let (s, l) = (
                working_bytes(encoder, &small),
                working_bytes(encoder, &large),
            );
            assert!(
                l <= 3 << 20 && l <= s + (64 << 10),
                "{name}: {s} bytes of working memory for 1 MiB, {l} for {} MiB",
                large.len() >> 20
            );
        }
    }

    #[test]
    fn every_token_has_the_oracles_bytes() {
        // The embedded tables (plain, derived from another vocabulary, extended) hold tiktoken's tokens.
        let engines: [(&str, &Encoder, &tiktoken_rs::CoreBPE); 4] = [
            (
                "o200k_base",
                o200k_base(),
                tiktoken_rs::o200k_base_singleton(),
            ),
            (
                "cl100k_base",
                cl100k_base(),
                tiktoken_rs::cl100k_base_singleton(),
            ),
            ("p50k_base", p50k_base(), tiktoken_rs::p50k_base_singleton()),
            ("r50k_base", r50k_base(), tiktoken_rs::r50k_base_singleton()),
        ];
        for (name, ours, oracle) in engines {
            let specials: Vec<Vec<u8>> = oracle
                .special_tokens()
                .iter()
                .map(|s| s.as_bytes().to_vec())
                .collect();
            let vocab = &ours.vocab;
            for rank in 0..vocab.len() as u32 {
                let theirs = oracle
                    .decode_bytes(&[rank])
                    .ok()
                    .filter(|b| !specials.contains(b));
                let mine = vocab.token_bytes(rank);
                assert_eq!(
                    theirs.as_deref().unwrap_or_default(),
                    mine,
                    "{name}: rank {rank}"
                );
                assert_eq!(
                    vocab.token_len(rank),
                    mine.len(),
                    "{name}: length of {rank}"
                );
                if !mine.is_empty() {
                    assert_eq!(
                        vocab.rank(mine),
                        Some(rank),
                        "{name}: lookup of rank {rank}"
                    );
                }
            }
        }
    }
}
