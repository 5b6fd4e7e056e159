//! A cold count, for profilers and quick measurements: sets o200k up, counts a
//! probe, then times the first count of FILE in this process and, given a
//! second file, the count of that one after it (what the piece cache carries).
//! Usage: cargo run --profile profiling -p ctxguard-core --example first_count -- FILE [SECOND]
//! (with no FILE: the set-up alone).

use std::time::Instant;

fn read(path: &str) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| {
        eprintln!("first_count: cannot read {path}: {e}");
        std::process::exit(2)
    })
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let texts: Vec<(String, String)> = args.iter().map(|p| (p.clone(), read(p))).collect();
    let t = Instant::now();
    let encoder = ctxguard_core::bpe::o200k_base();
    encoder.count_ordinary("hello world");
    let mut line = format!("setup {:.2} ms", t.elapsed().as_secs_f64() * 1e3);
    for (i, (path, text)) in texts.iter().enumerate() {
        let t = Instant::now();
        let tokens = encoder.count_ordinary(text);
        let s = t.elapsed().as_secs_f64();
        let name = path.rsplit('/').next().unwrap_or(path);
        let what = if i == 0 { "cold" } else { "then" };
        line += &format!(
            ", {what} {name} {:.2} ms ({:.1} MB/s, {tokens} tokens)",
            s * 1e3,
            text.len() as f64 / 1e6 / s
        );
    }
    println!("{line}");
}
