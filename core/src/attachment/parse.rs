//! Reading attachment headers back out of message text, exactly as the
//! reference's regular expressions do, but hand-written: a regex engine would
//! be most of the wasm package's code for four fixed patterns.
//!
//! Each function names the pattern it matches (Rust/Python leftmost-first
//! semantics; `\d` is Unicode `Nd` in both).

use crate::bpe::unicode::{class, DIGIT};

const PREFIXES: [&str; 2] = ["[Image Attachment: ", "[Attachment: "];
const ID_SEP: &str = " | ID: ";

/// The length of the `[(?:Image )?Attachment: ` prefix at the start of `s`, if any.
fn prefix_len(s: &str) -> Option<usize> {
    PREFIXES.iter().find(|p| s.starts_with(*p)).map(|p| p.len())
}

/// Byte length of the run of `\d` characters at the start of `s`.
fn digits_len(s: &str) -> usize {
    s.char_indices()
        .find(|&(_, c)| class(c) & DIGIT == 0)
        .map_or(s.len(), |(i, _)| i)
}

/// At `s` (which starts a header prefix of length `p`): the id and the end of
/// `[^\n]*? \| ID: (\d+) \|`, the lazy part taking the shortest line span that completes.
fn id_after_prefix(s: &str, p: usize) -> Option<(&str, usize)> {
    let line = &s[..s.find('\n').unwrap_or(s.len())];
    let mut from = p;
    while let Some(k) = line[from..].find(ID_SEP).map(|k| from + k) {
        let d0 = k + ID_SEP.len();
        let d = digits_len(&s[d0..]);
        if d > 0 && s[d0 + d..].starts_with(" |") {
            return Some((&s[d0..d0 + d], d0 + d + 2));
        }
        from = k + 1;
    }
    None
}

/// Every `\[(?:Image )?Attachment: [^\n]*? \| ID: (\d+) \|` in `body`, as
/// (start of the match, the id), non-overlapping, left to right.
pub(crate) fn segment_headers(body: &str) -> Vec<(usize, &str)> {
    let mut found = Vec::new();
    let mut pos = 0;
    while let Some(s) = body[pos..].find('[').map(|i| pos + i) {
        let rest = &body[s..];
        match prefix_len(rest).and_then(|p| id_after_prefix(rest, p)) {
            Some((id, end)) => {
                found.push((s, id));
                pos = s + end;
            }
            None => pos = s + 1,
        }
    }
    found
}

/// The first `\| Type: ([^|\]]+)` of `header`, its capture.
pub(crate) fn header_type(header: &str) -> Option<&str> {
    const KEY: &str = "| Type: ";
    let mut pos = 0;
    while let Some(k) = header[pos..].find(KEY).map(|k| pos + k) {
        let v = &header[k + KEY.len()..];
        let len = v.find(['|', ']']).unwrap_or(v.len());
        if len > 0 {
            return Some(&v[..len]);
        }
        pos = k + 1;
    }
    None
}

/// The first `File Path[^:]*: ([^\]]+)` of `header`, its capture.
pub(crate) fn header_path(header: &str) -> Option<&str> {
    const KEY: &str = "File Path";
    let mut pos = 0;
    while let Some(k) = header[pos..].find(KEY).map(|k| pos + k) {
        let after = k + KEY.len();
        // `[^:]*` is greedy and cannot pass a colon: only the first colon can follow it.
        if let Some(c) = header[after..].find(':').map(|c| after + c) {
            if let Some(v) = header[c + 1..].strip_prefix(' ') {
                let len = v.find(']').unwrap_or(v.len());
                if len > 0 {
                    return Some(&v[..len]);
                }
            }
        }
        pos = k + 1;
    }
    None
}

/// The capture of `^\[(?:Image )?Attachment: (.*?) \| ID: ` on `header`.
pub(crate) fn header_name(header: &str) -> Option<&str> {
    let p = prefix_len(header)?;
    let line = &header[..header.find('\n').unwrap_or(header.len())];
    line[p..].find(ID_SEP).map(|k| &line[p..p + k])
}

