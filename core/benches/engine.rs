//! Native benchmarks, each beside its baselines in the same run:
//!
//! - `cold`: the first count of a text in a fresh process, by
//!   ctxguard and the other exact Rust tokenizers (toktok-rs, bpe-openai,
//!   tiktoken-rs), on real English and Chinese documentation, source code,
//!   the mixed and prose corpora and the no-whitespace worst cases (1 MB of
//!   `a`, of random letters, of base64 and of random CJK); each
//!   sample is a child process of this binary (see [`cold`]), which also
//!   reports the tokenizer's set-up time and memory;
//! - `count`: the same text counted again and again in one process (what a
//!   tokenizer's cross-call cache makes of a text it has seen);
//! - the governance operations: cut (head/tail truncate), the attachment preview (8
//!   attachments, 10 MB) and the ledger snapshot after one appended message
//!   on a ~1.7 M-token history vs a full recount.
//!
//! Inputs are the deterministic corpora of `tests/bench/corpus.mjs` and
//! `tests/bench/real.mjs` (the same bytes the browser bench counts), read
//! from `$CTXGUARD_BENCH_CORPUS`, or generated into a temporary folder with
//! `node` when that is unset.
//!
//! Run: `scripts/bench.sh` (short measurement, writes BENCHMARKS.md), or
//! `cargo bench -p ctxguard-core --bench engine [-- FILTER]`.

#[cfg(target_arch = "wasm32")]
fn main() {}

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    if let Ok(spec) = std::env::var(cold::CHILD) {
        cold::child(&spec);
        return;
    }
    native::main();
}

/// Cold counts: every sample is a fresh process (this binary, re-run with
/// `CTXGUARD_BENCH_CHILD=tokenizer:file`) that sets its tokenizer up, counts
/// a short probe, then times one count of the file: the first count of that
/// text in the process, as a host that counts a document once sees it.
#[cfg(not(target_arch = "wasm32"))]
mod cold {
    use std::time::{Duration, Instant};

    /// The variable that makes this binary a cold-count child.
    pub const CHILD: &str = "CTXGUARD_BENCH_CHILD";

    /// What one child measured.
    #[derive(Debug, Clone, Copy)]
    pub struct Sample {
        pub setup: Duration,
        pub count: Duration,
        pub tokens: usize,
        /// Resident memory the set-up added, and the process's peak, in KiB.
        pub setup_kib: u64,
        pub peak_kib: u64,
    }

    /// A line of `/proc/self/status` in KiB (0 where there is none).
    fn status_kib(field: &str) -> u64 {
        std::fs::read_to_string("/proc/self/status")
            .ok()
            .and_then(|s| {
                s.lines()
                    .find(|l| l.starts_with(field))
                    .and_then(|l| l.split_whitespace().nth(1)?.parse().ok())
            })
            .unwrap_or(0)
    }

    /// A counting function over the set-up tokenizer.
    type Counter = Box<dyn Fn(&str) -> usize>;

    fn set_up(name: &str) -> Counter {
        match name {
            "ctxguard" => {
                let e = ctxguard_core::tokens::TokenCounter::for_model("gpt-4o");
                Box::new(move |t| ctxguard_core::tokens::len_of_tokens(e.count_text(t)))
            }
            "toktok-rs" => {
                let t = toktok::Tokenizer::builtin("o200k_base").expect("toktok has o200k");
                Box::new(move |s| t.count(s.as_bytes()))
            }
            "bpe-openai" => {
                let t = bpe_openai::o200k_base();
                Box::new(move |s| t.count(s))
            }
            "tiktoken-rs" => {
                let t = tiktoken_rs::o200k_base_singleton();
                Box::new(move |s| t.encode_ordinary(s).len())
            }
            other => panic!("unknown tokenizer {other}"),
        }
    }

    /// The child: `spec` is `tokenizer:file`; prints one line of numbers.
    pub fn child(spec: &str) {
        let (name, file) = spec
            .split_once(':')
            .expect("CTXGUARD_BENCH_CHILD=tokenizer:file");
        let text = std::fs::read_to_string(file).expect("the input file is readable");
        let before = status_kib("VmRSS:");
        let t = Instant::now();
        let count = set_up(name);
        std::hint::black_box(count("hello world"));
        let setup = t.elapsed();
        let setup_kib = status_kib("VmRSS:").saturating_sub(before);
        let t = Instant::now();
        let tokens = count(std::hint::black_box(&text));
        let elapsed = t.elapsed();
        println!(
            "{} {} {tokens} {setup_kib} {}",
            setup.as_nanos(),
            elapsed.as_nanos(),
            status_kib("VmHWM:")
        );
    }

