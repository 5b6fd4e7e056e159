//! chardet 5.2.0's `detect()`, as `DocumentParser._decode_binary_data` calls
//! it: one `UniversalDetector` fed the whole upload at once, then closed.
//! The guess (encoding name and confidence) is reproduced to the float: BOM
//! checks, the UTF-16/32 prober, the multi-byte group (UTF-8, Shift_JIS,
//! EUC-JP, GB2312, EUC-KR, CP949, Big5, EUC-TW, Johab), the single-byte group
//! (Russian, Bulgarian, Greek, Thai, Turkish and Hebrew models), the Latin-1
//! and MacRoman probers, and the ISO-8859 → Windows relabelling.
//!
//! Not ported: the escape-sequence probers (HZ, ISO-2022-CN/JP/KR), which
//! chardet runs only on input of 7-bit bytes holding ESC or `~{`; such input
//! is valid UTF-8, so the decoder never asks (see [`Detection::escape`]).
//!
//! Derived from chardet 5.2.0 (<https://github.com/chardet/chardet>), itself a
//! port of Mozilla's universal charset detector: Copyright (C) 1998 Netscape
//! Communications Corporation and the chardet contributors. This module (its
//! files and the generated `tables.rs`) is free software; you can
//! redistribute it and/or modify it under the terms of the GNU Lesser
//! General Public License as published by the Free Software Foundation;
//! either version 2.1 of the License, or (at your option) any later version.
//! The licence text is `extract/src/chardet/LICENSE`.

mod latin;
mod mbcs;
mod sbcs;
mod tables;
mod utf1632;

/// `ProbingState`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    Detecting,
    FoundIt,
    NotMe,
}

/// What every prober answers (`CharSetProber`).
trait Prober {
    /// Feeds the whole input once; the state afterwards.
    fn feed(&mut self, bytes: &[u8]) -> State;
    /// `get_confidence()`.
    fn confidence(&self) -> f64;
    /// `charset_name`.
    fn charset_name(&self) -> Option<&'static str>;
}

/// Python's `buf[start:end]` on a byte slice: negative bounds count from the
/// end, out-of-range bounds are clamped, an empty range gives nothing.
fn py_slice(buf: &[u8], start: i64, end: i64) -> &[u8] {
    let len = buf.len() as i64;
    let clamp = |i: i64| {
        let i = if i < 0 { i + len } else { i };
        i.clamp(0, len) as usize
    };
    let (start, end) = (clamp(start), clamp(end));
    if start >= end {
        &[]
    } else {
        buf.get(start..end).unwrap_or(&[])
    }
}

/// `CharSetGroupProber`: its members, fed in order until one claims the input.
struct Group {
    probers: Vec<Box<dyn Prober>>,
    active: Vec<bool>,
    state: State,
    best: Option<usize>,
}

impl Group {
    fn new(probers: Vec<Box<dyn Prober>>) -> Self {
        let active = vec![true; probers.len()];
        Group {
            probers,
            active,
            state: State::Detecting,
            best: None,
        }
    }

    /// The best active member and its confidence (the first of equals).
    fn best_guess(&self) -> Option<(usize, f64)> {
        let mut best: Option<(usize, f64)> = None;
        for (i, prober) in self.probers.iter().enumerate() {
            if !self.active.get(i).copied().unwrap_or(false) {
                continue;
            }
            let confidence = prober.confidence();
            if best.map_or(0.0, |(_, c)| c) < confidence {
                best = Some((i, confidence));
            }
        }
        best
    }
}

impl Prober for Group {
    fn feed(&mut self, bytes: &[u8]) -> State {
        let mut active_num = self.probers.len();
        for (i, prober) in self.probers.iter_mut().enumerate() {
            match prober.feed(bytes) {
                State::FoundIt => {
                    self.best = Some(i);
                    self.state = State::FoundIt;
                    return self.state;
                }
                State::NotMe => {
                    if let Some(a) = self.active.get_mut(i) {
                        *a = false;
                    }
                    active_num -= 1;
                    if active_num == 0 {
                        self.state = State::NotMe;
                        return self.state;
                    }
                }
                State::Detecting => {}
            }
        }
        self.state
    }

    fn confidence(&self) -> f64 {
        match self.state {
            State::FoundIt => 0.99,
            State::NotMe => 0.01,
            State::Detecting => self.best_guess().map_or(0.0, |(_, c)| c),
        }
    }

    fn charset_name(&self) -> Option<&'static str> {
        let best = match self.state {
            State::FoundIt => self.best,
            // NOT_ME keeps no guess of its own: the reference recomputes over active members (none)
            State::NotMe => None,
            State::Detecting => self.best_guess().map(|(i, _)| i),
        };
        self.probers.get(best?)?.charset_name()
    }
}

/// `detect()`'s answer: `{"encoding", "confidence"}` (the language is not needed).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Detection {
    /// The encoding name as chardet spells it (`GB2312`, `Windows-1252`, `utf-16le`), or `None`.
    pub encoding: Option<&'static str>,
    /// Its confidence.
    pub confidence: f64,
    /// True when the input is 7-bit with an escape sequence, where chardet would run its
    /// unported ISO-2022/HZ probers (encoding and confidence are then `None`, 0.0).
    pub escape: bool,
}

