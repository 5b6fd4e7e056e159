//! Every recorded reference case must pass through core.

#[test]
fn public_vectors_pass() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../tests/conformance/vectors.jsonl"
    );
    let text = std::fs::read_to_string(path).expect("tests/conformance/vectors.jsonl is present");
    let summary = ctxguard_core::conformance::run_jsonl(&text);
    for (id, error) in &summary.failures {
        eprintln!("FAIL {id}: {error}");
    }
    eprintln!(
        "{} passed, {} failed",
        summary.passed,
        summary.failures.len()
    );
    assert!(
        summary.passed + summary.failures.len() >= 815,
        "all 815 public cases ran"
    );
    assert!(
        summary.failures.is_empty(),
        "{} cases failed",
        summary.failures.len()
    );
}
