//! `ctxguard`: the command-line face of ctxguard-core. `main` parses, runs
//! the command, and maps the outcome to an exit code (0 ok, 1 failed checks,
//! 2 bad usage or unreadable input).

mod args;
mod commands;
mod input;
mod server;

use clap::Parser;
use std::process::ExitCode;

fn main() -> ExitCode {
    let cli = match args::Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let code = if e.use_stderr() { 2 } else { 0 };
            let _ = e.print();
            return ExitCode::from(code);
        }
    };
    match commands::run(cli.command) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("ctxguard: {e:#}");
            ExitCode::from(2)
        }
    }
}
