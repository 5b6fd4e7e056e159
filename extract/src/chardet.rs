//! chardet 5.2.0's `detect()`, as `DocumentParser._decode_binary_data` calls
//! it: one `UniversalDetector` fed the whole upload at once, then closed.
//! The guess (encoding name and confidence) is reproduced to the float: BOM
//! checks, the UTF-16/32 prober, the multi-byte group (UTF-8, Shift_JIS,
//! EUC-JP, GB2312, EUC-KR, CP949, Big5, EUC-TW, Johab), the single-byte group
//! (Russian, Bulgarian, Greek, Thai, Turkish and Hebrew models), the Latin-1
//! and MacRoman probers, and the ISO-8859 → Windows relabelling.
//!
//! The same answer comes from a [`Detector`] fed the input in pieces cut
//! anywhere, so an upload is detected as it is read, never held whole: each
//! prober carries from piece to piece what its single feed keeps between
//! bytes (the last byte, order or class, the filters' states), decides
//! inside its byte loop as the bytes come, and makes its after-the-loop
//! checks once, at the end, in the order the single feed would (the
//! `group.rs` says how a group picks the member that claims the input).
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

mod filters;
mod group;
mod latin;
mod mbcs;
mod sbcs;
#[cfg(test)]
mod stream_tests;
mod tables;
mod utf1632;

use group::Group;

/// `ProbingState`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    Detecting,
    FoundIt,
    NotMe,
}

