//! ctxguard's BPE engine against tiktoken-rs, the oracle: identical tokens on
//! the conformance corpus and on generated text for every encoding.

mod oracle;

use ctxguard_core::bpe;
use ctxguard_core::cut::truncate_measured;
use ctxguard_core::encoding::Encoding;
use ctxguard_core::tokens::TokenCounter;
use proptest::prelude::*;

fn engines() -> [(
    &'static str,
    &'static bpe::Encoder,
    &'static tiktoken_rs::CoreBPE,
); 4] {
    [
        (
            "o200k_base",
            bpe::o200k_base(),
            tiktoken_rs::o200k_base_singleton(),
        ),
        (
            "cl100k_base",
            bpe::cl100k_base(),
            tiktoken_rs::cl100k_base_singleton(),
        ),
        (
            "p50k_base",
            bpe::p50k_base(),
            tiktoken_rs::p50k_base_singleton(),
        ),
        (
            "r50k_base",
            bpe::r50k_base(),
            tiktoken_rs::r50k_base_singleton(),
        ),
    ]
}

/// Both engines on `text`, under every encoding. Ours runs twice, so that
/// the second pass takes its pieces from the encoder's piece cache (where the
/// first one, or any earlier text, left them) and the first may not.
fn check(text: &str) -> Result<(), String> {
    for (name, ours, oracle) in engines() {
        let b = oracle.encode_ordinary(text);
        for a in [ours.encode_ordinary(text), ours.encode_ordinary(text)] {
            compare(name, text, &a, &b)?;
        }
        if ours.count_ordinary(text) != b.len() {
            return Err(format!("{name}: count differs from encode length"));
        }
    }
    Ok(())
}

fn compare(name: &str, text: &str, a: &[u32], b: &[u32]) -> Result<(), String> {
    if a == b {
        return Ok(());
    }
    let at = a.iter().zip(b).take_while(|(x, y)| x == y).count();
    Err(format!(
        "{name} differs at token {at} for {:?}: ours {:?} oracle {:?}",
        text.chars().take(80).collect::<String>(),
        &a[at..(at + 5).min(a.len())],
        &b[at..(at + 5).min(b.len())]
    ))
}

fn strings(v: &serde_json::Value, out: &mut Vec<String>) {
    match v {
        serde_json::Value::String(s) => out.push(s.clone()),
        serde_json::Value::Array(a) => a.iter().for_each(|x| strings(x, out)),
        serde_json::Value::Object(o) => o.values().for_each(|x| strings(x, out)),
        _ => {}
    }
}

#[test]
fn conformance_corpus_encodes_identically() {
    let text = include_str!("../../tests/conformance/vectors.jsonl");
    let mut all = Vec::new();
    for line in text.lines() {
        let v: serde_json::Value = serde_json::from_str(line).expect("valid vector line");
        strings(&v, &mut all);
    }
    all.sort();
    all.dedup();
    let mut failures = Vec::new();
    for s in &all {
        if let Err(e) = check(s) {
            failures.push(e);
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} strings differ; first: {}",
        failures.len(),
        all.len(),
        failures[0]
    );
}

#[test]
fn edge_cases_encode_identically() {
    let cases = [
        "",
        " ",
        "  ",
        "\n",
        "\r\n",
        " \n ",
        "a\n\n  b",
        "x   ",
        "   ",
        "\t\tword",
        "HELLO world",
        "Hello'S it'LL",
        "it'ſ",
        "'ſ",
        "don't",
        "'sound",
        "ǅungla ǅ",
        "ʰhello",
        "a\u{0301}b",
        "\u{0301}abc",
        " \u{0301}x",
        "(\u{0301})",
        "12345678",
        "١٢٣٤",
        "a1b2",
        "foo/bar\n/baz",
        "!!\n\n//",
        " ?!",
        "😀😀",
        "👍🏽",
        "🇨🇳🇨🇳",
        "\u{200d}x",
        "\u{3000}中文\u{3000}",
        "x\u{a0}\u{a0}y",
        "\u{1c}\u{1f}",
        "<|endoftext|>",
        "ＡＢＣ",
        "ǈǈ",
        "Ⅻ",
        "ⅻ",
        "𝐀𝐁𝐜",
        "\u{2028}a\u{2029}",
        "\r\r\n\n",
        "  \r\n  x",
        "a\u{85}b",
        "'S'T'RE'VE'M'LL'D",
        "'re're",
        "''s",
    ];
    for c in cases {
        check(c).unwrap_or_else(|e| panic!("{e}"));
    }
}

