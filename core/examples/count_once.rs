//! One cold count of a file, for instruction counts: sets o200k up, then counts
//! FILE once in `measured` (no warm-up: the piece cache is made by that count),
//! and prints the number of tokens. Callgrind collects that call alone:
//!   cargo build --profile profiling -p ctxguard-core --example count_once
//!   valgrind --tool=callgrind --toggle-collect='*count_once::measured*' \
//!     target/profiling/examples/count_once FILE

use ctxguard_core::bpe::Encoder;

/// The count that is measured: the whole text, once.
#[inline(never)]
fn measured(encoder: &Encoder, text: &str) -> usize {
    encoder.count_ordinary(std::hint::black_box(text))
}

fn main() {
    let Some(path) = std::env::args().nth(1) else {
        eprintln!("usage: count_once FILE");
        std::process::exit(2)
    };
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| {
        eprintln!("count_once: cannot read {path}: {e}");
        std::process::exit(2)
    });
    // Builds the vocabulary (first use of the shared encoder), outside the measured call.
    let encoder = std::hint::black_box(ctxguard_core::bpe::o200k_base());
    println!("{}", measured(encoder, &text));
}
