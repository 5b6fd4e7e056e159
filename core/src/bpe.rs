//! ctxguard's own BPE engine: tiktoken's exact output, with no start-up
//! parsing and linear-time behaviour on adversarial input.
//!
//! - The vocabularies are generated at build time from tiktoken-rs's data
//!   (`build.rs`): o200k as each token's parents (the two tokens BPE merges
//!   it from), cl100k and r50k as references into o200k and cl100k
//!   (`tables`), embedded with `include_bytes!`. Start-up fills a table from
//!   parent pairs to tokens (O(vocabulary), no hashing of bytes, `vocab`);
//!   for cl100k and r50k the parents are found first by merging each token's
//!   bytes with the merges before it.
//! - Pre-tokenization is hand-written (`pretokenize`) instead of a regex.
//! - Merging follows tiktoken's rule: a scan for short pieces, a tournament
//!   tree for longer ones (`merge`); every merge is one probe of the parents
//!   table, since every token is the BPE of its own bytes (so no whole-piece
//!   lookup is needed either). Pieces longer than a window are merged window
//!   by window with checked junctions (`window`), so one count's working
//!   memory stays bounded whatever the text.
//! - Each encoder keeps a bounded cache of encoded pieces across calls
//!   (`memo`, at most 4 MiB), made for the first long text.
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
use std::sync::{LazyLock, Mutex, TryLockError};
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

/// A tokenizer: a vocabulary, its pre-tokenizer, and its piece cache.
#[derive(Debug)]
pub struct Encoder {
    vocab: Vocabulary,
    pattern: Pattern,
    /// Kept across calls (bounded: see [`memo`]); a call that finds it taken
    /// by another thread uses a cache of its own.
    cache: Mutex<Cache>,
}

/// The shared piece cache and how much text went through the encoder before it was made.
#[derive(Debug, Default)]
struct Cache {
    pieces: memo::PieceCache,
    counted: usize,
}

/// A text this long, or this many bytes counted in all, makes the piece cache.
const CACHE_FROM: usize = 4096;
const CACHE_AFTER: usize = 64 << 10;
/// Bytes of text encoded per call of `Encoder::run_span`.
const SPAN: usize = 16 << 10;
/// Bytes between two [`Mark`]s of [`Encoder::count_marked`] (about).
const MARK_SPAN: usize = 4 << 10;
/// The fewest bytes a run that stops after some tokens encodes per span.
const MIN_STEP: usize = 64;

const NONE: u32 = u32::MAX;

/// [`Encoder::run_span`] for one pre-tokenizer and sink.
type SpanFn<S> = fn(
    &Encoder,
    &str,
    usize,
    &mut RunState,
    &mut memo::PieceCache,
    &mut S,
    &mut merge::Scratch,
) -> Result<(), OutOfMemory>;

/// A piece boundary that a count of a text passed: its byte offset and the
/// number of tokens before it. Encoding the text from there gives exactly the
/// rest of its tokens, since a piece's end depends only on the text and the
/// byte where the piece starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Mark {
    pub(crate) byte: usize,
    pub(crate) tokens: usize,
}

/// Where a run of [`Encoder::run_from`] starts and stops, and what it records.
struct Reach<'m> {
    /// A piece boundary of the text (0, or a [`Mark`]'s byte).
    from: usize,
    /// The run stops after the first span that leaves this many tokens in its
    /// sink; its spans are then no longer than the tokens still wanted (a
    /// token has a byte at least), so it stops a few pieces after them.
    stop_after: usize,
    /// Bytes per span.
    span: usize,
    /// Receives a [`Mark`] after every span (tokens counted from `from`).
    marks: Option<&'m mut Vec<Mark>>,
}

impl Reach<'_> {
    const WHOLE: Reach<'static> = Reach {
        from: 0,
        stop_after: usize::MAX,
        span: SPAN,
        marks: None,
    };
}

/// What encoding one text carries from span to span.
struct RunState {
    /// The tokens of the piece being merged.
    tokens: Vec<u32>,
    /// Bytes of text taken so far (the text's length once the pieces ran out).
    at: usize,
}

impl Encoder {
    fn new(vocab: Vocabulary, pattern: Pattern) -> Self {
        Encoder {
            vocab,
            pattern,
            cache: Mutex::new(Cache::default()),
        }
    }

    /// The encoder's pre-tokenizer (tests check `Encoding::pattern` against it).
    #[cfg(test)]
    pub(crate) fn pattern(&self) -> Pattern {
        self.pattern
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
        self.run(text, &mut out, &mut merge::Scratch::default())?;
        Ok(out)
    }

    /// [`Self::count_ordinary`], or [`crate::Error::OutOfMemory`] when a buffer cannot grow.
    ///
    /// Memory: the encoder's piece cache, made for the first long text and
    /// kept (at most 4 MiB per encoding, see [`memo`]), and the working memory
    /// of one count, bounded by a constant whatever the text's length or its
    /// longest piece — about 120 KB for merging one window of a long piece —
    /// and freed when the count returns.
    pub fn try_count_ordinary(&self, text: &str) -> crate::Result<usize> {
        let mut count = Count::default();
        self.run(text, &mut count, &mut merge::Scratch::default())?;
        Ok(count.0)
    }

