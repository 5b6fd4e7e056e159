//! chardet's buffer filters (`CharSetProber.filter_international_words`,
//! `remove_xml_tags`, `filter_high_byte_only`) as streams: fed the input in
//! pieces cut anywhere, they hand a prober exactly the bytes the function
//! would return for the whole input, in order.
//!
//! Two filters keep or drop a stretch of bytes by a byte that may come much
//! later (a run of ASCII letters is kept only when a high byte follows it
//! before a marker; text outside tags is dropped when a `>` follows it
//! before a `<`). Such a stretch is not held: the prober reads it at once
//! after marking its own state ([`Sink::mark`]), and takes it back
//! ([`Sink::rollback`]) when the later byte drops it, so memory stays
//! bounded whatever the stretch's length.
//!
//! Derived from chardet 5.2.0 (LGPL-2.1-or-later, see `LICENSE` here).

/// A prober reading a filter's output, able to take back what it read since a mark.
pub(super) trait Sink {
    /// Reads the next filtered bytes.
    fn take(&mut self, bytes: &[u8]);
    /// Remembers the state now: the bytes taken next are kept or taken back later.
    fn mark(&mut self);
    /// The bytes taken since the mark are kept.
    fn commit(&mut self);
    /// The bytes taken since the mark are dropped: the state is the marked one again.
    fn rollback(&mut self);
}

fn is_letter(b: u8) -> bool {
    b.is_ascii_alphabetic()
}

fn is_high(b: u8) -> bool {
    b >= 0x80
}

/// The length of the run of `bytes` (from its start) whose bytes pass `pred`.
fn run_len(bytes: &[u8], pred: impl Fn(u8) -> bool) -> usize {
    bytes.iter().take_while(|&&b| pred(b)).count()
}

/// `filter_international_words` as a stream: the words (`[a-zA-Z]*[\x80-\xFF]+[a-zA-Z]*`)
/// holding a high byte, each followed by its marker (any other byte) turned into a space.
#[derive(Debug, Default)]
pub(super) struct InternationalWords {
    /// Inside a word that holds a high byte (its bytes are kept as they come).
    in_word: bool,
    /// A run of letters with no high byte yet was handed on after a mark.
    tentative: bool,
}

impl InternationalWords {
    /// Filters the next piece into `sink`.
    pub(super) fn feed(&mut self, bytes: &[u8], sink: &mut dyn Sink) {
        let mut i = 0;
        while let Some(&b) = bytes.get(i) {
            crate::decode::steps::step();
            let rest = bytes.get(i..).unwrap_or(&[]);
            if self.in_word {
                // letters and high bytes continue the word (a high byte after
                // trailing letters starts the next match, kept all the same)
                let n = run_len(rest, |b| is_letter(b) || is_high(b));
                if n > 0 {
                    sink.take(rest.get(..n).unwrap_or(&[]));
                    i += n;
                } else {
                    sink.take(b" ");
                    self.in_word = false;
                    i += 1;
                }
            } else if is_letter(b) {
                let n = run_len(rest, is_letter);
                if !self.tentative {
                    sink.mark();
                    self.tentative = true;
                }
                sink.take(rest.get(..n).unwrap_or(&[]));
                i += n;
            } else if is_high(b) {
                if self.tentative {
                    sink.commit();
                    self.tentative = false;
                }
                self.in_word = true;
            } else {
                if self.tentative {
                    sink.rollback();
                    self.tentative = false;
                }
                i += 1;
            }
        }
    }

    /// The input ended: letters never followed by a high byte are no word.
    pub(super) fn finish(&mut self, sink: &mut dyn Sink) {
        if self.tentative {
            sink.rollback();
            self.tentative = false;
        }
    }
}

/// `remove_xml_tags` as a stream: what lies outside `<…>`, a space after each
/// kept stretch that a `<` ends; a stretch a `>` ends is dropped.
#[derive(Debug, Default)]
pub(super) struct XmlTags {
    in_tag: bool,
    /// Bytes since the last `>` (or the start) were handed on after a mark.
    tentative: bool,
}