    /// Runs one child and reads its numbers.
    pub fn sample(name: &str, file: &std::path::Path) -> Sample {
        let out = std::process::Command::new(std::env::current_exe().expect("own path"))
            .env(CHILD, format!("{name}:{}", file.display()))
            .output()
            .expect("the bench binary re-runs itself");
        assert!(
            out.status.success(),
            "{name} child failed on {}",
            file.display()
        );
        let line = String::from_utf8_lossy(&out.stdout);
        let v: Vec<u128> = line
            .split_whitespace()
            .map(|x| x.parse().expect("a number"))
            .collect();
        Sample {
            setup: Duration::from_nanos(v[0] as u64),
            count: Duration::from_nanos(v[1] as u64),
            tokens: v[2] as usize,
            setup_kib: v[3] as u64,
            peak_kib: v[4] as u64,
        }
    }
}

#[cfg(not(target_arch = "wasm32"))]
#[path = "shared/preview_input.rs"]
mod preview_input;

#[cfg(not(target_arch = "wasm32"))]
mod native {
    use criterion::{BatchSize, Criterion, SamplingMode, Throughput};
    use ctxguard_core::attachment::{default_limit, preview_messages};
    use ctxguard_core::budget::context_limits;
    use ctxguard_core::cut::{truncate_body, TruncationPolicy};
    use ctxguard_core::ledger::Ledger;
    use ctxguard_core::metrics;
    use ctxguard_core::tokens::{tokens_of_len, TokenCounter, Tokens};
    use ctxguard_core::Message;
    use std::hint::black_box;
    use std::path::{Path, PathBuf};
    use std::time::{Duration, Instant};
    use tiktoken_rs::CoreBPE;

    const MODEL: &str = "gpt-4o";
    /// A quarter of the prefix of the one-piece inputs on which counts are compared with tiktoken-rs (quadratic on them).
    const SMALL: usize = 16 * 1024;
    /// History size of the snapshot bench.
    const HISTORY_TOKENS: Tokens = 1_700_000;

    struct Corpus {
        dir: PathBuf,
        mixed: String,
        prose: String,
        a: String,
        letters: String,
        base64: String,
        cjk: String,
        en: String,
        zh: String,
        code: String,
    }

    /// The inputs of the cold and count groups, by file name.
    const COLD_INPUTS: [&str; 9] = [
        "en", "zh", "code", "mixed", "prose", "letters", "a", "base64", "cjk",
    ];
    const COUNT_INPUTS: [&str; 5] = ["en", "zh", "code", "mixed", "prose"];

    fn corpus_dir() -> PathBuf {
        if let Some(dir) = std::env::var_os("CTXGUARD_BENCH_CORPUS") {
            return PathBuf::from(dir);
        }
        let dir =
            std::env::temp_dir().join(format!("ctxguard-bench-corpus-{}", std::process::id()));
        let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/bench/corpus.mjs");
        let status = std::process::Command::new("node")
            .arg(&script)
            .arg(&dir)
            .stdout(std::process::Stdio::null())
            .status()
            .expect("node runs tests/bench/corpus.mjs (or set CTXGUARD_BENCH_CORPUS)");
        assert!(status.success(), "{} failed", script.display());
        dir
    }

