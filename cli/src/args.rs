//! Command-line arguments.

use crate::server::logging::LogFormat;
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
    /// Run recorded reference cases (JSONL, any kinds, `document_parse` included); exit 0 only when all pass.
    Conformance {
        /// The cases file, e.g. tests/conformance/vectors.jsonl or documents.jsonl.
        file: PathBuf,
    },
    /// Print the text Wegent's backend stores for an upload (its parser and smart truncation).
    Extract {
        /// The file (`-`: stdin; then give --filename).
        file: PathBuf,
        /// MAX_EXTRACTED_TEXT_LENGTH: the stored text's cap in characters (code points).
        #[arg(long, default_value_t = ctxguard_extract::DEFAULT_MAX_TEXT_LENGTH, allow_negative_numbers = true)]
        max_text_length: i64,
        /// The name it is uploaded under (its extension picks the parser; default: the file's name).
        #[arg(long)]
        filename: Option<String>,
        /// Print the whole record as JSON (a `document_parse` case's `expected`).
        #[arg(long)]
        json: bool,
    },
    /// Count tokens per file and in total (stdin when no file, or `-`).
    Count {
        /// Model id that picks the encoding.
        #[arg(long, default_value = "gpt-4o")]
        model: String,
        /// Files to count; `-` is stdin.
        files: Vec<PathBuf>,
    },
    /// Compose the <attachment> block the backend sends for files and show what the preview keeps of each.
    Preview {
        /// Model id that picks the encoding and the default budget.
        #[arg(long)]
        model: String,
        /// Shared token budget of the block (default: min(context window / 2, 15000)).
        #[arg(long)]
        limit: Option<i64>,
        /// The backend's inline cap per file, in characters (code points); 0 or less: no cap.
        #[arg(long, default_value_t = ctxguard_core::attachment::DEFAULT_INJECT_MAX_CHARS, allow_negative_numbers = true)]
        inject_max_chars: i64,
        /// The sandbox folder the files were copied to (headers then name their paths there).
        #[arg(long, value_name = "DIR")]
        sandbox_dir: Option<PathBuf>,
        /// MAX_EXTRACTED_TEXT_LENGTH: each file's stored text is cut to it first, as the backend's parser does.
        #[arg(long, default_value_t = ctxguard_extract::DEFAULT_MAX_TEXT_LENGTH, allow_negative_numbers = true)]
        max_text_length: i64,
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
    /// Run the status relay: backends publish status events, browsers follow them (plus the
    /// toolbar, and optionally a built-in demo session and a replayed recording).
    Serve(Box<ServeArgs>),
    /// Print a read token for one session of a relay that has a read secret.
    Token(TokenArgs),
}

/// Options of `ctxguard token`.
#[derive(Debug, clap::Args)]
pub struct TokenArgs {
    /// The session the token reads.
    #[arg(long)]
    pub session: String,
    /// Seconds until the token expires.
    #[arg(long, default_value_t = 86_400, value_parser = clap::value_parser!(u64).range(1..))]
    pub ttl_secs: u64,
    /// The read secret, as the server takes it (default: $CTXGUARD_READ_SECRET).
    #[arg(long, value_name = "FILE")]
    pub read_secret_file: Option<PathBuf>,
}

