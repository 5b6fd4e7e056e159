//! The sure-split rule against the pre-tokenizers themselves: a text cut at any
//! offset [`next_split`] yields has the pieces of the whole on both sides (so the
//! same count), for every encoding, on every short text over an alphabet of each
//! class the patterns tell apart, on generated and corpus texts, and in windows.

use super::*;
use crate::bpe::pretokenize::{self, Split};
use crate::tokens::{count_token_bytes, TokenCounter};
use proptest::prelude::*;

const ENCODINGS: [Encoding; 4] = [
    Encoding::O200kBase,
    Encoding::Cl100kBase,
    Encoding::P50kBase,
    Encoding::R50kBase,
];

fn pieces_with<P: Split>(s: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut p = 0;
    while p < s.len() {
        let e = pretokenize::next_end::<P>(s, p);
        out.push(&s[p..e]);
        p = e;
    }
    out
}

/// The pre-tokenizer's pieces of `s` under `encoding`.
fn pieces(s: &str, encoding: Encoding) -> Vec<&str> {
    match encoding.pattern() {
        Pattern::O200k => pieces_with::<pretokenize::O200k>(s),
        Pattern::Cl100k => pieces_with::<pretokenize::Cl100k>(s),
        Pattern::Gpt2 => pieces_with::<pretokenize::Gpt2>(s),
    }
}

/// Every sure split of a whole text, in order.
fn splits(s: &str, encoding: Encoding) -> Vec<usize> {
    let mut out = Vec::new();
    let mut from = 1;
    while let Some(k) = next_split(s.as_bytes(), encoding, from, true) {
        assert!(k >= from, "{k} before {from}");
        out.push(k);
        from = k + 1;
    }
    out
}

/// Whether cutting `s` at `k` leaves the pieces of the whole on both sides.
fn pieces_hold(s: &str, encoding: Encoding, k: usize) -> Result<(), String> {
    if !s.is_char_boundary(k) {
        return Err(format!("{encoding:?}: {k} is inside a character of {s:?}"));
    }
    let whole = pieces(s, encoding);
    let mut parts = pieces(&s[..k], encoding);
    parts.extend(pieces(&s[k..], encoding));
    if parts != whole {
        return Err(format!(
            "{encoding:?}: cutting {s:?} at {k} gives {parts:?}, the whole {whole:?}"
        ));
    }
    Ok(())
}

/// Cuts `s` at every sure split at once: the parts have the pieces of the whole
/// and their counts add up to its count; short texts are also cut at each split alone.
fn check(s: &str) -> Result<(), String> {
    for encoding in ENCODINGS {
        let ks = splits(s, encoding);
        if s.len() <= 512 {
            for &k in &ks {
                pieces_hold(s, encoding, k)?;
            }
        }
        let mut bounds = vec![0];
        bounds.extend(&ks);
        bounds.push(s.len());
        let parts: Vec<&str> = bounds.windows(2).map(|w| &s[w[0]..w[1]]).collect();
        let cut: Vec<&str> = parts.iter().flat_map(|p| pieces(p, encoding)).collect();
        if cut != pieces(s, encoding) {
            return Err(format!(
                "{encoding:?}: cut at {ks:?}, {s:?} has other pieces"
            ));
        }
        let counter = TokenCounter::for_encoding(encoding);
        let sum: i64 = parts.iter().map(|p| counter.count_text(p)).sum();
        let whole = counter.count_text(s);
        if sum != whole {
            return Err(format!(
                "{encoding:?}: {} parts count {sum}, the whole {whole}",
                parts.len()
            ));
        }
    }
    Ok(())
}

/// Every text of up to five characters over one character of each class the
/// patterns distinguish: the rule never cuts where a pre-tokenizer does not.
#[test]
fn every_short_text_over_each_class_keeps_its_pieces() {
    let alphabet = [
        'a', 'B', 's', '1', ' ', '\n', '\r', '\t', '.', '/', '\'', '中', '\u{301}', '\u{3000}',
    ];
    let n = alphabet.len();
    let mut text = String::new();
    for len in 1..=5u32 {
        for mut code in 0..n.pow(len) {
            text.clear();
            for _ in 0..len {
                text.push(alphabet[code % n]);
                code /= n;
            }
            for encoding in ENCODINGS {
                let mut from = 1;
                while let Some(k) = next_split(text.as_bytes(), encoding, from, true) {
                    pieces_hold(&text, encoding, k).unwrap_or_else(|e| panic!("{e}"));
                    from = k + 1;
                }
            }
        }
    }
}

