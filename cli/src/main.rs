//! `ctxguard`: the command-line face of ctxguard-core. `main` parses, runs
//! the command, and maps the outcome to an exit code (0 ok, 1 failed checks,
//! 2 bad usage or unreadable input, 141 when stdout's reader went away).

/// `println!` that returns the write's `io::Result` instead of panicking,
/// so a closed pipe (`ctxguard conformance … | head`) ends the command quietly.
macro_rules! say {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        writeln!(std::io::stdout().lock(), $($arg)*)
    }};
}

mod args;
mod commands;
mod count_stream;
mod file_source;
mod input;
mod publishers;
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
        // The reader went away (`| head`): stop quietly, with the status a shell
        // gives a process that SIGPIPE ended (128 + 13), so `pipefail` still sees it.
        Err(e) if is_broken_pipe(&e) => ExitCode::from(141),
        Err(e) => {
            eprintln!("ctxguard: {e:#}");
            ExitCode::from(2)
        }
    }
}

/// Whether an error is stdout's reader having gone away.
fn is_broken_pipe(error: &anyhow::Error) -> bool {
    error.chain().any(|cause| {
        cause
            .downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    })
}
