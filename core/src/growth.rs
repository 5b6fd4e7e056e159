//! How the WebAssembly facade grows its memory while it reads a long array: in
//! a few geometric steps, however much free room earlier calls left.
//!
//! The allocator grows the memory by what one allocation lacks (a 64 KiB page
//! for the small ones an array's items are made of), and in V8 a growth of a
//! memory past 64 MiB costs about 2 ms and often a full garbage collection of
//! the JS heap (which holds the argument being read): a read that grows the
//! memory once per page is quadratic. A [`Growth`] watches one
//! read through a [`Memory`]: whenever the allocator has had to grow the
//! memory, it reserves half the memory's size again (one allocation, freed at
//! once: the allocator keeps the room for what comes next), so the memory
//! grows by at least half each time it grows at all, O(log n) times for n
//! items, whatever the free room at the start, and never holds more than a
//! third of itself unused because of it.
//!
//! The rule is plain Rust, tested natively against a model of the allocator;
//! `wasm/growth.rs` is the [`Memory`] of the real module.

/// Items read before growth is watched (a short array never reserves anything).
const FIRST_WATCHED_ITEM: u32 = 1024;

/// The smallest reservation tried (when half the memory does not fit, less is tried down to this).
const MIN_RESERVE_BYTES: usize = 1 << 20;

/// What a [`Growth`] needs of a memory: its size, and a way to make its allocator hold more free room.
pub(crate) trait Memory {
    /// The memory's size in bytes.
    fn bytes(&self) -> usize;
    /// Makes the allocator hold `bytes` more free room (one allocation, freed at once), growing the
    /// memory if it must; whether it could.
    fn reserve(&mut self, bytes: usize) -> bool;
}

/// The growth of a memory during one read of an array.
pub(crate) struct Growth {
    seen_bytes: usize,
}

impl Growth {
    /// Starts watching a read at the memory's current size.
    pub(crate) fn start(memory: &impl Memory) -> Self {
        Growth {
            seen_bytes: memory.bytes(),
        }
    }

