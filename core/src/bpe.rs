//! ctxguard's own BPE engine: tiktoken's exact output, with no start-up
//! parsing and linear-time behaviour on adversarial input.
//!
//! - The vocabularies are generated at build time from tiktoken-rs's data
//!   (`build.rs`): o200k as one length byte per rank plus the token bytes in
//!   rank order, cl100k and r50k as references into o200k and cl100k
//!   ([`tables`]), embedded with `include_bytes!`; start-up only fills an
//!   open-addressing table of ranks (O(vocabulary)).
//! - Pre-tokenization is hand-written ([`pretokenize`]) instead of a regex.
//! - Merging follows tiktoken's rule: a scan for short pieces, a radix heap
//!   for long ones ([`merge`], [`queue`]), with per-call memos of pieces
//!   ([`memo`]) and of pairs.
//!
//! tiktoken-rs stays the oracle: the differential tests compare both engines
//! on the conformance corpus and on generated text.

pub mod memo;
pub mod merge;
pub mod pretokenize;
pub mod queue;
pub mod tables;
pub mod unicode;

use pretokenize::Pattern;
use std::borrow::Cow;
use std::sync::LazyLock;
use tables::Tokens;

/// One vocabulary: token bytes by rank, and a rank lookup by bytes.
pub struct Vocabulary {
    data: Cow<'static, [u8]>,
    /// Byte offset of each rank's bytes in `data`; one extra entry at the end.
    offsets: Vec<u32>,
    /// Open-addressing table of `tag << RANK_BITS | (rank + 1)` (0 = empty); the tag is 14 bits of
    /// the key's hash, so most probes of a non-token are rejected without reading token bytes.
    table: Vec<u32>,
    mask: usize,
    max_token_len: usize,
    /// Rank of every two-byte token by `(b0 << 8) | b1`, `u32::MAX` when none: merges start with these.
    pairs: Vec<u32>,
    /// Rank of every single byte (`u32::MAX` if a byte were not a token).
    bytes: [u32; 256],
}

impl std::fmt::Debug for Vocabulary {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Vocabulary")
            .field("tokens", &self.len())
            .finish()
    }
}

#[inline]
fn hash(bytes: &[u8]) -> u64 {
    const K: u64 = 0x517c_c1b7_2722_0a95;
    let mut h = bytes.len() as u64;
    let mut chunks = bytes.chunks_exact(8);
    for c in &mut chunks {
        let w = u64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]);
        h = (h.rotate_left(5) ^ w).wrapping_mul(K);
    }
    let rest = chunks.remainder();
    if !rest.is_empty() {
        // Little-endian, zero-padded; a byte loop rather than a copy (no memcpy call).
        let w = rest
            .iter()
            .enumerate()
            .fold(0u64, |w, (i, &b)| w | u64::from(b) << (8 * i));
        h = (h.rotate_left(5) ^ w).wrapping_mul(K);
    }
    h ^ (h >> 29)
}

/// Byte equality of short slices, eight bytes at a time: inline, where slice
/// equality calls `memcmp` (a byte loop in wasm, a call natively).
#[inline]
pub(crate) fn same_bytes(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    let (mut x, mut y) = (a.chunks_exact(8), b.chunks_exact(8));
    for (p, q) in (&mut x).zip(&mut y) {
        let p = u64::from_le_bytes([p[0], p[1], p[2], p[3], p[4], p[5], p[6], p[7]]);
        let q = u64::from_le_bytes([q[0], q[1], q[2], q[3], q[4], q[5], q[6], q[7]]);
        if p != q {
            return false;
        }
    }
    x.remainder().iter().zip(y.remainder()).all(|(p, q)| p == q)
}

/// Bits of a table slot that hold `rank + 1` (every vocabulary has fewer than 2^18 ranks).
const RANK_BITS: u32 = 18;
const RANK_MASK: u32 = (1 << RANK_BITS) - 1;

/// The slot tag of a hash: bits that the table index (the low bits) does not use.
#[inline]
fn tag(h: u64) -> u32 {
    ((h >> 48) as u32) << RANK_BITS
}

impl Vocabulary {
    /// Builds the lookup over a vocabulary's tokens (see [`tables`]). O(number of tokens).
    fn from_tokens(tokens: Tokens) -> Self {
        let mut offsets = Vec::with_capacity(tokens.lens.len() + 1);
        let mut at = 0u32;
        let mut max_token_len = 0;
        for &len in tokens.lens.iter() {
            offsets.push(at);
            at += u32::from(len);
            max_token_len = max_token_len.max(len as usize);
        }
        offsets.push(at);
        let data = tokens.data;
        let count = offsets.len() - 1;
        assert!(
            count < RANK_MASK as usize,
            "vocabulary of {count} ranks does not fit the table's {RANK_BITS}-bit rank field"
        );
        let slots = (count * 2).next_power_of_two().max(16);
        let mask = slots - 1;
        let mut slots_vec = vec![0u32; slots];
        for rank in 0..count {
            let (a, b) = (offsets[rank] as usize, offsets[rank + 1] as usize);
            if a == b {
                continue; // special token or unused rank
            }
            let h = hash(&data[a..b]);
            let mut i = h as usize & mask;
            while slots_vec[i] != 0 {
                i = (i + 1) & mask;
            }
            slots_vec[i] = tag(h) | (rank as u32 + 1);
        }
        let mut pairs = vec![u32::MAX; 1 << 16];
        let mut bytes = [u32::MAX; 256];
        for rank in 0..count {
            let (a, b) = (offsets[rank] as usize, offsets[rank + 1] as usize);
            match b - a {
                1 => bytes[usize::from(data[a])] = rank as u32,
                2 => pairs[(usize::from(data[a]) << 8) | usize::from(data[a + 1])] = rank as u32,
                _ => {}
            }
        }
        Vocabulary {
            data,
            offsets,
            table: slots_vec,
            mask,
            max_token_len,
            pairs,
            bytes,
        }
    }

