//! `ctxguard preview`: every file parsed as the backend parses it
//! (`ctxguard-extract`: its text after smart truncation, or its refusal), the
//! `<attachment>` block the backend composes from the stored records (core's
//! exact builder: header, parse note, inline cap, images), then what
//! chat_shell's preview keeps of each file under the model's budget: one path,
//! `ctxguard_core::attachment::preview_files`, shared with the preview element.

use super::extract::upload_name;
use crate::file_source::Upload;
use crate::input::{display, thousands};
use anyhow::{bail, Result};
use ctxguard_core::attachment::{
    default_limit, preview_files, Inlined, PreviewFile, PreviewOptions, RowState,
};
use ctxguard_core::budget::context_limits;
use ctxguard_core::tokens::IMAGE_TOKENS;
use ctxguard_extract::preview::{too_large, DEFAULT_MAX_UPLOAD_BYTES};
use ctxguard_extract::{upload_source, Options};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// What `ctxguard preview` was asked.
pub struct PreviewArgs<'a> {
    /// Model id: encoding and default budget.
    pub model: &'a str,
    /// Shared token budget of the block.
    pub limit: Option<i64>,
    /// The backend's inline cap per file, in code points.
    pub inject_max_chars: i64,
    /// Where the files sit in the agent's sandbox, when they were copied there.
    pub sandbox_dir: Option<&'a Path>,
    /// `MAX_EXTRACTED_TEXT_LENGTH` of the backend's parser.
    pub max_text_length: i64,
    /// Also print the block as the model sees it.
    pub show: bool,
    /// The attachments, in message order.
    pub files: &'a [PathBuf],
}

/// The stored record of one file, as the backend's upload makes it (the file
/// read at offsets as the parser asks, never whole).
fn stored(path: &Path, max_text_length: i64) -> Result<PreviewFile> {
    let name = upload_name(path);
    if let Ok(meta) = std::fs::metadata(path) {
        if let Some(refused) = too_large(&name, meta.len(), DEFAULT_MAX_UPLOAD_BYTES) {
            return Ok(refused);
        }
    }
    let file = Upload::open(path, DEFAULT_MAX_UPLOAD_BYTES)?;
    let source = file.source();
    if let Some(refused) = too_large(&name, source.len(), DEFAULT_MAX_UPLOAD_BYTES) {
        return Ok(refused);
    }
    let options = Options {
        max_text_length,
        ..Options::default()
    };
    Ok(upload_source(source, &name, &options).to_preview_file())
}

/// The parse column: what the backend stores of the file.
fn parse_outcome(row: &ctxguard_core::attachment::PreviewRow) -> String {
    match (&row.error, &row.upload_truncation, row.state) {
        (Some(e), _, _) => format!("rejected ({})", e.code),
        (None, Some(t), _) => format!(
            "kept {} of {}",
            thousands(t.truncated_length),
            thousands(t.original_length)
        ),
        (None, None, RowState::Scanned) => "scanned (OCR?)".into(),
        (None, None, _) if row.inlined == Inlined::Nothing => "no text".into(),
        _ => "parsed".into(),
    }
}

/// Runs `ctxguard preview`.
pub fn run(args: PreviewArgs) -> Result<ExitCode> {
    if args.files.iter().filter(|f| *f == Path::new("-")).count() > 1 {
        bail!("stdin (-) can be given once");
    }
    let limits = context_limits(args.model, None, None);
    let limit = args
        .limit
        .unwrap_or_else(|| default_limit(limits.context_window));
    let total_bytes: u64 = args
        .files
        .iter()
        .filter_map(|f| std::fs::metadata(f).ok())
        .map(|m| m.len())
        .sum();
    let noisy = total_bytes > 4 << 20;
    let mut files = Vec::with_capacity(args.files.len());
    for (i, path) in args.files.iter().enumerate() {
        if noisy {
            eprintln!("[{}/{}] parsing {}", i + 1, args.files.len(), display(path));
        }
        files.push(stored(path, args.max_text_length)?);
    }
    if noisy {
        eprintln!(
            "previewing {} files under a {}-token budget…",
            args.files.len(),
            thousands(limit)
        );
    }
    let report = preview_files(
        &files,
        &PreviewOptions {
            model: args.model.to_string(),
            limit_tokens: limit,
            inject_max_chars: args.inject_max_chars,
            sandbox_dir: args.sandbox_dir.map(|d| d.display().to_string()),
        },
    );
    say!(
        "model {}, block budget {} tokens, inline cap {} chars per file",
        args.model,
        thousands(limit),
        if args.inject_max_chars > 0 {
            thousands(args.inject_max_chars)
        } else {
            "none".into()
        }
    )?;
    say!(
        "{:>4}  {:<24}  {:>21}  {:>10}  {:>10}  {:<4}  name",
        "id",
        "parse",
        "chars injected",
        "tokens",
        "allocated",
        "cut"
    )?;
    for row in &report.attachments {
        let id = row.attachment_id;
        let name = &row.name;
        let parse = parse_outcome(row);
        match row.inlined {
            Inlined::Image => say!(
                "{id:>4}  {parse:<24}  {:>21}  {:>10}  {:>10}  {:<4}  {name} (image block)",
                "-",
                thousands(IMAGE_TOKENS),
                "-",
                "no"
            )?,
            Inlined::Nothing | Inlined::Header => say!(
                "{id:>4}  {parse:<24}  {:>21}  {:>10}  {:>10}  {:<4}  {name} (not inlined)",
                "-",
                "-",
                "-",
                "-"
            )?,
            Inlined::Text => {
                let injected = format!(
                    "{}{}",
                    thousands(row.injected_chars as i64),
                    if row.capped {
                        format!(" of {}", thousands(row.stored_chars as i64))
                    } else {
                        String::new()
                    }
                );
                say!(
                    "{id:>4}  {parse:<24}  {injected:>21}  {:>10}  {:>10}  {:<4}  {name}",
                    thousands(row.tokens),
                    thousands(row.allocation),
                    if row.truncated { "yes" } else { "no" }
                )?;
            }
        }
        if let Some(e) = &row.error {
            say!("      {}", e.message)?;
        }
        if let Some(t) = &row.upload_truncation {
            for line in t.summary_message.lines() {
                say!("      {line}")?;
            }
        }
    }
    if report.rendered.is_empty() {
        say!("no file has text or image data: the message is sent without a block")?;
    } else {
        say!(
            "block: {} → {} tokens",
            thousands(report.block_tokens_before),
            thousands(report.block_tokens_after)
        )?;
    }
    if args.show && !report.rendered.is_empty() {
        say!("\n{}", report.rendered)?;
    }
    Ok(ExitCode::SUCCESS)
}
