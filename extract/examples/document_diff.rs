//! Runs the `document_parse` cases of a JSONL file (the reference's answers
//! filled in by `tools/differential/reference.py`) and prints each
//! disagreement: the differential loop of the document parsers
//! (`tools/differential/compare.sh` runs both). `cargo run -p ctxguard-extract --example
//! document_diff -- FILE.jsonl [MAX_SHOWN]`.

use std::process::ExitCode;

fn main() -> ExitCode {
    let mut args = std::env::args().skip(1);
    let Some(path) = args.next() else {
        eprintln!("usage: document_diff FILE.jsonl [MAX_SHOWN]");
        return ExitCode::FAILURE;
    };
    let shown: usize = args.next().and_then(|s| s.parse().ok()).unwrap_or(20);
    let text = match std::fs::read_to_string(&path) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("{path}: {e}");
            return ExitCode::FAILURE;
        }
    };
    let summary = ctxguard_extract::conformance::run_jsonl(&text);
    for (id, error) in summary.failures.iter().take(shown) {
        let msg = error.to_string();
        let cut: String = msg.chars().take(1500).collect();
        println!("FAIL {id}: {cut}");
    }
    println!(
        "{} passed, {} failed",
        summary.passed,
        summary.failures.len()
    );
    if summary.failures.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