    /// The number of tokens of `text` and a [`Mark`] every [`MARK_SPAN`] bytes or so
    /// (the last one at the text's end), for [`Self::encode_from`].
    pub(crate) fn count_marked(&self, text: &str) -> crate::Result<(usize, Vec<Mark>)> {
        let mut count = Count::default();
        let mut marks = Vec::new();
        OutOfMemory::reserve(&mut marks, text.len() / MARK_SPAN + 1)?;
        let reach = Reach {
            span: MARK_SPAN,
            marks: Some(&mut marks),
            ..Reach::WHOLE
        };
        self.run_from(text, reach, &mut count, &mut merge::Scratch::default())?;
        Ok((count.0, marks))
    }

    /// The tokens of `text` from the piece boundary `from` on (0 or a
    /// [`Mark`]'s byte), stopping once at least `at_least` tokens are had (a
    /// few pieces later at most; the whole rest when `at_least` is
    /// `usize::MAX`). They are the encoding's tokens from that boundary on.
    pub(crate) fn encode_from(
        &self,
        text: &str,
        from: usize,
        at_least: usize,
    ) -> crate::Result<Vec<u32>> {
        let mut out = Vec::new();
        let reach = Reach {
            from,
            stop_after: at_least,
            ..Reach::WHOLE
        };
        self.run_from(text, reach, &mut out, &mut merge::Scratch::default())?;
        Ok(out)
    }

    /// Encodes `text` piece by piece into `sink`, through the encoder's piece
    /// cache when the text is long enough to repeat itself, or when the cache
    /// is there already.
    fn run(
        &self,
        text: &str,
        sink: &mut impl Sink,
        scratch: &mut merge::Scratch,
    ) -> Result<(), OutOfMemory> {
        self.run_from(text, Reach::WHOLE, sink, scratch)
    }

    /// [`Self::run`] within `reach`.
    fn run_from(
        &self,
        text: &str,
        reach: Reach,
        sink: &mut impl Sink,
        scratch: &mut merge::Scratch,
    ) -> Result<(), OutOfMemory> {
        let mut own = Cache::default();
        let mut shared = match self.cache.try_lock() {
            Ok(guard) => Some(guard),
            Err(TryLockError::Poisoned(p)) => {
                let mut guard = p.into_inner();
                *guard = Cache::default();
                Some(guard)
            }
            Err(TryLockError::WouldBlock) => None,
        };
        let cache = match shared.as_deref_mut() {
            Some(c) => c,
            None => &mut own,
        };
        let len = text.len().saturating_sub(reach.from);
        cache.counted = cache.counted.saturating_add(len);
        if len >= CACHE_FROM || cache.counted >= CACHE_AFTER {
            cache.pieces.prepare(len)?;
        }
        match self.pattern {
            Pattern::O200k => {
                self.run_with::<pretokenize::O200k>(text, reach, cache, sink, scratch)
            }
            Pattern::Cl100k => {
                self.run_with::<pretokenize::Cl100k>(text, reach, cache, sink, scratch)
            }
            Pattern::Gpt2 => self.run_with::<pretokenize::Gpt2>(text, reach, cache, sink, scratch),
        }
    }

    /// [`Self::run`] under the pre-tokenizer `P`.
    fn run_with<P: pretokenize::Split>(
        &self,
        text: &str,
        mut reach: Reach,
        cache: &mut Cache,
        sink: &mut impl Sink,
        scratch: &mut merge::Scratch,
    ) -> Result<(), OutOfMemory> {
        let pieces = &mut cache.pieces;
        let mut state = RunState {
            tokens: Vec::new(),
            at: reach.from,
        };
        // The span function is called through a pointer the optimisers cannot
        // see through, so that neither LLVM nor wasm-opt inlines it here: a
        // wasm JIT without on-stack replacement (V8) can then move a long text
        // to the optimised code between spans.
        let span: SpanFn<_> = if pieces.is_ready() {
            Self::run_span::<P, true, _>
        } else {
            Self::run_span::<P, false, _>
        };
        let span = std::hint::black_box(span);
        while state.at < text.len() && sink.mark() < reach.stop_after {
            let step = reach.span.min(reach.stop_after - sink.mark()).max(MIN_STEP);
            let until = state.at.saturating_add(step);
            span(self, text, until, &mut state, pieces, sink, scratch)?;
            if let Some(marks) = reach.marks.as_deref_mut() {
                OutOfMemory::reserve(marks, 1)?;
                marks.push(Mark {
                    byte: state.at,
                    tokens: sink.mark(),
                });
            }
        }
        let held = state.tokens.capacity() * std::mem::size_of::<u32>();
        scratch.note_peak(held);
        Ok(())
    }

