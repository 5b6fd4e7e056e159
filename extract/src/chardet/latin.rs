//! `Latin1Prober` and `MacRomanProber`: a class bigram model over the text
//! outside XML tags, scaled down by 0.73 so that other probers win.
//!
//! Derived from chardet 5.2.0 (LGPL-2.1-or-later, see `LICENSE` here).

use super::sbcs::remove_xml_tags;
use super::tables;
use super::{Prober, State};

/// `OTH`, the class a prober starts after.
const OTH: u8 = 1;

/// One of the two class-model probers.
pub(super) struct ClassModel {
    name: &'static str,
    char_to_class: &'static [u8; 256],
    class_model: &'static [u8],
    class_num: usize,
    freq_counter: [u64; 4],
    state: State,
}

impl ClassModel {
    /// `Latin1Prober`.
    pub(super) fn latin1() -> Self {
        ClassModel {
            name: "ISO-8859-1",
            char_to_class: &tables::LATIN1_CHAR_TO_CLASS,
            class_model: &tables::LATIN1_CLASS_MODEL,
            class_num: 8,
            freq_counter: [0; 4],
            state: State::Detecting,
        }
    }

    /// `MacRomanProber`, starting "in a slightly improbable state" (10 unlikely pairs).
    pub(super) fn mac_roman() -> Self {
        ClassModel {
            name: "MacRoman",
            char_to_class: &tables::MACROMAN_CHAR_TO_CLASS,
            class_model: &tables::MACROMAN_CLASS_MODEL,
            class_num: 9,
            freq_counter: [0, 0, 10, 0],
            state: State::Detecting,
        }
    }
}

impl Prober for ClassModel {
    fn feed(&mut self, bytes: &[u8]) -> State {
        let mut last_class = OTH;
        for b in remove_xml_tags(bytes) {
            crate::decode::steps::step();
            let class = self.char_to_class[usize::from(b)];
            let index = usize::from(last_class) * self.class_num + usize::from(class);
            let freq = self.class_model.get(index).copied().unwrap_or(0);
            if freq == 0 {
                self.state = State::NotMe;
                break;
            }
            if let Some(slot) = self.freq_counter.get_mut(usize::from(freq)) {
                *slot += 1;
            }
            last_class = class;
        }
        self.state
    }

    fn confidence(&self) -> f64 {
        if self.state == State::NotMe {
            return 0.01;
        }
        let total: u64 = self.freq_counter.iter().sum();
        let confidence = if total == 0 {
            0.0
        } else {
            (self.freq_counter[3] as f64 - self.freq_counter[1] as f64 * 20.0) / total as f64
        };
        // max(confidence, 0.0) keeps confidence unless 0.0 is greater
        let confidence = if 0.0 > confidence { 0.0 } else { confidence };
        confidence * 0.73
    }

    fn charset_name(&self) -> Option<&'static str> {
        Some(self.name)
    }
}