impl XmlTags {
    /// Filters the next piece into `sink`.
    pub(super) fn feed(&mut self, bytes: &[u8], sink: &mut dyn Sink) {
        let mut i = 0;
        while let Some(&b) = bytes.get(i) {
            crate::decode::steps::step();
            match b {
                b'>' => {
                    if self.tentative {
                        sink.rollback();
                        self.tentative = false;
                    }
                    self.in_tag = false;
                    i += 1;
                }
                b'<' => {
                    if self.tentative {
                        sink.commit();
                        sink.take(b" ");
                        self.tentative = false;
                    }
                    self.in_tag = true;
                    i += 1;
                }
                _ => {
                    let rest = bytes.get(i..).unwrap_or(&[]);
                    let n = memchr::memchr2(b'<', b'>', rest).unwrap_or(rest.len());
                    if !self.in_tag {
                        if !self.tentative {
                            sink.mark();
                            self.tentative = true;
                        }
                        sink.take(rest.get(..n).unwrap_or(&[]));
                    }
                    i += n;
                }
            }
        }
    }

    /// The input ended: a stretch outside any tag is kept.
    pub(super) fn finish(&mut self, sink: &mut dyn Sink) {
        if self.tentative {
            sink.commit();
            self.tentative = false;
        }
    }

    /// Whether bytes handed on may still be taken back.
    pub(super) fn tentative(&self) -> bool {
        self.tentative
    }
}

/// `filter_high_byte_only` as a stream: every run of ASCII bytes becomes one space.
#[derive(Debug, Default)]
pub(super) struct HighByteOnly {
    in_ascii: bool,
}

