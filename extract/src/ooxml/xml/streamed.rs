//! A big part parsed as it inflates ([`Reader::streamed`]): its first bytes
//! tell the encoding, and the reasons keep the order they have when the part
//! is read whole first: the archive's (a damaged member, past the budget),
//! then bytes that are not UTF-8 anywhere in the part, then the parser's or
//! the caller's own. A part in another encoding (UTF-16, Latin-1, which no
//! Office writer produces) is read whole, within the inflation budget.

use super::chars::utf8_skip;
use super::{Reader, Source, XmlError};
use crate::package::{PackageError, PartStream};
use std::io::{self, Read};

/// How many leading bytes are looked at for a byte-order mark and the declaration.
const PREFIX_BYTES: usize = 1024;

/// Why a streamed part was not read.
#[derive(Debug, thiserror::Error)]
pub(crate) enum PartError<E> {
    /// The archive member itself failed.
    #[error("{0}")]
    Archive(PackageError),
    /// Its bytes are not text in its encoding.
    #[error("{0}")]
    Decode(XmlError),
    /// The reader or the caller refused it.
    #[error("{0}")]
    Read(E),
}

/// Calls `f` with a reader over `stream`'s part, inflated as `f` pulls
/// events; the part is read to its end whatever `f` does, so that the
/// archive's failure and bytes that are not UTF-8 come first.
pub(crate) fn with_part_stream<T, E>(
    stream: &mut PartStream<'_, '_>,
    max_depth: usize,
    f: impl FnOnce(&mut Reader<'_>) -> Result<T, E>,
) -> Result<T, PartError<E>> {
    let archive = |stream: &mut PartStream<'_, '_>, e: io::Error| {
        PartError::Archive(stream.drain().unwrap_or_else(|| PackageError::Damaged {
            member: String::new(),
            detail: e.to_string(),
        }))
    };
    let mut prefix = Vec::with_capacity(PREFIX_BYTES);
    if let Err(e) = (&mut *stream)
        .take(PREFIX_BYTES as u64)
        .read_to_end(&mut prefix)
    {
        return Err(archive(stream, e));
    }
    let complete = prefix.len() < PREFIX_BYTES;
    let Some(skip) = utf8_skip(&prefix, complete) else {
        let mut whole = prefix;
        if let Err(e) = stream.read_to_end(&mut whole) {
            return Err(archive(stream, e));
        }
        let source = Source::new(&whole).map_err(PartError::Decode)?;
        let mut reader = source.reader(max_depth).map_err(PartError::Decode)?;
        return f(&mut reader).map_err(PartError::Read);
    };
    let (outcome, invalid_utf8) = {
        let mut start = io::Cursor::new(prefix);
        start.set_position(skip as u64);
        let mut reader = Reader::streamed(Box::new(start.chain(&mut *stream)), max_depth);
        let outcome = f(&mut reader);
        reader.drain();
        (outcome, reader.invalid_utf8())
    };
    if let Some(e) = stream.drain() {
        return Err(PartError::Archive(e));
    }
    if invalid_utf8 {
        return Err(PartError::Decode(super::not_valid("UTF-8")));
    }
    outcome.map_err(PartError::Read)
}
