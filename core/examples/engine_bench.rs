//! Quick side-by-side of ctxguard's BPE engine and tiktoken-rs in one process:
//! set-up time, throughput on a file, and the no-whitespace worst cases.
//! Usage: cargo run --release -p ctxguard-core --example engine_bench -- FILE

use std::time::Instant;

fn secs<T>(f: impl FnOnce() -> T) -> (T, f64) {
    let t = Instant::now();
    let out = f();
    (out, t.elapsed().as_secs_f64())
}

fn main() {
    let path = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "tests/conformance/vectors.jsonl".into());
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| {
        eprintln!("engine_bench: cannot read {path}: {e}");
        std::process::exit(2)
    });
    let mb = text.len() as f64 / 1e6;
    let (ours, ours_init) = secs(|| {
        let e = ctxguard_core::bpe::o200k_base();
        e.count_ordinary("warm");
        e
    });
    let (theirs, theirs_init) = secs(|| {
        let e = tiktoken_rs::o200k_base_singleton();
        e.encode_ordinary("warm");
        e
    });
    let (a, ours_t) = secs(|| ours.count_ordinary(&text));
    let (b, theirs_t) = secs(|| theirs.encode_ordinary(&text).len());
    assert_eq!(a, b, "token counts differ");
    println!(
        "o200k set-up: ctxguard {:.1} ms, tiktoken-rs {:.1} ms",
        ours_init * 1e3,
        theirs_init * 1e3
    );
    println!(
        "{path}: {mb:.1} MB, {a} tokens: ctxguard {:.1} MB/s, tiktoken-rs {:.1} MB/s ({:.2}x)",
        mb / ours_t,
        mb / theirs_t,
        theirs_t / ours_t
    );
    let prose_per_mb = ours_t / mb;
    let mut seed = 1u64;
    let mut rnd = || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    let letters: String = (0..1_000_000)
        .map(|_| (b'a' + (rnd() % 26) as u8) as char)
        .collect();
    let b64: String = (0..1_000_000)
        .map(|_| {
            b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
                [(rnd() % 64) as usize] as char
        })
        .collect();
    for (name, t) in [
        ("a x 1 MB", "a".repeat(1_000_000)),
        ("random letters 1 MB", letters),
        ("base64 1 MB", b64),
    ] {
        let (_, dt) = secs(|| ours.count_ordinary(&t));
        println!(
            "{name}: ctxguard {:.1} ms = {:.2}x prose per MB",
            dt * 1e3,
            dt / prose_per_mb
        );
    }
}