impl HighByteOnly {
    /// Filters the next piece, handing each output byte to `each`.
    pub(super) fn feed(&mut self, bytes: &[u8], each: &mut dyn FnMut(u8)) {
        for &b in bytes {
            crate::decode::steps::step();
            if b < 0x80 {
                if !self.in_ascii {
                    each(b' ');
                }
                self.in_ascii = true;
            } else {
                each(b);
                self.in_ascii = false;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The filters as chardet writes them, over the whole input: the oracles.
    mod whole {
        /// `filter_international_words` (`INTERNATIONAL_WORDS_PATTERN.findall`).
        pub(super) fn international_words(buf: &[u8]) -> Vec<u8> {
            let (letter, high) = (super::is_letter, super::is_high);
            let mut out = Vec::new();
            let mut i = 0;
            while i < buf.len() {
                // a match: letters*, highs+, letters*, one optional marker
                let start = i;
                let mut j = i;
                while j < buf.len() && letter(buf[j]) {
                    j += 1;
                }
                let highs = j;
                while j < buf.len() && high(buf[j]) {
                    j += 1;
                }
                if j == highs {
                    // no high byte here: the regex finds no match from `start`
                    i = start + 1;
                    continue;
                }
                while j < buf.len() && letter(buf[j]) {
                    j += 1;
                }
                if j < buf.len() && !letter(buf[j]) && !high(buf[j]) {
                    j += 1;
                }
                let word = &buf[start..j];
                let (&last, head) = word.split_last().expect("a match is not empty");
                out.extend_from_slice(head);
                out.push(if !letter(last) && last < 0x80 {
                    b' '
                } else {
                    last
                });
                i = j;
            }
            out
        }

        /// `remove_xml_tags`.
        pub(super) fn xml_tags(buf: &[u8]) -> Vec<u8> {
            let mut out = Vec::new();
            let mut in_tag = false;
            let mut prev = 0;
            for (curr, &b) in buf.iter().enumerate() {
                if b == b'>' {
                    prev = curr + 1;
                    in_tag = false;
                } else if b == b'<' {
                    if curr > prev && !in_tag {
                        out.extend_from_slice(&buf[prev..curr]);
                        out.push(b' ');
                    }
                    in_tag = true;
                }
            }
            if !in_tag {
                out.extend_from_slice(&buf[prev..]);
            }
            out
        }

        /// `filter_high_byte_only` (`re.sub(b"([\x00-\x7F])+", b" ", buf)`).
        pub(super) fn high_byte_only(buf: &[u8]) -> Vec<u8> {
            let mut out = Vec::new();
            for (i, &b) in buf.iter().enumerate() {
                if b >= 0x80 {
                    out.push(b);
                } else if i == 0 || buf[i - 1] >= 0x80 {
                    out.push(b' ');
                }
            }
            out
        }
    }

    /// A sink that records what it keeps.
    #[derive(Default)]
    struct Recorder {
        kept: Vec<u8>,
        mark: Option<usize>,
    }

    impl Sink for Recorder {
        fn take(&mut self, bytes: &[u8]) {
            self.kept.extend_from_slice(bytes);
        }
        fn mark(&mut self) {
            assert!(self.mark.is_none(), "one mark at a time");
            self.mark = Some(self.kept.len());
        }
        fn commit(&mut self) {
            assert!(self.mark.take().is_some(), "a commit follows a mark");
        }
        fn rollback(&mut self) {
            let at = self.mark.take().expect("a rollback follows a mark");
            self.kept.truncate(at);
        }
    }

    /// `bytes` cut after each of `cuts` (taken modulo the length).
    fn pieces<'a>(bytes: &'a [u8], cuts: &[usize]) -> Vec<&'a [u8]> {
        let mut at: Vec<usize> = cuts.iter().map(|c| c % (bytes.len() + 1)).collect();
        at.sort_unstable();
        let mut out = Vec::new();
        let mut from = 0;
        for cut in at.into_iter().chain([bytes.len()]) {
            out.push(&bytes[from..cut]);
            from = cut;
        }
        out
    }

    fn words_streamed(parts: &[&[u8]]) -> Vec<u8> {
        let (mut filter, mut sink) = (InternationalWords::default(), Recorder::default());
        for part in parts {
            filter.feed(part, &mut sink);
        }
        filter.finish(&mut sink);
        assert!(sink.mark.is_none());
        sink.kept
    }

    fn tags_streamed(parts: &[&[u8]]) -> Vec<u8> {
        let (mut filter, mut sink) = (XmlTags::default(), Recorder::default());
        for part in parts {
            filter.feed(part, &mut sink);
        }
        filter.finish(&mut sink);
        assert!(sink.mark.is_none());
        sink.kept
    }

    fn high_streamed(parts: &[&[u8]]) -> Vec<u8> {
        let (mut filter, mut out) = (HighByteOnly::default(), Vec::new());
        for part in parts {
            filter.feed(part, &mut |b| out.push(b));
        }
        out
    }

    #[test]
    fn international_words_keep_words_with_high_bytes_only() {
        for (input, want) in [
            (&b"abc d\xe9f, gh"[..], &b"d\xe9f "[..]),
            (b"\xe9\xe9x\xe9", b"\xe9\xe9x\xe9"),
            (b"1\xe92", b"\xe9 "),
            (b"", b""),
        ] {
            assert_eq!(whole::international_words(input), want);
            assert_eq!(words_streamed(&[input]), want);
        }
    }

    #[test]
    fn xml_tags_are_removed_with_a_space_before_each() {
        for (input, want) in [
            (&b"ab<x>cd<y"[..], &b"ab cd "[..]),
            (b"<a>b", b"b"),
            (b"dropped>kept", b"kept"),
        ] {
            assert_eq!(whole::xml_tags(input), want);
            assert_eq!(tags_streamed(&[input]), want);
        }
    }

    #[test]
    fn ascii_runs_become_one_space_across_pieces() {
        assert_eq!(
            high_streamed(&[b"ab", b"\xe9c", b"d\xea\xeb"]),
            b" \xe9 \xea\xeb"
        );
    }

    /// Bytes where the filters' cases are frequent: letters, high bytes, markers, tag brackets.
    fn filter_bytes() -> impl Strategy<Value = Vec<u8>> {
        proptest::collection::vec(
            prop_oneof![
                Just(b'a'),
                Just(b'Z'),
                Just(b' '),
                Just(b','),
                Just(b'<'),
                Just(b'>'),
                Just(0xE9u8),
                0x80u8..=0xFF,
                any::<u8>(),
            ],
            0..300,
        )
    }

    proptest! {
        #[test]
        fn streamed_filters_cut_anywhere_equal_the_whole_input_filters(
            bytes in filter_bytes(),
            cuts in proptest::collection::vec(any::<usize>(), 0..12),
        ) {
            let parts = pieces(&bytes, &cuts);
            prop_assert_eq!(words_streamed(&parts), whole::international_words(&bytes));
            prop_assert_eq!(tags_streamed(&parts), whole::xml_tags(&bytes));
            prop_assert_eq!(high_streamed(&parts), whole::high_byte_only(&bytes));
        }
    }
}
