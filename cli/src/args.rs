//! Command-line arguments.

use clap::{Parser, Subcommand};
use std::path::PathBuf;

/// Context-window governance for LLM chat agents.
#[derive(Debug, Parser)]
#[command(name = "ctxguard", version, about, propagate_version = true)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Run recorded reference cases (JSONL) through core; exit 0 only when all pass.
    Conformance {
        /// The cases file, e.g. tests/conformance/vectors.jsonl.
        file: PathBuf,
    },
    /// Count tokens per file and in total (stdin when no file, or `-`).
    Count {
        /// Model id that picks the encoding.
        #[arg(long, default_value = "gpt-4o")]
        model: String,
        /// Files to count; `-` is stdin.
        files: Vec<PathBuf>,
    },
    /// Build one <attachment> block from files and show what the preview keeps of each.
    Preview {
        /// Model id that picks the encoding and the default budget.
        #[arg(long)]
        model: String,
        /// Shared token budget of the block (default: min(context window / 2, 15000)).
        #[arg(long)]
        limit: Option<i64>,
        /// Also print the rendered block.
        #[arg(long)]
        show: bool,
        /// The attachments.
        #[arg(required = true)]
        files: Vec<PathBuf>,
    },
    /// Show a model's context budget.
    Limits {
        /// Model id.
        #[arg(long)]
        model: String,
        /// Override the context window.
        #[arg(long)]
        context_window: Option<i64>,
        /// Override the max output tokens.
        #[arg(long)]
        max_output: Option<i64>,
        /// Absolute compaction trigger (AUTO_COMPACT_TOKEN_LIMIT).
        #[arg(long)]
        auto_compact_limit: Option<i64>,
    },
}
