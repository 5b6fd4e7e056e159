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

/// The scans of one text, with the bytes they examined counted (the tests
/// check that every pass stays linear in its input).
struct Scan<'a> {
    text: &'a str,
    work_bytes: usize,
}

impl<'a> Scan<'a> {
    fn new(text: &'a str) -> Self {
        Scan {
            text,
            work_bytes: 0,
        }
    }

    /// The first `pat` at or after `from`.
    fn find(&mut self, from: usize, pat: impl Pattern) -> Option<usize> {
        let found = pat.find_in(&self.text[from..]);
        self.work_bytes += found.map_or(self.text.len() - from, |i| i + pat.len());
        found.map(|i| from + i)
    }

    /// Byte length of the `\d+` run at `at`.
    fn digits(&mut self, at: usize) -> usize {
        let len = digits_len(&self.text[at..]);
        self.work_bytes += len + 1;
        len
    }
}

/// What [`Scan::find`] looks for: a string or a byte.
trait Pattern: Copy {
    fn find_in(self, hay: &str) -> Option<usize>;
    fn len(self) -> usize;
}

impl Pattern for &str {
    /// `hay.find(self)`: a match of UTF-8 bytes in UTF-8 bytes starts on a char boundary.
    fn find_in(self, hay: &str) -> Option<usize> {
        memchr::memmem::find(hay.as_bytes(), self.as_bytes())
    }
    fn len(self) -> usize {
        str::len(self)
    }
}

impl Pattern for char {
    /// `hay.find(self)`: an ASCII byte of UTF-8 text is always that character.
    fn find_in(self, hay: &str) -> Option<usize> {
        match u8::try_from(self) {
            Ok(b) if b.is_ascii() => memchr::memchr(b, hay.as_bytes()),
            _ => hay.find(self),
        }
    }
    fn len(self) -> usize {
        self.len_utf8()
    }
}

/// One place where ` \| ID: (\d+) \|` matches: where it starts, its id, where it ends.
struct IdMark {
    at: usize,
    id: std::ops::Range<usize>,
    end: usize,
}

/// Every (possibly overlapping) ` \| ID: (\d+) \|` of the text, left to right. Linear:
/// each search resumes one byte after the previous separator.
fn id_marks(scan: &mut Scan) -> Vec<IdMark> {
    let mut marks = Vec::new();
    let mut from = 0;
    while let Some(at) = scan.find(from, ID_SEP) {
        let d0 = at + ID_SEP.len();
        let d = scan.digits(d0);
        if d > 0 && scan.text[d0 + d..].starts_with(" |") {
            marks.push(IdMark {
                at,
                id: d0..d0 + d,
                end: d0 + d + 2,
            });
        }
        from = at + 1;
    }
    marks
}

/// Every `\[(?:Image )?Attachment: [^\n]*? \| ID: (\d+) \|` in `body`, as
/// (start of the match, the id), non-overlapping, left to right.
pub(crate) fn segment_headers(body: &str) -> Vec<(usize, &str)> {
    segment_headers_counted(body).0
}

/// [`segment_headers`] and the bytes its scans examined. O(body): the id
/// separators are found once, and the lazy `[^\n]*?` of a header starting at
/// `s` takes the first of them at or after its prefix and before the line's
/// end, found by a pointer that only moves forward.
fn segment_headers_counted(body: &str) -> (Vec<(usize, &str)>, usize) {
    let mut scan = Scan::new(body);
    let marks = id_marks(&mut scan);
    let mut next_mark = 0;
    let mut line_end = None::<usize>;
    let mut found = Vec::new();
    let mut pos = 0;
    while let Some(s) = scan.find(pos, '[') {
        pos = s + 1;
        let Some(p) = prefix_len(&body[s..]) else {
            continue;
        };
        let end_of_line = match line_end {
            Some(e) if e >= s => e,
            _ => {
                let e = scan.find(s, '\n').unwrap_or(body.len());
                line_end = Some(e);
                e
            }
        };
        while marks.get(next_mark).is_some_and(|m| m.at < s + p) {
            next_mark += 1;
        }
        if let Some(mark) = marks.get(next_mark).filter(|m| m.at < end_of_line) {
            found.push((s, &body[mark.id.clone()]));
            pos = mark.end;
        }
    }
    (found, scan.work_bytes)
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
    header_path_counted(header).0
}

/// [`header_path`] and the bytes its scans examined. O(header): `[^:]*` is
/// greedy and cannot pass a colon, so only the first colon after a `File Path`
/// can follow it, and that colon is found once for every `File Path` before it.
fn header_path_counted(header: &str) -> (Option<&str>, usize) {
    const KEY: &str = "File Path";
    let mut scan = Scan::new(header);
    let mut colon = None::<Option<usize>>;
    let mut pos = 0;
    while let Some(k) = scan.find(pos, KEY) {
        let after = k + KEY.len();
        let c = match colon {
            Some(Some(c)) if c >= after => Some(c),
            Some(None) => None,
            _ => {
                let c = scan.find(after, ':');
                colon = Some(c);
                c
            }
        };
        let Some(c) = c else { break };
        if let Some(v) = header[c + 1..].strip_prefix(' ') {
            let len = scan.find(c + 2, ']').map_or(v.len(), |e| e - (c + 2));
            if len > 0 {
                return (Some(&v[..len]), scan.work_bytes);
            }
        }
        pos = k + 1;
    }
    (None, scan.work_bytes)
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

    /// The header scan once rescanned the rest of the line at every
    /// `[`, so `"[Attachment: ".repeat(n)` took quadratic time. Counts the bytes
    /// the scans examine on adversarial inputs: at most a small constant per byte.
    #[test]
    fn header_scans_are_linear_in_their_input() {
        let adversarial = [
            "[Attachment: ",
            "[Attachment:  | ID: 1 ",
            "[Image Attachment:  | ID: ",
            " | ID: 1 |[Attachment: ",
            " | ID:  | ID: ",
            "File Path",
            "File Path: ]",
        ];
        for unit in adversarial {
            for n in [1_000usize, 10_000, 40_000] {
                let text = unit.repeat(n);
                let (headers, work) = segment_headers_counted(&text);
                assert_eq!(headers, oracle_segments(&text), "{unit:?} × {n}");
                assert!(
                    work <= 4 * text.len() + 16,
                    "segment_headers examined {work} bytes of {} ({unit:?} × {n})",
                    text.len()
                );
                let (path, work) = header_path_counted(&text);
                assert_eq!(
                    path.map(str::to_string),
                    oracle(r"File Path[^:]*: ([^\]]+)", &text),
                    "{unit:?} × {n}"
                );
                assert!(
                    work <= 4 * text.len() + 16,
                    "header_path examined {work} bytes of {} ({unit:?} × {n})",
                    text.len()
                );
            }
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