#[cfg(test)]
mod tests {
    use super::*;
    use regex::Regex;

    /// The reference's patterns, as the oracle.
    fn oracle_segments(body: &str) -> Vec<(usize, &str)> {
        let re = Regex::new(r"\[(?:Image )?Attachment: [^\n]*? \| ID: (\d+) \|").unwrap();
        re.captures_iter(body)
            .map(|c| (c.get(0).unwrap().start(), c.get(1).unwrap().as_str()))
            .collect()
    }

    fn oracle(pattern: &str, s: &str) -> Option<String> {
        Regex::new(pattern)
            .unwrap()
            .captures(s)
            .map(|c| c[1].to_string())
    }

    const SAMPLES: &[&str] = &[
        "[Attachment: a.txt | ID: 12 | Type: text/plain | Size: 1 KB | File Path(already in sandbox): /a/b.txt]\nbody",
        "[Image Attachment: pic.png | ID: 7 | Type: image/png | Size: 3 MB]",
        "pre [Attachment: x | ID: 1 |tail [Attachment: y | ID: 22 | more",
        "[Attachment: name | with | ID: bars | ID: 5 | Type: a|b]",
        "[Attachment: a\n | ID: 3 | next line [Attachment: b | ID: 4 |",
        "[Attachment: a | ID: ١٢٣ | Type: text/x ] Arabic-Indic digits",
        "[Attachment: a | ID: 12x | ID: 13 | lazy skips the first",
        "[[Attachment: nested | ID: 9 |",
        "[Image Attachment: | ID: 8 | empty name",
        "[Attachment:  | ID:  | ID: 2 |",
        "| Type: | Type: ] | Type: text/markdown\n| more",
        "File Path:x File Path (sandbox): /p] File Path: /q]",
        "File Paths and more: ]File Path: /r",
        "no headers here [Attachment: unterminated | ID: 4",
        "",
        "[Attachment: é | ID: 0 | Type: ü]",
    ];

    fn fragments() -> impl proptest::strategy::Strategy<Value = String> {
        use proptest::prelude::*;
        let piece = prop::sample::select(vec![
            "[",
            "Image ",
            "Attachment: ",
            " | ID: ",
            "12",
            "٣",
            " |",
            "|",
            "| Type: ",
            "]",
            "\n",
            "File Path",
            ":",
            " ",
            "x",
            "é",
            "ID: ",
        ]);
        prop::collection::vec(piece, 0..40).prop_map(|v| v.concat())
    }

    proptest::proptest! {
        #[test]
        fn generated_headers_match_the_reference_patterns(s in fragments()) {
            proptest::prop_assert_eq!(segment_headers(&s), oracle_segments(&s));
            proptest::prop_assert_eq!(header_type(&s).map(str::to_string), oracle(r"\| Type: ([^|\]]+)", &s));
            proptest::prop_assert_eq!(header_path(&s).map(str::to_string), oracle(r"File Path[^:]*: ([^\]]+)", &s));
            proptest::prop_assert_eq!(
                header_name(&s).map(str::to_string),
                oracle(r"^\[(?:Image )?Attachment: (.*?) \| ID: ", &s)
            );
        }
    }

    #[test]
    fn segment_headers_match_the_reference_pattern() {
        for s in SAMPLES {
            assert_eq!(segment_headers(s), oracle_segments(s), "{s:?}");
        }
    }

    #[test]
    fn header_fields_match_the_reference_patterns() {
        for s in SAMPLES {
            assert_eq!(
                header_type(s).map(str::to_string),
                oracle(r"\| Type: ([^|\]]+)", s),
                "type of {s:?}"
            );
            assert_eq!(
                header_path(s).map(str::to_string),
                oracle(r"File Path[^:]*: ([^\]]+)", s),
                "path of {s:?}"
            );
            assert_eq!(
                header_name(s).map(str::to_string),
                oracle(r"^\[(?:Image )?Attachment: (.*?) \| ID: ", s),
                "name of {s:?}"
            );
        }
    }
}
