//! One zip member as a stream, as `ZipExtFile` reads it: stored or deflated
//! data read from the source through one buffer ([`SourceReader`]) and, when
//! deflated, inflated a buffer at a time; the output cut at the declared
//! size, every inflated byte (the ones past the declared size too) charged
//! to the budget, the CRC of what was handed out checked at the end. A member
//! cut short by the end of the file is an `EOFError` unless its deflate
//! stream ends first. Memory: the read buffer, the inflater's 32 KiB window
//! and one 64 KiB scratch buffer, whatever the member's size.

use super::zipfile::ZipError;
use crate::source::{Source, SourceReader};
use std::io::{self, BufRead};

/// Where a member's data lies and what its directory entry declares.
pub(crate) struct Layout {
    /// The member's name, for messages.
    pub name: String,
    /// The compression method (0 stored, 8 deflated).
    pub method: u16,
    /// Where its data starts in the source.
    pub data_at: u64,
    /// How many of its `compress_size` bytes the source holds.
    pub available: u64,
    /// The declared compressed size.
    pub compress_size: u64,
    /// The declared size once inflated.
    pub file_size: u64,
    /// The declared CRC-32 of the inflated data.
    pub crc: u32,
}

/// A member being read.
pub(crate) struct Member<'a> {
    name: String,
    raw: SourceReader<'a>,
    inflater: Option<Box<flate2::Decompress>>,
    /// The declared size.
    file_size: u64,
    /// Bytes all inflation of this member may produce.
    budget: u64,
    /// Whether the source holds fewer bytes than the declared compressed size.
    short: bool,
    /// The most bytes handed out: the declared size (within the budget).
    keep: u64,
    handed: u64,
    hasher: crc32fast::Hasher,
    expected_crc: u32,
    /// The deflate stream reached its end.
    ended: bool,
    /// The member was read to its end and checked.
    done: bool,
    scratch: Vec<u8>,
}

impl<'a> Member<'a> {
    /// Opens the member's data; refusals that need no inflation are made here.
    pub(crate) fn new(source: &'a dyn Source, l: Layout, budget: u64) -> Result<Self, ZipError> {
        let short = l.available < l.compress_size;
        let ends_early = || ZipError::Other(format!("'{}' ends before its data", l.name));
        let (inflater, keep) = match l.method {
            0 => {
                if short && l.compress_size > 0 && (l.available == 0 || l.available < l.file_size) {
                    return Err(ends_early());
                }
                let keep = l.available.min(l.file_size);
                if keep > budget {
                    return Err(ZipError::TooLarge(budget));
                }
                (None, keep)
            }
            8 => {
                if l.available == 0 && l.compress_size > 0 {
                    return Err(ends_early());
                }
                let inflater = Box::new(flate2::Decompress::new(false));
                (Some(inflater), l.file_size.min(budget))
            }
            other => {
                return Err(ZipError::Other(format!(
                    "compression method {other} of '{}' is not supported",
                    l.name
                )))
            }
        };
        let raw_len = if inflater.is_some() {
            l.available
        } else {
            keep
        };
        Ok(Member {
            raw: SourceReader::new(source, l.data_at, raw_len),
            name: l.name,
            inflater,
            file_size: l.file_size,
            budget,
            short,
            keep,
            handed: 0,
            hasher: crc32fast::Hasher::new(),
            expected_crc: l.crc,
            ended: false,
            done: false,
            scratch: Vec::new(),
        })
    }

    /// The size the directory declares (a hint for buffers, never trusted further).
    pub(crate) fn declared_size(&self) -> u64 {
        self.file_size
    }

    fn unreadable(e: io::Error) -> ZipError {
        ZipError::Other(e.to_string())
    }

    /// Up to `out.len()` more bytes of the member; 0 once it is read and checked.
    pub(crate) fn read_chunk(&mut self, out: &mut [u8]) -> Result<usize, ZipError> {
        if self.done || out.is_empty() {
            return Ok(0);
        }
        if self.inflater.is_none() {
            let room = (self.keep - self.handed).min(out.len() as u64) as usize;
            if room == 0 {
                return self.finish();
            }
            let n = io::Read::read(&mut self.raw, &mut out[..room]).map_err(Self::unreadable)?;
            if n == 0 {
                return self.finish();
            }
            self.hasher.update(&out[..n]);
            self.handed += n as u64;
            return Ok(n);
        }
        loop {
            if self.handed >= self.keep || self.ended {
                self.drain()?;
                return self.finish();
            }
            let room = (self.keep - self.handed).min(out.len() as u64) as usize;
            let (produced, progress) = self.inflate_into(out, room)?;
            if produced > 0 {
                self.hasher.update(&out[..produced]);
                self.handed += produced as u64;
                return Ok(produced);
            }
            if !progress {
                return self.finish();
            }
        }
    }

    /// One inflater call into `out[..room]` (or the scratch buffer): bytes
    /// produced, and whether it consumed or produced anything.
    fn inflate_into(&mut self, out: &mut [u8], room: usize) -> Result<(usize, bool), ZipError> {
        let Some(inflater) = self.inflater.as_mut() else {
            return Ok((0, false));
        };
        let input = self.raw.fill_buf().map_err(Self::unreadable)?;
        let (in_before, out_before) = (inflater.total_in(), inflater.total_out());
        let status = inflater
            .decompress(input, &mut out[..room], flate2::FlushDecompress::None)
            .map_err(|e| ZipError::Other(format!("'{}' does not inflate: {e}", self.name)))?;
        let consumed = (inflater.total_in() - in_before) as usize;
        let produced = (inflater.total_out() - out_before) as usize;
        let total_out = inflater.total_out();
        self.raw.consume(consumed);
        if total_out > self.budget {
            return Err(ZipError::TooLarge(self.budget));
        }
        if status == flate2::Status::StreamEnd {
            self.ended = true;
        }
        Ok((produced, consumed > 0 || produced > 0))
    }

    /// Inflates what is left past the declared size, only to charge it to the budget.
    fn drain(&mut self) -> Result<(), ZipError> {
        let mut scratch = std::mem::take(&mut self.scratch);
        if scratch.is_empty() {
            scratch = vec![0; 1 << 16];
        }
        while !self.ended {
            let room = scratch.len();
            let (_, progress) = self.inflate_into(&mut scratch, room)?;
            if !progress {
                break;
            }
        }
        self.scratch = scratch;
        Ok(())
    }

    /// The end: a deflate stream cut by the file's end, and the CRC.
    fn finish(&mut self) -> Result<usize, ZipError> {
        self.done = true;
        if self.inflater.is_some() && !self.ended && self.short && self.handed < self.file_size {
            return Err(ZipError::Other(format!(
                "'{}' ends before its data",
                self.name
            )));
        }
        let crc = std::mem::take(&mut self.hasher).finalize();
        if crc != self.expected_crc {
            return Err(ZipError::BadZip(format!("bad CRC-32 for '{}'", self.name)));
        }
        Ok(0)
    }
}

impl io::Read for Member<'_> {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        self.read_chunk(out)
            .map_err(|e| io::Error::other(e.to_string()))
    }
}