    /// Number of ranks (including unused ones).
    pub fn len(&self) -> usize {
        self.offsets.len() - 1
    }

    /// Whether the vocabulary has no tokens.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The bytes of `rank` (empty for unknown ranks).
    #[inline]
    pub fn token_bytes(&self, rank: u32) -> &[u8] {
        let r = rank as usize;
        if r + 1 >= self.offsets.len() {
            return &[];
        }
        &self.data[self.offsets[r] as usize..self.offsets[r + 1] as usize]
    }

    /// The rank of a two-byte sequence, or `u32::MAX`: one array read.
    #[inline]
    pub fn pair_rank(&self, b0: u8, b1: u8) -> u32 {
        self.pairs[(usize::from(b0) << 8) | usize::from(b1)]
    }

    /// The rank of one byte as a token (every byte is one in tiktoken's vocabularies).
    #[inline]
    pub fn byte_rank(&self, b: u8) -> u32 {
        self.bytes[usize::from(b)]
    }

    /// The rank of exactly these bytes, if they are a token.
    #[inline]
    pub fn rank(&self, bytes: &[u8]) -> Option<u32> {
        if bytes.is_empty() || bytes.len() > self.max_token_len {
            return None;
        }
        let h = hash(bytes);
        let want = tag(h);
        let mut i = h as usize & self.mask;
        loop {
            let slot = self.table[i];
            if slot == 0 {
                return None;
            }
            if slot & !RANK_MASK == want {
                let rank = (slot & RANK_MASK) - 1;
                if same_bytes(self.token_bytes(rank), bytes) {
                    return Some(rank);
                }
            }
            i = (i + 1) & self.mask;
        }
    }
}

/// A tokenizer: a vocabulary and its pre-tokenizer.
#[derive(Debug)]
pub struct Encoder {
    vocab: Vocabulary,
    pattern: Pattern,
}

impl Encoder {
    fn new(tokens: Tokens, pattern: Pattern) -> Self {
        Encoder {
            vocab: Vocabulary::from_tokens(tokens),
            pattern,
        }
    }

    /// The vocabulary.
    pub fn vocabulary(&self) -> &Vocabulary {
        &self.vocab
    }

    /// Ordinary encoding (special-token text is plain text), token for token as tiktoken.
    pub fn encode_ordinary(&self, text: &str) -> Vec<u32> {
        let mut out = Vec::with_capacity(text.len() / 3 + 1);
        self.for_each_piece(text, |tokens| out.extend_from_slice(tokens));
        out
    }

    /// Number of tokens of `text`, without collecting them.
    pub fn count_ordinary(&self, text: &str) -> usize {
        let mut count = 0;
        self.for_each_piece(text, |tokens| count += tokens.len());
        count
    }

    /// Encodes `text` piece by piece, handing each piece's tokens to `sink`.
    ///
    /// In texts long enough to repeat themselves, pieces are memoised for the
    /// length of the call ([`memo`]): a repeated word then costs one probe of a
    /// small table instead of a rank lookup or a merge.
    fn for_each_piece(&self, text: &str, mut sink: impl FnMut(&[u32])) {
        /// Below this many bytes a text is counted without the memo (its table would cost more).
        const MEMO_FROM: usize = 4096;
        let mut scratch = merge::Scratch::for_text(text.len());
        let mut tokens: Vec<u32> = Vec::new();
        let mut memo = memo::PieceMemo::default();
        let memoise = text.len() >= MEMO_FROM && text.len() <= u32::MAX as usize;
        let bytes = text.as_bytes();
        let mut at = 0usize;
        for piece in pretokenize::pieces(text, self.pattern) {
            let start = at;
            at += piece.len();
            let pb = piece.as_bytes();
            let probe = if memoise && pb.len() <= memo::MAX_PIECE {
                match memo.get(bytes, start, pb) {
                    Ok(hit) => {
                        sink(hit);
                        continue;
                    }
                    Err(probe) => Some(probe),
                }
            } else {
                None
            };
            tokens.clear();
            match self.vocab.rank(pb) {
                Some(r) => tokens.push(r),
                None => merge::encode_piece(&self.vocab, pb, &mut tokens, &mut scratch),
            }
            if let Some(probe) = probe {
                memo.put(probe, &tokens);
            }
            sink(&tokens);
        }
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
