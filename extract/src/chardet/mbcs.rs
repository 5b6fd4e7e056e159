//! The multi-byte group (`MBCSGroupProber`): a coding state machine per
//! encoding, character-distribution analysis (`chardistribution.py`) and,
//! for Japanese, the hiragana context analysis (`jpcntx.py`).
//!
//! Derived from chardet 5.2.0 (LGPL-2.1-or-later, see `LICENSE` here).

use super::tables;
use super::{py_slice, Prober, State};

/// `MachineState.START`.
const START: u8 = 0;
/// `MachineState.ERROR`.
const ERROR: u8 = 1;
/// `MachineState.ITS_ME`.
const ITS_ME: u8 = 2;

/// `SHORTCUT_THRESHOLD`: above it (with enough data) a prober claims the input.
const SHORTCUT_THRESHOLD: f64 = 0.95;

/// One `CodingStateMachineDict` of `mbcssm.py`.
pub(super) struct StateMachine {
    /// Byte → class.
    pub(super) class_table: [u8; 256],
    /// Classes per state row.
    pub(super) class_factor: usize,
    /// (state × factor + class) → next state.
    pub(super) state_table: &'static [u8],
    /// Class of a character's first byte → the character's length.
    pub(super) char_len_table: &'static [u8],
}

/// `CodingStateMachine`: the running state over one model.
struct Machine {
    model: &'static StateMachine,
    state: u8,
    char_len: usize,
}

impl Machine {
    fn new(model: &'static StateMachine) -> Self {
        Machine {
            model,
            state: START,
            char_len: 0,
        }
    }

    /// `next_state`. The generator checked that every index reachable from a
    /// non-terminal state is inside the tables; a miss reads as ERROR.
    fn next(&mut self, byte: u8) -> u8 {
        let class = usize::from(self.model.class_table[usize::from(byte)]);
        if self.state == START {
            self.char_len = usize::from(self.model.char_len_table.get(class).copied().unwrap_or(0));
        }
        let index = usize::from(self.state) * self.model.class_factor + class;
        self.state = self.model.state_table.get(index).copied().unwrap_or(ERROR);
        self.state
    }
}

/// Which `CharDistributionAnalysis` subclass, i.e. which `get_order`.
#[derive(Clone, Copy)]
enum Orders {
    EucTw,
    EucKr,
    Johab,
    Gb2312,
    Big5,
    Sjis,
    EucJp,
}

/// `CharDistributionAnalysis`.
struct Distribution {
    orders: Orders,
    table: &'static [u16],
    ratio: f64,
    total_chars: u64,
    freq_chars: u64,
}

/// `ENOUGH_DATA_THRESHOLD`.
const ENOUGH_DATA_THRESHOLD: u64 = 1024;
/// `MINIMUM_DATA_THRESHOLD`.
const MINIMUM_DATA_THRESHOLD: u64 = 3;

impl Distribution {
    fn new(orders: Orders) -> Self {
        let (table, ratio): (&'static [u16], f64) = match orders {
            Orders::EucTw => (
                &tables::EUCTW_CHAR_TO_FREQ_ORDER,
                tables::EUCTW_TYPICAL_DISTRIBUTION_RATIO,
            ),
            Orders::EucKr | Orders::Johab => (
                &tables::EUCKR_CHAR_TO_FREQ_ORDER,
                tables::EUCKR_TYPICAL_DISTRIBUTION_RATIO,
            ),
            Orders::Gb2312 => (
                &tables::GB2312_CHAR_TO_FREQ_ORDER,
                tables::GB2312_TYPICAL_DISTRIBUTION_RATIO,
            ),
            Orders::Big5 => (
                &tables::BIG5_CHAR_TO_FREQ_ORDER,
                tables::BIG5_TYPICAL_DISTRIBUTION_RATIO,
            ),
            Orders::Sjis | Orders::EucJp => (
                &tables::JIS_CHAR_TO_FREQ_ORDER,
                tables::JIS_TYPICAL_DISTRIBUTION_RATIO,
            ),
        };
        Distribution {
            orders,
            table,
            ratio,
            total_chars: 0,
            freq_chars: 0,
        }
    }

