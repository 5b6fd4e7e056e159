//! The module's own memory as the [`Memory`] a [`Growth`](crate::growth::Growth) watches while a
//! long argument is read (the rule and why: `core/src/growth.rs`).

use crate::growth::Memory;

/// Bytes of a WebAssembly page.
const PAGE_BYTES: usize = 64 * 1024;

/// This module's memory 0 and its allocator.
pub struct WasmMemory;

impl Memory for WasmMemory {
    fn bytes(&self) -> usize {
        core::arch::wasm32::memory_size::<0>().saturating_mul(PAGE_BYTES)
    }

    fn reserve(&mut self, bytes: usize) -> bool {
        let mut room: Vec<u8> = Vec::new();
        // Memory that cannot be had is no error here: the caller tries less, or none.
        let reserved = room.try_reserve_exact(bytes).is_ok();
        // The allocation must happen (an unused one may be optimised away); dropping it frees it.
        std::hint::black_box(&mut room);
        reserved
    }
}
