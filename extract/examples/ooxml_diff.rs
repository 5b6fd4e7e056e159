//! Runs a `document_parse` JSONL (cases with `expected` filled by the
//! reference, e.g. `/work/refharness/run_ref.py IN.jsonl`) and prints each
//! failure: `cargo run -p ctxguard-extract --example ooxml_diff -- FILE.jsonl`.

fn main() {
    let Some(path) = std::env::args().nth(1) else {
        eprintln!("usage: ooxml_diff FILE.jsonl");
        std::process::exit(2);
    };
    let text = match std::fs::read_to_string(&path) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("{path}: {e}");
            std::process::exit(2);
        }
    };
    let summary = ctxguard_extract::conformance::run_jsonl(&text);
    for (id, error) in &summary.failures {
        let shown: String = error.to_string().chars().take(1500).collect();
        println!("FAIL {id}: {shown}");
    }
    println!(
        "{} passed, {} failed",
        summary.passed,
        summary.failures.len()
    );
}
