//! Native benchmarks of issue 6, each beside the plain tiktoken-rs baseline in
//! the same run: count, cut (head/tail truncate), the no-whitespace worst
//! cases, the attachment preview (8 attachments, 10 MB) and the ledger snapshot
//! after one appended message on a ~1.7 M-token history vs a full recount.
//!
//! Inputs are the deterministic corpora of `tests/bench/corpus.mjs` (the same
//! bytes the browser bench counts), read from `$CTXGUARD_BENCH_CORPUS`, or
//! generated into a temporary folder with `node` when that is unset.
//!
//! Run: `scripts/bench.sh` (short measurement, writes BENCHMARKS.md), or
//! `cargo bench -p ctxguard-core --bench engine [-- FILTER]`.

#[cfg(target_arch = "wasm32")]
fn main() {}

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    native::main();
}

#[cfg(not(target_arch = "wasm32"))]
mod native {
    use criterion::{BatchSize, Criterion, SamplingMode, Throughput};
    use ctxguard_core::attachment::{build_header, default_limit, preview_messages, HeaderArgs};
    use ctxguard_core::budget::context_limits;
    use ctxguard_core::ledger::Ledger;
    use ctxguard_core::metrics;
    use ctxguard_core::tokens::{tokens_of_len, TokenCounter, Tokens};
    use ctxguard_core::tool_output::{truncate_body, TruncationPolicy};
    use ctxguard_core::Message;
    use std::hint::black_box;
    use std::path::{Path, PathBuf};
    use std::time::{Duration, Instant};
    use tiktoken_rs::CoreBPE;

    const MODEL: &str = "gpt-4o";
    /// The first size of the one-piece inputs tried with tiktoken-rs (see `feasible_size`).
    const SMALL: usize = 16 * 1024;
    /// History size of the snapshot bench.
    const HISTORY_TOKENS: Tokens = 1_700_000;

