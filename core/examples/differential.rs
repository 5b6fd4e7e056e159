//! Exact at scale: counts each file with ctxguard and with tiktoken-rs, in all
//! four encodings, whole and per slice of about 1 MB (cut at line ends), and
//! prints one JSON line per file and encoding: bytes, slices, both totals and
//! every slice that differs. Exits 1 on any difference (a bug in ctxguard).
//! Usage: cargo run --release -p ctxguard-core --example differential -- FILE...

use ctxguard_core::encoding::Encoding;
use ctxguard_core::tokens::TokenCounter;

/// Slices of about `size` bytes of `text`, each ending at a line end (or the text's end).
fn slices(text: &str, size: usize) -> Vec<&str> {
    let mut out = Vec::new();
    let mut rest = text;
    while !rest.is_empty() {
        let mut end = size.min(rest.len());
        while !rest.is_char_boundary(end) {
            end += 1;
        }
        if end < rest.len() {
            if let Some(nl) = rest[end..].find('\n') {
                end += nl + 1;
            } else {
                end = rest.len();
            }
        }
        out.push(&rest[..end]);
        rest = &rest[end..];
    }
    out
}

fn main() {
    let files: Vec<String> = std::env::args().skip(1).collect();
    if files.is_empty() {
        eprintln!("usage: differential FILE...");
        std::process::exit(2);
    }
    let encodings = [
        ("o200k_base", "gpt-4o", tiktoken_rs::o200k_base_singleton()),
        ("cl100k_base", "gpt-4", tiktoken_rs::cl100k_base_singleton()),
        (
            "p50k_base",
            "text-davinci-003",
            tiktoken_rs::p50k_base_singleton(),
        ),
        ("r50k_base", "davinci", tiktoken_rs::r50k_base_singleton()),
    ];
    let mut differ = false;
    for path in &files {
        let text = std::fs::read_to_string(path).unwrap_or_else(|e| {
            eprintln!("differential: cannot read {path} as UTF-8: {e}");
            std::process::exit(2)
        });
        let parts = slices(&text, 1_000_000);
        for (name, model, reference) in &encodings {
            assert_eq!(Encoding::for_model(model).name(), *name, "model table");
            let ours = TokenCounter::for_model(model);
            let mut ours_total = 0usize;
            let mut theirs_total = 0usize;
            let mut bad = Vec::new();
            for (i, part) in parts.iter().enumerate() {
                let a = ours.count_text(part) as usize;
                let b = reference.encode_ordinary(part).len();
                ours_total += a;
                theirs_total += b;
                if a != b {
                    bad.push(format!(
                        "{{\"slice\":{i},\"ctxguard\":{a},\"tiktoken_rs\":{b}}}"
                    ));
                }
            }
            let whole_ours = ours.count_text(&text) as usize;
            let whole_theirs = reference.encode_ordinary(&text).len();
            let equal = bad.is_empty() && whole_ours == whole_theirs;
            differ |= !equal;
            println!(
                "{{\"file\":{path:?},\"encoding\":\"{name}\",\"bytes\":{},\"slices\":{},\"ctxguard\":{whole_ours},\"tiktoken_rs\":{whole_theirs},\"slice_sums\":[{ours_total},{theirs_total}],\"equal\":{equal},\"differing_slices\":[{}]}}",
                text.len(),
                parts.len(),
                bad.join(",")
            );
        }
    }
    std::process::exit(i32::from(differ));
}