    fn load() -> Corpus {
        let dir = corpus_dir();
        let read = |name: &str| {
            let path = dir.join(format!("{name}.txt"));
            std::fs::read_to_string(&path)
                .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()))
        };
        Corpus {
            dir: dir.clone(),
            en: read("en"),
            zh: read("zh"),
            code: read("code"),
            mixed: read("mixed"),
            prose: read("prose"),
            a: read("a"),
            letters: read("letters"),
            base64: read("base64"),
            cjk: read("cjk"),
        }
    }

    use super::preview_input::prefix;

    /// `s` cut into chunks of about `n` bytes, on char boundaries.
    fn chunks(s: &str, n: usize) -> Vec<&str> {
        let mut out = Vec::new();
        let mut rest = s;
        while !rest.is_empty() {
            let head = prefix(rest, n);
            let head = if head.is_empty() { rest } else { head };
            out.push(head);
            rest = &rest[head.len()..];
        }
        out
    }

    fn tiktoken_count(bpe: &CoreBPE, text: &str) -> Tokens {
        tokens_of_len(bpe.encode_ordinary(text).len())
    }

    /// tiktoken-rs's head/tail cut: encode once, decode the first and last tokens lossily.
    /// ctxguard's cut to the first `head` and last `tail` tokens: the text
    /// measured (counted, not encoded), then only the kept tokens encoded and decoded.
    fn ctxguard_head_tail(
        counter: &TokenCounter,
        text: &str,
        head: i64,
        tail: i64,
    ) -> (String, String, i64) {
        let measured = counter.measure(text);
        let total = measured.len();
        let head = (head.max(0) as usize).min(total);
        let tail = (tail.max(0) as usize).min(total - head);
        let (h, t) = counter.head_tail_ids(&measured, head, tail);
        (
            counter.decode_lossy(&h),
            counter.decode_lossy(&t),
            total as i64,
        )
    }

    fn tiktoken_head_tail(
        bpe: &CoreBPE,
        text: &str,
        head: Tokens,
        tail: Tokens,
    ) -> (String, String, Tokens) {
        let ids = bpe.encode_ordinary(text);
        let total = ids.len();
        let head = usize::try_from(head).expect("a small head").min(total);
        let tail = usize::try_from(tail)
            .expect("a small tail")
            .min(total - head);
        let decode = |ids: &[u32]| {
            String::from_utf8_lossy(&bpe.decode_bytes(ids).expect("known ranks")).into_owned()
        };
        (
            decode(&ids[..head]),
            decode(&ids[total - tail..]),
            tokens_of_len(total),
        )
    }

    /// A plain full recount with tiktoken-rs, as the reference's `count_messages` does it.
    fn tiktoken_count_messages(bpe: &CoreBPE, messages: &[Message]) -> Tokens {
        messages
            .iter()
            .map(|m| {
                let text = match &m.content {
                    Some(ctxguard_core::Content::Text(t)) => t.as_str(),
                    _ => "",
                };
                4 + tiktoken_count(bpe, &m.role) + tiktoken_count(bpe, text)
            })
            .sum::<Tokens>()
            + 3
    }

    /// One-shot start-up figures, taken before anything else touches the encoders.
    fn startup() {
        let t = Instant::now();
        let n = TokenCounter::for_model(MODEL).count_text("hello world");
        let ours = t.elapsed();
        let t = Instant::now();
        let m = tokens_of_len(
            tiktoken_rs::o200k_base_singleton()
                .encode_ordinary("hello world")
                .len(),
        );
        let theirs = t.elapsed();
        assert_eq!(n, m);
        let ms = |d: Duration| d.as_secs_f64() * 1e3;
        println!(
            "startup/o200k first count: ctxguard {:.2} ms, tiktoken-rs {:.2} ms",
            ms(ours),
            ms(theirs)
        );
        // Read back by tests/bench/report.mjs.
        let dir = criterion_dir();
        let _ = std::fs::create_dir_all(&dir);
        let _ = std::fs::write(
            dir.join("startup.json"),
            format!(
                "{{\"ctxguard_ms\":{},\"tiktoken_rs_ms\":{}}}\n",
                ms(ours),
                ms(theirs)
            ),
        );
    }

    /// Where criterion writes its results: `$CRITERION_HOME`, else `<target>/criterion`.
    fn criterion_dir() -> PathBuf {
        if let Some(home) = std::env::var_os("CRITERION_HOME") {
            return PathBuf::from(home);
        }
        let target = std::env::var_os("CARGO_TARGET_DIR")
            .map(PathBuf::from)
            .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../target"));
        target.join("criterion")
    }

    impl Corpus {
        fn get(&self, name: &str) -> &str {
            match name {
                "en" => &self.en,
                "zh" => &self.zh,
                "code" => &self.code,
                "mixed" => &self.mixed,
                "prose" => &self.prose,
                "letters" => &self.letters,
                "a" => &self.a,
                "base64" => &self.base64,
                "cjk" => &self.cjk,
                other => panic!("no input {other}"),
            }
        }
    }

    /// The baselines whose counts equal tiktoken-rs's on every input (others are left out, and said so).
    fn exact_baselines(corpus: &Corpus, bpe: &CoreBPE) -> Vec<&'static str> {
        let toktok = toktok::Tokenizer::builtin("o200k_base").expect("toktok has o200k");
        let gems = bpe_openai::o200k_base();
        let mut exact = vec!["ctxguard"];
        let mut notes = Vec::new();
        for name in ["toktok-rs", "bpe-openai", "tiktoken-rs"] {
            let mut same = true;
            for input in COLD_INPUTS {
                let text = corpus.get(input);
                // tiktoken-rs is quadratic on one long piece: compare on a prefix of the worst cases.
                let text = if matches!(input, "a" | "letters" | "cjk") {
                    prefix(text, SMALL * 4)
                } else {
                    text
                };
                let want = bpe.encode_ordinary(text).len();
                let got = match name {
                    "toktok-rs" => toktok.count(text.as_bytes()),
                    "bpe-openai" => gems.count(text),
                    _ => want,
                };
                if got != want {
                    notes.push(format!(
                        "{name} counts {got} tokens on {input}, tiktoken-rs {want}"
                    ));
                    same = false;
                }
            }
            if same {
                exact.push(name);
            }
        }
        let dir = criterion_dir();
        let _ = std::fs::create_dir_all(&dir);
        let _ = std::fs::write(dir.join("baselines.txt"), notes.join("\n"));
        for n in &notes {
            println!("excluded from the baselines: {n}");
        }
        exact
    }

    /// Cold counts (see [`crate::cold`]): each sample a fresh process; also writes the
    /// set-up time and memory of each tokenizer to `cold.txt` for the report.
    fn cold(c: &mut Criterion, corpus: &Corpus, tokenizers: &[&str]) {
        let mut g = c.benchmark_group("cold");
        g.sampling_mode(SamplingMode::Flat);
        g.sample_size(10);
        g.warm_up_time(Duration::from_millis(1));
        g.measurement_time(Duration::from_millis(1));
        let mut lines = Vec::new();
        for input in COLD_INPUTS {
            let file = corpus.dir.join(format!("{input}.txt"));
            let bytes = corpus.get(input).len();
            g.throughput(Throughput::Bytes(bytes as u64));
            for &name in tokenizers {
                let mut samples = Vec::new();
                g.bench_function(format!("{name}/{input}"), |b| {
                    b.iter_custom(|iters| {
                        (0..iters)
                            .map(|_| {
                                let s = crate::cold::sample(name, &file);
                                samples.push(s);
                                s.count
                            })
                            .sum()
                    })
                });
                if samples.is_empty() {
                    continue; // filtered out on the command line
                }
                let med = |f: &dyn Fn(&crate::cold::Sample) -> f64| {
                    let mut v: Vec<f64> = samples.iter().map(f).collect();
                    v.sort_by(f64::total_cmp);
                    v[v.len() / 2]
                };
                lines.push(format!(
                    "{name} {input} {} {} {} {} {}",
                    med(&|s| s.setup.as_secs_f64() * 1e3),
                    med(&|s| s.count.as_secs_f64() * 1e3),
                    med(&|s| s.setup_kib as f64),
                    med(&|s| s.peak_kib as f64),
                    samples[0].tokens
                ));
            }
        }
        g.finish();
        let dir = criterion_dir();
        let _ = std::fs::create_dir_all(&dir);
        // name input setup_ms count_ms setup_kib peak_kib tokens (medians of the samples)
        let _ = std::fs::write(dir.join("cold.txt"), lines.join("\n") + "\n");
    }

    /// One text counted again and again in one process: what cross-call caches make of a text seen before.
    fn count_again(c: &mut Criterion, corpus: &Corpus, tokenizers: &[&str]) {
        let toktok = toktok::Tokenizer::builtin("o200k_base").expect("toktok has o200k");
        let gems = bpe_openai::o200k_base();
        let ours = ctxguard_core::bpe::o200k_base();
        let tik = tiktoken_rs::o200k_base_singleton();
        let mut g = c.benchmark_group("again");
        g.sampling_mode(SamplingMode::Flat);
        for input in COUNT_INPUTS {
            let text = corpus.get(input);
            g.throughput(Throughput::Bytes(text.len() as u64));
            for &name in tokenizers {
                g.bench_function(format!("{name}/{input}"), |b| match name {
                    "ctxguard" => b.iter(|| ours.count_ordinary(black_box(text))),
                    "toktok-rs" => b.iter(|| toktok.count(black_box(text).as_bytes())),
                    "bpe-openai" => b.iter(|| gems.count(black_box(text))),
                    _ => b.iter(|| tik.encode_ordinary(black_box(text)).len()),
                });
            }
        }
        g.finish();
    }

    fn check_equal(counter: &TokenCounter, bpe: &CoreBPE, c: &Corpus) {
        for (name, text) in [
            ("mixed", c.mixed.as_str()),
            ("prose", c.prose.as_str()),
            ("en", c.en.as_str()),
            ("zh", c.zh.as_str()),
            ("code", c.code.as_str()),
            ("base64", c.base64.as_str()),
            ("a (64 KiB)", prefix(&c.a, SMALL * 4)),
            ("letters (64 KiB)", prefix(&c.letters, SMALL * 4)),
            ("cjk (64 KiB)", prefix(&c.cjk, SMALL * 4)),
        ] {
            assert_eq!(
                counter.encode(text),
                bpe.encode_ordinary(text),
                "{name}: ctxguard and tiktoken-rs differ"
            );
        }
    }

    /// cl100k (gpt-4) beside tiktoken-rs on the mixed corpus.
    fn count_cl100k(c: &mut Criterion, corpus: &Corpus) {
        let mut g = c.benchmark_group("count");
        g.sampling_mode(SamplingMode::Flat);
        let cl = TokenCounter::for_model("gpt-4");
        let cl_bpe = tiktoken_rs::cl100k_base_singleton();
        let text = &corpus.mixed;
        assert_eq!(
            cl.count_text(text),
            tiktoken_count(cl_bpe, text),
            "cl100k counts differ"
        );
        g.throughput(Throughput::Bytes(text.len() as u64));
        g.bench_function("ctxguard/mixed-cl100k", |b| {
            b.iter(|| cl.count_text(black_box(text)))
        });
        g.bench_function("tiktoken-rs/mixed-cl100k", |b| {
            b.iter(|| tiktoken_count(cl_bpe, black_box(text)))
        });
        g.finish();
    }

    fn cut(c: &mut Criterion, corpus: &Corpus, counter: &TokenCounter, bpe: &CoreBPE) {
        let text = &corpus.mixed;
        let (head, tail) = (6_000, 4_000);
        assert_eq!(
            ctxguard_head_tail(counter, text, head, tail),
            tiktoken_head_tail(bpe, text, head, tail)
        );
        let mut g = c.benchmark_group("cut");
        g.sampling_mode(SamplingMode::Flat);
        g.throughput(Throughput::Bytes(text.len() as u64));
        g.bench_function("ctxguard/head_tail", |b| {
            b.iter(|| ctxguard_head_tail(counter, black_box(text), head, tail))
        });
        g.bench_function("tiktoken-rs/head_tail", |b| {
            b.iter(|| tiktoken_head_tail(bpe, black_box(text), head, tail))
        });
        // The tool-output cut as the guard renders it (10 000 tokens kept).
        g.bench_function("ctxguard/truncate_body", |b| {
            b.iter(|| truncate_body(black_box(text), TruncationPolicy::tokens(10_000), counter))
        });
        g.finish();
    }

    /// 8 attachments totalling 10 MB in one user message, as the clients write them.
    fn attachments(corpus: &Corpus) -> (Vec<Message>, Vec<String>) {
        super::preview_input::attachments(&corpus.mixed, &corpus.prose)
    }

    fn preview(c: &mut Criterion, corpus: &Corpus, counter: &TokenCounter, bpe: &CoreBPE) {
        let (messages, bodies) = attachments(corpus);
        let bytes: usize = bodies.iter().map(String::len).sum();
        let limit = default_limit(context_limits(MODEL, None, None).context_window);
        let outcome = preview_messages(&messages, counter, limit);
        assert_eq!(outcome.segments.len(), 8);
        assert!(outcome.segments.iter().all(|s| s.truncated));
        let mut g = c.benchmark_group("preview");
        g.sampling_mode(SamplingMode::Flat);
        g.throughput(Throughput::Bytes(bytes as u64));
        g.bench_function("ctxguard/preview-8x1.25MB", |b| {
            b.iter(|| preview_messages(black_box(&messages), counter, limit))
        });
        g.bench_function("ctxguard/count-once-8x1.25MB", |b| {
            b.iter(|| {
                bodies
                    .iter()
                    .map(|t| counter.count_text(black_box(t)))
                    .sum::<Tokens>()
            })
        });
        g.bench_function("tiktoken-rs/count-once-8x1.25MB", |b| {
            b.iter(|| {
                bodies
                    .iter()
                    .map(|t| tiktoken_count(bpe, black_box(t)))
                    .sum::<Tokens>()
            })
        });
        g.finish();
    }

    /// A chat history of at least `HISTORY_TOKENS` tokens, from ~4 KB chunks of the corpora.
    fn history(corpus: &Corpus, counter: &TokenCounter) -> Vec<Message> {
        let mut messages = vec![Message::system(
            "You are a careful assistant. Answer briefly.",
        )];
        let mut tokens = counter.count_messages(&messages);
        let roles = ["user", "assistant", "user", "assistant", "tool"];
        'outer: loop {
            for source in [&corpus.mixed, &corpus.prose] {
                for (i, chunk) in chunks(source, 4_000).into_iter().enumerate() {
                    let m = Message::new(roles[messages.len() % roles.len()], chunk);
                    tokens += counter.count_message(&m);
                    messages.push(m);
                    if tokens >= HISTORY_TOKENS && i > 0 {
                        break 'outer;
                    }
                }
            }
        }
        messages
    }

    fn snapshot(c: &mut Criterion, corpus: &Corpus, counter: &TokenCounter, bpe: &CoreBPE) {
        let mut history = history(corpus, counter);
        let limits = context_limits(MODEL, None, None);
        let ledger = Ledger::from_messages(*counter, &history);
        // The prose corpus is ASCII, so any offset is a char boundary.
        let appended = Message::user(prefix(&corpus.prose[500_000..], 2_000));
        history.push(appended.clone());
        let mut check = ledger.clone();
        check.push(&appended);
        let recount = metrics::snapshot(counter, &history, &limits, None);
        assert_eq!(
            check.snapshot(&limits).used_input_tokens,
            recount.used_input_tokens
        );
        assert_eq!(
            tiktoken_count_messages(bpe, &history) as i64,
            recount.used_input_tokens
        );
        println!(
            "snapshot: history of {} messages, {} tokens, {} bytes",
            history.len(),
            recount.used_input_tokens,
            history
                .iter()
                .map(|m| m.text().map_or(0, str::len))
                .sum::<usize>()
        );
        let mut g = c.benchmark_group("snapshot");
        g.sampling_mode(SamplingMode::Flat);
        g.bench_function("ctxguard/ledger-append-1-snapshot", |b| {
            b.iter_batched_ref(
                || ledger.clone(),
                |l| {
                    l.push(black_box(&appended));
                    l.snapshot(&limits)
                },
                BatchSize::LargeInput,
            )
        });
        g.bench_function("ctxguard/full-recount", |b| {
            b.iter(|| metrics::snapshot(counter, black_box(&history), &limits, None))
        });
        g.bench_function("tiktoken-rs/full-recount", |b| {
            b.iter(|| tiktoken_count_messages(bpe, black_box(&history)))
        });
        g.finish();
    }

    pub fn main() {
        startup();
        let corpus = load();
        let counter = TokenCounter::for_model(MODEL);
        let bpe = tiktoken_rs::o200k_base_singleton();
        check_equal(&counter, bpe, &corpus);
        let mut c = Criterion::default()
            .sample_size(10)
            .warm_up_time(Duration::from_secs(1))
            .measurement_time(Duration::from_secs(2))
            .configure_from_args();
        let tokenizers = exact_baselines(&corpus, bpe);
        cold(&mut c, &corpus, &tokenizers);
        count_again(&mut c, &corpus, &tokenizers);
        count_cl100k(&mut c, &corpus);
        cut(&mut c, &corpus, &counter, bpe);
        preview(&mut c, &corpus, &counter, bpe);
        snapshot(&mut c, &corpus, &counter, bpe);
        c.final_summary();
    }
}
