//! Runs a `document_parse` JSONL file (filled by the reference's
//! `run_ref.py`) through the conformance runner and prints the failures:
//! `cargo run -q -p ctxguard-extract --example documents_diff -- CASES.jsonl`.

use ctxguard_core::conformance::Verdict;
use std::io::BufRead;

fn main() {
    let path = std::env::args().nth(1).expect("a JSONL path");
    let file = std::fs::File::open(&path).expect("readable cases");
    let (mut pass, mut fail) = (0u64, 0u64);
    for (i, line) in std::io::BufReader::new(file).lines().enumerate() {
        let line = line.expect("a line");
        match ctxguard_extract::conformance::run_line(&line, i + 1) {
            Verdict::Pass => pass += 1,
            Verdict::Fail { id, error } => {
                fail += 1;
                if fail <= 30 {
                    println!("FAIL {id}: {error}");
                }
            }
        }
    }
    println!("{pass} passed, {fail} failed");
    std::process::exit(i32::from(fail > 0));
}
