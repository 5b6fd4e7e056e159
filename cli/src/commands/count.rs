//! `ctxguard count`: tokens per file and in total. Each file is read as a
//! stream and counted on every core (`count_stream`), so memory is a few
//! buffers whatever the file's size.

use crate::count_stream::{count_stream, StreamError, BUFFER_BYTES};
use crate::input::{display, thousands};
use anyhow::{Context, Result};
use ctxguard_core::tokens::{TokenCounter, Tokens};
use std::fs::File;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

pub fn run(model: &str, files: &[PathBuf]) -> Result<ExitCode> {
    let counter = TokenCounter::for_model(model);
    let stdin = [PathBuf::from("-")];
    let files = if files.is_empty() { &stdin[..] } else { files };
    let workers = std::thread::available_parallelism().map_or(1, |n| n.get());
    let mut total = 0i64;
    let mut rows = Vec::new();
    for path in files {
        let tokens = count_file(path, counter, workers)?;
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

/// The tokens of one file (or stdin for `-`), naming the file and the byte offset of invalid UTF-8.
fn count_file(path: &Path, counter: TokenCounter, workers: usize) -> Result<Tokens> {
    let read_error = || format!("cannot read {}", path.display());
    let reader: Box<dyn Read> = if path == Path::new("-") {
        Box::new(std::io::stdin().lock())
    } else {
        let file = File::open(path).with_context(read_error)?;
        let bytes = file.metadata().map_or(0, |m| m.len());
        if bytes > BUFFER_BYTES as u64 {
            eprintln!(
                "counting {} ({} bytes)…",
                display(path),
                thousands(bytes as i64)
            );
        }
        Box::new(file)
    };
    match count_stream(reader, counter.encoding(), workers) {
        Ok(tokens) => Ok(tokens),
        Err(StreamError::InvalidUtf8 { offset }) => {
            anyhow::bail!("{}: not valid UTF-8 at byte offset {offset}", display(path))
        }
        Err(StreamError::Io(e)) if path == Path::new("-") => Err(e).context("cannot read stdin"),
        Err(StreamError::Io(e)) => Err(e).with_context(read_error),
        Err(e) => Err(e).with_context(|| format!("cannot count {}", display(path))),
    }
}
