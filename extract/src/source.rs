//! Where an upload's bytes lie. A parser reads a random-access [`Source`] (its
//! length, and bytes read at an offset) instead of a slice of the whole upload,
//! so a host hands over the file where it already is: a byte slice (tests, the
//! npm `parseDocument(bytes)`), a file read by positioned reads (the CLI), a
//! `File` read by `Blob` slices (the preview's worker). Nothing here copies the
//! whole source; [`SourceReader`] reads a range of it sequentially through one
//! small buffer.
//!
//! A source may answer a read short (fewer bytes than asked, as `pread` and a
//! `Blob` slice at the end of a changed file do), and its length may lie: every
//! reader here treats a read of zero bytes before the claimed end as
//! [`SourceError::Ended`], never as a reason to loop.

use std::io;
use thiserror::Error;

/// Why bytes could not be read from a source.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum SourceError {
    /// The host's read failed (the file was removed, changed or is unreadable).
    #[error("the upload could not be read at byte {offset}: {reason}; pick the file again")]
    Read {
        /// Where the failed read started.
        offset: u64,
        /// The host's own words.
        reason: String,
    },
    /// The source gave no bytes before the length it claims.
    #[error("the upload ended at byte {at} although its length is {len} bytes: the file changed while it was read; pick it again")]
    Ended {
        /// Where the bytes stopped.
        at: u64,
        /// The length the source claims.
        len: u64,
    },
}

/// Bytes at offsets: what every parser reads an upload through.
pub trait Source {
    /// The source's length in bytes, as the host knows it.
    fn len(&self) -> u64;

    /// Reads up to `buf.len()` bytes at `offset` into `buf` and says how many
    /// it read; fewer is allowed, and 0 means nothing is there (at or past the end).
    fn read_at(&self, offset: u64, buf: &mut [u8]) -> Result<usize, SourceError>;

    /// Whether the source holds no bytes.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl Source for [u8] {
    fn len(&self) -> u64 {
        <[u8]>::len(self) as u64
    }

    fn read_at(&self, offset: u64, buf: &mut [u8]) -> Result<usize, SourceError> {
        let Ok(start) = usize::try_from(offset) else {
            return Ok(0);
        };
        let Some(rest) = self.get(start..) else {
            return Ok(0);
        };
        let n = rest.len().min(buf.len());
        buf[..n].copy_from_slice(&rest[..n]);
        Ok(n)
    }
}

impl Source for Vec<u8> {
    fn len(&self) -> u64 {
        self.as_slice().len() as u64
    }

    fn read_at(&self, offset: u64, buf: &mut [u8]) -> Result<usize, SourceError> {
        self.as_slice().read_at(offset, buf)
    }
}

impl<S: Source + ?Sized> Source for &S {
    fn len(&self) -> u64 {
        (**self).len()
    }

    fn read_at(&self, offset: u64, buf: &mut [u8]) -> Result<usize, SourceError> {
        (**self).read_at(offset, buf)
    }
}

/// Fills `buf` from `offset`, reading as many times as the source needs; an
/// end before `buf` is full is [`SourceError::Ended`].
pub fn read_exact_at(source: &dyn Source, offset: u64, buf: &mut [u8]) -> Result<(), SourceError> {
    let mut filled = 0;
    while filled < buf.len() {
        let at = offset + filled as u64;
        match source.read_at(at, &mut buf[filled..])? {
            0 => {
                return Err(SourceError::Ended {
                    at,
                    len: source.len(),
                })
            }
            n => filled += n.min(buf.len() - filled),
        }
    }
    Ok(())
}

/// A source read no further than the length it gave: a host whose bytes run
/// on past it (a file that grew after it was opened) is parsed as the
/// snapshot it claimed, whatever offsets the upload itself names.
pub(crate) struct Clamped<'s> {
    inner: &'s dyn Source,
    len: u64,
}

impl<'s> Clamped<'s> {
    /// `inner`, read up to the length it says it has.
    pub(crate) fn new(inner: &'s dyn Source) -> Self {
        Clamped {
            inner,
            len: inner.len(),
        }
    }
}

impl Source for Clamped<'_> {
    fn len(&self) -> u64 {
        self.len
    }

    fn read_at(&self, offset: u64, buf: &mut [u8]) -> Result<usize, SourceError> {
        let left = self.len.saturating_sub(offset);
        let n = usize::try_from(left).map_or(buf.len(), |left| left.min(buf.len()));
        if n == 0 {
            return Ok(0);
        }
        self.inner.read_at(offset, &mut buf[..n])
    }
}

/// The whole source in memory, for what cannot read it otherwise; a source
/// too big for this memory is an error that says so, not an abort.
pub fn read_all(source: &dyn Source) -> Result<Vec<u8>, SourceError> {
    let len = usize::try_from(source.len()).map_err(|_| SourceError::Read {
        offset: 0,
        reason: format!("{} bytes do not fit in memory", source.len()),
    })?;
    let mut bytes = Vec::new();
    bytes
        .try_reserve_exact(len)
        .map_err(|_| SourceError::Read {
            offset: 0,
            reason: format!("no memory for {len} bytes"),
        })?;
    bytes.resize(len, 0);
    read_exact_at(source, 0, &mut bytes)?;
    Ok(bytes)
}