#[test]
fn tricky_boundaries() {
    // (text, encoding, offsets that are sure splits, offsets that are not)
    type Case = (
        &'static str,
        &'static [Encoding],
        &'static [usize],
        &'static [usize],
    );
    let all = &ENCODINGS[..];
    let modern = &[Encoding::O200kBase, Encoding::Cl100kBase][..];
    let gpt2 = &[Encoding::P50kBase, Encoding::R50kBase][..];
    let cases: [Case; 14] = [
        // A space belongs to the word after it; a word ends before a space.
        ("ab cd", all, &[2], &[1, 3, 4]),
        // Never inside a digit run (cut in threes from its left); after it, yes.
        ("x 12345.", all, &[1, 7], &[3, 4, 5, 6]),
        // Contractions: cl100k and GPT-2 cut before the apostrophe, o200k's word takes it.
        (
            "it's",
            &[Encoding::Cl100kBase, Encoding::P50kBase],
            &[2],
            &[3],
        ),
        ("it's", &[Encoding::O200kBase], &[], &[2, 3]),
        // o200k's words take marks after their letters.
        ("e\u{301}x", &[Encoding::O200kBase], &[], &[1, 3]),
        // After a line break followed by a letter, or by spaces then a letter.
        ("a.\nb", modern, &[1, 3], &[2]),
        ("x;\n    y", modern, &[1, 3], &[2, 4, 5, 6, 7]),
        // Not between \r and \n, nor before more line breaks, nor before trailing whitespace.
        ("a;\r\n\r\nb", modern, &[1, 6], &[2, 3, 4, 5]),
        ("a;\n  ", modern, &[1], &[2, 3, 4]),
        // o200k's punctuation run takes line breaks and slashes after it.
        ("x.\n/y", &[Encoding::O200kBase], &[1], &[2, 3, 4]),
        ("x.\n/y", &[Encoding::Cl100kBase], &[1, 3], &[2, 4]),
        // GPT-2: before the last character of a whitespace run that a word follows.
        ("a\n\n\nb", gpt2, &[1, 3], &[2, 4]),
        ("a    b", gpt2, &[1, 4], &[2, 3, 5]),
        // GPT-2: a lone tab or line break between words is a piece of its own; a space is not.
        ("a\tb c", gpt2, &[1, 2, 3], &[4]),
    ];
    for (text, encodings, yes, no) in cases {
        for &encoding in encodings {
            let found = splits(text, encoding);
            for k in yes {
                assert!(
                    found.contains(k),
                    "{encoding:?}: {text:?} at {k} should split; found {found:?}"
                );
            }
            for k in no {
                assert!(
                    !found.contains(k),
                    "{encoding:?}: {text:?} at {k} should not split; found {found:?}"
                );
            }
            for &k in &found {
                pieces_hold(text, encoding, k).unwrap_or_else(|e| panic!("{e}"));
            }
        }
    }
}

#[test]
fn a_window_answers_as_the_whole_text_or_asks_for_more() {
    let text = "Hello, world.\n  Again 12345 times\t\t here's 中文，好。 😀👍🏽 e\u{301}!\r\n\r\n/x";
    let b = text.as_bytes();
    for encoding in ENCODINGS {
        for from in 1..b.len() {
            let whole = next_split(b, encoding, from, true);
            let lo = from.saturating_sub(LOOK_BEHIND_BYTES);
            for end in from..=b.len() {
                let got = next_split(&b[lo..end], encoding, from - lo, end == b.len());
                if let Some(k) = got {
                    assert_eq!(
                        Some(k + lo),
                        whole,
                        "{encoding:?}: window {lo}..{end} from {from}"
                    );
                }
            }
            // A window with the look-behind and the look-ahead finds what the whole text does.
            if let Some(k) = whole {
                let end = (k + LOOK_AHEAD_BYTES + 4).min(b.len());
                let got = next_split(&b[lo..end], encoding, from - lo, end == b.len());
                assert_eq!(got.map(|k| k + lo), whole, "{encoding:?}: from {from}");
            }
        }
    }
}

#[test]
fn invalid_utf8_is_never_next_to_a_split_and_keeps_its_offset() {
    let mut bytes = b"first line\nsecond \xE4\xB8 line\nthird".to_vec();
    for encoding in ENCODINGS {
        let whole = count_token_bytes(&bytes, encoding);
        assert_eq!(whole, Err(crate::Error::InvalidUtf8 { offset: 18 }));
        let mut from = 1;
        let mut first_error = None;
        let mut start = 0;
        while let Some(k) = next_split(&bytes, encoding, from, true) {
            assert!(!(18..=20).contains(&k), "{encoding:?}: split at {k}");
            if let (None, Err(crate::Error::InvalidUtf8 { offset })) =
                (first_error, count_token_bytes(&bytes[start..k], encoding))
            {
                first_error = Some(start + offset);
            }
            start = k;
            from = k + 1;
        }
        assert_eq!(first_error, Some(18), "{encoding:?}");
    }
    // A window that ends inside a character asks for more bytes.
    bytes.truncate(19);
    assert_eq!(next_split(&bytes, Encoding::O200kBase, 18, false), None);
    assert_eq!(next_split(&bytes, Encoding::O200kBase, 17, false), Some(17));
}

