//! The single-byte group (`SBCSGroupProber`): bigram language models over
//! filtered text (`sbcharsetprober.py`) and the Hebrew logical/visual
//! arbiter (`hebrewprober.py`).
//!
//! Derived from chardet 5.2.0 (LGPL-2.1-or-later, see `LICENSE` here).

use super::filters::{HighByteOnly, InternationalWords, Sink, XmlTags};
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

/// The counters of one `SingleByteCharSetProber`.
#[derive(Clone, Copy)]
struct Counts {
    state: State,
    seq_counters: [u64; 4],
    total_seqs: u64,
    total_char: u64,
    freq_char: u64,
}

impl Counts {
    fn new() -> Self {
        Counts {
            state: State::Detecting,
            seq_counters: [0; 4],
            total_seqs: 0,
            total_char: 0,
            freq_char: 0,
        }
    }

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

/// The byte loop of `SingleByteCharSetProber.feed` over the filtered bytes:
/// the counters and the last order, which carries from piece to piece.
struct Sequences {
    model: &'static Model,
    reversed: bool,
    counts: Rc<RefCell<Counts>>,
    last_order: u8,
    /// The counters and last order at the filter's mark.
    marked: (Counts, u8),
}

impl Sink for Sequences {
    fn take(&mut self, bytes: &[u8]) {
        let mut counts = self.counts.borrow_mut();
        let mut last_order = self.last_order;
        for &b in bytes {
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
        self.last_order = last_order;
    }

    fn mark(&mut self) {
        self.marked = (*self.counts.borrow(), self.last_order);
    }

    fn commit(&mut self) {}

    fn rollback(&mut self) {
        let (counts, last_order) = self.marked;
        *self.counts.borrow_mut() = counts;
        self.last_order = last_order;
    }
}

/// Which of chardet's filters a model reads its input through.
enum Filter {
    /// `filter_international_words` (the models that drop ASCII words).
    Words(InternationalWords),
    /// `remove_xml_tags` (`keep_ascii_letters`).
    Tags(XmlTags),
}

/// `SingleByteCharSetProber`, its counters shared with the Hebrew arbiter when it is a Hebrew one.
struct SingleByte {
    filter: Filter,
    sequences: Sequences,
    hebrew: Option<Rc<RefCell<Hebrew>>>,
}

impl SingleByte {
    fn new(model: &'static Model, reversed: bool) -> Self {
        let filter = if model.keep_ascii_letters {
            Filter::Tags(XmlTags::default())
        } else {
            Filter::Words(InternationalWords::default())
        };
        SingleByte {
            filter,
            sequences: Sequences {
                model,
                reversed,
                counts: Rc::new(RefCell::new(Counts::new())),
                last_order: 255,
                marked: (Counts::new(), 255),
            },
            hebrew: None,
        }
    }
}

impl Prober for SingleByte {
    fn feed(&mut self, bytes: &[u8]) {
        match &mut self.filter {
            Filter::Words(words) => words.feed(bytes, &mut self.sequences),
            Filter::Tags(tags) => tags.feed(bytes, &mut self.sequences),
        }
    }

    /// The byte loop never decides: only the end-of-feed check does.
    fn stopped(&self) -> bool {
        false
    }

    fn end(&mut self) {
        match &mut self.filter {
            Filter::Words(words) => words.finish(&mut self.sequences),
            Filter::Tags(tags) => tags.finish(&mut self.sequences),
        }
    }

    fn settle(&mut self) -> State {
        let mut counts = self.sequences.counts.borrow_mut();
        if counts.state == State::Detecting && counts.total_seqs > SB_ENOUGH_REL_THRESHOLD {
            let confidence = counts.confidence(self.sequences.model);
            if confidence > 0.95 {
                counts.state = State::FoundIt;
            } else if confidence < 0.05 {
                counts.state = State::NotMe;
            }
        }
        counts.state
    }

    fn confidence(&self) -> f64 {
        self.sequences
            .counts
            .borrow()
            .confidence(self.sequences.model)
    }

    fn charset_name(&self) -> Option<&'static str> {
        match &self.hebrew {
            Some(hebrew) => Some(hebrew.borrow().charset_name()),
            None => Some(self.sequences.model.charset_name),
        }
    }
}

/// `HebrewProber`: final-letter evidence plus the two model probers' scores.
struct Hebrew {
    filter: HighByteOnly,
    finals: Finals,
    logical: Rc<RefCell<Counts>>,
    visual: Rc<RefCell<Counts>>,
}

/// The final-letter scores and the two bytes before, carried from piece to piece.
struct Finals {
    logical_score: i64,
    visual_score: i64,
    prev: u8,
    before_prev: u8,
}

impl Finals {
    /// One byte of the filtered input.
    fn read(&mut self, cur: u8) {
        crate::decode::steps::step();
        if cur == SPACE {
            if self.before_prev != SPACE {
                if is_final(self.prev) {
                    self.logical_score += 1;
                } else if is_non_final(self.prev) {
                    self.visual_score += 1;
                }
            }
        } else if self.before_prev == SPACE && is_final(self.prev) {
            self.visual_score += 1;
        }
        self.before_prev = self.prev;
        self.prev = cur;
    }
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

    /// `feed`: nothing once both model probers are out (never before the
    /// input ends, as their state changes only then).
    fn feed(&mut self, bytes: &[u8]) {
        if self.state() == State::NotMe {
            return;
        }
        let finals = &mut self.finals;
        self.filter.feed(bytes, &mut |cur| finals.read(cur));
    }

    fn charset_name(&self) -> &'static str {
        const LOGICAL: &str = "windows-1255";
        const VISUAL: &str = "ISO-8859-8";
        let finalsub = self.finals.logical_score - self.finals.visual_score;
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
    fn feed(&mut self, bytes: &[u8]) {
        self.0.borrow_mut().feed(bytes);
    }

    fn stopped(&self) -> bool {
        false
    }

    fn end(&mut self) {}

    /// DETECTING unless both model probers are out, as they stand when the
    /// group reaches this member (before them).
    fn settle(&mut self) -> State {
        self.0.borrow().state()
    }

    fn confidence(&self) -> f64 {
        0.0
    }

    #[cfg(test)]
    fn report(&self, out: &mut Vec<(Option<&'static str>, f64)>) {
        let hebrew = self.0.borrow();
        out.push((
            Some(hebrew.charset_name()),
            hebrew.finals.logical_score as f64,
        ));
        out.push((None, hebrew.finals.visual_score as f64));
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
        filter: HighByteOnly::default(),
        finals: Finals {
            logical_score: 0,
            visual_score: 0,
            prev: SPACE,
            before_prev: SPACE,
        },
        logical: Rc::clone(&logical.sequences.counts),
        visual: Rc::clone(&visual.sequences.counts),
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
