//! One cold count of a file, for instruction counts and timings: sets the
//! encoding up (o200k_base unless ENCODING names another), then counts FILE
//! once in `measured` (no warm-up: the piece cache is made by that count),
//! prints the number of tokens, and the measured call's time on stderr.
//! Callgrind collects that call alone:
//!   cargo build --profile profiling -p ctxguard-core --example count_once
//!   valgrind --tool=callgrind --toggle-collect='*count_once::measured*' \
//!     target/profiling/examples/count_once FILE [ENCODING]

use ctxguard_core::bpe::Encoder;
use std::time::Instant;

/// The count that is measured: the whole text, once.
#[inline(never)]
fn measured(encoder: &Encoder, text: &str) -> usize {
    encoder.count_ordinary(std::hint::black_box(text))
}

fn main() {
    let mut args = std::env::args().skip(1);
    let Some(path) = args.next() else {
        eprintln!("usage: count_once FILE [o200k_base|cl100k_base|p50k_base|r50k_base]");
        std::process::exit(2)
    };
    let encoding = args.next().unwrap_or_else(|| "o200k_base".into());
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| {
        eprintln!("count_once: cannot read {path}: {e}");
        std::process::exit(2)
    });
    // Builds the vocabulary (first use of the shared encoder), outside the measured call.
    let encoder = match encoding.as_str() {
        "o200k_base" => ctxguard_core::bpe::o200k_base(),
        "cl100k_base" => ctxguard_core::bpe::cl100k_base(),
        "p50k_base" => ctxguard_core::bpe::p50k_base(),
        "r50k_base" => ctxguard_core::bpe::r50k_base(),
        other => {
            eprintln!("count_once: no encoding {other}");
            std::process::exit(2)
        }
    };
    let encoder = std::hint::black_box(encoder);
    encoder.count_ordinary("hello world");
    let t = Instant::now();
    let tokens = measured(encoder, &text);
    let secs = t.elapsed().as_secs_f64();
    println!("{tokens}");
    eprintln!(
        "{encoding}: {} bytes in {:.3} ms, {:.1} MB/s",
        text.len(),
        secs * 1e3,
        text.len() as f64 / secs / 1e6
    );
}