    /// `get_order` of a two-byte window (`None` is the reference's -1).
    fn order(&self, pair: &[u8]) -> Option<usize> {
        let first = i64::from(*pair.first()?);
        let second = || pair.get(1).map(|&b| i64::from(b));
        let order = match self.orders {
            Orders::EucTw => {
                if first < 0xC4 {
                    return None;
                }
                94 * (first - 0xC4) + second()? - 0xA1
            }
            Orders::EucKr => {
                if first < 0xB0 {
                    return None;
                }
                94 * (first - 0xB0) + second()? - 0xA1
            }
            Orders::Johab => {
                if !(0x88..0xD4).contains(&first) {
                    return None;
                }
                let code = u16::try_from(first * 256 + second()?).ok()?;
                let at = tables::JOHAB_TO_EUCKR_CODES.binary_search(&code).ok()?;
                i64::from(*tables::JOHAB_TO_EUCKR_ORDERS.get(at)?)
            }
            Orders::Gb2312 => {
                let second = second()?;
                if first < 0xB0 || second < 0xA1 {
                    return None;
                }
                94 * (first - 0xB0) + second - 0xA1
            }
            Orders::Big5 => {
                if first < 0xA4 {
                    return None;
                }
                let second = second()?;
                if second >= 0xA1 {
                    157 * (first - 0xA4) + second - 0xA1 + 63
                } else {
                    157 * (first - 0xA4) + second - 0x40
                }
            }
            Orders::Sjis => {
                let second = second()?;
                let base = if (0x81..=0x9F).contains(&first) {
                    188 * (first - 0x81)
                } else if (0xE0..=0xEF).contains(&first) {
                    188 * (first - 0xE0 + 31)
                } else {
                    return None;
                };
                if second > 0x7F {
                    return None;
                }
                base + second - 0x40
            }
            Orders::EucJp => {
                if first < 0xA0 {
                    return None;
                }
                94 * (first - 0xA1) + second()? - 0xA1
            }
        };
        usize::try_from(order).ok()
    }

    /// `feed(char, char_len)`: only two-byte characters count.
    fn feed(&mut self, pair: &[u8], char_len: usize) {
        if char_len != 2 {
            return;
        }
        if let Some(order) = self.order(pair) {
            self.total_chars += 1;
            if self.table.get(order).is_some_and(|&f| f < 512) {
                self.freq_chars += 1;
            }
        }
    }

    fn confidence(&self) -> f64 {
        if self.total_chars == 0 || self.freq_chars <= MINIMUM_DATA_THRESHOLD {
            return 0.01;
        }
        if self.total_chars != self.freq_chars {
            let r =
                self.freq_chars as f64 / ((self.total_chars - self.freq_chars) as f64 * self.ratio);
            if r < 0.99 {
                return r;
            }
        }
        0.99
    }

    fn got_enough_data(&self) -> bool {
        self.total_chars > ENOUGH_DATA_THRESHOLD
    }
}

/// `JapaneseContextAnalysis` (its SJIS or EUC-JP `get_order`).
struct Context {
    sjis: bool,
    total_rel: u64,
    rel_sample: [u64; 6],
    need_to_skip: i64,
    last_order: Option<usize>,
    done: bool,
    cp932: bool,
}

impl Context {
    fn new(sjis: bool) -> Self {
        Context {
            sjis,
            total_rel: 0,
            rel_sample: [0; 6],
            need_to_skip: 0,
            last_order: None,
            done: false,
            cp932: false,
        }
    }

    /// `get_order`: the hiragana order (if any) and the character's length.
    fn order(&mut self, window: &[u8]) -> (Option<usize>, i64) {
        let Some(&first) = window.first() else {
            return (None, 1);
        };
        let char_len = if self.sjis {
            if (0x81..=0x9F).contains(&first) || (0xE0..=0xFC).contains(&first) {
                if first == 0x87 || (0xFA..=0xFC).contains(&first) {
                    self.cp932 = true;
                }
                2
            } else {
                1
            }
        } else if first == 0x8E || (0xA1..=0xFE).contains(&first) {
            2
        } else if first == 0x8F {
            3
        } else {
            1
        };
        if let Some(&second) = window.get(1) {
            // chardet's SJIS test reads 202 (0xCA), not 0x82: kept as it is.
            let (lead, low, high) = if self.sjis {
                (202, 0x9F, 0xF1)
            } else {
                (0xA4, 0xA1, 0xF3)
            };
            if first == lead && (low..=high).contains(&second) {
                return (Some(usize::from(second - low)), char_len);
            }
        }
        (None, char_len)
    }

    /// `feed(byte_str, num_bytes)`, with the reference's skip count that
    /// outlives the call.
    fn feed(&mut self, window: &[u8], num_bytes: i64) {
        if self.done {
            return;
        }
        let mut i = self.need_to_skip;
        while i < num_bytes {
            crate::decode::steps::step();
            let (order, char_len) = self.order(py_slice(window, i, i + 2));
            i += char_len;
            if i > num_bytes {
                self.need_to_skip = i - num_bytes;
                self.last_order = None;
            } else {
                if let (Some(order), Some(last)) = (order, self.last_order) {
                    self.total_rel += 1;
                    if self.total_rel > 1000 {
                        self.done = true;
                        break;
                    }
                    let category = tables::JP2_CHAR_CONTEXT
                        .get(last * 83 + order)
                        .copied()
                        .unwrap_or(0);
                    if let Some(slot) = self.rel_sample.get_mut(usize::from(category)) {
                        *slot += 1;
                    }
                }
                self.last_order = order;
            }
        }
    }

