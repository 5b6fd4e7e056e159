//! Growing the WebAssembly memory in few, doubling steps while a long
//! argument is read.
//!
//! The allocator grows the memory by what one allocation lacks, 64 KiB at a
//! time, so reading a million turns grew it over a thousand times; past a few
//! tens of MiB each growth costs V8 milliseconds, more the larger the memory
//! and the JS heap, which made `reloadMessages` grow faster than its input
//! (issue 24, point 4). A [`Growth`] watches one read: each time the items
//! read double, it reserves as much again as the read has grown the memory by
//! so far (one allocation, freed at once: the allocator keeps the room for
//! what comes next), so a read of n items grows the memory O(log n) times and
//! holds at most about twice what it needs.

/// Items read before the first check (a short array never reserves anything).
const FIRST_CHECK: u32 = 1024;

/// Bytes of a WebAssembly page.
const PAGE_BYTES: usize = 64 * 1024;

/// The growth of the memory during one read of an array.
pub struct Growth {
    start_bytes: usize,
    next_check: u32,
}

impl Growth {
    /// Starts watching a read at the memory's current size.
    pub fn start() -> Self {
        Growth {
            start_bytes: memory_bytes(),
            next_check: FIRST_CHECK,
        }
    }

    /// Told after each item with how many have been read: at 1024, 2048, 4096, … items,
    /// reserves as much as the read has grown the memory by.
    pub fn after(&mut self, read: u32) {
        if read < self.next_check {
            return;
        }
        self.next_check = self.next_check.saturating_mul(2);
        reserve(memory_bytes().saturating_sub(self.start_bytes));
    }
}

/// The memory's size now.
fn memory_bytes() -> usize {
    core::arch::wasm32::memory_size::<0>().saturating_mul(PAGE_BYTES)
}

/// Makes the allocator hold `bytes` more free room, growing the memory once if it must.
fn reserve(bytes: usize) {
    if bytes == 0 {
        return;
    }
    let mut room: Vec<u8> = Vec::new();
    // Memory that cannot be had is no error here: the read goes on growing the memory as it needs.
    if room.try_reserve_exact(bytes).is_ok() {
        // The allocation must happen (an unused one may be optimised away); dropping it frees it.
        std::hint::black_box(&mut room);
    }
}
