//! A big part (a worksheet, the shared strings) parsed as it inflates: the
//! first bytes are looked at for the encoding, UTF-8 is checked a buffer at
//! a time, and the reasons keep the order they have when the part is read
//! whole first: the archive's (a damaged member, past the budget), then
//! invalid UTF-8 anywhere in the part, then the parser's own. A part in
//! UTF-16 or Latin-1 (which no spreadsheet writer produces) is read whole,
//! within the document's inflation budget, and decoded as before.

use super::xml::{with_reader, Reader, XmlError};
use super::xml_decl::declared_latin1;
use crate::package::PartStream;
use std::cell::Cell;
use std::io::{self, BufRead, BufReader, Read};
use std::rc::Rc;

/// How many leading bytes are looked at for a byte-order mark and the declaration.
const PREFIX_BYTES: usize = 512;

/// The buffer the inflated text is parsed from.
const TEXT_BUFFER_BYTES: usize = 128 * 1024;

/// A buffered reader that checks the bytes it hands out are UTF-8, carrying
/// a sequence split between two buffers. Each buffer is checked once, when
/// it is filled (the parser consumes it in many small steps).
struct Utf8Checked<R> {
    inner: R,
    carry: Vec<u8>,
    invalid: Rc<Cell<bool>>,
    /// How many bytes of the inner buffer are checked and not yet consumed
    /// (0: the next `fill_buf` hands out a new buffer, checked then).
    checked: usize,
}

/// Checks that `data` continues valid UTF-8 after `carry` (a sequence split
/// by the previous buffer), setting `invalid` at the first bad byte.
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
    // ASCII needs no decoder; most of a sheet is ASCII.
    let ascii = data
        .iter()
        .position(|b| !b.is_ascii())
        .unwrap_or(data.len());
    if let Err(e) = std::str::from_utf8(&data[ascii..]) {
        match e.error_len() {
            Some(_) => invalid.set(true),
            None => *carry = data[ascii + e.valid_up_to()..].to_vec(),
        }
    }
}

impl<R: BufRead> Read for Utf8Checked<R> {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        let chunk = self.fill_buf()?;
        let n = chunk.len().min(out.len());
        out[..n].copy_from_slice(&chunk[..n]);
        self.consume(n);
        Ok(n)
    }
}

impl<R: BufRead> BufRead for Utf8Checked<R> {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        let chunk = self.inner.fill_buf()?;
        if self.checked == 0 {
            if chunk.is_empty() && !self.carry.is_empty() {
                self.invalid.set(true);
            }
            check_utf8(&mut self.carry, &self.invalid, chunk);
            self.checked = chunk.len();
        }
        Ok(chunk)
    }

    fn consume(&mut self, amount: usize) {
        if self.checked == 0 {
            // Consumed without a look: check the bytes before they go.
            if let Ok(chunk) = self.inner.fill_buf() {
                check_utf8(&mut self.carry, &self.invalid, chunk);
                self.checked = chunk.len();
            }
        }
        self.checked = self.checked.saturating_sub(amount);
        self.inner.consume(amount);
    }
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
        let chained = io::Cursor::new(prefix).chain(&mut *stream);
        let mut buffered = BufReader::with_capacity(TEXT_BUFFER_BYTES, chained);
        buffered.consume(skip);
        let checked = Utf8Checked {
            inner: buffered,
            carry: Vec::new(),
            invalid: Rc::clone(&invalid),
            checked: 0,
        };
        let mut reader = Reader::over_stream(part, Box::new(checked), max_depth, starts_with_decl);
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

    /// Reads `bytes` through a checker over a `capacity`-byte buffer, consuming
    /// `step` bytes at a time (as the parser does, in small steps); whether it
    /// found them invalid.
    fn invalid_after(bytes: &[u8], capacity: usize, step: usize) -> bool {
        let invalid = Rc::new(Cell::new(false));
        let mut checked = Utf8Checked {
            inner: BufReader::with_capacity(capacity, bytes),
            carry: Vec::new(),
            invalid: Rc::clone(&invalid),
            checked: 0,
        };
        let mut seen = Vec::new();
        loop {
            let chunk = checked.fill_buf().unwrap_or_default();
            if chunk.is_empty() {
                break;
            }
            let n = step.min(chunk.len());
            seen.extend_from_slice(&chunk[..n]);
            checked.consume(n);
        }
        assert_eq!(seen, bytes, "every byte is handed out once, in order");
        invalid.get()
    }

    #[test]
    fn every_buffer_size_and_step_agrees_with_a_whole_check() {
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
                    assert_eq!(
                        invalid_after(bytes, capacity, step),
                        whole_invalid,
                        "{bytes:?} in {capacity}-byte buffers, {step} at a time"
                    );
                }
            }
        }
    }

    #[test]
    fn bytes_consumed_without_a_look_are_checked_too() {
        let invalid = Rc::new(Cell::new(false));
        let mut checked = Utf8Checked {
            inner: BufReader::with_capacity(4, &b"ab\xffcd"[..]),
            carry: Vec::new(),
            invalid: Rc::clone(&invalid),
            checked: 0,
        };
        checked.consume(4);
        assert!(invalid.get());
    }
}
