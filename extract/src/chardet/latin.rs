//! `Latin1Prober` and `MacRomanProber`: a class bigram model over the text
//! outside XML tags, scaled down by 0.73 so that other probers win.
//!
//! Derived from chardet 5.2.0 (LGPL-2.1-or-later, see `LICENSE` here).

use super::filters::{Sink, XmlTags};
use super::tables;
use super::{Prober, State};

/// `OTH`, the class a prober starts after.
const OTH: u8 = 1;

/// What the byte loop changes: the counters, the last class (carried from
/// piece to piece) and the state.
#[derive(Clone, Copy)]
struct Tally {
    freq_counter: [u64; 4],
    last_class: u8,
    state: State,
}

/// The byte loop over the filtered bytes, with the tally at the filter's mark.
struct Classes {
    char_to_class: &'static [u8; 256],
    class_model: &'static [u8],
    class_num: usize,
    now: Tally,
    marked: Tally,
}

impl Sink for Classes {
    fn take(&mut self, bytes: &[u8]) {
        for &b in bytes {
            if self.now.state == State::NotMe {
                // the single feed's `break`: nothing after counts
                return;
            }
            crate::decode::steps::step();
            let class = self.char_to_class[usize::from(b)];
            let index = usize::from(self.now.last_class) * self.class_num + usize::from(class);
            let freq = self.class_model.get(index).copied().unwrap_or(0);
            if freq == 0 {
                self.now.state = State::NotMe;
                return;
            }
            if let Some(slot) = self.now.freq_counter.get_mut(usize::from(freq)) {
                *slot += 1;
            }
            self.now.last_class = class;
        }
    }

    fn mark(&mut self) {
        self.marked = self.now;
    }

    fn commit(&mut self) {}

    fn rollback(&mut self) {
        self.now = self.marked;
    }
}

/// One of the two class-model probers.
pub(super) struct ClassModel {
    name: &'static str,
    filter: XmlTags,
    classes: Classes,
}

impl ClassModel {
    fn new(
        name: &'static str,
        char_to_class: &'static [u8; 256],
        class_model: &'static [u8],
        class_num: usize,
        freq_counter: [u64; 4],
    ) -> Self {
        let tally = Tally {
            freq_counter,
            last_class: OTH,
            state: State::Detecting,
        };
        ClassModel {
            name,
            filter: XmlTags::default(),
            classes: Classes {
                char_to_class,
                class_model,
                class_num,
                now: tally,
                marked: tally,
            },
        }
    }

    /// `Latin1Prober`.
    pub(super) fn latin1() -> Self {
        ClassModel::new(
            "ISO-8859-1",
            &tables::LATIN1_CHAR_TO_CLASS,
            &tables::LATIN1_CLASS_MODEL,
            8,
            [0; 4],
        )
    }

    /// `MacRomanProber`, starting "in a slightly improbable state" (10 unlikely pairs).
    pub(super) fn mac_roman() -> Self {
        ClassModel::new(
            "MacRoman",
            &tables::MACROMAN_CHAR_TO_CLASS,
            &tables::MACROMAN_CLASS_MODEL,
            9,
            [0, 0, 10, 0],
        )
    }
}

impl Prober for ClassModel {
    fn feed(&mut self, bytes: &[u8]) {
        self.filter.feed(bytes, &mut self.classes);
    }

    /// Out for good: NOT_ME on bytes no later `>` can take back.
    fn stopped(&self) -> bool {
        self.classes.now.state == State::NotMe && !self.filter.tentative()
    }

    fn end(&mut self) {
        self.filter.finish(&mut self.classes);
    }

    fn settle(&mut self) -> State {
        self.classes.now.state
    }

    fn confidence(&self) -> f64 {
        let tally = &self.classes.now;
        if tally.state == State::NotMe {
            return 0.01;
        }
        let total: u64 = tally.freq_counter.iter().sum();
        let confidence = if total == 0 {
            0.0
        } else {
            (tally.freq_counter[3] as f64 - tally.freq_counter[1] as f64 * 20.0) / total as f64
        };
        // max(confidence, 0.0) keeps confidence unless 0.0 is greater
        let confidence = if 0.0 > confidence { 0.0 } else { confidence };
        confidence * 0.73
    }

    fn charset_name(&self) -> Option<&'static str> {
        Some(self.name)
    }
}