    /// Encodes the pieces that start before byte `until`. A call of its own
    /// (not inlined into [`Self::run`]) so that a JIT that compiles a wasm
    /// function better after its first calls (V8's tiering) speeds up the rest
    /// of a long text, not only the next one.
    #[inline(never)]
    fn run_span<P: pretokenize::Split, const CACHED: bool, S: Sink>(
        &self,
        text: &str,
        until: usize,
        state: &mut RunState,
        cache: &mut memo::PieceCache,
        sink: &mut S,
        scratch: &mut merge::Scratch,
    ) -> Result<(), OutOfMemory> {
        let vocab = &self.vocab;
        let bytes = text.as_bytes();
        let RunState { tokens, at } = state;
        let mut p = *at;
        let stop = until.min(bytes.len());
        while p < stop {
            let e = pretokenize::next_end::<P>(text, p);
            let start = p;
            p = e;
            let Some(pb) = bytes.get(start..e) else { break };
            match *pb {
                [b] => {
                    sink.put(&[vocab.byte_rank(b)])?;
                    continue;
                }
                [a, b] => {
                    let r = vocab.pair_rank(a, b);
                    if r != NONE {
                        sink.put(&[r])?;
                    } else {
                        sink.put(&[vocab.byte_rank(a), vocab.byte_rank(b)])?;
                    }
                    continue;
                }
                _ => {}
            }
            let probe = if CACHED && pb.len() <= memo::MAX_PIECE {
                match cache.get(bytes, start, pb.len()) {
                    Ok(hit) => {
                        sink.put(hit)?;
                        continue;
                    }
                    Err(probe) => Some(probe),
                }
            } else {
                None
            };
            if pb.len() > window::SHAPE.window {
                window::encode_long(vocab, pb, sink, scratch, window::SHAPE)?;
                continue;
            }
            tokens.clear();
            merge::merge(vocab, pb, tokens, scratch)?;
            if let Some(probe) = probe {
                cache.put(probe, pb, tokens)?;
            }
            sink.put(tokens)?;
        }
        *at = p.max(stop);
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
pub(crate) fn out_of_memory<T>(e: crate::Error) -> T {
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

static O200K_TABLE: &[u8] = table!("o200k_base.parents");
static CL100K_TABLE: &[u8] = table!("cl100k_base.derived");
static R50K_TABLE: &[u8] = table!("r50k_base.derived");
static P50K_EXTRA: &[u8] = table!("p50k_extra.vocab");

fn cl100k_tokens() -> Tokens {
    Tokens::derived(CL100K_TABLE, &tables::Parents::parse(O200K_TABLE).tokens())
}

fn r50k_tokens() -> Tokens {
    Tokens::derived(R50K_TABLE, &cl100k_tokens())
}

static O200K: LazyLock<Encoder> =
    LazyLock::new(|| Encoder::new(Vocabulary::from_parents(O200K_TABLE), Pattern::O200k));
static CL100K: LazyLock<Encoder> =
    LazyLock::new(|| Encoder::new(Vocabulary::from_tokens(cl100k_tokens()), Pattern::Cl100k));
static R50K: LazyLock<Encoder> =
    LazyLock::new(|| Encoder::new(Vocabulary::from_tokens(r50k_tokens()), Pattern::Gpt2));
static P50K: LazyLock<Encoder> = LazyLock::new(|| {
    Encoder::new(
        Vocabulary::from_tokens(r50k_tokens().then(Tokens::plain(P50K_EXTRA))),
        Pattern::Gpt2,
    )
});

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
        let mut scratch = merge::Scratch::default();
        encoder
            .run(text, &mut count, &mut scratch)
            .expect("fits in memory");
        scratch.stats.peak_bytes
    }

    /// One long run with no break used to cost about 60 bytes of memory per byte
    /// (16 MB of spaces grew wasm memory to 980 MB). Its working memory is bounded
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
        // The piece cache kept across calls stays within its bound.
        let cache = encoder.cache.lock().expect("not poisoned").pieces.bytes();
        assert!(cache <= 4 << 20, "{cache} bytes of piece cache");
    }

    #[test]
    fn a_count_that_finds_the_cache_taken_uses_its_own() {
        let encoder = o200k_base();
        let text = "the same words again and again, the same words again. ".repeat(200);
        let oracle = tiktoken_rs::o200k_base_singleton().encode_ordinary(&text);
        let held = encoder.cache.lock().expect("not poisoned");
        assert_eq!(encoder.encode_ordinary(&text), oracle);
        assert_eq!(encoder.count_ordinary(&text), oracle.len());
        drop(held);
        assert_eq!(encoder.encode_ordinary(&text), oracle);
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
                    let mut merged = Vec::new();
                    merge::merge(vocab, mine, &mut merged, &mut merge::Scratch::default())
                        .expect("fits in memory");
                    assert_eq!(merged, [rank], "{name}: merging the bytes of rank {rank}");
                }
            }
        }
    }
}