#[test]
fn long_runs_without_whitespace_encode_identically() {
    let mut seed = 7u64;
    let mut rand = || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    let letters: String = (0..6_000)
        .map(|_| (b'a' + (rand() % 26) as u8) as char)
        .collect();
    let b64: String = (0..6_000)
        .map(|_| {
            b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
                [(rand() % 64) as usize] as char
        })
        .collect();
    // Natural words run together: merges of every rank, as in a long identifier or URL slug.
    let words = [
        "context",
        "window",
        "überschrift",
        "token",
        "budget",
        "naïve",
        "summary",
        "the",
    ];
    let slug: String = (0..1_500).map(|_| words[(rand() % 8) as usize]).collect();
    // Letters of other scripts with no spaces: one piece each, merged through the queue.
    let cjk: String = (0..2_000)
        .map(|_| char::from_u32(0x4e00 + (rand() % 600) as u32).unwrap_or('中'))
        .collect();
    let cyrillic: String = (0..3_000)
        .map(|_| char::from_u32(0x0430 + (rand() % 32) as u32).unwrap_or('а'))
        .collect();
    for text in [
        "a".repeat(5000),
        letters,
        b64,
        slug,
        cjk,
        cyrillic,
        "ab".repeat(3000),
        " ".repeat(3000),
    ] {
        check(&text).unwrap_or_else(|e| panic!("{e}"));
    }
}

/// Byte lengths on both sides of the engine's cut-over points: one- and
/// two-byte pieces (direct tables), the stack-array scan up to 32 bytes, the
/// tournament tree above it, windows above 4096 bytes (one window plus its
/// 128-byte margin, several windows), and the piece cache's inline keys (up
/// to 16 bytes) and arena keys (up to 64).
const CUT_OVERS: [usize; 22] = [
    1, 2, 3, 15, 16, 17, 32, 33, 63, 64, 65, 255, 256, 257, 4095, 4096, 4097, 4224, 4225, 8193,
    12_000, 16_385,
];

/// `unit` repeated (cycling through it) up to exactly `len` bytes, on char boundaries where it can.
fn sized(unit: &str, len: usize) -> String {
    let mut s = String::with_capacity(len + 4);
    for c in unit.chars().cycle() {
        if s.len() + c.len_utf8() > len {
            break;
        }
        s.push(c);
    }
    while s.len() < len {
        s.push('x');
    }
    s
}

#[test]
fn pieces_on_both_sides_of_every_cut_over_encode_identically() {
    let mut seed = 3u64;
    let mut rand = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    let letters: String = (0..17_000)
        .map(|_| (b'a' + (rand() % 26) as u8) as char)
        .collect();
    let upper: String = (0..17_000)
        .map(|_| (b'A' + (rand() % 26) as u8) as char)
        .collect();
    // One piece each under every pre-tokenizer: runs of one class the patterns keep whole.
    let units = [
        letters.as_str(),
        upper.as_str(),
        " ",
        "\n",
        "\t",
        "a",
        "上下文治理压缩检查点预览附件读取按需分层统一我们的设计文档说明",
        "ことばのまど",
        "контекстноеокно",
        "👍🏽🚀✨",
        "!?.,;:-=+*/",
        "\u{3000}",
        "é\u{0301}",
        "ǅǈǋ",
    ];
    for unit in units {
        for len in CUT_OVERS {
            let piece = sized(unit, len);
            check(&piece)
                .unwrap_or_else(|e| panic!("{len} bytes of {:?}: {e}", unit.chars().next()));
            // The same piece after a word and before a space, as it meets the pre-tokenizer in text.
            check(&format!("word {piece} end"))
                .unwrap_or_else(|e| panic!("{len} bytes in text: {e}"));
        }
    }
}

