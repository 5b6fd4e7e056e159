//! Every recorded `document_parse` case compiled to wasm32 and run in headless
//! Chromium (cargo's wasm32 runner: wasm-bindgen's test runner over
//! chromedriver; `tests/wasm-host/run.sh` runs it): the parsers the preview
//! engine and `ctxguard-core/documents` ship, on the engine they ship on.
//!
//! Run: `cargo test -p ctxguard-extract --target wasm32-unknown-unknown --test wasm`
#![cfg(target_arch = "wasm32")]

use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

const CASES: &str = include_str!("../../tests/conformance/documents.jsonl");

#[wasm_bindgen_test]
fn every_recorded_document_case_passes_in_the_browser() {
    let summary = ctxguard_extract::conformance::run_jsonl(CASES);
    let total = summary.passed + summary.failures.len();
    assert!(
        total >= 624,
        "expected at least 624 document cases, found {total}"
    );
    assert!(
        summary.failures.is_empty(),
        "{} of {total} document cases failed in the browser, first: {:?}",
        summary.failures.len(),
        &summary.failures[..summary.failures.len().min(3)]
    );
}
