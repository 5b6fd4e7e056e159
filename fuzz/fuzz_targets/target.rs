//! Every fuzz target: the binary's name picks its check from the registry of
//! `ctxguard-fuzz-checks` (a name with no check fails at start-up).
#![no_main]

use ctxguard_fuzz_checks::Target;
use std::sync::LazyLock;

static TARGET: LazyLock<&'static Target> = LazyLock::new(|| {
    Target::named(env!("CARGO_BIN_NAME"))
        .unwrap_or_else(|| panic!("no check is registered as {}", env!("CARGO_BIN_NAME")))
});

libfuzzer_sys::fuzz_target!(|data: &[u8]| (TARGET.check)(data));
