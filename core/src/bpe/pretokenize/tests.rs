//! The ASCII fast paths against the general paths they stand in for: at every
//! offset of texts over the classes the patterns tell apart, runs of each
//! class across every eight-byte boundary and the text's end, a fast answer
//! (when there is one) ends the piece where the general path does.

use super::ascii;
use super::*;
use proptest::prelude::*;

/// One char of each class the fast paths or the general paths distinguish.
const ALPHABET: [&str; 26] = [
    "a", "B", "s", "T", "d", "M", "e", "L", "r", "v", "7", " ", "\n", "\r", "\t", "'", ".", "/",
    "\0", "é", "É", "中", "\u{a0}", "\u{301}", "٣", "ſ",
];

/// A fast path: the piece's end, or `None` to ask the general path.
type Fast = fn(&[u8], usize) -> Option<usize>;
/// A general path: the piece's end.
type General = fn(&str, usize) -> usize;

/// The fast paths of each pattern, with the general path they must agree with.
fn paths() -> [(&'static str, Fast, General); 4] {
    [
        ("o200k word", ascii::o200k_word, o200k_general),
        ("o200k piece", ascii::o200k_piece, o200k_general),
        ("cl100k word", ascii::cl100k_word, cl100k_general),
        ("cl100k piece", ascii::cl100k_piece, cl100k_general),
    ]
}

/// Every fast answer on `s` equals the general path's, and so do the
/// pre-tokenizers' own ends; returns how many fast answers there were.
fn agree(s: &str) -> Result<usize, String> {
    let mut answered = 0;
    for p in (0..s.len()).filter(|&p| s.is_char_boundary(p)) {
        for (name, fast, general) in paths() {
            let want = general(s, p);
            if let Some(got) = fast(s.as_bytes(), p) {
                answered += 1;
                if got != want {
                    return Err(format!(
                        "{name} at {p} of {s:?}: the fast path ends the piece at {got}, the general path at {want}"
                    ));
                }
            }
        }
        let ends = [
            ("o200k", next_end::<O200k>(s, p), o200k_general(s, p)),
            ("cl100k", next_end::<Cl100k>(s, p), cl100k_general(s, p)),
        ];
        for (name, got, want) in ends {
            if got != want {
                return Err(format!(
                    "{name} at {p} of {s:?}: {got}, the general path {want}"
                ));
            }
        }
    }
    Ok(answered)
}

#[test]
fn every_short_text_over_the_classes_agrees_at_every_offset() {
    let mut texts = vec![String::new()];
    for _ in 0..3 {
        texts = texts
            .iter()
            .flat_map(|t| ALPHABET.iter().map(move |c| format!("{t}{c}")))
            .collect();
        for t in &texts {
            agree(t).unwrap_or_else(|e| panic!("{e}"));
        }
    }
}

#[test]
fn runs_across_every_eight_byte_boundary_agree_at_every_offset() {
    // Runs of each ASCII class up to 20 bytes long, after 0 to 2 chars and
    // before every char of the alphabet or the text's end: each run's end
    // falls in every lane of a load and at the text's end.
    let runs = ["a", "Z", "7", " ", "\n", "\t", ".", "/", "\0", "'"];
    let mut answered = 0;
    for unit in runs {
        for n in 1..=20 {
            let run = unit.repeat(n);
            for before in ["", "x", " ", "(", "\r\n"] {
                for after in ALPHABET.iter().copied().chain([""]) {
                    answered +=
                        agree(&format!("{before}{run}{after}")).unwrap_or_else(|e| panic!("{e}"));
                }
            }
        }
    }
    // Word shapes (capitals then lower case), space runs with a line end at every place.
    for upper in 0..=18 {
        for lower in 0..=18 {
            let word = format!("{}{}", "Q".repeat(upper), "q".repeat(lower));
            for after in ["", " ", "'s", "'LL", "'re", "'x", "é", "9", "."] {
                answered += agree(&format!(" {word}{after}")).unwrap_or_else(|e| panic!("{e}"));
            }
        }
    }
    for spaces_before in 0..=17 {
        for spaces_after in 0..=17 {
            for end in ["\n", "\r", "\r\n"] {
                for after in ["", "x", ".", "\u{a0}", "é"] {
                    let text = format!(
                        "{}{end}{}{after}",
                        " ".repeat(spaces_before),
                        " ".repeat(spaces_after)
                    );
                    answered += agree(&text).unwrap_or_else(|e| panic!("{e}"));
                }
            }
        }
    }
    // The fast paths answered for most of these offsets (the test compares something).
    assert!(answered > 100_000, "{answered} fast answers");
}

/// ASCII text never needs the general path: every offset has a fast answer.
#[test]
fn the_fast_paths_answer_for_ascii_text() {
    let text = "The cat's toys, 1234 of them.\n    if x == 10 { return; } // done\r\n\n  ";
    for p in 0..text.len() {
        for (name, fast, _) in paths() {
            if name.ends_with("piece") {
                assert!(
                    fast(text.as_bytes(), p).is_some(),
                    "{name} at {p} of {text:?}"
                );
            }
        }
    }
    agree(text).unwrap_or_else(|e| panic!("{e}"));
}

fn class_text() -> impl Strategy<Value = String> {
    let part =
        (proptest::sample::select(ALPHABET.to_vec()), 1usize..12).prop_map(|(c, n)| c.repeat(n));
    proptest::collection::vec(part, 0..12).prop_map(|v| v.concat())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1000, ..ProptestConfig::default() })]

    #[test]
    fn runs_of_every_class_agree_at_every_offset(text in class_text()) {
        let r = agree(&text);
        prop_assert!(r.is_ok(), "{}", r.unwrap_err());
    }
}