    /// Told after each item with how many have been read: past the first [`FIRST_WATCHED_ITEM`],
    /// when the memory has grown since the last item, reserves half its size (less when that does
    /// not fit, down to [`MIN_RESERVE_BYTES`]). O(1).
    pub(crate) fn after(&mut self, read: u32, memory: &mut impl Memory) {
        let bytes = memory.bytes();
        if bytes == self.seen_bytes {
            return;
        }
        if read >= FIRST_WATCHED_ITEM {
            let mut want = bytes / 2;
            while want >= MIN_RESERVE_BYTES && !memory.reserve(want) {
                want /= 2;
            }
        }
        self.seen_bytes = memory.bytes();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const PAGE_BYTES: usize = 64 * 1024;

    /// dlmalloc on a WebAssembly memory as far as its growth goes: an allocation is served from
    /// the free room when it fits, and otherwise grows the memory by the pages it asks for (the
    /// whole request rounded up to pages, as `sys_alloc` does); memory is never given back.
    struct ModelHeap {
        memory_bytes: usize,
        free_bytes: usize,
        grows: usize,
    }

    impl ModelHeap {
        /// A memory of `memory_bytes`, `free_bytes` of them free (what an earlier call leaves once
        /// its values are dropped).
        fn new(memory_bytes: usize, free_bytes: usize) -> Self {
            ModelHeap {
                memory_bytes,
                free_bytes,
                grows: 0,
            }
        }

        fn alloc(&mut self, bytes: usize) {
            if bytes > self.free_bytes {
                let grown = bytes.div_ceil(PAGE_BYTES) * PAGE_BYTES;
                self.memory_bytes += grown;
                self.free_bytes += grown;
                self.grows += 1;
            }
            self.free_bytes -= bytes;
        }
    }

    impl Memory for ModelHeap {
        fn bytes(&self) -> usize {
            self.memory_bytes
        }

        fn reserve(&mut self, bytes: usize) -> bool {
            self.alloc(bytes);
            self.free_bytes += bytes;
            true
        }
    }

    /// What a turn of `reloadMessages` leaves in wasm memory while the turns are read (measured:
    /// about 400 MiB for a million).
    const ITEM_BYTES: usize = 400;

    /// The memory grows a read of `items` makes, on a memory of 2 MiB (the module's data and
    /// stack) and `free_bytes` free.
    fn grows_reading(items: u32, free_bytes: usize) -> usize {
        let mut heap = ModelHeap::new((2 << 20) + free_bytes, free_bytes);
        let mut growth = Growth::start(&heap);
        for read in 1..=items {
            heap.alloc(ITEM_BYTES);
            growth.after(read, &mut heap);
        }
        heap.grows
    }

    /// `reloadMessages` of 50 000, then 400 000 turns in one process used to grow the
    /// memory once per 64 KiB once the read had used the free room the earlier call left (the old
    /// rule reserved only what the read itself had grown the memory by), 663 times, and V8
    /// collects the whole JS heap at such growths: 29 µs a turn at 50 000, 78 at 400 000.
    /// Counts the growths of reads of n and 4n items, on a fresh memory and on ones with free
    /// room in proportion to n: from n to 4n they add a few (the memory grows 4× in
    /// log₁.₅ 4 ≈ 3.4 steps of the allocator's, each followed by a reservation), never 4×.
    #[test]
    fn memory_grows_are_logarithmic_in_the_items_read() {
        // Free room for none, an eighth, a quarter and half of what the read needs.
        for free_per_item in [0, ITEM_BYTES / 8, ITEM_BYTES / 4, ITEM_BYTES / 2] {
            let mut previous = None;
            for items in [50_000u32, 200_000, 800_000, 3_200_000] {
                let free_bytes = items as usize * free_per_item;
                let grows = grows_reading(items, free_bytes);
                assert!(
                    previous.is_some() || grows <= 30,
                    "{grows} growths reading {items} items with {free_bytes} bytes free"
                );
                if let Some(before) = previous {
                    assert!(
                        grows <= before + 10,
                        "{grows} growths reading {items} items with {free_bytes} bytes free, \
                         {before} for a quarter of them"
                    );
                }
                previous = Some(grows);
            }
        }
    }

    #[test]
    fn a_short_read_never_reserves() {
        let mut heap = ModelHeap::new(0, 0);
        let mut growth = Growth::start(&heap);
        for read in 1..FIRST_WATCHED_ITEM {
            heap.alloc(ITEM_BYTES);
            growth.after(read, &mut heap);
        }
        let pages = (FIRST_WATCHED_ITEM as usize - 1) * ITEM_BYTES / PAGE_BYTES;
        assert_eq!(heap.memory_bytes, (pages + 1) * PAGE_BYTES);
    }

    /// Near the limit of the memory, less than half is reserved, and nothing when not even
    /// [`MIN_RESERVE_BYTES`] fits: the read goes on growing the memory as it needs.
    #[test]
    fn a_reservation_that_does_not_fit_is_tried_smaller() {
        struct Capped {
            heap: ModelHeap,
            limit_bytes: usize,
            tried: Vec<usize>,
        }
        impl Memory for Capped {
            fn bytes(&self) -> usize {
                self.heap.memory_bytes
            }
            fn reserve(&mut self, bytes: usize) -> bool {
                self.tried.push(bytes);
                self.heap.memory_bytes + bytes <= self.limit_bytes && self.heap.reserve(bytes)
            }
        }
        let mib = 1 << 20;
        for (limit_bytes, grown_bytes) in [(10 * mib, 17 * PAGE_BYTES), (9 * mib, 0)] {
            let mut memory = Capped {
                heap: ModelHeap::new(8 * mib, 8 * mib),
                limit_bytes,
                tried: Vec::new(),
            };
            let mut growth = Growth::start(&memory);
            memory.heap.alloc(8 * mib);
            memory.heap.alloc(1);
            growth.after(FIRST_WATCHED_ITEM, &mut memory);
            // Half of 8 MiB and a page, a quarter, an eighth (16⅛ pages: 17), then under 1 MiB.
            let bytes = 8 * mib + PAGE_BYTES;
            assert_eq!(memory.tried, [bytes / 2, bytes / 4, bytes / 8]);
            assert_eq!(memory.heap.memory_bytes, 8 * mib + PAGE_BYTES + grown_bytes);
        }
    }
}
