//! `ctxguard conformance FILE`: every case through core (`document_parse`
//! cases through ctxguard-extract), one line per failure, then the tally.

use crate::input::read_text;
use anyhow::Result;
use ctxguard_extract::conformance::run_jsonl;
use std::path::Path;
use std::process::ExitCode;

pub fn run(file: &Path) -> Result<ExitCode> {
    let text = read_text(file)?;
    let summary = run_jsonl(&text);
    for (id, error) in &summary.failures {
        say!("FAIL {id}: {error}")?;
    }
    say!(
        "{} passed, {} failed",
        summary.passed,
        summary.failures.len()
    )?;
    Ok(if summary.failures.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}
