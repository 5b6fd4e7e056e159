//! `UTF1632Prober`: zero bytes by position modulo 4 and surrogate validity
//! tell UTF-16/32 without a BOM.
//!
//! Derived from chardet 5.2.0 (LGPL-2.1-or-later, see `LICENSE` here).

/// `MIN_CHARS_FOR_DETECTION`.
const MIN_CHARS: f64 = 20.0;
/// `EXPECTED_RATIO`.
const EXPECTED_RATIO: f64 = 0.94;

/// The prober's counters after one feed.
#[derive(Default)]
pub(super) struct Utf1632 {
    position: u64,
    zeros: [u64; 4],
    nonzeros: [u64; 4],
    quad: [u8; 4],
    invalid_16be: bool,
    invalid_16le: bool,
    invalid_32be: bool,
    invalid_32le: bool,
    surrogate_16be: bool,
    surrogate_16le: bool,
}

/// One half of `validate_utf16_characters`: the high byte of a code unit.
fn check_unit(high: u8, pending: &mut bool, invalid: &mut bool) {
    if !*pending {
        if (0xD8..=0xDB).contains(&high) {
            *pending = true;
        } else if (0xDC..=0xDF).contains(&high) {
            *invalid = true;
        }
    } else if (0xDC..=0xDF).contains(&high) {
        *pending = false;
    } else {
        *invalid = true;
    }
}

impl Utf1632 {
    /// `feed`.
    pub(super) fn feed(&mut self, bytes: &[u8]) {
        for &c in bytes {
            crate::decode::steps::step();
            let mod4 = (self.position % 4) as usize;
            self.quad[mod4] = c;
            if mod4 == 3 {
                let q = self.quad;
                if q[0] != 0 || q[1] > 0x10 || (q[1] == 0 && (0xD8..=0xDF).contains(&q[2])) {
                    self.invalid_32be = true;
                }
                if q[3] != 0 || q[2] > 0x10 || (q[2] == 0 && (0xD8..=0xDF).contains(&q[1])) {
                    self.invalid_32le = true;
                }
                for pair in [[q[0], q[1]], [q[2], q[3]]] {
                    check_unit(pair[0], &mut self.surrogate_16be, &mut self.invalid_16be);
                    check_unit(pair[1], &mut self.surrogate_16le, &mut self.invalid_16le);
                }
            }
            if c == 0 {
                self.zeros[mod4] += 1;
            } else {
                self.nonzeros[mod4] += 1;
            }
            self.position += 1;
        }
    }

    fn chars32(&self) -> f64 {
        f64::max(1.0, self.position as f64 / 4.0)
    }

    fn chars16(&self) -> f64 {
        f64::max(1.0, self.position as f64 / 2.0)
    }

    fn ratio(&self, count: u64, chars: f64) -> bool {
        count as f64 / chars > EXPECTED_RATIO
    }

    fn utf32be(&self) -> bool {
        let n = self.chars32();
        n >= MIN_CHARS
            && self.ratio(self.zeros[0], n)
            && self.ratio(self.zeros[1], n)
            && self.ratio(self.zeros[2], n)
            && self.ratio(self.nonzeros[3], n)
            && !self.invalid_32be
    }

    fn utf32le(&self) -> bool {
        let n = self.chars32();
        n >= MIN_CHARS
            && self.ratio(self.nonzeros[0], n)
            && self.ratio(self.zeros[1], n)
            && self.ratio(self.zeros[2], n)
            && self.ratio(self.zeros[3], n)
            && !self.invalid_32le
    }

    fn utf16be(&self) -> bool {
        let n = self.chars16();
        n >= MIN_CHARS
            && self.ratio(self.nonzeros[1] + self.nonzeros[3], n)
            && self.ratio(self.zeros[0] + self.zeros[2], n)
            && !self.invalid_16be
    }

    fn utf16le(&self) -> bool {
        let n = self.chars16();
        n >= MIN_CHARS
            && self.ratio(self.nonzeros[0] + self.nonzeros[2], n)
            && self.ratio(self.zeros[1] + self.zeros[3], n)
            && !self.invalid_16le
    }

    /// The name and confidence (0.85) when the counts say UTF-16/32, as
    /// `state` after the feed finds it (`get_confidence() > 0.80`).
    pub(super) fn found(&self) -> Option<&'static str> {
        let likely = self.utf16le() || self.utf16be() || self.utf32le() || self.utf32be();
        if !likely {
            return None;
        }
        Some(if self.utf32be() {
            "utf-32be"
        } else if self.utf32le() {
            "utf-32le"
        } else if self.utf16be() {
            "utf-16be"
        } else {
            "utf-16le"
        })
    }
}
