//! Differential runner for the text side (decode, chardet, sniff) against
//! lines the reference wrote (`tools/differential/text/*.py`):
//! `cargo run -q -p ctxguard-extract --example text_diff -- CASES.jsonl`.
//!
//! Each line is `{"mode", "hex", ...}`:
//! - `codec`: `codec` (a Python codec name) and `text` (the strict decode, or null when it fails);
//! - `detect`: `encoding` (or null) and `confidence` (Python's repr, a string), `chardet.detect`'s answer
//!   (checked of `chardet::detect` and of a `chardet::Detector` fed the input in pieces);
//! - `decode`: `text`, `_decode_binary_data`'s answer;
//! - `mime`: `mime`, `magic.Magic(mime=True).from_buffer`'s answer.
//!
//! Prints a tally per mode and the first failures; exits 1 on any failure. For `mime`, two
//! text-readable types count as agreeing (the parser's decision and message are the same)
//! and are tallied apart.

use ctxguard_extract::{chardet, decode, sniff};
use serde_json::Value;
use std::collections::BTreeMap;
use std::io::BufRead;

fn unhex(hex: &str) -> Option<Vec<u8>> {
    (0..hex.len() / 2)
        .map(|i| {
            hex.get(2 * i..2 * i + 2)
                .and_then(|h| u8::from_str_radix(h, 16).ok())
        })
        .collect()
}

fn check(case: &Value, bytes: &[u8]) -> Result<(), String> {
    let mode = case["mode"].as_str().unwrap_or("");
    match mode {
        "codec" => {
            let name = case["codec"].as_str().unwrap_or("");
            let got = decode::Codec::lookup(name)
                .ok_or_else(|| format!("no codec {name}"))?
                .decode(bytes)
                .ok();
            let want = case["text"].as_str();
            if got.as_deref() != want {
                return Err(format!("{name}: want {want:?} got {got:?}"));
            }
        }
        "detect" => {
            let got = chardet::detect(bytes);
            let want_enc = case["encoding"].as_str();
            // written as Python's repr: parsed exactly (serde_json's float parsing may be 1 ulp off)
            let want_conf: f64 = case["confidence"]
                .as_str()
                .and_then(|s| s.parse().ok())
                .unwrap_or(-1.0);
            if got.escape {
                return Ok(());
            }
            if got.encoding != want_enc || got.confidence != want_conf {
                return Err(format!(
                    "want {want_enc:?} {want_conf:?} got {:?} {:?}",
                    got.encoding, got.confidence
                ));
            }
            // fed in pieces, the detector answers the same
            for size in [1, 7, 4096] {
                let mut detector = chardet::Detector::new();
                for piece in bytes.chunks(size) {
                    detector.feed(piece);
                }
                let pieces = detector.finish();
                if pieces != got {
                    return Err(format!("in pieces of {size}: {pieces:?}, at once {got:?}"));
                }
            }
            let by_passes =
                chardet::detect_by_passes(&mut |each: &mut dyn FnMut(&[u8]) -> bool| {
                    for piece in bytes.chunks(4096) {
                        if !each(piece) {
                            break;
                        }
                    }
                    Ok::<(), ()>(())
                });
            if by_passes != Ok(got) {
                return Err(format!("by passes: {by_passes:?}, at once {got:?}"));
            }
        }
        "decode" => {
            let got = decode::decode(bytes);
            let want = case["text"].as_str().unwrap_or("");
            if got != want {
                let at = got
                    .chars()
                    .zip(want.chars())
                    .take_while(|(a, b)| a == b)
                    .count();
                return Err(format!(
                    "texts differ from char {at} (got via {:?})",
                    decode::decode_with(bytes).encoding
                ));
            }
        }
        "mime" => {
            let got = sniff::mime_type(bytes);
            let want = case["mime"].as_str().unwrap_or("");
            if got != want {
                let readable = ctxguard_core::attachment::is_text_readable_mime;
                if readable(&got) && readable(want) {
                    return Err(format!("NAME-ONLY want {want} got {got}"));
                }
                return Err(format!("want {want} got {got}"));
            }
        }
        other => return Err(format!("unknown mode {other}")),
    }
    Ok(())
}

fn main() {
    let path = std::env::args().nth(1).expect("a JSONL path");
    let file = std::fs::File::open(&path).expect("readable cases");
    let mut tally: BTreeMap<String, (u64, u64)> = BTreeMap::new();
    let mut shown = 0;
    let mut names_only: BTreeMap<String, u64> = BTreeMap::new();
    for (n, line) in std::io::BufReader::new(file).lines().enumerate() {
        let line = line.expect("a line");
        let case: Value = serde_json::from_str(&line).expect("JSON");
        let bytes = unhex(case["hex"].as_str().unwrap_or("")).expect("hex");
        let key = format!(
            "{} {}",
            case["mode"].as_str().unwrap_or(""),
            case["group"]
                .as_str()
                .or(case["codec"].as_str())
                .unwrap_or("")
        );
        let entry = tally.entry(key.clone()).or_default();
        match check(&case, &bytes) {
            Ok(()) => entry.0 += 1,
            // both text-readable: the decision and the message agree, only the name differs
            Err(e) if e.starts_with("NAME-ONLY") => {
                entry.0 += 1;
                *names_only.entry(key).or_default() += 1;
            }
            Err(e) => {
                entry.1 += 1;
                if shown < 30 {
                    shown += 1;
                    let hex = case["hex"].as_str().unwrap_or("");
                    println!(
                        "FAIL line {}: {e} [{}{}]",
                        n + 1,
                        &hex[..hex.len().min(120)],
                        if hex.len() > 120 { "…" } else { "" }
                    );
                }
            }
        }
    }
    let mut failed = 0;
    for (key, (pass, fail)) in &tally {
        let names = names_only.get(key).map_or(String::new(), |n| {
            format!(" ({n} of them text-readable under another name)")
        });
        println!("{key:>28}: {pass} agree, {fail} differ{names}");
        failed += fail;
    }
    std::process::exit(i32::from(failed > 0));
}
