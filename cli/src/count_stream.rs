//! Counting a file as a stream: read in buffers of [`BUFFER_BYTES`], each cut
//! at the last sure split of the encoding (`ctxguard_core::split`) so that the
//! counts of the chunks add up to the count of the whole, and counted on every
//! core. Memory is a few buffers whatever the file's size (a stretch of text
//! with no sure split, such as one letter repeated for megabytes, is held
//! whole: the buffer grows until it finds a split or the input ends).
//!
//! UTF-8 is validated chunk by chunk: a sure split has a whole character on
//! each side, so the first invalid byte of the file is the first invalid byte
//! of the first chunk that has one, at the same offset.

use ctxguard_core::encoding::Encoding;
use ctxguard_core::split::next_split;
use ctxguard_core::tokens::{TokenCounter, Tokens};
use std::io::{self, Read};
use std::sync::mpsc;
use std::sync::Mutex;

/// Bytes read at a time; a chunk is this long, less what follows its last sure split.
pub const BUFFER_BYTES: usize = 4 << 20;

/// How far before a buffer's end (at most a quarter of it) its last sure split is looked for first.
const SEARCH_BYTES: usize = 64 << 10;

/// Why a stream could not be counted.
#[derive(Debug, thiserror::Error)]
pub enum StreamError {
    /// The input is not UTF-8 from this byte on.
    #[error("not valid UTF-8 at byte offset {offset}")]
    InvalidUtf8 {
        /// Offset of the first invalid byte in the input.
        offset: u64,
    },
    /// Reading failed.
    #[error(transparent)]
    Io(#[from] io::Error),
    /// The tokenizer refused (out of memory).
    #[error(transparent)]
    Count(ctxguard_core::Error),
}

/// Tokens of everything `reader` yields under `encoding` (exactly the count of
/// the whole text), counted on up to `workers` threads.
pub fn count_stream(
    reader: impl Read,
    encoding: Encoding,
    workers: usize,
) -> Result<Tokens, StreamError> {
    let counter = TokenCounter::for_encoding(encoding);
    let mut chunks = Chunks::new(reader, encoding, BUFFER_BYTES);
    let Some(first) = chunks.next_chunk()? else {
        return Ok(0);
    };
    if chunks.finished() || workers <= 1 {
        let mut total = count_chunk(counter, &first)?;
        while let Some(chunk) = chunks.next_chunk()? {
            total += count_chunk(counter, &chunk)?;
        }
        return Ok(total);
    }
    // One chunk waits while each worker counts one: memory stays a few buffers.
    let (work, queue) = mpsc::sync_channel::<Chunk>(1);
    let queue = Mutex::new(queue);
    let (report, reports) = mpsc::channel();
    std::thread::scope(|scope| {
        for _ in 0..workers {
            let (queue, report) = (&queue, report.clone());
            scope.spawn(move || loop {
                // The lock is held only while waiting for a chunk; a poisoned one means a worker panicked.
                let next = match queue.lock() {
                    Ok(q) => q.recv(),
                    Err(_) => return,
                };
                let Ok(chunk) = next else { return };
                if report.send(count_chunk(counter, &chunk)).is_err() {
                    return;
                }
            });
        }
        drop(report);
        let mut results = Vec::new();
        let mut read = Ok(());
        let mut next = Some(first);
        while let Some(chunk) = next.take() {
            if work.send(chunk).is_err() {
                break;
            }
            results.extend(reports.try_iter());
            if results.iter().any(Result::is_err) {
                break; // the first invalid byte is in a chunk already sent
            }
            match chunks.next_chunk() {
                Ok(c) => next = c,
                Err(e) => read = Err(e),
            }
        }
        drop(work);
        results.extend(reports.iter());
        read?;
        let mut total = 0;
        let mut first_invalid: Option<u64> = None;
        for result in results {
            match result {
                Ok(tokens) => total += tokens,
                Err(StreamError::InvalidUtf8 { offset }) => {
                    first_invalid = Some(first_invalid.map_or(offset, |o| o.min(offset)));
                }
                Err(e) => return Err(e),
            }
        }
        match first_invalid {
            Some(offset) => Err(StreamError::InvalidUtf8 { offset }),
            None => Ok(total),
        }
    })
}

/// A chunk's tokens, or where its first invalid byte is in the input.
fn count_chunk(counter: TokenCounter, chunk: &Chunk) -> Result<Tokens, StreamError> {
    counter.try_count_bytes(&chunk.bytes).map_err(|e| match e {
        ctxguard_core::Error::InvalidUtf8 { offset } => StreamError::InvalidUtf8 {
            offset: chunk.offset + offset as u64,
        },
        e => StreamError::Count(e),
    })
}

/// Bytes of the input from `offset` on, ending at a sure split or at the input's end.
struct Chunk {
    offset: u64,
    bytes: Vec<u8>,
}

/// The input read buffer by buffer and cut into [`Chunk`]s.
struct Chunks<R> {
    reader: R,
    encoding: Encoding,
    buffer_bytes: usize,
    /// Bytes read after the last chunk's end.
    carry: Vec<u8>,
    /// Input offset of `carry`'s first byte.
    offset: u64,
    eof: bool,
}

impl<R: Read> Chunks<R> {
    fn new(reader: R, encoding: Encoding, buffer_bytes: usize) -> Self {
        Chunks {
            reader,
            encoding,
            buffer_bytes,
            carry: Vec::new(),
            offset: 0,
            eof: false,
        }
    }

