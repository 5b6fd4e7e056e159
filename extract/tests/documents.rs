//! Every recorded `document_parse` case (`tests/conformance/documents.jsonl`,
//! a verbatim copy of `shared/conformance/`), with a tally per format so a
//! failure says which parser it belongs to. `CTXGUARD_FORMAT=docx` runs one
//! format's cases only (for development).

use ctxguard_extract::conformance;
use serde_json::Value;
use std::collections::BTreeMap;

const CASES: &str = include_str!("../../tests/conformance/documents.jsonl");

/// The `<format>` of a case id `document_parse-<format>-<n>`.
fn format_of(id: &str) -> &str {
    id.split('-').nth(1).unwrap_or("?")
}

#[test]
fn every_recorded_document_case_passes() {
    let only = std::env::var("CTXGUARD_FORMAT").ok();
    let mut tally: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    let mut failures = Vec::new();
    for (i, line) in CASES.lines().enumerate() {
        let case: Value = serde_json::from_str(line).expect("the recorded file is JSON lines");
        let id = case["id"].as_str().unwrap_or("?").to_string();
        let format = format_of(&id).to_string();
        if only.as_deref().is_some_and(|f| f != format) {
            continue;
        }
        let entry = tally.entry(format).or_default();
        match conformance::run_line(line, i + 1) {
            ctxguard_core::conformance::Verdict::Pass => entry.0 += 1,
            ctxguard_core::conformance::Verdict::Fail { id, error } => {
                entry.1 += 1;
                failures.push(format!("{id}: {error}"));
            }
        }
    }
    for (format, (passed, failed)) in &tally {
        eprintln!("{format:>8}: {passed} passed, {failed} failed");
    }
    for f in failures.iter().take(40) {
        eprintln!("FAIL {f}");
    }
    assert!(
        failures.is_empty(),
        "{} document cases failed",
        failures.len()
    );
}