/// What every prober answers (`CharSetProber`), read piece by piece as if
/// `feed` had the whole input at once: what `feed` decides inside its byte
/// loop (a coding error, a certain character) it decides as the bytes come;
/// what it decides after the loop ([`Prober::settle`]) waits for the end.
trait Prober {
    /// Reads the next piece of the input (the pieces in order are the input).
    fn feed(&mut self, bytes: &[u8]);
    /// Whether the byte loop has stopped the prober, so that later bytes change nothing.
    fn stopped(&self) -> bool;
    /// The input ended: decisions held for later bytes (filters, windows) are made.
    fn end(&mut self);
    /// The state `feed` returns: its after-the-loop checks, run once, after [`Prober::end`].
    fn settle(&mut self) -> State;
    /// `get_confidence()`.
    fn confidence(&self) -> f64;
    /// `charset_name`.
    fn charset_name(&self) -> Option<&'static str>;
    /// The prober's name and figures (its members' too), for the tests that
    /// compare the whole state of two detectors, not only their answers.
    #[cfg(test)]
    fn report(&self, out: &mut Vec<(Option<&'static str>, f64)>) {
        out.push((self.charset_name(), self.confidence()));
    }
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

    const NONE: Detection = Detection {
        encoding: None,
        confidence: 0.0,
        escape: false,
    };
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

/// The answer of a known BOM at the start of the input (`head`: its first bytes, up to 4).
fn bom(head: &[u8]) -> Option<Detection> {
    let name = if head.starts_with(b"\xEF\xBB\xBF") {
        "UTF-8-SIG"
    } else if head.starts_with(b"\xFF\xFE\x00\x00") || head.starts_with(b"\x00\x00\xFE\xFF") {
        "UTF-32"
    } else if head.starts_with(b"\xFE\xFF\x00\x00") {
        "X-ISO-10646-UCS-4-3412"
    } else if head.starts_with(b"\x00\x00\xFF\xFE") {
        "X-ISO-10646-UCS-4-2143"
    } else if head.starts_with(b"\xFF\xFE") || head.starts_with(b"\xFE\xFF") {
        "UTF-16"
    } else {
        return None;
    };
    Some(Detection::of(name, 1.0))
}

/// `UniversalDetector` fed an input piece by piece, then closed: the
/// answer is `detect()`'s for the whole input at once, wherever the pieces
/// are cut, in memory bounded by the probers' counters (a piece is read,
/// never kept). The single feed's whole-buffer checks (a high byte, an
/// escape, a byte 0x80-0x9F) are flags carried from piece to piece.
pub struct Detector {
    /// The input's first bytes (a BOM is at most 4).
    head: [u8; 4],
    head_len: usize,
    /// The answer of a BOM, known once the first 4 bytes are.
    bom: Option<Detection>,
    high_byte: bool,
    /// An ESC or `~{` was seen (`ESC_DETECTOR`).
    escape: bool,
    /// The last byte read was `~`.
    tilde: bool,
    /// A byte 0x80-0x9F was seen (`WIN_BYTE_DETECTOR`).
    win_bytes: bool,
    utf1632: utf1632::Utf1632,
    /// The multi-byte group, the single-byte group, Latin-1 and MacRoman, in the detector's order.
    probers: Vec<Box<dyn Prober>>,
    /// The probers this pass over the input feeds.
    reading: std::ops::Range<usize>,
    /// Whether this pass feeds the whole-input checks (the first pass does).
    checking: bool,
}

impl Default for Detector {
    fn default() -> Self {
        Detector::new()
    }
}

impl Detector {
    /// A detector before any byte.
    pub fn new() -> Self {
        let probers: Vec<Box<dyn Prober>> = vec![
            Box::new(Group::new(mbcs::probers())),
            Box::new(Group::new(sbcs::probers())),
            Box::new(latin::ClassModel::latin1()),
            Box::new(latin::ClassModel::mac_roman()),
        ];
        Detector {
            head: [0; 4],
            head_len: 0,
            bom: None,
            high_byte: false,
            escape: false,
            tilde: false,
            win_bytes: false,
            utf1632: utf1632::Utf1632::default(),
            reading: 0..probers.len(),
            probers,
            checking: true,
        }
    }

    /// Reads the next piece of the input.
    pub fn feed(&mut self, bytes: &[u8]) {
        if bytes.is_empty() || self.bom.is_some() {
            return;
        }
        if self.checking {
            self.check(bytes);
            if self.bom.is_some() {
                return;
            }
        }
        let reading = self.reading.clone();
        for prober in self.probers.get_mut(reading).unwrap_or_default() {
            if !prober.stopped() {
                prober.feed(bytes);
            }
        }
    }

    /// The whole-input checks: the BOM, the flags, the UTF-16/32 prober.
    fn check(&mut self, bytes: &[u8]) {
        let n = bytes.len().min(self.head.len() - self.head_len);
        if let (Some(to), Some(from)) = (
            self.head.get_mut(self.head_len..self.head_len + n),
            bytes.get(..n),
        ) {
            to.copy_from_slice(from);
            self.head_len += n;
        }
        if self.head_len == self.head.len() {
            self.bom = bom(&self.head);
            if self.bom.is_some() {
                return;
            }
        }
        self.high_byte = self.high_byte || bytes.iter().any(|&b| b >= 0x80);
        if !self.high_byte {
            // an escape counts only in 7-bit input
            self.escape = self.escape
                || memchr::memchr(0x1B, bytes).is_some()
                || memchr::memmem::find(bytes, b"~{").is_some()
                || (self.tilde && bytes.first() == Some(&b'{'));
            self.tilde = bytes.last() == Some(&b'~');
        }
        self.win_bytes = self.win_bytes || bytes.iter().any(|&b| (0x80..=0x9F).contains(&b));
        self.utf1632.feed(bytes);
    }

    /// The answers known before any prober of the byte groups: no input, a
    /// BOM, UTF-16/32 by their zero bytes, 7-bit input.
    fn prelude(&self) -> Option<Detection> {
        if self.head_len == 0 {
            return Some(Detection::NONE);
        }
        if let Some(known) = self.bom.or_else(|| bom(&self.head[..self.head_len])) {
            return Some(known);
        }
        if let Some(name) = self.utf1632.found() {
            return Some(Detection::of(name, 0.85));
        }
        if !self.high_byte {
            if self.escape {
                return Some(Detection {
                    escape: true,
                    ..Detection::NONE
                });
            }
            return Some(Detection::of("ascii", 1.0));
        }
        None
    }

    /// `close()`: the answer for everything fed.
    pub fn finish(mut self) -> Detection {
        if let Some(known) = self.prelude() {
            return known;
        }
        for prober in &mut self.probers {
            prober.end();
        }
        for prober in &mut self.probers {
            if prober.settle() == State::FoundIt {
                return claimed(prober.as_ref());
            }
        }
        let mut best: Option<(&dyn Prober, f64)> = None;
        for prober in &self.probers {
            let confidence = prober.confidence();
            if confidence > best.map_or(0.0, |(_, c)| c) {
                best = Some((prober.as_ref(), confidence));
            }
        }
        let Some((prober, confidence)) = best else {
            return Detection::NONE;
        };
        if confidence <= MINIMUM_THRESHOLD {
            return Detection::NONE;
        }
        let Some(mut name) = prober.charset_name() else {
            return Detection::NONE;
        };
        let lower = name.to_ascii_lowercase();
        if lower.starts_with("iso-8859") && self.win_bytes {
            if let Some(windows) = windows_name(&lower) {
                name = windows;
            }
        }
        Detection::of(name, prober.confidence())
    }
}

#[cfg(test)]
impl Detector {
    /// Every prober's figures once the input ended (before any settles), then the answer.
    fn finish_reporting(mut self) -> (Vec<(Option<&'static str>, f64)>, Detection) {
        for prober in &mut self.probers {
            prober.end();
        }
        let mut report = Vec::new();
        for prober in &self.probers {
            prober.report(&mut report);
        }
        (report, self.finish())
    }
}

/// The answer of a prober that claimed the input.
fn claimed(prober: &dyn Prober) -> Detection {
    match prober.charset_name() {
        Some(name) => Detection::of(name, prober.confidence()),
        None => Detection::NONE,
    }
}

/// `chardet.detect(bytes)`: one [`Detector`] fed the whole input.
pub fn detect(bytes: &[u8]) -> Detection {
    let mut detector = Detector::new();
    detector.feed(bytes);
    detector.finish()
}

/// One pass over an input: hands its pieces, in order, to the argument
/// until that answers false (it wants no more), or fails as the reader does.
pub type Pass<'a, E> = dyn FnMut(&mut dyn FnMut(&[u8]) -> bool) -> Result<(), E> + 'a;

/// [`detect`] of an input read by passes: `read` hands the whole input, in
/// pieces, to its argument (which answers whether it wants more) each time
/// it is called. The first pass feeds the whole-input checks and the
/// multi-byte group, which settles first in the single feed too: when it
/// claims the input (as for a long CJK text), the single feed never feeds
/// the other probers, and neither does this. Otherwise a second pass feeds them.
pub fn detect_by_passes<E>(read: &mut Pass<'_, E>) -> Result<Detection, E> {
    let mut detector = Detector::new();
    detector.reading = 0..1;
    read(&mut |piece| {
        detector.feed(piece);
        true
    })?;
    if let Some(known) = detector.prelude() {
        return Ok(known);
    }
    if let Some(group) = detector.probers.first_mut() {
        group.end();
        if group.settle() == State::FoundIt {
            return Ok(claimed(group.as_ref()));
        }
    }
    detector.reading = 1..detector.probers.len();
    detector.checking = false;
    read(&mut |piece| {
        detector.feed(piece);
        true
    })?;
    // `finish` ends and settles the group again: both leave it as it is
    Ok(detector.finish())
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
