//! A big part (a worksheet, the shared strings) parsed as it inflates: the
//! first bytes are looked at for the encoding, UTF-8 is checked a buffer at
//! a time, and the reasons keep the order they have when the part is read
//! whole first: the archive's (a damaged member, past the budget), then
//! invalid UTF-8 anywhere in the part, then the parser's own. A part in
//! UTF-16 or Latin-1 (which no spreadsheet writer produces) is read whole,
//! within the document's inflation budget, and decoded as before.

use super::xml::{with_reader, Lookahead, Reader, XmlError};
use super::xml_decl::declared_latin1;
use crate::package::PartStream;
use std::cell::Cell;
use std::io::{self, BufRead, Read};
use std::rc::Rc;

/// How many leading bytes are looked at for a byte-order mark and the declaration.
const PREFIX_BYTES: usize = 512;

/// The buffer the inflated text is parsed from.
const TEXT_BUFFER_BYTES: usize = 128 * 1024;

/// Checks that `data` continues valid UTF-8 after `carry` (a sequence split
/// by the previous read), setting `invalid` at the first bad byte.
fn check_utf8(carry: &mut Vec<u8>, invalid: &Cell<bool>, mut data: &[u8]) {
    if invalid.get() {
        return;
    }
    while !carry.is_empty() && !data.is_empty() {
        carry.push(data[0]);
        data = &data[1..];
        match std::str::from_utf8(carry) {
            Ok(_) => carry.clear(),
            Err(e) if e.error_len().is_some() || carry.len() >= 4 => {
                invalid.set(true);
                return;
            }
            Err(_) => {}
        }
    }
    if let Err(e) = std::str::from_utf8(data) {
        match e.error_len() {
            Some(_) => invalid.set(true),
            None => *carry = data[e.valid_up_to()..].to_vec(),
        }
    }
}

/// A buffered reader that checks the bytes it reads are UTF-8 (a sequence
/// split between two reads carried over), and whose window grows on demand
/// ([`Lookahead`]) so that a whole row can be looked at before it is consumed.
struct Utf8Window<R> {
    inner: R,
    /// The window: `buf[pos..end]` is read and not yet consumed.
    buf: Vec<u8>,
    pos: usize,
    end: usize,
    carry: Vec<u8>,
    invalid: Rc<Cell<bool>>,
}

impl<R: Read> Utf8Window<R> {
    fn new(inner: R, capacity: usize, invalid: Rc<Cell<bool>>) -> Self {
        Utf8Window {
            inner,
            buf: vec![0; capacity.max(1)],
            pos: 0,
            end: 0,
            carry: Vec::new(),
            invalid,
        }
    }

    /// Reads once into the free end of the window (which must have room),
    /// checking what came; 0 at the end of the input.
    fn read_more(&mut self) -> io::Result<usize> {
        let n = loop {
            match self.inner.read(&mut self.buf[self.end..]) {
                Ok(n) => break n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            }
        };
        if n == 0 {
            if !self.carry.is_empty() {
                self.invalid.set(true);
            }
        } else {
            check_utf8(
                &mut self.carry,
                &self.invalid,
                &self.buf[self.end..self.end + n],
            );
        }
        self.end += n;
        Ok(n)
    }
}

impl<R: Read> Read for Utf8Window<R> {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        let chunk = self.fill_buf()?;
        let n = chunk.len().min(out.len());
        out[..n].copy_from_slice(&chunk[..n]);
        self.consume(n);
        Ok(n)
    }
}

impl<R: Read> BufRead for Utf8Window<R> {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        if self.pos == self.end {
            self.pos = 0;
            self.end = 0;
            self.read_more()?;
        }
        Ok(&self.buf[self.pos..self.end])
    }

    fn consume(&mut self, amount: usize) {
        self.pos = (self.pos + amount).min(self.end);
    }
}

impl<R: Read> Lookahead for Utf8Window<R> {
    fn fill_at_least(&mut self, min: usize) -> io::Result<&[u8]> {
        let min = min.max(1);
        if self.end - self.pos < min {
            self.buf.copy_within(self.pos..self.end, 0);
            self.end -= self.pos;
            self.pos = 0;
            if self.buf.len() < min {
                self.buf.resize(min, 0);
            }
            while self.end < min {
                if self.read_more()? == 0 {
                    break;
                }
            }
        }
        Ok(&self.buf[self.pos..self.end])
    }
}

/// A reader over `text`, UTF-8 after `skip` bytes, read through a
/// `capacity`-byte window; `invalid` is set when a byte is not UTF-8.
fn window_reader<'a>(
    part: &str,
    text: impl Read + 'a,
    capacity: usize,
    max_depth: usize,
    starts_with_decl: bool,
    invalid: &Rc<Cell<bool>>,
) -> Reader<'a> {
    let window = Utf8Window::new(text, capacity, Rc::clone(invalid));
    Reader::over_stream(part, Box::new(window), max_depth, starts_with_decl)
}