#[test]
fn texts_on_both_sides_of_the_memo_threshold_encode_identically() {
    // The piece memo starts at 4096 bytes of text.
    let words = [
        "context",
        "window",
        "上下文",
        "naïve",
        "👍🏽",
        "tokens",
        "it's",
        "123",
    ];
    for len in [4095, 4096, 4097, 40_000] {
        let mut text = String::new();
        let mut i = 0;
        while text.len() < len {
            text.push_str(words[i % words.len()]);
            text.push(if i % 5 == 0 { '\n' } else { ' ' });
            i += 1;
        }
        check(&sized(&text, len)).unwrap_or_else(|e| panic!("{len}-byte text: {e}"));
    }
}

#[test]
fn repeated_pieces_hit_the_memo_exactly() {
    // Many repeats of pieces that need merging, plus near-duplicates that share cache slots.
    let words = [
        "上下文治理",
        "压缩检查点",
        "Überschrift",
        "naïveté",
        "Ꭰꭰ",
        "👍🏽👍🏽",
        "ʰʰʰ",
        "ǅǅ",
        "x\u{0301}y",
    ];
    let mut text = String::new();
    for i in 0..4000usize {
        text.push_str(words[i % words.len()]);
        text.push(if i % 7 == 0 { '\n' } else { ' ' });
        if i % 13 == 0 {
            text.push_str(
                &words[(i / 13) % words.len()][..words[(i / 13) % words.len()]
                    .char_indices()
                    .last()
                    .map_or(0, |(k, _)| k)],
            );
        }
    }
    check(&text).unwrap_or_else(|e| panic!("{e}"));
}

#[test]
fn ascii_words_of_every_length_and_shape_encode_identically() {
    // The o200k fast path reads words eight bytes at a time: runs of capitals
    // and of lower case across every eight-byte boundary, at the end of the
    // text, and before what may extend them (an apostrophe, a non-ASCII letter).
    let mut cases = Vec::new();
    for upper in 0..=18 {
        for lower in 0..=18 {
            if upper + lower == 0 {
                continue;
            }
            let word = format!(
                "{}{}",
                &"QWERTYUIOPASDFGHJKL"[..upper],
                &"abcdefghijklmnopqrs"[..lower]
            );
            for (before, after) in [
                ("", ""),
                (" ", ""),
                ("(", ""),
                (" ", " x"),
                ("", "'s"),
                ("", "'LL"),
                (" ", "é"),
                ("", "中"),
                ("\n", "."),
                ("1", "2"),
            ] {
                cases.push(format!("{before}{word}{after}"));
            }
        }
    }
    for case in &cases {
        check(case).unwrap_or_else(|e| panic!("{e}"));
    }
    check(&cases.join("")).unwrap_or_else(|e| panic!("{e}"));
}

#[test]
fn ascii_runs_of_every_class_and_length_encode_identically() {
    // The o200k and cl100k fast paths read whitespace, punctuation and digit
    // runs eight bytes at a time: runs of 1 to 20 bytes (their ends in every
    // lane of a load), a line end at every place of a space run, each before
    // what may extend or end them, and at the text's end.
    let mut cases = Vec::new();
    for n in 1..=20 {
        for unit in [" ", "\n", "\t", "\r\n", ".", "/", "-", "'", "7"] {
            let run = unit.repeat(n);
            for (before, after) in [
                ("", ""),
                ("x", "y"),
                (" ", "."),
                ("(", "\n/"),
                ("", "\u{a0}"),
                ("", "é"),
                ("", "٣"),
                ("a", "'s"),
            ] {
                cases.push(format!("{before}{run}{after}"));
            }
        }
        for m in 0..=n {
            let text = format!("{}\n{}", " ".repeat(m), " ".repeat(n - m));
            cases.push(format!("{text}x"));
            cases.push(text);
        }
    }
    for case in &cases {
        check(case).unwrap_or_else(|e| panic!("{e}"));
    }
    check(&cases.join("")).unwrap_or_else(|e| panic!("{e}"));
}

