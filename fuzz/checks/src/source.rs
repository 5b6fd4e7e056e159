//! Sources that read as a host may: in short pieces (a `Blob` slice, a
//! `pread` cut by a signal), and with a length that is not the bytes' (a
//! file that grew or shrank after it was opened). Every `document_*` target
//! parses its input through them too ([`crate::document::check_upload`]).

use ctxguard_extract::{Source, SourceError};

/// `bytes`, each read answered with at most `piece` bytes (at least 1).
pub struct ShortReads<'a> {
    /// What the source holds.
    pub bytes: &'a [u8],
    /// The most one read answers with.
    pub piece: usize,
}

impl Source for ShortReads<'_> {
    fn len(&self) -> u64 {
        self.bytes.len() as u64
    }

    fn read_at(&self, offset: u64, buf: &mut [u8]) -> Result<usize, SourceError> {
        let n = buf.len().min(self.piece.max(1));
        self.bytes.read_at(offset, &mut buf[..n])
    }
}

/// `bytes` under a length the host claims: longer than the bytes (the reads
/// run out before it), or shorter (the bytes beyond it are still there to
/// be read, but no parser may look past the length it was given).
pub struct Claimed<'a> {
    /// What the source holds.
    pub bytes: &'a [u8],
    /// The length it says it has.
    pub len: u64,
}

impl Source for Claimed<'_> {
    fn len(&self) -> u64 {
        self.len
    }

    fn read_at(&self, offset: u64, buf: &mut [u8]) -> Result<usize, SourceError> {
        self.bytes.read_at(offset, buf)
    }
}
