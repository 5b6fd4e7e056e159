//! The fuzz target of `ctxguard_fuzz_checks::document_csv` (its module doc lists the properties).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| ctxguard_fuzz_checks::document_csv::check(data));
