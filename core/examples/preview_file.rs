//! The attachment preview of the benches' `preview` group (8 attachments of
//! 1.25 MB in one user message, built from the corpus's mixed and prose texts)
//! against counting the same bodies once, for instruction counts.
//!
//! Usage: `preview_file CORPUS_DIR preview|count|setup`. The operation runs
//! once to warm the encoder's piece cache (as a bench's warm-up does), then
//! once in `measured`, so
//! `valgrind --tool=callgrind --toggle-collect=preview_file::measured …`
//! counts one steady-state run. `setup` builds the input only.

use ctxguard_core::attachment::{build_header, default_limit, preview_messages, HeaderArgs};
use ctxguard_core::budget::context_limits;
use ctxguard_core::tokens::{TokenCounter, Tokens};
use ctxguard_core::Message;
use std::hint::black_box;

const MODEL: &str = "gpt-4o";

/// The longest prefix of `s` of at most `n` bytes that ends on a char boundary.
fn prefix(s: &str, n: usize) -> &str {
    let mut end = n.min(s.len());
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    &s[..end]
}

/// The benches' input: the message list and the 8 bodies.
fn attachments(mixed: &str, prose: &str) -> (Vec<Message>, Vec<String>) {
    let per = 10_000_000 / 8;
    let source = format!("{mixed}{prose}");
    let mut bodies = Vec::new();
    let mut text = String::from("Please review these files.\n<attachment>");
    for i in 0..8usize {
        let mut start = i * source.len() / 8;
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

enum Op<'a> {
    Preview(&'a [Message], Tokens),
    Count(&'a [String]),
}

fn run(op: &Op, counter: &TokenCounter) -> Tokens {
    match op {
        Op::Preview(messages, limit) => {
            let outcome = preview_messages(black_box(messages), counter, *limit);
            outcome.segments.iter().map(|s| s.tokens).sum()
        }
        Op::Count(bodies) => bodies
            .iter()
            .map(|t| counter.count_text(black_box(t)))
            .sum(),
    }
}

#[inline(never)]
fn measured(op: &Op, counter: &TokenCounter) -> Tokens {
    run(op, counter)
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (Some(dir), Some(mode)) = (args.first(), args.get(1)) else {
        eprintln!("usage: preview_file CORPUS_DIR preview|count|setup");
        std::process::exit(2)
    };
    let read = |name: &str| {
        let path = std::path::Path::new(dir).join(format!("{name}.txt"));
        std::fs::read_to_string(&path).unwrap_or_else(|e| {
            eprintln!("preview_file: cannot read {}: {e}", path.display());
            std::process::exit(2)
        })
    };
    let (messages, bodies) = attachments(&read("mixed"), &read("prose"));
    let counter = TokenCounter::for_model(MODEL);
    let limit = default_limit(context_limits(MODEL, None, None).context_window);
    let op = match mode.as_str() {
        "preview" => Op::Preview(&messages, limit),
        "count" => Op::Count(&bodies),
        "setup" => return,
        _ => {
            eprintln!("preview_file: mode is preview, count or setup");
            std::process::exit(2)
        }
    };
    let warm = run(&op, &counter);
    let tokens = measured(&op, &counter);
    assert_eq!(warm, tokens);
    println!("{tokens} tokens");
}
