//! Replays every saved fuzz input on stable: the seed corpus
//! (`fuzz/corpus/<target>/`) and every crash or property failure the fuzzers
//! found (`fuzz/regressions/<target>/`), each through its target's check.
//! An input whose check takes longer than [`MAX_SECONDS_PER_INPUT`] fails
//! too, as libFuzzer's `-timeout` does in `scripts/fuzz.sh`: a slow input is
//! a loop or a bound missing (the test command runs debug builds, several
//! times slower than the fuzzers' optimised ones, so the bound is generous).

use ctxguard_fuzz_checks::{Target, TARGETS};
use std::path::{Path, PathBuf};

fn fuzz_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn inputs(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut files: Vec<PathBuf> = entries
        .map(|e| e.expect("a readable directory entry").path())
        .filter(|p| p.is_file())
        .collect();
    files.sort();
    files
}

/// Seconds one input's check may take in this (debug) build. The slowest
/// seeds (a tiktoken oracle over 100 messages, an image decoded and
/// resized) took 11.6 s on a 2-core machine at load 25 and about a tenth of
/// that idle; a file that loops the reader runs for minutes.
/// `CTXGUARD_FUZZ_REPLAY_SECONDS` overrides it.
const MAX_SECONDS_PER_INPUT: u64 = 30;

fn max_per_input() -> std::time::Duration {
    let secs = std::env::var("CTXGUARD_FUZZ_REPLAY_SECONDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(MAX_SECONDS_PER_INPUT);
    std::time::Duration::from_secs(secs)
}

/// Runs `target` on every file of `dir`; the failures (a panic or a check
/// past the time bound), by file.
fn replay(target: &Target, dir: &Path) -> (usize, Vec<String>) {
    let files = inputs(dir);
    let failures = files
        .iter()
        .filter_map(|file| {
            let data = std::fs::read(file).expect("a readable input");
            let start = std::time::Instant::now();
            let outcome = std::panic::catch_unwind(|| (target.check)(&data));
            let took = start.elapsed();
            if outcome.is_ok() && took > max_per_input() {
                return Some(format!(
                    "{}: took {took:?}, over the {:?} bound (a loop or a missing bound)",
                    file.display(),
                    max_per_input()
                ));
            }
            outcome.err().map(|e| {
                let why = e
                    .downcast_ref::<String>()
                    .cloned()
                    .or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()))
                    .unwrap_or_default();
                format!("{}: {why}", file.display())
            })
        })
        .collect();
    (files.len(), failures)
}

#[test]
fn every_seed_and_every_regression_passes_its_check() {
    let mut failures = Vec::new();
    for target in TARGETS {
        let (seeds, mut f) = replay(target, &fuzz_dir().join("corpus").join(target.name));
        assert!(
            seeds > 0,
            "{}: no seed inputs in fuzz/corpus/{}",
            target.name,
            target.name
        );
        failures.append(&mut f);
        let (_, mut f) = replay(target, &fuzz_dir().join("regressions").join(target.name));
        failures.append(&mut f);
    }
    assert!(
        failures.is_empty(),
        "{} inputs fail:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn every_target_has_a_fuzz_binary_and_every_binary_a_target() {
    let manifest = std::fs::read_to_string(fuzz_dir().join("Cargo.toml")).expect("fuzz/Cargo.toml");
    let mut bins: Vec<&str> = manifest
        .split("[[bin]]")
        .skip(1)
        .filter_map(|stanza| {
            let line = stanza
                .lines()
                .find(|l| l.trim_start().starts_with("name"))?;
            line.split('"').nth(1)
        })
        .collect();
    let mut names: Vec<&str> = TARGETS.iter().map(|t| t.name).collect();
    bins.sort_unstable();
    names.sort_unstable();
    assert_eq!(
        bins, names,
        "fuzz/Cargo.toml's [[bin]]s and the checks' targets! differ"
    );
    for name in names {
        let stub = fuzz_dir().join("fuzz_targets").join(format!("{name}.rs"));
        let text = std::fs::read_to_string(&stub)
            .unwrap_or_else(|_| panic!("{name} has no fuzz/fuzz_targets/{name}.rs"));
        assert!(
            text.contains(&format!("ctxguard_fuzz_checks::{name}::check(data)")),
            "{} does not run the check of {name}",
            stub.display()
        );
    }
    for dir in ["corpus", "regressions"] {
        for entry in std::fs::read_dir(fuzz_dir().join(dir))
            .into_iter()
            .flatten()
        {
            let name = entry.expect("a readable entry").file_name();
            let name = name.to_string_lossy();
            assert!(
                Target::named(&name).is_some(),
                "fuzz/{dir}/{name} belongs to no target"
            );
        }
    }
}
