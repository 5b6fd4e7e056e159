//! The reader the parts are read with: the parser over a whole decoded text,
//! or over a window of a streamed UTF-8 part. The window is refilled before
//! each event until it holds what that event's markup needs
//! ([`Lookahead`]), and the text before the parser's position is dropped
//! then, so a part of any size is read in a window the size of its largest
//! piece of markup (a text node or attribute value, at most 10 MB as
//! libxml2 allows) plus a read's worth.

use super::content::{Lookahead, Parser, Saved};
use super::{Event, XmlError};
use std::borrow::Cow;
use std::io::Read;

/// How much is read from a stream at a time.
const READ_BYTES: usize = 64 * 1024;

/// A pull reader over one XML part.
pub(crate) struct Reader<'a> {
    /// The whole text, or the window of a stream.
    text: Cow<'a, str>,
    saved: Saved,
    /// The stream the window is refilled from, until it ends.
    input: Option<Input<'a>>,
    /// Bytes of the part before the window (error offsets are the part's).
    offset: usize,
    /// The stream held bytes that are not UTF-8.
    invalid_utf8: bool,
    /// How much is read at a time ([`READ_BYTES`]; less in tests, to move
    /// the window's edges through every piece of markup).
    read_bytes: usize,
}

/// A stream of UTF-8 bytes and what is left of its last read.
struct Input<'a> {
    bytes: Box<dyn Read + 'a>,
    buffer: Vec<u8>,
    /// The start of a character split by the last read.
    carry: Vec<u8>,
}

impl<'a> Reader<'a> {
    /// A reader over a whole decoded document.
    pub(super) fn whole(text: &'a str, max_depth: usize) -> Self {
        Reader {
            text: Cow::Borrowed(text),
            saved: Saved::new(max_depth),
            input: None,
            offset: 0,
            invalid_utf8: false,
            read_bytes: READ_BYTES,
        }
    }

    /// A reader over a stream of UTF-8 (its byte-order mark already
    /// skipped). Bytes that are not UTF-8 are read as U+FFFD and noted
    /// ([`Reader::invalid_utf8`]): the caller reports them before any error
    /// of the parser's, as decoding the whole part first would.
    pub(crate) fn streamed(bytes: Box<dyn Read + 'a>, max_depth: usize) -> Self {
        Reader {
            text: Cow::Owned(String::new()),
            saved: Saved::new(max_depth),
            input: Some(Input {
                bytes,
                buffer: vec![0; READ_BYTES],
                carry: Vec::new(),
            }),
            offset: 0,
            invalid_utf8: false,
            read_bytes: READ_BYTES,
        }
    }

    /// The reader, reading `n` bytes at a time.
    #[cfg(test)]
    pub(super) fn reading(mut self, n: usize) -> Self {
        self.read_bytes = n;
        if let Some(input) = &mut self.input {
            input.buffer = vec![0; n];
        }
        self
    }

    /// Whether a streamed part held bytes that are not UTF-8 (so far).
    pub(crate) fn invalid_utf8(&self) -> bool {
        self.invalid_utf8
    }

    /// The next event.
    pub(crate) fn next(&mut self) -> Result<Event<'_>, XmlError> {
        self.fill()?;
        let offset = self.offset;
        Parser::new(&self.text, &mut self.saved)
            .next()
            .map_err(|e| XmlError::at(e.offset + offset, &e.what))
    }

    /// Reads the rest of a stream, keeping none of it, to learn whether it
    /// fails or holds bytes that are not UTF-8.
    pub(crate) fn drain(&mut self) {
        if let Some(mut input) = self.input.take() {
            let mut scratch = String::new();
            while let Ok(false) = input.read_into(&mut scratch, 1, &mut self.invalid_utf8) {
                scratch.clear();
            }
        }
    }

    /// Reads on until the window holds what the next event needs.
    fn fill(&mut self) -> Result<(), XmlError> {
        while let Some(input) = &mut self.input {
            let pos = self.saved.pos();
            let left = self.text.len() - pos;
            let want = match self.saved.lookahead(&self.text) {
                Lookahead::Bytes(n) if n <= left => return Ok(()),
                Lookahead::Bytes(n) => n.max(self.read_bytes),
                // Doubling keeps a long piece of markup linear to find.
                Lookahead::More => left.saturating_mul(2).max(self.read_bytes),
                Lookahead::Everything => usize::MAX,
            };
            let text = self.text.to_mut();
            text.drain(..pos);
            self.offset += pos;
            self.saved.rebase(pos);
            let ended = input
                .read_into(text, want, &mut self.invalid_utf8)
                .map_err(|e| {
                    XmlError::at(
                        self.offset + text.len(),
                        &format!("the part could not be read: {e}"),
                    )
                })?;
            if ended {
                self.input = None;
            }
        }
        Ok(())
    }
}

/// What stands for bytes that are not UTF-8 (the part is refused for them).
const REPLACEMENT: char = '\u{FFFD}';

impl Input<'_> {
    /// Appends to `text` until it holds `want` bytes or the stream ends
    /// (`true`).
    fn read_into(
        &mut self,
        text: &mut String,
        want: usize,
        invalid: &mut bool,
    ) -> std::io::Result<bool> {
        while text.len() < want {
            let n = match self.bytes.read(&mut self.buffer) {
                Ok(n) => n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            if n == 0 {
                if !self.carry.is_empty() {
                    self.carry.clear();
                    *invalid = true;
                    text.push(REPLACEMENT);
                }
                return Ok(true);
            }
            let read = &self.buffer[..n];
            let mut bytes: &[u8] = if self.carry.is_empty() {
                read
            } else {
                self.carry.extend_from_slice(read);
                &self.carry
            };
            let mut carry = Vec::new();
            loop {
                match std::str::from_utf8(bytes) {
                    Ok(s) => {
                        text.push_str(s);
                        break;
                    }
                    Err(e) => {
                        let (valid, rest) = bytes.split_at(e.valid_up_to());
                        text.push_str(std::str::from_utf8(valid).unwrap_or_default());
                        match e.error_len() {
                            Some(bad) => {
                                *invalid = true;
                                text.push(REPLACEMENT);
                                bytes = &rest[bad..];
                            }
                            None => {
                                carry = rest.to_vec();
                                break;
                            }
                        }
                    }
                }
            }
            self.carry = carry;
        }
        Ok(false)
    }
}