/// Calls `f` with a reader over UTF-8 `bytes` read through a `capacity`-byte
/// window (tests cut the text at every place a buffer can end).
#[cfg(test)]
pub(crate) fn with_window_reader<T>(
    part: &str,
    bytes: &[u8],
    capacity: usize,
    max_depth: usize,
    f: impl FnOnce(&mut Reader<'_>) -> Result<T, XmlError>,
) -> Result<T, XmlError> {
    let invalid = Rc::new(Cell::new(false));
    let starts_with_decl = bytes.starts_with(b"<?xml");
    let mut reader = window_reader(part, bytes, capacity, max_depth, starts_with_decl, &invalid);
    let out = f(&mut reader);
    reader.drain();
    if invalid.get() {
        return Err(XmlError::new(part, "invalid UTF-8"));
    }
    out
}

/// Calls `f` with a reader over `part`, inflated from `stream` as `f` pulls
/// events; a failure is reported with the reason that comes first (see the
/// module doc), as the refusal's text.
pub(crate) fn with_part_stream<T>(
    part: &str,
    stream: &mut PartStream<'_, '_>,
    max_depth: usize,
    f: impl FnOnce(&mut Reader<'_>) -> Result<T, XmlError>,
) -> Result<T, String> {
    let mut prefix = Vec::with_capacity(PREFIX_BYTES);
    let got = (&mut *stream)
        .take(PREFIX_BYTES as u64)
        .read_to_end(&mut prefix);
    if got.is_err() {
        return Err(failure(stream, None));
    }
    let other_encoding = prefix.starts_with(b"\xfe\xff")
        || prefix.starts_with(b"\xff\xfe")
        || declared_latin1(&prefix);
    if other_encoding {
        let mut whole = prefix;
        if stream.read_to_end(&mut whole).is_err() {
            return Err(failure(stream, None));
        }
        return with_reader(part, &whole, max_depth, f).map_err(|e| e.0);
    }
    let skip = if prefix.starts_with(b"\xef\xbb\xbf") {
        3
    } else {
        0
    };
    let starts_with_decl = prefix[skip..].starts_with(b"<?xml");
    let invalid = Rc::new(Cell::new(false));
    let outcome = {
        let mut prefix = io::Cursor::new(prefix);
        prefix.set_position(skip as u64);
        let chained = prefix.chain(&mut *stream);
        let mut reader = window_reader(
            part,
            chained,
            TEXT_BUFFER_BYTES,
            max_depth,
            starts_with_decl,
            &invalid,
        );
        let outcome = f(&mut reader);
        reader.drain();
        outcome
    };
    let utf8 = invalid
        .get()
        .then(|| XmlError::new(part, "invalid UTF-8").0);
    match outcome {
        Ok(value) => match failure_or(stream, utf8) {
            Some(why) => Err(why),
            None => Ok(value),
        },
        Err(e) => Err(failure(stream, utf8.or(Some(e.0)))),
    }
}

/// The stream's own failure if it had one (reading it to its end to learn
/// it), else `fallback`.
fn failure_or(stream: &mut PartStream<'_, '_>, fallback: Option<String>) -> Option<String> {
    match stream.drain() {
        Some(e) => Some(e.to_string()),
        None => fallback,
    }
}

fn failure(stream: &mut PartStream<'_, '_>, fallback: Option<String>) -> String {
    failure_or(stream, fallback).unwrap_or_else(|| "the part could not be read".to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Reads `bytes` through a window of `capacity` bytes, consuming `step`
    /// bytes at a time (as the parser does) and every `grow_every`th step
    /// asking for a window one byte larger; whether it found them invalid.
    fn invalid_after(bytes: &[u8], capacity: usize, step: usize, grow_every: usize) -> bool {
        let invalid = Rc::new(Cell::new(false));
        let mut window = Utf8Window::new(bytes, capacity, Rc::clone(&invalid));
        let mut seen = Vec::new();
        let mut steps = 0;
        loop {
            steps += 1;
            let chunk = if steps % grow_every == 0 {
                let had = window.end - window.pos;
                let more = window.fill_at_least(had + 1).unwrap_or_default();
                assert!(more.len() > had || seen.len() + more.len() == bytes.len());
                more
            } else {
                window.fill_buf().unwrap_or_default()
            };
            if chunk.is_empty() {
                break;
            }
            let n = step.min(chunk.len());
            seen.extend_from_slice(&chunk[..n]);
            window.consume(n);
        }
        assert_eq!(seen, bytes, "every byte is handed out once, in order");
        invalid.get()
    }

    #[test]
    fn every_window_size_step_and_growth_agrees_with_a_whole_check() {
        let cases: [&[u8]; 6] = [
            "<a>héllo € 𝄞 naïve</a>".as_bytes(),
            b"<a>\xc3</a>",
            b"<a>\xe2\x82</a>",
            b"<a>ok</a>\xf0\x9d\x84",
            b"\xff<a/>",
            b"<a>\xed\xa0\x80</a>",
        ];
        for bytes in cases {
            let whole_invalid = std::str::from_utf8(bytes).is_err();
            for capacity in 1..=9 {
                for step in 1..=4 {
                    for grow_every in [1, 2, 3, usize::MAX] {
                        assert_eq!(
                            invalid_after(bytes, capacity, step, grow_every),
                            whole_invalid,
                            "{bytes:?} in {capacity}-byte windows, {step} at a time"
                        );
                    }
                }
            }
        }
    }
}