    /// Whether every byte of the input is in a chunk given out.
    fn finished(&self) -> bool {
        self.eof && self.carry.is_empty()
    }

    /// The next chunk, `None` at the input's end.
    fn next_chunk(&mut self) -> io::Result<Option<Chunk>> {
        let mut capacity = self.buffer_bytes.max(self.carry.len() * 2);
        let mut buf = std::mem::take(&mut self.carry);
        loop {
            self.fill(&mut buf, capacity)?;
            if self.eof {
                break;
            }
            let from = buf.len() - (buf.len() / 4).min(SEARCH_BYTES);
            let split = next_split(&buf, self.encoding, from, false)
                .or_else(|| next_split(&buf, self.encoding, 1, false));
            if let Some(k) = split {
                self.carry = Vec::with_capacity(self.buffer_bytes);
                self.carry.extend_from_slice(&buf[k..]);
                buf.truncate(k);
                break;
            }
            capacity = capacity.saturating_mul(2); // no sure split yet: read on
        }
        if buf.is_empty() {
            return Ok(None);
        }
        let offset = self.offset;
        self.offset += buf.len() as u64;
        Ok(Some(Chunk { offset, bytes: buf }))
    }

    /// Reads into `buf` until it holds `capacity` bytes or the input ends.
    fn fill(&mut self, buf: &mut Vec<u8>, capacity: usize) -> io::Result<()> {
        buf.reserve_exact(capacity.saturating_sub(buf.len()));
        while buf.len() < capacity && !self.eof {
            let want = (capacity - buf.len()) as u64;
            match (&mut self.reader).take(want).read_to_end(buf) {
                Ok(0) => self.eof = true,
                Ok(_) => {}
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Chunks of a small buffer: each ends at a sure split, and they tile the input.
    #[test]
    fn chunks_tile_the_input_and_end_at_sure_splits() {
        let text = "Some words, 12345 digits\n  and lines.\r\n中文，好。 it's 😀 done\n".repeat(50);
        for encoding in [
            Encoding::O200kBase,
            Encoding::Cl100kBase,
            Encoding::P50kBase,
        ] {
            let mut chunks = Chunks::new(text.as_bytes(), encoding, 100);
            let mut joined = Vec::new();
            let mut n = 0;
            while let Some(chunk) = chunks.next_chunk().expect("reads from memory") {
                assert_eq!(chunk.offset, joined.len() as u64);
                joined.extend_from_slice(&chunk.bytes);
                n += 1;
                assert!(chunk.bytes.len() <= 100, "{} bytes", chunk.bytes.len());
            }
            assert_eq!(joined, text.as_bytes());
            assert!(n >= text.len() / 100, "{n} chunks");
        }
    }

    #[test]
    fn a_stretch_without_a_split_grows_the_buffer() {
        let text = format!("{}. {}", "a".repeat(1000), "end ".repeat(100));
        let mut chunks = Chunks::new(text.as_bytes(), Encoding::O200kBase, 64);
        let first = chunks.next_chunk().expect("reads").expect("a chunk");
        assert_eq!(first.bytes, &text.as_bytes()[..1000]);
    }
}
