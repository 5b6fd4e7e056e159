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
        Err(e) if !e.use_stderr() => {
            // --help and --version
            let _ = e.print();
            return ExitCode::SUCCESS;
        }
        Err(e) => {
            // One line, as every other error: clap's first paragraph without its "error: " prefix.
            let rendered = e.render().to_string();
            let paragraph: Vec<&str> = rendered
                .lines()
                .take_while(|l| !l.trim().is_empty())
                .map(str::trim)
                .collect();
            let text = paragraph.join(" ");
            let text = text.strip_prefix("error: ").unwrap_or(&text);
            eprintln!("ctxguard: {text} (see 'ctxguard --help')");
            return ExitCode::from(2);
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
