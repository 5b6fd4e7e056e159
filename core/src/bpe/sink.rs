//! Where a text's tokens go while it is encoded: a running count or a vector.
//! Both can take tokens back to a mark, which the windowed merge of long
//! pieces needs when it revises a window's boundary ([`super::window`]).

use super::OutOfMemory;

/// A destination for tokens that can be rolled back to an earlier length.
pub(crate) trait Sink {
    /// Appends `tokens`.
    fn put(&mut self, tokens: &[u32]) -> Result<(), OutOfMemory>;
    /// The number of tokens put so far.
    fn mark(&self) -> usize;
    /// Forgets every token put after `mark` tokens.
    fn rollback(&mut self, mark: usize);
}

/// Counts tokens without keeping them.
#[derive(Debug, Default)]
pub(crate) struct Count(pub(crate) usize);

impl Sink for Count {
    #[inline]
    fn put(&mut self, tokens: &[u32]) -> Result<(), OutOfMemory> {
        self.0 += tokens.len();
        Ok(())
    }

    fn mark(&self) -> usize {
        self.0
    }

    fn rollback(&mut self, mark: usize) {
        self.0 = mark;
    }
}

impl Sink for Vec<u32> {
    #[inline]
    fn put(&mut self, tokens: &[u32]) -> Result<(), OutOfMemory> {
        OutOfMemory::reserve(self, tokens.len())?;
        self.extend_from_slice(tokens);
        Ok(())
    }

    fn mark(&self) -> usize {
        self.len()
    }

    fn rollback(&mut self, mark: usize) {
        self.truncate(mark);
    }
}