/// The buffer [`SourceReader`] reads through: large enough that a host's
/// per-read cost (a `Blob` slice, a system call) is small beside the parsing.
pub const READ_BUFFER_BYTES: usize = 256 * 1024;

/// A range of a source read front to back through one buffer: the
/// [`io::Read`] a streaming parser (an inflater, a pull parser) consumes.
pub struct SourceReader<'s> {
    source: &'s dyn Source,
    /// The next offset to read from the source.
    next: u64,
    /// Where the range ends (exclusive).
    end: u64,
    buf: Vec<u8>,
    /// The unread part of `buf` is `buf[pos..filled]`.
    pos: usize,
    filled: usize,
}

impl<'s> SourceReader<'s> {
    /// Reads `source` from `start` for `len` bytes (cut at the source's end).
    pub fn new(source: &'s dyn Source, start: u64, len: u64) -> Self {
        let end = start.saturating_add(len).min(source.len());
        SourceReader {
            source,
            next: start.min(end),
            end,
            buf: Vec::new(),
            pos: 0,
            filled: 0,
        }
    }

    /// The whole source, front to back.
    pub fn whole(source: &'s dyn Source) -> Self {
        SourceReader::new(source, 0, source.len())
    }

    /// The source offset of the next byte [`io::Read::read`] returns.
    pub fn position(&self) -> u64 {
        self.next - (self.filled - self.pos) as u64
    }

    /// Bytes left in the range.
    pub fn remaining(&self) -> u64 {
        self.end - self.position()
    }

    fn fill(&mut self) -> Result<(), SourceError> {
        if self.pos < self.filled || self.next >= self.end {
            return Ok(());
        }
        if self.buf.is_empty() {
            let want = (self.end - self.next).min(READ_BUFFER_BYTES as u64) as usize;
            self.buf = vec![0; want.max(1)];
        }
        let want = ((self.end - self.next) as usize).min(self.buf.len());
        let n = self.source.read_at(self.next, &mut self.buf[..want])?;
        if n == 0 {
            return Err(SourceError::Ended {
                at: self.next,
                len: self.source.len(),
            });
        }
        let n = n.min(want);
        self.pos = 0;
        self.filled = n;
        self.next += n as u64;
        Ok(())
    }
}

impl io::Read for SourceReader<'_> {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        self.fill().map_err(io::Error::other)?;
        let n = (self.filled - self.pos).min(out.len());
        out[..n].copy_from_slice(&self.buf[self.pos..self.pos + n]);
        self.pos += n;
        Ok(n)
    }
}

impl io::BufRead for SourceReader<'_> {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        self.fill().map_err(io::Error::other)?;
        Ok(&self.buf[self.pos..self.filled])
    }

    fn consume(&mut self, amount: usize) {
        self.pos = (self.pos + amount).min(self.filled);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::Cell;
    use std::io::Read;

    /// A source that answers at most `step` bytes a read and may claim a longer length than it has.
    struct Stingy<'a> {
        bytes: &'a [u8],
        claimed: u64,
        step: usize,
        reads: Cell<usize>,
    }

    impl Source for Stingy<'_> {
        fn len(&self) -> u64 {
            self.claimed
        }
        fn read_at(&self, offset: u64, buf: &mut [u8]) -> Result<usize, SourceError> {
            self.reads.set(self.reads.get() + 1);
            let n = self.bytes.read_at(offset, buf)?;
            Ok(n.min(self.step))
        }
    }

    #[test]
    fn a_slice_reads_at_offsets_and_nothing_past_its_end() {
        let bytes: &[u8] = b"hello world";
        let mut buf = [0; 5];
        assert_eq!(bytes.read_at(6, &mut buf), Ok(5));
        assert_eq!(&buf, b"world");
        assert_eq!(bytes.read_at(9, &mut buf), Ok(2));
        assert_eq!(bytes.read_at(11, &mut buf), Ok(0));
        assert_eq!(bytes.read_at(u64::MAX, &mut buf), Ok(0));
    }

    #[test]
    fn short_reads_are_gathered_and_a_lying_length_is_an_error_not_a_loop() {
        let s = Stingy {
            bytes: b"0123456789",
            claimed: 14,
            step: 3,
            reads: Cell::new(0),
        };
        let mut buf = [0; 8];
        read_exact_at(&s, 1, &mut buf).expect("within the bytes");
        assert_eq!(&buf, b"12345678");
        let mut all = Vec::new();
        let err = SourceReader::whole(&s)
            .read_to_end(&mut all)
            .expect_err("the source claims 4 bytes it does not have");
        assert_eq!(all, b"0123456789");
        assert!(err.to_string().contains("ended at byte 10"), "{err}");
        assert!(s.reads.get() < 20, "a bounded number of reads");
    }

    #[test]
    fn a_reader_covers_exactly_its_range() {
        let bytes: Vec<u8> = (0..=255).cycle().take(1 << 20).collect();
        let mut r = SourceReader::new(&bytes, 1000, 600_000);
        assert_eq!(r.position(), 1000);
        let mut out = Vec::new();
        r.read_to_end(&mut out).expect("in range");
        assert_eq!(out, &bytes[1000..601_000]);
        assert_eq!(r.remaining(), 0);
        let mut tail = Vec::new();
        SourceReader::new(&bytes, (1 << 20) - 10, 1 << 30)
            .read_to_end(&mut tail)
            .expect("cut at the end");
        assert_eq!(tail.len(), 10);
    }
}
