//! An upload read a window at a time, for the sniffer's tests that may read
//! it to its end (JSON and CSV): a big NDJSON log is tested whole while at
//! most one window of it is in memory.

use super::builtin::Scan;
use crate::source::{read_exact_at, Source, SourceError};
use std::cell::RefCell;

/// How much is read at a time.
const WINDOW_BYTES: usize = 64 * 1024;

/// A [`Scan`] over a [`Source`]; a failed read ends the bytes there and is
/// kept for [`Windowed::finish`].
pub(super) struct Windowed<'s> {
    source: &'s dyn Source,
    len: usize,
    /// Where the window starts, and its bytes.
    window: RefCell<(usize, Vec<u8>)>,
    failed: RefCell<Option<SourceError>>,
}

impl<'s> Windowed<'s> {
    /// The first `len` bytes of `source`, read as they are asked for.
    pub(super) fn new(source: &'s dyn Source, len: usize) -> Self {
        Windowed {
            source,
            len,
            window: RefCell::new((0, Vec::new())),
            failed: RefCell::new(None),
        }
    }

    /// The first read that failed, if any: the tests' answer is then not the upload's.
    pub(super) fn finish(self) -> Result<(), SourceError> {
        self.failed.into_inner().map_or(Ok(()), Err)
    }
}

impl Scan for Windowed<'_> {
    fn len(&self) -> usize {
        self.len
    }

    fn at(&self, i: usize) -> Option<u8> {
        if i >= self.len {
            return None;
        }
        let mut window = self.window.borrow_mut();
        let (start, bytes) = &mut *window;
        if !(*start..*start + bytes.len()).contains(&i) {
            if self.failed.borrow().is_some() {
                return None;
            }
            bytes.resize(WINDOW_BYTES.min(self.len - i), 0);
            if let Err(e) = read_exact_at(self.source, i as u64, bytes) {
                bytes.clear();
                *self.failed.borrow_mut() = Some(e);
                return None;
            }
            *start = i;
        }
        bytes.get(i - *start).copied()
    }
}
