//! Counts a file's o200k tokens with ctxguard's engine only (for profilers).
//! Usage: cargo run --release -p ctxguard-core --example count_file -- FILE [model]

fn main() {
    let mut args = std::env::args().skip(1);
    let path = args.next().unwrap_or_else(|| {
        eprintln!("usage: count_file FILE [model]");
        std::process::exit(2)
    });
    let model = args.next().unwrap_or_else(|| "gpt-4o".into());
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| {
        eprintln!("count_file: cannot read {path}: {e}");
        std::process::exit(2)
    });
    println!("{}", ctxguard_core::tokens::count_text(&text, &model));
}
