//! A step counter for the linear-time tests: the loops of the decoder,
//! chardet and the sniffer count their iterations here in test builds
//! (outside tests [`step`] is empty and compiles away).

#[cfg(test)]
thread_local! {
    static STEPS: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

/// Counts one loop iteration.
#[inline(always)]
pub(crate) fn step() {
    #[cfg(test)]
    STEPS.with(|s| s.set(s.get() + 1));
}

/// The steps counted on this thread since the last call, and a reset.
#[cfg(test)]
pub(crate) fn take() -> u64 {
    STEPS.with(|s| s.replace(0))
}
