//! A file pointer over the upload's bytes with Python's read semantics: a
//! read past the end returns what is there (possibly nothing), a seek goes
//! anywhere, and Pillow's `_safe_read` is the read that refuses to be short.

/// Reads from `bytes` at a position, as `BytesIO` does.
#[derive(Debug, Clone)]
pub(crate) struct Cursor<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl<'a> Cursor<'a> {
    /// A cursor at the start.
    pub(crate) fn new(bytes: &'a [u8]) -> Self {
        Cursor { bytes, pos: 0 }
    }

    /// The position.
    pub(crate) fn tell(&self) -> usize {
        self.pos
    }

    /// Moves to `pos` (past the end reads nothing).
    pub(crate) fn seek(&mut self, pos: usize) {
        self.pos = pos;
    }

    /// `fp.read(n)`: up to `n` bytes.
    pub(crate) fn read(&mut self, n: usize) -> &'a [u8] {
        let start = self.pos.min(self.bytes.len());
        let end = start.saturating_add(n).min(self.bytes.len());
        if self.pos < self.bytes.len() {
            self.pos = end;
        }
        &self.bytes[start..end]
    }

    /// `ImageFile._safe_read(fp, n)`: exactly `n` bytes (nothing for n <= 0), or `None` when short.
    pub(crate) fn safe_read(&mut self, n: i64) -> Option<&'a [u8]> {
        let Ok(n) = usize::try_from(n) else {
            return Some(&[]);
        };
        let s = self.read(n);
        (s.len() == n).then_some(s)
    }

    /// Skips `n` bytes (`fp.seek(n, 1)`).
    pub(crate) fn skip(&mut self, n: usize) {
        self.pos = self.pos.saturating_add(n);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_are_short_at_the_end_and_safe_reads_refuse() {
        let mut c = Cursor::new(b"abcdef");
        assert_eq!(c.read(4), b"abcd");
        assert_eq!(c.read(4), b"ef");
        assert_eq!(c.read(4), b"");
        c.seek(2);
        assert_eq!(c.safe_read(3), Some(&b"cde"[..]));
        assert_eq!(c.safe_read(3), None);
        assert_eq!(c.safe_read(-2), Some(&b""[..]));
        c.seek(100);
        assert_eq!(c.read(1), b"");
    }
}
