//! The single-byte group (`SBCSGroupProber`): bigram language models over
//! filtered text (`sbcharsetprober.py`) and the Hebrew logical/visual
//! arbiter (`hebrewprober.py`).
//!
//! Derived from chardet 5.2.0 (LGPL-2.1-or-later, see `LICENSE` here).

use super::tables::models;
use super::{Prober, State};
use std::cell::RefCell;
use std::rc::Rc;

/// `SingleByteCharSetModel`.
pub(super) struct Model {
    /// The encoding the model stands for.
    pub(super) charset_name: &'static str,
    /// Byte → frequency order (252 and up: digit, symbol, line break, control, undefined).
    pub(super) char_to_order_map: &'static [u8; 256],
    /// Likelihood digits ('0'-'3') of order b after order a at `a * 64 + b`.
    pub(super) language_model: &'static [u8; 4096],
    /// `typical_positive_ratio`.
    pub(super) typical_positive_ratio: f64,
    /// Whether ASCII letters are kept (XML tags removed) instead of keeping only words with high bytes.
    pub(super) keep_ascii_letters: bool,
}

/// `SAMPLE_SIZE`.
const SAMPLE_SIZE: u8 = 64;
/// `SB_ENOUGH_REL_THRESHOLD`.
const SB_ENOUGH_REL_THRESHOLD: u64 = 1024;
/// `CharacterCategory.CONTROL`: orders below it are letters.
const CONTROL: u8 = 251;

fn is_letter(b: u8) -> bool {
    b.is_ascii_alphabetic()
}

fn is_high(b: u8) -> bool {
    b >= 0x80
}

/// `filter_international_words`: the words holding a high byte, each
/// followed by its marker turned into a space. Linear: a position whose
/// letter run is not followed by a high byte cannot start a match, and
/// neither can any later position of that run.
pub(super) fn filter_international_words(buf: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(buf.len());
    let run_end = |from: usize, pred: fn(u8) -> bool| {
        from + buf
            .get(from..)
            .map_or(0, |rest| rest.iter().take_while(|&&b| pred(b)).count())
    };
    let mut i = 0;
    while i < buf.len() {
        crate::decode::steps::step();
        let letters = run_end(i, is_letter);
        if !buf.get(letters).copied().is_some_and(is_high) {
            i = letters + 1;
            continue;
        }
        let highs = run_end(letters, is_high);
        let mut end = run_end(highs, is_letter);
        if buf.get(end).is_some_and(|&b| !is_letter(b) && !is_high(b)) {
            end += 1;
        }
        let word = buf.get(i..end).unwrap_or(&[]);
        if let Some((&last, head)) = word.split_last() {
            out.extend_from_slice(head);
            out.push(if !is_letter(last) && last < 0x80 {
                b' '
            } else {
                last
            });
        }
        i = end;
    }
    out
}

/// `remove_xml_tags`: what lies outside `<…>`, a space after each kept stretch before a tag.
pub(super) fn remove_xml_tags(buf: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(buf.len());
    let mut in_tag = false;
    let mut prev = 0;
    for (curr, &b) in buf.iter().enumerate() {
        crate::decode::steps::step();
        if b == b'>' {
            prev = curr + 1;
            in_tag = false;
        } else if b == b'<' {
            if curr > prev && !in_tag {
                out.extend_from_slice(buf.get(prev..curr).unwrap_or(&[]));
                out.push(b' ');
            }
            in_tag = true;
        }
    }
    if !in_tag {
        out.extend_from_slice(buf.get(prev..).unwrap_or(&[]));
    }
    out
}

/// `filter_high_byte_only`: every run of ASCII bytes becomes one space.
fn filter_high_byte_only(buf: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(buf.len());
    let mut in_ascii = false;
    for &b in buf {
        crate::decode::steps::step();
        if b < 0x80 {
            if !in_ascii {
                out.push(b' ');
            }
            in_ascii = true;
        } else {
            out.push(b);
            in_ascii = false;
        }
    }
    out
}

/// The counters of one `SingleByteCharSetProber`.
struct Counts {
    state: State,
    seq_counters: [u64; 4],
    total_seqs: u64,
    total_char: u64,
    freq_char: u64,
}

