//! The attachment preview of the benches' `preview` group (8 attachments of
//! 1.25 MB in one user message, built from the corpus's mixed and prose texts)
//! against counting the same bodies once, for instruction counts.
//!
//! Usage: `preview_file CORPUS_DIR preview|count|setup`. The operation runs
//! once to warm the encoder's piece cache (as a bench's warm-up does), then
//! once in `measured`, so
//! `valgrind --tool=callgrind --toggle-collect=preview_file::measured …`
//! counts one steady-state run. `setup` builds the input only.

use ctxguard_core::attachment::{default_limit, preview_messages};
use ctxguard_core::budget::context_limits;
use ctxguard_core::tokens::{TokenCounter, Tokens};
use ctxguard_core::Message;
use std::hint::black_box;

const MODEL: &str = "gpt-4o";

#[path = "../benches/shared/preview_input.rs"]
mod preview_input;
use preview_input::attachments;

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
