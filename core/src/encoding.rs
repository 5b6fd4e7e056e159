//! Which BPE encoding a model id uses: the id is lower-cased, then looked up
//! exactly as Python tiktoken 0.12's `encoding_for_model` looks it up (exact
//! name, then the first prefix); unknown ids fall back to cl100k_base as the
//! reference's token counter does (SPEC §1). No state is carried between
//! calls, so every host gives the same answer for the same id.
//!
//! Each encoding is built on first use and shared for the life of the process,
//! so a page that only ever asks for o200k models never sets up cl100k.

use crate::bpe::pretokenize::Pattern;
use crate::bpe::{self, Encoder};

/// A tiktoken encoding, named as tiktoken names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Encoding {
    /// GPT-4o, GPT-4.1, GPT-5 and the o-series.
    O200kBase,
    /// gpt-oss: o200k ranks and pattern with extra special tokens.
    O200kHarmony,
    /// GPT-4, GPT-3.5 and the fallback for every non-OpenAI model.
    Cl100kBase,
    /// Legacy code and text-davinci-002/003 models.
    P50kBase,
    /// Legacy edit models (p50k ranks).
    P50kEdit,
    /// Legacy GPT-3 models.
    R50kBase,
    /// GPT-2 (r50k ranks).
    Gpt2,
}

// Keep in sync with tiktoken 0.12 `tiktoken/model.py` MODEL_TO_ENCODING.
const EXACT: &[(&str, Encoding)] = &[
    ("o1", Encoding::O200kBase),
    ("o3", Encoding::O200kBase),
    ("o4-mini", Encoding::O200kBase),
    ("gpt-5", Encoding::O200kBase),
    ("gpt-4.1", Encoding::O200kBase),
    ("gpt-4o", Encoding::O200kBase),
    ("gpt-4", Encoding::Cl100kBase),
    ("gpt-3.5-turbo", Encoding::Cl100kBase),
    ("gpt-3.5", Encoding::Cl100kBase),
    ("gpt-35-turbo", Encoding::Cl100kBase),
    ("davinci-002", Encoding::Cl100kBase),
    ("babbage-002", Encoding::Cl100kBase),
    ("text-embedding-ada-002", Encoding::Cl100kBase),
    ("text-embedding-3-small", Encoding::Cl100kBase),
    ("text-embedding-3-large", Encoding::Cl100kBase),
    ("text-davinci-003", Encoding::P50kBase),
    ("text-davinci-002", Encoding::P50kBase),
    ("text-davinci-001", Encoding::R50kBase),
    ("text-curie-001", Encoding::R50kBase),
    ("text-babbage-001", Encoding::R50kBase),
    ("text-ada-001", Encoding::R50kBase),
    ("davinci", Encoding::R50kBase),
    ("curie", Encoding::R50kBase),
    ("babbage", Encoding::R50kBase),
    ("ada", Encoding::R50kBase),
    ("code-davinci-002", Encoding::P50kBase),
    ("code-davinci-001", Encoding::P50kBase),
    ("code-cushman-002", Encoding::P50kBase),
    ("code-cushman-001", Encoding::P50kBase),
    ("davinci-codex", Encoding::P50kBase),
    ("cushman-codex", Encoding::P50kBase),
    ("text-davinci-edit-001", Encoding::P50kEdit),
    ("code-davinci-edit-001", Encoding::P50kEdit),
    ("text-similarity-davinci-001", Encoding::R50kBase),
    ("text-similarity-curie-001", Encoding::R50kBase),
    ("text-similarity-babbage-001", Encoding::R50kBase),
    ("text-similarity-ada-001", Encoding::R50kBase),
    ("text-search-davinci-doc-001", Encoding::R50kBase),
    ("text-search-curie-doc-001", Encoding::R50kBase),
    ("text-search-babbage-doc-001", Encoding::R50kBase),
    ("text-search-ada-doc-001", Encoding::R50kBase),
    ("code-search-babbage-code-001", Encoding::R50kBase),
    ("code-search-ada-code-001", Encoding::R50kBase),
    ("gpt2", Encoding::Gpt2),
];

// Keep in sync with tiktoken 0.12 `tiktoken/model.py` MODEL_PREFIX_TO_ENCODING (order matters).
const PREFIX: &[(&str, Encoding)] = &[
    ("o1-", Encoding::O200kBase),
    ("o3-", Encoding::O200kBase),
    ("o4-mini-", Encoding::O200kBase),
    ("gpt-5-", Encoding::O200kBase),
    ("gpt-4.5-", Encoding::O200kBase),
    ("gpt-4.1-", Encoding::O200kBase),
    ("chatgpt-4o-", Encoding::O200kBase),
    ("gpt-4o-", Encoding::O200kBase),
    ("gpt-4-", Encoding::Cl100kBase),
    ("gpt-3.5-turbo-", Encoding::Cl100kBase),
    ("gpt-35-turbo-", Encoding::Cl100kBase),
    ("gpt-oss-", Encoding::O200kHarmony),
    ("ft:gpt-4o", Encoding::O200kBase),
    ("ft:gpt-4", Encoding::Cl100kBase),
    ("ft:gpt-3.5-turbo", Encoding::Cl100kBase),
    ("ft:davinci-002", Encoding::Cl100kBase),
    ("ft:babbage-002", Encoding::Cl100kBase),
];

