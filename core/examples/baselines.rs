//! One cold count of a file by each exact Rust tokenizer (o200k), in this process:
//! set-up, then the first count of the file, then the median of five more.
//! For tuning; `scripts/bench.sh` measures them properly (a fresh process per sample).
//! Usage: cargo run --release -p ctxguard-core --example baselines -- FILE...

use std::time::Instant;

fn time<T>(f: impl FnOnce() -> T) -> (T, f64) {
    let t = Instant::now();
    let out = f();
    (out, t.elapsed().as_secs_f64() * 1e3)
}

fn report(name: &str, mb: f64, setup_ms: f64, mut count: impl FnMut() -> usize) -> usize {
    let (n, cold) = time(&mut count);
    let mut warm: Vec<f64> = (0..5).map(|_| time(&mut count).1).collect();
    warm.sort_by(f64::total_cmp);
    println!(
        "  {name:<12} set-up {setup_ms:6.1} ms  cold {cold:7.2} ms ({:6.1} MB/s)  again {:7.2} ms ({:6.1} MB/s)  {n} tokens",
        mb / (cold / 1e3),
        warm[2],
        mb / (warm[2] / 1e3)
    );
    n
}

fn main() {
    let (ours, ours_setup) = time(|| {
        let e = ctxguard_core::bpe::o200k_base();
        e.count_ordinary("warm");
        e
    });
    let (toktok, toktok_setup) = time(|| {
        let t = toktok::Tokenizer::builtin("o200k_base").expect("built in");
        t.count(b"warm");
        t
    });
    let (gems, gems_setup) = time(|| {
        let t = bpe_openai::o200k_base();
        t.count("warm");
        t
    });
    let (tik, tik_setup) = time(|| {
        let t = tiktoken_rs::o200k_base_singleton();
        t.encode_ordinary("warm");
        t
    });
    for path in std::env::args().skip(1) {
        let text = std::fs::read_to_string(&path).expect("readable UTF-8 file");
        let mb = text.len() as f64 / 1e6;
        println!("{path}: {} bytes", text.len());
        let a = report("ctxguard", mb, ours_setup, || ours.count_ordinary(&text));
        let b = report("toktok-rs", mb, toktok_setup, || {
            toktok.count(text.as_bytes())
        });
        let c = report("bpe-openai", mb, gems_setup, || gems.count(text.as_str()));
        let d = report("tiktoken-rs", mb, tik_setup, || {
            tik.encode_ordinary(&text).len()
        });
        if [b, c, d] != [a, a, a] {
            println!("  COUNTS DIFFER");
        }
    }
}