impl Counts {
    fn confidence(&self, model: &Model) -> f64 {
        let mut r = 0.01;
        if self.total_seqs > 0 {
            r = (self.seq_counters[3] as f64 + 0.25 * self.seq_counters[2] as f64)
                / self.total_seqs as f64
                / model.typical_positive_ratio;
            // `(total_char - control_char) / total_char` with control_char never counted
            r = r * self.total_char as f64 / self.total_char as f64;
            r = r * self.freq_char as f64 / self.total_char as f64;
            if r >= 1.0 {
                r = 0.99;
            }
        }
        r
    }
}

/// `SingleByteCharSetProber`, its counters shared with the Hebrew arbiter when it is a Hebrew one.
struct SingleByte {
    model: &'static Model,
    reversed: bool,
    counts: Rc<RefCell<Counts>>,
    hebrew: Option<Rc<RefCell<Hebrew>>>,
}

impl SingleByte {
    fn new(model: &'static Model, reversed: bool) -> Self {
        SingleByte {
            model,
            reversed,
            counts: Rc::new(RefCell::new(Counts {
                state: State::Detecting,
                seq_counters: [0; 4],
                total_seqs: 0,
                total_char: 0,
                freq_char: 0,
            })),
            hebrew: None,
        }
    }
}

impl Prober for SingleByte {
    fn feed(&mut self, bytes: &[u8]) -> State {
        let filtered = if self.model.keep_ascii_letters {
            remove_xml_tags(bytes)
        } else {
            filter_international_words(bytes)
        };
        let mut counts = self.counts.borrow_mut();
        if filtered.is_empty() {
            return counts.state;
        }
        let mut last_order = 255u8;
        for &b in &filtered {
            crate::decode::steps::step();
            let order = self.model.char_to_order_map[usize::from(b)];
            if order < CONTROL {
                counts.total_char += 1;
            }
            if order < SAMPLE_SIZE {
                counts.freq_char += 1;
                if last_order < SAMPLE_SIZE {
                    counts.total_seqs += 1;
                    let (a, b) = if self.reversed {
                        (order, last_order)
                    } else {
                        (last_order, order)
                    };
                    let digit = self.model.language_model[usize::from(a) * 64 + usize::from(b)];
                    let category = usize::from(digit.saturating_sub(b'0')).min(3);
                    counts.seq_counters[category] += 1;
                }
            }
            last_order = order;
        }
        if counts.state == State::Detecting && counts.total_seqs > SB_ENOUGH_REL_THRESHOLD {
            let confidence = counts.confidence(self.model);
            if confidence > 0.95 {
                counts.state = State::FoundIt;
            } else if confidence < 0.05 {
                counts.state = State::NotMe;
            }
        }
        counts.state
    }

    fn confidence(&self) -> f64 {
        self.counts.borrow().confidence(self.model)
    }

    fn charset_name(&self) -> Option<&'static str> {
        match &self.hebrew {
            Some(hebrew) => Some(hebrew.borrow().charset_name()),
            None => Some(self.model.charset_name),
        }
    }
}

/// `HebrewProber`: final-letter evidence plus the two model probers' scores.
struct Hebrew {
    final_char_logical_score: i64,
    final_char_visual_score: i64,
    prev: u8,
    before_prev: u8,
    logical: Rc<RefCell<Counts>>,
    visual: Rc<RefCell<Counts>>,
}

const SPACE: u8 = 0x20;

fn is_final(c: u8) -> bool {
    matches!(c, 0xEA | 0xED | 0xEF | 0xF3 | 0xF5)
}

fn is_non_final(c: u8) -> bool {
    matches!(c, 0xEB | 0xEE | 0xF0 | 0xF4)
}

impl Hebrew {
    fn state(&self) -> State {
        if self.logical.borrow().state == State::NotMe && self.visual.borrow().state == State::NotMe
        {
            State::NotMe
        } else {
            State::Detecting
        }
    }

    fn feed(&mut self, bytes: &[u8]) -> State {
        if self.state() == State::NotMe {
            return State::NotMe;
        }
        for cur in filter_high_byte_only(bytes) {
            crate::decode::steps::step();
            if cur == SPACE {
                if self.before_prev != SPACE {
                    if is_final(self.prev) {
                        self.final_char_logical_score += 1;
                    } else if is_non_final(self.prev) {
                        self.final_char_visual_score += 1;
                    }
                }
            } else if self.before_prev == SPACE && is_final(self.prev) {
                self.final_char_visual_score += 1;
            }
            self.before_prev = self.prev;
            self.prev = cur;
        }
        State::Detecting
    }