    fn got_enough_data(&self) -> bool {
        self.total_rel > 100
    }

    /// The confidence, `None` for the reference's `DONT_KNOW` (-1).
    fn confidence(&self) -> Option<f64> {
        (self.total_rel > 4)
            .then(|| (self.total_rel - self.rel_sample[0]) as f64 / self.total_rel as f64)
    }
}

/// The probers of the group, in `MBCSGroupProber`'s order.
#[derive(Clone, Copy, Debug)]
enum Kind {
    Sjis,
    EucJp,
    Gb2312,
    EucKr,
    Cp949,
    Big5,
    EucTw,
    Johab,
}

/// `MultiByteCharSetProber` and its SJIS and EUC-JP variants.
struct MultiByte {
    kind: Kind,
    machine: Machine,
    distribution: Distribution,
    context: Option<Context>,
    state: State,
    /// `_last_char`: the previous piece's last byte, then the current piece's first.
    last_char: [u8; 2],
    /// Whether a piece was read (the input's first byte has its own windows).
    started: bool,
    /// A one-byte SJIS character that ended the last piece: its context window
    /// reaches the next byte (`byte_str[i:i+2]`), read with the next piece.
    held: Option<u8>,
}

impl MultiByte {
    fn new(kind: Kind) -> Self {
        let (model, orders, context): (&'static StateMachine, Orders, Option<Context>) = match kind
        {
            Kind::Sjis => (&tables::SJIS_SM, Orders::Sjis, Some(Context::new(true))),
            Kind::EucJp => (&tables::EUCJP_SM, Orders::EucJp, Some(Context::new(false))),
            Kind::Gb2312 => (&tables::GB2312_SM, Orders::Gb2312, None),
            Kind::EucKr => (&tables::EUCKR_SM, Orders::EucKr, None),
            Kind::Cp949 => (&tables::CP949_SM, Orders::EucKr, None),
            Kind::Big5 => (&tables::BIG5_SM, Orders::Big5, None),
            Kind::EucTw => (&tables::EUCTW_SM, Orders::EucTw, None),
            Kind::Johab => (&tables::JOHAB_SM, Orders::Johab, None),
        };
        MultiByte {
            kind,
            machine: Machine::new(model),
            distribution: Distribution::new(orders),
            context,
            state: State::Detecting,
            last_char: [0; 2],
            started: false,
            held: None,
        }
    }

    /// The context analysis of the character ending at `bytes[i]` (`char_len`
    /// long), with the window the single feed reads there. A window cut by
    /// the piece's end is held for the next piece.
    fn read_context(&mut self, bytes: &[u8], i: usize, char_len: usize) {
        let sjis = matches!(self.kind, Kind::Sjis);
        let Some(context) = &mut self.context else {
            return;
        };
        let len = char_len as i64;
        let at = i as i64;
        if sjis && char_len == 1 && (i > 0 || self.started) {
            // `byte_str[i:i+2]`: this byte and the next, which may be in the next piece
            match (bytes.get(i), bytes.get(i + 1)) {
                (Some(&byte), Some(&next)) => context.feed(&[byte, next], len),
                (Some(&byte), None) => self.held = Some(byte),
                _ => {}
            }
            return;
        }
        if i == 0 {
            let window = if sjis {
                py_slice(&self.last_char, 2 - len, 2)
            } else {
                &self.last_char[..]
            };
            context.feed(window, len);
        } else if sjis {
            context.feed(py_slice(bytes, at + 1 - len, at + 3 - len), len);
        } else {
            context.feed(py_slice(bytes, at - 1, at + 1), len);
        }
    }
}

impl Prober for MultiByte {
    fn feed(&mut self, bytes: &[u8]) {
        let Some(&first) = bytes.first() else {
            return;
        };
        if self.state != State::Detecting {
            return;
        }
        if let (Some(held), Some(context)) = (self.held.take(), &mut self.context) {
            context.feed(&[held, first], 1);
        }
        for (i, &byte) in bytes.iter().enumerate() {
            crate::decode::steps::step();
            let coding_state = self.machine.next(byte);
            if coding_state == ERROR {
                self.state = State::NotMe;
                break;
            }
            if coding_state == ITS_ME {
                self.state = State::FoundIt;
                break;
            }
            if coding_state == START {
                let char_len = self.machine.char_len;
                if i == 0 {
                    // the previous piece's last byte and this one: `byte_str[i-1:i+1]` of the whole
                    self.last_char[1] = byte;
                    self.read_context(bytes, i, char_len);
                    self.distribution.feed(&self.last_char, char_len);
                } else {
                    self.read_context(bytes, i, char_len);
                    let at = i as i64;
                    self.distribution
                        .feed(py_slice(bytes, at - 1, at + 1), char_len);
                }
            }
        }
        if let Some(&last) = bytes.last() {
            self.last_char[0] = last;
        }
        self.started = true;
    }