#[test]
fn texts_that_overflow_the_piece_caches_arenas_encode_identically() {
    // Distinct pieces of 17 to 64 bytes (keys in the byte arena, 1 MiB) of
    // several tokens each (results in the token arena): the cache empties
    // itself when an arena would pass its bound, and goes on.
    let mut seed = 19u64;
    let mut rand = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    let mut text = String::new();
    while text.len() < 1_600_000 {
        let len = 17 + (rand() % 48) as usize;
        text.push(' ');
        for _ in 0..len - 1 {
            text.push((b'a' + (rand() % 26) as u8) as char);
        }
    }
    check(&text).unwrap_or_else(|e| panic!("{e}"));
}

/// A measured text (counted, not encoded) gives the same first and last
/// tokens as the oracle's encoding, and the same token cuts as its tokens do,
/// for heads and tails that end on either side of every place the count
/// marked (about every 4 KB) and inside long pieces.
fn check_head_tail(text: &str, cuts: usize) -> Result<(), String> {
    let encodings = [
        (Encoding::O200kBase, tiktoken_rs::o200k_base_singleton()),
        (Encoding::Cl100kBase, tiktoken_rs::cl100k_base_singleton()),
        (Encoding::P50kBase, tiktoken_rs::p50k_base_singleton()),
        (Encoding::R50kBase, tiktoken_rs::r50k_base_singleton()),
    ];
    for (encoding, oracle) in encodings {
        let counter = TokenCounter::for_encoding(encoding);
        let ids = oracle.encode_ordinary(text);
        let n = ids.len();
        let measured = counter.measure(text);
        if measured.len() != n {
            return Err(format!(
                "{encoding:?}: measured {} tokens of {n}",
                measured.len()
            ));
        }
        let step = (n / cuts.max(1)).max(1);
        let mut sizes: Vec<usize> = (0..=n + 1).step_by(step).collect();
        sizes.extend([1, 2, 3, n.saturating_sub(1), n, n + 7]);
        for &k in &sizes {
            for (head, tail) in [(k, 0), (0, k), (k, k), (k / 3, n.saturating_sub(k))] {
                let (h, t) = counter.head_tail_ids(&measured, head, tail);
                let head = head.min(n);
                let tail = tail.min(n - head);
                if h != ids[..head] || t != ids[n - tail..] {
                    return Err(format!(
                        "{encoding:?}: head {head} / tail {tail} of {n} tokens differ"
                    ));
                }
            }
            let limit = k as i64;
            let a = truncate_measured(&measured, limit, &counter);
            let b = oracle::cut_of_ids(text, &counter.encode(text), limit, &counter);
            if a != b {
                return Err(format!("{encoding:?}: the cut to {limit} tokens differs"));
            }
        }
    }
    Ok(())
}

#[test]
fn measured_texts_cut_as_their_tokens_do() {
    let words = "The context window of 上下文 naïve it's 123 tokens 👍🏽 — “quoted”\n\tcode(x) {}\n";
    let mut letters = String::new();
    let mut seed = 11u64;
    for _ in 0..20_000 {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        letters.push((b'a' + (seed % 26) as u8) as char);
    }
    let texts = [
        String::new(),
        "a".into(),
        "hello world".into(),
        sized(words, 4095),
        sized(words, 4097),
        sized(words, 50_000),
        // Long pieces: one run spanning several marks, between ordinary text.
        format!(
            "{} {} {}",
            sized(words, 5000),
            " ".repeat(13_000),
            sized(words, 3000)
        ),
        format!("{}{letters} tail of it", sized(words, 6000)),
        format!(
            "{}\n{}",
            "\n".repeat(9000),
            sized("上下文治理压缩检查点预览", 9000)
        ),
    ];
    for text in &texts {
        check_head_tail(text, 40).unwrap_or_else(|e| panic!("{} bytes: {e}", text.len()));
    }
}

