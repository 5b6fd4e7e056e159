//! Counts a file's tokens with ctxguard's engine only (for profilers), and with
//! `--repeat N` prints the median time of N counts.
//! Usage: cargo run --release -p ctxguard-core --example count_file -- FILE [model] [--repeat N]

use std::time::Instant;

fn main() {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let repeat = match args.iter().position(|a| a == "--repeat") {
        Some(i) => {
            let n = args.get(i + 1).and_then(|n| n.parse::<usize>().ok());
            let Some(n) = n.filter(|&n| n > 0) else {
                eprintln!("count_file: --repeat needs a positive count");
                std::process::exit(2)
            };
            args.drain(i..i + 2);
            n
        }
        None => 0,
    };
    let mut args = args.into_iter();
    let path = args.next().unwrap_or_else(|| {
        eprintln!("usage: count_file FILE [model] [--repeat N]");
        std::process::exit(2)
    });
    let model = args.next().unwrap_or_else(|| "gpt-4o".into());
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| {
        eprintln!("count_file: cannot read {path}: {e}");
        std::process::exit(2)
    });
    let count = ctxguard_core::tokens::count_text(&text, &model);
    if repeat == 0 {
        println!("{count}");
        return;
    }
    let mut times: Vec<f64> = (0..repeat)
        .map(|_| {
            let t = Instant::now();
            std::hint::black_box(ctxguard_core::tokens::count_text(&text, &model));
            t.elapsed().as_secs_f64() * 1e3
        })
        .collect();
    times.sort_by(f64::total_cmp);
    let ms = times[times.len() / 2];
    let mb = text.len() as f64 / 1e6;
    println!(
        "{count} tokens; median {ms:.2} ms of {repeat} ({:.1} MB/s)",
        mb / (ms / 1e3)
    );
}