impl Encoding {
    /// The encoding for `model`: its lower-cased id looked up in tiktoken's tables, else cl100k_base.
    ///
    /// Lower-casing is the reference process's steady state: it caches each
    /// encoding under the lower-cased id, so once `gpt-4o` was seen, `GPT-4O`
    /// counts with o200k_base too (SPEC §1).
    pub fn for_model(model: &str) -> Encoding {
        Encoding::from_tiktoken_tables(&model.to_lowercase()).unwrap_or(Encoding::Cl100kBase)
    }

    /// tiktoken's own answer for the id as given (case-sensitive): `None` where `encoding_for_model` raises `KeyError`.
    pub fn from_tiktoken_tables(model: &str) -> Option<Encoding> {
        if let Some((_, enc)) = EXACT.iter().find(|(name, _)| *name == model) {
            return Some(*enc);
        }
        PREFIX
            .iter()
            .find(|(prefix, _)| model.starts_with(prefix))
            .map(|(_, enc)| *enc)
    }

    /// tiktoken's name of the encoding.
    pub fn name(self) -> &'static str {
        match self {
            Encoding::O200kBase => "o200k_base",
            Encoding::O200kHarmony => "o200k_harmony",
            Encoding::Cl100kBase => "cl100k_base",
            Encoding::P50kBase => "p50k_base",
            Encoding::P50kEdit => "p50k_edit",
            Encoding::R50kBase => "r50k_base",
            Encoding::Gpt2 => "gpt2",
        }
    }

    /// The shared encoder for ordinary (no special tokens) encoding, built on first use.
    ///
    /// Encodings that share ranks and pattern share one instance: harmony uses
    /// o200k's, p50k_edit uses p50k's and gpt2 uses r50k's, since ordinary
    /// encoding never looks at special tokens.
    pub fn encoder(self) -> &'static Encoder {
        match self {
            Encoding::O200kBase | Encoding::O200kHarmony => bpe::o200k_base(),
            Encoding::Cl100kBase => bpe::cl100k_base(),
            Encoding::P50kBase | Encoding::P50kEdit => bpe::p50k_base(),
            Encoding::R50kBase | Encoding::Gpt2 => bpe::r50k_base(),
        }
    }

    /// The pre-tokenizer of the encoding (as [`Self::encoder`]'s), without building its vocabulary.
    pub(crate) fn pattern(self) -> Pattern {
        match self {
            Encoding::O200kBase | Encoding::O200kHarmony => Pattern::O200k,
            Encoding::Cl100kBase => Pattern::Cl100k,
            Encoding::P50kBase | Encoding::P50kEdit | Encoding::R50kBase | Encoding::Gpt2 => {
                Pattern::Gpt2
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_encoding_names_its_encoders_pattern() {
        for encoding in [
            Encoding::O200kBase,
            Encoding::O200kHarmony,
            Encoding::Cl100kBase,
            Encoding::P50kBase,
            Encoding::P50kEdit,
            Encoding::R50kBase,
            Encoding::Gpt2,
        ] {
            assert_eq!(
                encoding.pattern(),
                encoding.encoder().pattern(),
                "{encoding:?}"
            );
        }
    }

    #[test]
    fn exact_then_prefix_then_fallback() {
        assert_eq!(Encoding::for_model("gpt-4o"), Encoding::O200kBase);
        assert_eq!(
            Encoding::for_model("gpt-4o-mini-2024-07-18"),
            Encoding::O200kBase
        );
        assert_eq!(Encoding::for_model("gpt-4-turbo"), Encoding::Cl100kBase);
        assert_eq!(Encoding::for_model("gpt-oss-20b"), Encoding::O200kHarmony);
        assert_eq!(Encoding::for_model("ft:gpt-4o:org"), Encoding::O200kBase);
        assert_eq!(Encoding::for_model("text-davinci-003"), Encoding::P50kBase);
        // Lower-cased first, with no state between calls.
        assert_eq!(Encoding::for_model("GPT-4O"), Encoding::O200kBase);
        assert_eq!(Encoding::for_model("Gpt-4o-Mini"), Encoding::O200kBase);
        assert_eq!(Encoding::from_tiktoken_tables("GPT-4O"), None);
        assert_eq!(
            Encoding::for_model("claude-3-5-sonnet"),
            Encoding::Cl100kBase
        );
        assert_eq!(Encoding::for_model("o1"), Encoding::O200kBase);
        assert_eq!(Encoding::for_model("o1x"), Encoding::Cl100kBase);
    }
}
