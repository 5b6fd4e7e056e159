//! An upload read a window at a time, for the sniffer's tests that may read
//! it to its end (JSON and CSV): a big NDJSON log is tested whole while at
//! most one window of it is in memory.

use super::builtin::Scan;
use crate::source::{read_exact_at, Source, SourceError};
use std::cell::{Cell, RefCell};

/// How much is read at a time.
const WINDOW_BYTES: usize = 64 * 1024;

/// A [`Scan`] over a [`Source`]; a failed read ends the bytes there and is
/// kept for [`Windowed::finish`].
pub(super) struct Windowed<'s> {
    source: &'s dyn Source,
    len: usize,
    /// Where the window starts.
    start: Cell<usize>,
    /// Its bytes.
    window: RefCell<Vec<u8>>,
    failed: RefCell<Option<SourceError>>,
}

impl<'s> Windowed<'s> {
    /// The first `len` bytes of `source`, read as they are asked for.
    pub(super) fn new(source: &'s dyn Source, len: usize) -> Self {
        Windowed {
            source,
            len,
            start: Cell::new(0),
            window: RefCell::new(Vec::new()),
            failed: RefCell::new(None),
        }
    }

    /// The first read that failed, if any: the tests' answer is then not the upload's.
    pub(super) fn finish(self) -> Result<(), SourceError> {
        self.failed.into_inner().map_or(Ok(()), Err)
    }

    /// Moves the window to start at `i` (< `len`); `None` once a read failed.
    fn refill(&self, i: usize) -> Option<u8> {
        if self.failed.borrow().is_some() {
            return None;
        }
        let mut bytes = self.window.borrow_mut();
        bytes.resize(WINDOW_BYTES.min(self.len - i), 0);
        if let Err(e) = read_exact_at(self.source, i as u64, &mut bytes) {
            bytes.clear();
            *self.failed.borrow_mut() = Some(e);
            return None;
        }
        self.start.set(i);
        bytes.first().copied()
    }
}

impl Scan for Windowed<'_> {
    fn len(&self) -> usize {
        self.len
    }

    fn at(&self, i: usize) -> Option<u8> {
        // Below the window, the offset wraps past its end and misses too.
        if let Some(&b) = self.window.borrow().get(i.wrapping_sub(self.start.get())) {
            return Some(b);
        }
        if i >= self.len {
            return None;
        }
        self.refill(i)
    }
}