fn unicode_text() -> impl Strategy<Value = String> {
    let pieces = prop_oneof![
        "[a-zA-Z]{1,8}",
        "[ \\t\\n\\r]{1,3}",
        "'[sStTdDmMlLvVrReE]{1,2}",
        "[0-9]{1,5}",
        "[!-/:-@\\[-`{-~]{1,3}",
        "[\u{00c0}-\u{024f}]{1,3}",
        "[\u{0300}-\u{036f}]",
        "[\u{0370}-\u{03ff}\u{0400}-\u{04ff}]{1,4}",
        "[\u{4e00}-\u{4e40}]{1,4}",
        "[\u{3040}-\u{30ff}]{1,3}",
        "[\u{0600}-\u{06ff}]{1,3}",
        "[\u{1f300}-\u{1f64f}]",
        "[\u{2000}-\u{206f}]",
        "[\u{ff00}-\u{ffef}]{1,2}",
        "\\PC",
    ];
    proptest::collection::vec(pieces, 0..24).prop_map(|v| v.concat())
}

/// ASCII runs of each byte kind the pre-tokenizers' fast paths tell apart, next to
/// one character of every Unicode class their general paths tell apart: the
/// fast paths must hand every such meeting to the general path unchanged.
fn ascii_meets_unicode() -> impl Strategy<Value = String> {
    let ascii = prop_oneof![
        "[a-z]{1,6}",
        "[A-Z]{1,4}",
        "[A-Z][a-z]{1,5}",
        "[0-9]{1,5}",
        "[ ]{1,4}",
        "[ \t\n\r\x0b\x0c]{1,4}",
        "[!-/:-@\\[-`{-~]{1,4}",
        "'[sStTdDmMlLvVrReE]{1,2}",
        "[\x00-\x08\x0e-\x1f\x7f]",
    ];
    let unicode = prop_oneof![
        Just("É"),        // Lu
        Just("é"),        // Ll
        Just("ǅ"),        // Lt
        Just("ʰ"),        // Lm
        Just("中"),       // Lo
        Just("\u{0301}"), // M
        Just("٣"),        // Nd
        Just("Ⅻ"),        // Nl
        Just("½"),        // No
        Just("\u{a0}"),   // White_Space
        Just("\u{3000}"),
        Just("\u{2028}"),
        Just("\u{85}"),
        Just("—"), // punctuation
        Just("“"),
        Just("ſ"),        // folds to s
        Just("\u{212a}"), // Kelvin sign, folds to k
        Just("👍"),
    ];
    let part = prop_oneof![ascii.prop_map(|s| s), unicode.prop_map(str::to_string)];
    proptest::collection::vec(part, 1..16).prop_map(|v| v.concat())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

    #[test]
    fn generated_text_encodes_identically(text in unicode_text()) {
        prop_assert!(check(&text).is_ok(), "{}", check(&text).unwrap_err());
    }

    #[test]
    fn ascii_next_to_every_unicode_class_encodes_identically(text in ascii_meets_unicode()) {
        prop_assert!(check(&text).is_ok(), "{}", check(&text).unwrap_err());
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn generated_measured_texts_cut_as_their_tokens_do(parts in proptest::collection::vec(unicode_text(), 1..400)) {
        // Up to tens of KB: several marks of the count, heads and tails across them.
        let text = parts.concat();
        prop_assert!(check_head_tail(&text, 6).is_ok(), "{}", check_head_tail(&text, 6).unwrap_err());
    }
}