    fn charset_name(&self) -> &'static str {
        const LOGICAL: &str = "windows-1255";
        const VISUAL: &str = "ISO-8859-8";
        let finalsub = self.final_char_logical_score - self.final_char_visual_score;
        if finalsub >= 5 {
            return LOGICAL;
        }
        if finalsub <= -5 {
            return VISUAL;
        }
        let model = &models::WINDOWS_1255_HEBREW_MODEL;
        let modelsub =
            self.logical.borrow().confidence(model) - self.visual.borrow().confidence(model);
        if modelsub > 0.01 {
            return LOGICAL;
        }
        if modelsub < -0.01 {
            return VISUAL;
        }
        if finalsub < 0 {
            return VISUAL;
        }
        LOGICAL
    }
}

/// The arbiter as a member of the group (confidence 0, name of its own).
struct HebrewMember(Rc<RefCell<Hebrew>>);

impl Prober for HebrewMember {
    fn feed(&mut self, bytes: &[u8]) -> State {
        self.0.borrow_mut().feed(bytes)
    }

    fn confidence(&self) -> f64 {
        0.0
    }

    fn charset_name(&self) -> Option<&'static str> {
        Some(self.0.borrow().charset_name())
    }
}

/// `SBCSGroupProber`'s members, in its order.
pub(super) fn probers() -> Vec<Box<dyn Prober>> {
    let mut logical = SingleByte::new(&models::WINDOWS_1255_HEBREW_MODEL, false);
    let mut visual = SingleByte::new(&models::WINDOWS_1255_HEBREW_MODEL, true);
    let hebrew = Rc::new(RefCell::new(Hebrew {
        final_char_logical_score: 0,
        final_char_visual_score: 0,
        prev: SPACE,
        before_prev: SPACE,
        logical: Rc::clone(&logical.counts),
        visual: Rc::clone(&visual.counts),
    }));
    logical.hebrew = Some(Rc::clone(&hebrew));
    visual.hebrew = Some(Rc::clone(&hebrew));
    let mut probers: Vec<Box<dyn Prober>> = [
        &models::WINDOWS_1251_RUSSIAN_MODEL,
        &models::KOI8_R_RUSSIAN_MODEL,
        &models::ISO_8859_5_RUSSIAN_MODEL,
        &models::MACCYRILLIC_RUSSIAN_MODEL,
        &models::IBM866_RUSSIAN_MODEL,
        &models::IBM855_RUSSIAN_MODEL,
        &models::ISO_8859_7_GREEK_MODEL,
        &models::WINDOWS_1253_GREEK_MODEL,
        &models::ISO_8859_5_BULGARIAN_MODEL,
        &models::WINDOWS_1251_BULGARIAN_MODEL,
        &models::TIS_620_THAI_MODEL,
        &models::ISO_8859_9_TURKISH_MODEL,
    ]
    .into_iter()
    .map(|model| Box::new(SingleByte::new(model, false)) as Box<dyn Prober>)
    .collect();
    probers.push(Box::new(HebrewMember(hebrew)));
    probers.push(Box::new(logical));
    probers.push(Box::new(visual));
    probers
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn international_words_keep_words_with_high_bytes_only() {
        // "abc" has no high byte; "d\xe9f," keeps its letters, its comma becomes a space
        assert_eq!(filter_international_words(b"abc d\xe9f, gh"), b"d\xe9f ");
        assert_eq!(
            filter_international_words(b"\xe9\xe9x\xe9"),
            b"\xe9\xe9x\xe9"
        );
        assert_eq!(filter_international_words(b"1\xe92"), b"\xe9 ");
        assert_eq!(filter_international_words(b""), b"");
    }

    #[test]
    fn xml_tags_are_removed_with_a_space_before_each() {
        assert_eq!(remove_xml_tags(b"ab<x>cd<y"), b"ab cd ");
        assert_eq!(remove_xml_tags(b"<a>b"), b"b");
    }

    #[test]
    fn ascii_runs_become_one_space() {
        assert_eq!(
            filter_high_byte_only(b"ab\xe9cd\xea\xeb"),
            b" \xe9 \xea\xeb"
        );
    }
}
