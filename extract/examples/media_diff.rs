//! Differential runner: `cargo run -p ctxguard-extract --example media_diff -- CASES.jsonl`
//! runs `document_parse` cases whose `expected` the reference filled
//! (`/work/refharness/run_ref.py IN.jsonl > OUT.jsonl`) and prints each
//! disagreement, then the tally.

use ctxguard_extract::conformance;

fn main() {
    let Some(path) = std::env::args().nth(1) else {
        eprintln!("usage: media_diff CASES.jsonl");
        std::process::exit(2);
    };
    if !path.ends_with(".jsonl") {
        let bytes = std::fs::read(&path).unwrap_or_default();
        let name = std::path::Path::new(&path)
            .file_name()
            .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
        let up = ctxguard_extract::upload(&bytes, &name, &ctxguard_extract::Options::default());
        println!("{}", up.to_json(true));
        return;
    }
    let text = match std::fs::read_to_string(&path) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("cannot read {path}: {e}");
            std::process::exit(2);
        }
    };
    let summary = conformance::run_jsonl(&text);
    for (id, error) in &summary.failures {
        let mut line = format!("FAIL {id}: {error}");
        line.truncate(line.char_indices().nth(600).map_or(line.len(), |(i, _)| i));
        println!("{line}");
    }
    println!(
        "{} passed, {} failed",
        summary.passed,
        summary.failures.len()
    );
}
