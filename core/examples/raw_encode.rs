//! Baseline for `ctxguard count`: plain tiktoken-rs set-up and encode of one file.
//! Usage: cargo run --release -p ctxguard-core --example raw_encode -- FILE [model]

use std::time::Instant;

fn main() {
    let mut args = std::env::args().skip(1);
    let Some(path) = args.next() else {
        eprintln!("usage: raw_encode FILE [model]");
        std::process::exit(2);
    };
    let model = args.next().unwrap_or_else(|| "gpt-4o".into());
    let text = match std::fs::read_to_string(&path) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("raw_encode: cannot read {path}: {e}");
            std::process::exit(2);
        }
    };
    let start = Instant::now();
    let Ok(bpe) = tiktoken_rs::bpe_for_model(&model) else {
        eprintln!("raw_encode: tiktoken-rs does not know {model}");
        std::process::exit(2);
    };
    let setup = start.elapsed();
    let tokens = bpe.encode_ordinary(&text).len();
    let total = start.elapsed();
    println!(
        "{tokens} tokens; set-up {:.3} s, encode {:.3} s, total {:.3} s",
        setup.as_secs_f64(),
        (total - setup).as_secs_f64(),
        total.as_secs_f64()
    );
}