impl Detection {
    fn of(encoding: &'static str, confidence: f64) -> Self {
        Detection {
            encoding: Some(encoding),
            confidence,
            escape: false,
        }
    }
}

/// `MINIMUM_THRESHOLD`.
const MINIMUM_THRESHOLD: f64 = 0.20;

/// `ISO_WIN_MAP`, applied when a byte 0x80-0x9F was seen.
fn windows_name(lower: &str) -> Option<&'static str> {
    Some(match lower {
        "iso-8859-1" => "Windows-1252",
        "iso-8859-2" => "Windows-1250",
        "iso-8859-5" => "Windows-1251",
        "iso-8859-6" => "Windows-1256",
        "iso-8859-7" => "Windows-1253",
        "iso-8859-8" => "Windows-1255",
        "iso-8859-9" => "Windows-1254",
        "iso-8859-13" => "Windows-1257",
        _ => return None,
    })
}

/// `chardet.detect(bytes)`.
pub fn detect(bytes: &[u8]) -> Detection {
    let none = Detection {
        encoding: None,
        confidence: 0.0,
        escape: false,
    };
    if bytes.is_empty() {
        return none;
    }
    // Known BOMs first.
    if bytes.starts_with(b"\xEF\xBB\xBF") {
        return Detection::of("UTF-8-SIG", 1.0);
    }
    if bytes.starts_with(b"\xFF\xFE\x00\x00") || bytes.starts_with(b"\x00\x00\xFE\xFF") {
        return Detection::of("UTF-32", 1.0);
    }
    if bytes.starts_with(b"\xFE\xFF\x00\x00") {
        return Detection::of("X-ISO-10646-UCS-4-3412", 1.0);
    }
    if bytes.starts_with(b"\x00\x00\xFF\xFE") {
        return Detection::of("X-ISO-10646-UCS-4-2143", 1.0);
    }
    if bytes.starts_with(b"\xFF\xFE") || bytes.starts_with(b"\xFE\xFF") {
        return Detection::of("UTF-16", 1.0);
    }
    let high_byte = bytes.iter().any(|&b| b >= 0x80);
    let escape = !high_byte
        && (memchr::memchr(0x1B, bytes).is_some() || memchr::memmem::find(bytes, b"~{").is_some());

    let mut utf1632 = utf1632::Utf1632::default();
    utf1632.feed(bytes);
    if let Some(name) = utf1632.found() {
        return Detection::of(name, 0.85);
    }

    if escape {
        return Detection {
            escape: true,
            ..none
        };
    }
    if !high_byte {
        return Detection::of("ascii", 1.0);
    }

    let mut probers: Vec<Box<dyn Prober>> = vec![
        Box::new(Group::new(mbcs::probers())),
        Box::new(Group::new(sbcs::probers())),
        Box::new(latin::ClassModel::latin1()),
        Box::new(latin::ClassModel::mac_roman()),
    ];
    for prober in &mut probers {
        if prober.feed(bytes) == State::FoundIt {
            return match prober.charset_name() {
                Some(name) => Detection::of(name, prober.confidence()),
                None => none,
            };
        }
    }
    let has_win_bytes = bytes.iter().any(|&b| (0x80..=0x9F).contains(&b));

    let mut best: Option<(&dyn Prober, f64)> = None;
    for prober in &probers {
        let confidence = prober.confidence();
        if confidence > best.map_or(0.0, |(_, c)| c) {
            best = Some((prober.as_ref(), confidence));
        }
    }
    let Some((prober, confidence)) = best else {
        return none;
    };
    if confidence <= MINIMUM_THRESHOLD {
        return none;
    }
    let Some(mut name) = prober.charset_name() else {
        return none;
    };
    let lower = name.to_ascii_lowercase();
    if lower.starts_with("iso-8859") && has_win_bytes {
        if let Some(windows) = windows_name(&lower) {
            name = windows;
        }
    }
    Detection::of(name, prober.confidence())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn python_slices_clamp_and_count_from_the_end() {
        let b = b"abcd";
        assert_eq!(py_slice(b, 1, 3), b"bc");
        assert_eq!(py_slice(b, -1, 4), b"d");
        assert_eq!(py_slice(b, 3, 9), b"d");
        assert_eq!(py_slice(b, 5, 9), b"");
        assert_eq!(py_slice(b, 2, 1), b"");
    }

    #[test]
    fn boms_and_ascii() {
        assert_eq!(detect(b"\xEF\xBB\xBFx").encoding, Some("UTF-8-SIG"));
        assert_eq!(detect(b"\xFF\xFEx\x00").encoding, Some("UTF-16"));
        assert_eq!(detect(b"plain").encoding, Some("ascii"));
        assert_eq!(detect(b"").encoding, None);
        assert!(detect(b"\x1b$B").escape);
    }
}