    struct Corpus {
        mixed: String,
        prose: String,
        a: String,
        letters: String,
        base64: String,
    }

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
            mixed: read("mixed"),
            prose: read("prose"),
            a: read("a"),
            letters: read("letters"),
            base64: read("base64"),
        }
    }

    /// The longest prefix of `s` of at most `n` bytes that ends on a char boundary.
    fn prefix(s: &str, n: usize) -> &str {
        let mut end = n.min(s.len());
        while !s.is_char_boundary(end) {
            end -= 1;
        }
        &s[..end]
    }

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

    fn check_equal(counter: &TokenCounter, bpe: &CoreBPE, c: &Corpus) {
        for (name, text) in [
            ("mixed", c.mixed.as_str()),
            ("prose", c.prose.as_str()),
            ("base64", c.base64.as_str()),
            ("a (16 KiB)", prefix(&c.a, SMALL)),
            ("letters (16 KiB)", prefix(&c.letters, SMALL)),
        ] {
            assert_eq!(
                counter.encode(text),
                bpe.encode_ordinary(text),
                "{name}: ctxguard and tiktoken-rs differ"
            );
        }
    }

    fn count(c: &mut Criterion, corpus: &Corpus, counter: &TokenCounter, bpe: &CoreBPE) {
        let mut g = c.benchmark_group("count");
        g.sampling_mode(SamplingMode::Flat);
        for (name, text) in [("mixed", &corpus.mixed), ("prose", &corpus.prose)] {
            g.throughput(Throughput::Bytes(text.len() as u64));
            g.bench_function(format!("ctxguard/{name}"), |b| {
                b.iter(|| counter.count_text(black_box(text)))
            });
            g.bench_function(format!("tiktoken-rs/{name}"), |b| {
                b.iter(|| tiktoken_count(bpe, black_box(text)))
            });
        }
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
            counter.head_tail(text, head, tail),
            tiktoken_head_tail(bpe, text, head, tail)
        );
        let mut g = c.benchmark_group("cut");
        g.sampling_mode(SamplingMode::Flat);
        g.throughput(Throughput::Bytes(text.len() as u64));
        g.bench_function("ctxguard/head_tail", |b| {
            b.iter(|| counter.head_tail(black_box(text), head, tail))
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

    fn worst(c: &mut Criterion, corpus: &Corpus, counter: &TokenCounter, bpe: &CoreBPE) {
        let mut g = c.benchmark_group("worst");
        g.sampling_mode(SamplingMode::Flat);
        let cases: [(&str, &str); 4] = [
            ("prose", &corpus.prose),
            ("a", &corpus.a),
            ("letters", &corpus.letters),
            ("base64", &corpus.base64),
        ];
        for (name, text) in cases {
            g.throughput(Throughput::Bytes(text.len() as u64));
            g.bench_function(format!("ctxguard/{name}-1MB"), |b| {
                b.iter(|| counter.count_text(black_box(text)))
            });
            if matches!(name, "prose" | "base64") {
                g.bench_function(format!("tiktoken-rs/{name}-1MB"), |b| {
                    b.iter(|| tiktoken_count(bpe, black_box(text)))
                });
            }
        }
        // tiktoken-rs on the one-piece inputs: at 1 MB when it can, else at the largest size it can.
        for (name, text) in [("a", &corpus.a), ("letters", &corpus.letters)] {
            let size = feasible_size(bpe, text);
            let part = prefix(text, size);
            let label = if size == text.len() {
                format!("{name}-1MB")
            } else {
                format!("{name}-{}KiB", size / 1024)
            };
            g.throughput(Throughput::Bytes(part.len() as u64));
            if size != text.len() {
                g.bench_function(format!("ctxguard/{label}"), |b| {
                    b.iter(|| counter.count_text(black_box(part)))
                });
            }
            g.bench_function(format!("tiktoken-rs/{label}"), |b| {
                b.iter(|| tiktoken_count(bpe, black_box(part)))
            });
        }
        g.finish();
    }

    /// The largest of 16 KiB × 4ⁿ (up to all of `text`) at which tiktoken-rs's one-shot time,
    /// extrapolated quadratically to the next size, stays under 3 s: its merge is
    /// quadratic in the length of one piece, and `a`/letters are one piece.
    fn feasible_size(bpe: &CoreBPE, text: &str) -> usize {
        let mut size = SMALL.min(text.len());
        loop {
            let t = Instant::now();
            black_box(tiktoken_count(bpe, prefix(text, size)));
            let secs = t.elapsed().as_secs_f64();
            if size >= text.len() {
                return text.len();
            }
            let next = (size * 4).min(text.len());
            if secs * (next as f64 / size as f64).powi(2) > 3.0 {
                return size;
            }
            size = next;
        }
    }

    /// 8 attachments totalling 10 MB in one user message, as the clients write them.
    fn attachments(corpus: &Corpus) -> (Vec<Message>, Vec<String>) {
        let per = 10_000_000 / 8;
        let source = format!("{}{}", corpus.mixed, corpus.prose);
        let mut bodies = Vec::new();
        let mut text = String::from("Please review these files.\n<attachment>");
        for i in 0..8usize {
            // Each body starts at a different place of the corpus and wraps around.
            let start = i * source.len() / 8;
            let mut start = start;
            while !source.is_char_boundary(start) {
                start += 1;
            }
            let rotated = format!("{}{}", &source[start..], &source[..start]);
            let body = prefix(&rotated, per).to_string();
            let header = build_header(&HeaderArgs {
                attachment_id: 1000 + i as i64,
                filename: format!("docs/file-{i}.txt"),
                mime_type: Some("text/plain".into()),
                file_size: body.len() as i64,
                sandbox_path: Some(format!("/home/user/attachments/file-{i}.txt")),
                is_image: false,
            });
            text.push_str(&header);
            text.push('\n');
            text.push_str(&body);
            text.push('\n');
            bodies.push(body);
        }
        text.push_str("</attachment>");
        (
            vec![
                Message::new("system", "You are terse."),
                Message::new("user", text),
            ],
            bodies,
        )
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
        let mut messages = vec![Message::new(
            "system",
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
        let appended = Message::new("user", prefix(&corpus.prose[500_000..], 2_000));
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
        count(&mut c, &corpus, &counter, bpe);
        cut(&mut c, &corpus, &counter, bpe);
        worst(&mut c, &corpus, &counter, bpe);
        preview(&mut c, &corpus, &counter, bpe);
        snapshot(&mut c, &corpus, &counter, bpe);
        c.final_summary();
    }
}