#[test]
fn a_text_of_one_class_has_no_split() {
    for text in ["aaaaaaaa", "        ", "\n\n\n\n", "........", "中文中文"] {
        for encoding in ENCODINGS {
            assert_eq!(
                splits(text, encoding),
                Vec::<usize>::new(),
                "{encoding:?} {text:?}"
            );
        }
    }
}

/// Strings of the conformance vectors, this repository's README and reference, and a generated
/// mix: cut at every split, against the whole (and tiktoken-rs for the whole).
#[test]
fn corpus_texts_cut_at_every_split_count_as_the_whole() {
    let vectors = include_str!("../../../tests/conformance/vectors.jsonl");
    let mut texts: Vec<String> = Vec::new();
    for line in vectors.lines() {
        let v: serde_json::Value = serde_json::from_str(line).expect("valid vector line");
        collect_strings(&v, &mut texts);
    }
    texts.sort();
    texts.dedup();
    texts.retain(|t| t.len() >= 8);
    texts.push(include_str!("../../../README.md").to_string());
    texts.push(include_str!("../../../docs/reference.md").to_string());
    texts.push(include_str!("../bpe/pretokenize.rs").to_string());
    let mut failures = Vec::new();
    for t in &texts {
        if let Err(e) = check(t) {
            failures.push(e);
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} texts: {}",
        failures.len(),
        texts.len(),
        failures[0]
    );
    let readme = include_str!("../../../README.md");
    let oracle = tiktoken_rs::o200k_base_singleton()
        .encode_ordinary(readme)
        .len();
    assert_eq!(
        TokenCounter::for_encoding(Encoding::O200kBase).count_text(readme),
        oracle as i64
    );
    assert!(
        splits(readme, Encoding::O200kBase).len() > readme.len() / 20,
        "splits are frequent in prose"
    );
}

fn collect_strings(v: &serde_json::Value, out: &mut Vec<String>) {
    match v {
        serde_json::Value::String(s) => out.push(s.clone()),
        serde_json::Value::Array(a) => a.iter().for_each(|x| collect_strings(x, out)),
        serde_json::Value::Object(o) => o.values().for_each(|x| collect_strings(x, out)),
        _ => {}
    }
}

/// English, Chinese, code, whitespace runs, digits, apostrophes, emoji and every class between.
fn mixed_text() -> impl Strategy<Value = String> {
    let part = prop_oneof![
        "[a-zA-Z]{1,8}",
        "[A-Z][a-z]{1,6}",
        Just("The quick brown fox's tail, it's 12 o'clock.".to_string()),
        Just("你好，世界。这是一个测试。".to_string()),
        Just("fn main() {\n    let x = 42; // comment\n}\n".to_string()),
        Just("<div class=\"a/b\">/path/to</div>\r\n".to_string()),
        "[ \\t\\n\\r]{1,6}",
        "[ ]{1,12}",
        "[\n]{1,4}[ ]{0,8}",
        "'[sStTdDmMlLvVrReE]{1,2}",
        "[0-9]{1,9}",
        "[!-/:-@\\[-`{-~]{1,4}",
        "[\u{00c0}-\u{024f}]{1,3}",
        "[\u{0300}-\u{036f}]",
        "[\u{4e00}-\u{4e40}]{1,4}",
        "[\u{1f300}-\u{1f64f}]\u{fe0f}?",
        Just("👩\u{200d}💻".to_string()),
        "[\u{a0}\u{3000}\u{2028}\u{85}\u{2003}]",
        "[٣Ⅻ½]",
        "\\PC",
    ];
    proptest::collection::vec(part, 0..40).prop_map(|v| v.concat())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    #[test]
    fn generated_texts_cut_at_every_split_count_as_the_whole(text in mixed_text()) {
        prop_assert_eq!(check(&text), Ok(()));
    }

    /// Any window (as the pool reads them) finds a split the whole text has, or none.
    #[test]
    fn a_split_found_in_any_window_is_one_of_the_whole(text in mixed_text(), a in 0usize..4096, w in 0usize..128) {
        let b = text.as_bytes();
        if b.len() < 2 {
            return Ok(());
        }
        let from = 1 + a % (b.len() - 1);
        let lo = from.saturating_sub(LOOK_BEHIND_BYTES);
        let end = (from + w).min(b.len());
        for encoding in ENCODINGS {
            if let Some(k) = next_split(&b[lo..end], encoding, from - lo, end == b.len()) {
                prop_assert_eq!(Some(k + lo), next_split(b, encoding, from, true));
            }
        }
    }
}