/// Options of `ctxguard serve`; each flag can come from the `CTXGUARD_*`
/// variable `--help` names beside it (a flag given wins).
#[derive(Debug, clap::Args)]
pub struct ServeArgs {
    /// Run the built-in demo session `demo`.
    #[arg(long, env = "CTXGUARD_DEMO")]
    pub demo: bool,
    /// Replay recorded `data:` payloads (JSONL, optional `delay_ms`) as session `replay`.
    #[arg(long, env = "CTXGUARD_REPLAY", value_name = "FILE.jsonl")]
    pub replay: Option<PathBuf>,
    /// Address to listen on.
    #[arg(long, env = "CTXGUARD_HOST", default_value = "127.0.0.1")]
    pub host: String,
    /// Port to listen on; 0 picks a free one (a taken port is an error).
    #[arg(long, env = "CTXGUARD_PORT", default_value_t = 8080)]
    pub port: u16,
    /// Interval of `in_progress` heartbeats while a demo summary runs, in milliseconds.
    #[arg(long, env = "CTXGUARD_HEARTBEAT_MS", default_value_t = 15_000, value_parser = clap::value_parser!(u64).range(1..))]
    pub heartbeat_ms: u64,
    /// Time scale of the demo (2 = twice as fast; heartbeats keep --heartbeat-ms).
    #[arg(long, env = "CTXGUARD_SPEED", default_value_t = 1.0)]
    pub speed: f64,
    /// Time scale of the replay's delay_ms.
    #[arg(long, env = "CTXGUARD_REPLAY_SPEED", default_value_t = 1.0)]
    pub replay_speed: f64,
    /// Demo failure injection: every Nth compaction's summary is rejected as too long and
    /// then fails (fallback), the N/2-th is rejected once and retried (0: never).
    #[arg(long, env = "CTXGUARD_FAIL_EVERY", default_value_t = 4)]
    pub fail_every: u32,
    /// The failure_reason shown for demo fallbacks (default: the guard's, summary_compact_failed).
    #[arg(long, env = "CTXGUARD_FAILURE_REASON")]
    pub failure_reason: Option<String>,
    /// Summarise demo compactions with this OpenAI-compatible chat-completions URL
    /// (e.g. http://127.0.0.1:8000/v1/chat/completions) instead of the embedded extractive
    /// summariser; CTXGUARD_SUMMARIZER_API_KEY, when set, is sent as a bearer token.
    #[arg(
        long,
        env = "CTXGUARD_SUMMARIZER_URL",
        value_name = "URL",
        requires = "demo"
    )]
    pub summarizer_url: Option<String>,
    /// The `model` sent to --summarizer-url.
    #[arg(
        long,
        env = "CTXGUARD_SUMMARIZER_MODEL",
        default_value = "gpt-4o-mini",
        requires = "summarizer_url"
    )]
    pub summarizer_model: String,
    /// Timeout of one --summarizer-url call, in seconds.
    #[arg(long, env = "CTXGUARD_SUMMARIZER_TIMEOUT_SECS", default_value_t = 120, value_parser = clap::value_parser!(u64).range(1..), requires = "summarizer_url")]
    pub summarizer_timeout_secs: u64,
    /// The built toolbar (default: dist/ at the repository root).
    #[arg(long, env = "CTXGUARD_DIST")]
    pub dist: Option<PathBuf>,
    /// The publish token, for backends (default: $CTXGUARD_PUBLISH_TOKEN; neither: publishing off).
    #[arg(long, env = "CTXGUARD_PUBLISH_TOKEN_FILE", value_name = "FILE")]
    pub publish_token_file: Option<PathBuf>,
    /// The secret read tokens are signed with (default: $CTXGUARD_READ_SECRET; neither: reads open).
    #[arg(long, env = "CTXGUARD_READ_SECRET_FILE", value_name = "FILE")]
    pub read_secret_file: Option<PathBuf>,
    /// An origin allowed to read cross-origin (CORS), e.g. https://chat.example.com; repeatable
    /// (comma-separated in the variable).
    #[arg(
        long,
        env = "CTXGUARD_ALLOW_ORIGIN",
        value_delimiter = ',',
        value_name = "ORIGIN"
    )]
    pub allow_origin: Vec<String>,
    /// Where sessions live: memory, or redis://HOST:PORT[/DB] to share them between instances.
    #[arg(
        long,
        env = "CTXGUARD_STORE",
        default_value = "memory",
        value_name = "memory|redis://HOST:PORT[/DB]"
    )]
    pub store: String,
    /// Events kept per session for resumes.
    #[arg(long, env = "CTXGUARD_BUFFER", default_value_t = 512, value_parser = clap::value_parser!(u64).range(1..=100_000))]
    pub buffer: u64,
    /// Most sessions held; past it the least recently active one without open streams is evicted.
    #[arg(long, env = "CTXGUARD_MAX_SESSIONS", default_value_t = 10_000, value_parser = clap::value_parser!(u64).range(1..))]
    pub max_sessions: u64,
    /// Seconds without a publish or an open stream after which a session is forgotten.
    #[arg(long, env = "CTXGUARD_SESSION_IDLE_SECS", default_value_t = 3600, value_parser = clap::value_parser!(u64).range(1..))]
    pub session_idle_secs: u64,
    /// Largest publish body, in bytes.
    #[arg(long, env = "CTXGUARD_MAX_BODY_BYTES", default_value_t = 256 * 1024, value_parser = clap::value_parser!(u64).range(1..))]
    pub max_body_bytes: u64,
    /// Seconds a request head has to arrive whole (decimals allowed).
    #[arg(long, env = "CTXGUARD_HEADER_READ_TIMEOUT_SECS", default_value = "10", value_parser = seconds)]
    pub header_read_timeout_secs: std::time::Duration,
    /// Seconds a connection with no request in flight stays open (decimals allowed).
    #[arg(long, env = "CTXGUARD_IDLE_TIMEOUT_SECS", default_value = "60", value_parser = seconds)]
    pub idle_timeout_secs: std::time::Duration,
    /// Seconds between keep-alive comments on an idle stream (decimals allowed).
    #[arg(long, env = "CTXGUARD_KEEP_ALIVE_SECS", default_value = "15", value_parser = seconds)]
    pub keep_alive_secs: std::time::Duration,
    /// Most connections open at once; past it a connection gets a JSON 503
    /// (default: 10000, or less to fit the open-file limit).
    #[arg(long, env = "CTXGUARD_MAX_CONNECTIONS", value_parser = clap::value_parser!(u64).range(1..))]
    pub max_connections: Option<u64>,
    /// How log lines on stderr are written: text (readable) or json (one object a line).
    #[arg(long, env = "CTXGUARD_LOG_FORMAT", value_enum, default_value_t = LogFormat::Text)]
    pub log_format: LogFormat,
}

/// A positive number of seconds, decimals allowed.
fn seconds(text: &str) -> Result<std::time::Duration, String> {
    let secs: f64 = text
        .parse()
        .map_err(|_| format!("{text} is not a number of seconds"))?;
    if !(secs.is_finite() && secs > 0.0 && secs < 1e9) {
        return Err(format!("{text} must be a positive number of seconds"));
    }
    Ok(std::time::Duration::from_secs_f64(secs))
}
