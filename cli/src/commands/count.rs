//! `ctxguard count`: tokens per file and in total.

use crate::input::{display, read_text, thousands};
use anyhow::Result;
use ctxguard_core::tokens::TokenCounter;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

pub fn run(model: &str, files: &[PathBuf]) -> Result<ExitCode> {
    let counter = TokenCounter::for_model(model);
    let stdin = [PathBuf::from("-")];
    let files = if files.is_empty() { &stdin[..] } else { files };
    let mut total = 0i64;
    let mut rows = Vec::new();
    for path in files {
        let text = read_text(path)?;
        if text.len() > 4 << 20 {
            eprintln!(
                "counting {} ({} bytes)…",
                display(path),
                thousands(text.len() as i64)
            );
        }
        let tokens = counter.count_text(&text);
        total += tokens;
        rows.push((display(path), tokens));
    }
    let width = rows
        .iter()
        .map(|(_, t)| thousands(*t).len())
        .max()
        .unwrap_or(1)
        .max(thousands(total).len());
    for (name, tokens) in &rows {
        say!("{:>width$}  {name}", thousands(*tokens))?;
    }
    if rows.len() > 1 || files != [Path::new("-")] {
        say!(
            "{:>width$}  total ({}, {})",
            thousands(total),
            model,
            counter.encoding().name()
        )?;
    }
    Ok(ExitCode::SUCCESS)
}
