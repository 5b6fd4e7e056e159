//! One module per subcommand; each returns the process exit code.

mod conformance;
mod count;
mod extract;
mod limits;
mod preview;
mod serve;
mod token;

use crate::args::Command;
use anyhow::Result;
use std::process::ExitCode;

/// Runs a parsed command.
pub fn run(command: Command) -> Result<ExitCode> {
    match command {
        Command::Conformance { file } => conformance::run(&file),
        Command::Count { model, files } => count::run(&model, &files),
        Command::Extract {
            file,
            max_text_length,
            filename,
            json,
        } => extract::run(extract::ExtractArgs {
            file: &file,
            filename: filename.as_deref(),
            max_text_length,
            json,
        }),
        Command::Preview {
            model,
            limit,
            inject_max_chars,
            sandbox_dir,
            max_text_length,
            show,
            files,
        } => preview::run(preview::PreviewArgs {
            model: &model,
            limit,
            inject_max_chars,
            sandbox_dir: sandbox_dir.as_deref(),
            max_text_length,
            show,
            files: &files,
        }),
        Command::Limits {
            model,
            context_window,
            max_output,
            auto_compact_limit,
        } => limits::run(&model, context_window, max_output, auto_compact_limit),
        Command::Serve(args) => serve::run(*args),
        Command::Token(args) => token::run(&args),
    }
}