    fn stopped(&self) -> bool {
        self.state != State::Detecting
    }

    /// A held one-byte SJIS character at the input's end: its window is the byte alone.
    fn end(&mut self) {
        if let (Some(held), Some(context)) = (self.held.take(), &mut self.context) {
            context.feed(&[held], 1);
        }
    }

    fn settle(&mut self) -> State {
        if self.state == State::Detecting {
            let enough = match &self.context {
                Some(context) => context.got_enough_data(),
                None => self.distribution.got_enough_data(),
            };
            if enough && self.confidence() > SHORTCUT_THRESHOLD {
                self.state = State::FoundIt;
            }
        }
        self.state
    }

    fn confidence(&self) -> f64 {
        let distribution = self.distribution.confidence();
        match self.context.as_ref().and_then(Context::confidence) {
            // max(context, distribution) keeps the first on a tie: same value
            Some(context) if context >= distribution => context,
            _ => distribution,
        }
    }

    fn charset_name(&self) -> Option<&'static str> {
        Some(match self.kind {
            Kind::Sjis => {
                if self.context.as_ref().is_some_and(|c| c.cp932) {
                    "CP932"
                } else {
                    "SHIFT_JIS"
                }
            }
            Kind::EucJp => "EUC-JP",
            Kind::Gb2312 => "GB2312",
            Kind::EucKr => "EUC-KR",
            Kind::Cp949 => "CP949",
            Kind::Big5 => "Big5",
            Kind::EucTw => "EUC-TW",
            Kind::Johab => "Johab",
        })
    }

    #[cfg(test)]
    fn report(&self, out: &mut Vec<(Option<&'static str>, f64)>) {
        let name = self.charset_name();
        out.push((name, self.distribution.confidence()));
        if let Some(context) = &self.context {
            out.push((name, context.total_rel as f64));
            for count in context.rel_sample {
                out.push((name, count as f64));
            }
        }
    }
}

/// `UTF8Prober`.
struct Utf8 {
    machine: Machine,
    multi_byte_chars: u32,
    state: State,
}

impl Prober for Utf8 {
    fn feed(&mut self, bytes: &[u8]) {
        if self.state != State::Detecting {
            return;
        }
        for &byte in bytes {
            crate::decode::steps::step();
            let coding_state = self.machine.next(byte);
            if coding_state == ERROR {
                self.state = State::NotMe;
                break;
            }
            if coding_state == ITS_ME {
                self.state = State::FoundIt;
                break;
            }
            if coding_state == START && self.machine.char_len >= 2 {
                self.multi_byte_chars += 1;
            }
        }
    }

    fn stopped(&self) -> bool {
        self.state != State::Detecting
    }

    fn end(&mut self) {}

    fn settle(&mut self) -> State {
        if self.state == State::Detecting && self.confidence() > SHORTCUT_THRESHOLD {
            self.state = State::FoundIt;
        }
        self.state
    }

    fn confidence(&self) -> f64 {
        let mut unlike = 0.99;
        if self.multi_byte_chars < 6 {
            for _ in 0..self.multi_byte_chars {
                unlike *= 0.5;
            }
            return 1.0 - unlike;
        }
        unlike
    }

    fn charset_name(&self) -> Option<&'static str> {
        Some("utf-8")
    }
}

/// `MBCSGroupProber`'s members, in its order.
pub(super) fn probers() -> Vec<Box<dyn Prober>> {
    let mut probers: Vec<Box<dyn Prober>> = vec![Box::new(Utf8 {
        machine: Machine::new(&tables::UTF8_SM),
        multi_byte_chars: 0,
        state: State::Detecting,
    })];
    for kind in [
        Kind::Sjis,
        Kind::EucJp,
        Kind::Gb2312,
        Kind::EucKr,
        Kind::Cp949,
        Kind::Big5,
        Kind::EucTw,
        Kind::Johab,
    ] {
        probers.push(Box::new(MultiByte::new(kind)));
    }
    probers
}
