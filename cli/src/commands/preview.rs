//! `ctxguard preview`: the `<attachment>` block the backend composes from files
//! (core's exact builder: header, parse note, inline cap, images), then what
//! the preview pass keeps of each file under the model's budget.

use crate::input::{display, read_bytes, thousands};
use anyhow::{bail, Result};
use base64::Engine;
use ctxguard_core::attachment::{
    compose_block, default_limit, preview_messages, Attachment, ComposeOptions, Inlined,
};
use ctxguard_core::budget::context_limits;
use ctxguard_core::tokens::{TokenCounter, IMAGE_TOKENS};
use ctxguard_core::Message;
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
    /// Also print the block as the model sees it.
    pub show: bool,
    /// The attachments, in message order.
    pub files: &'a [PathBuf],
}

/// MIME type guessed from a file's extension.
fn guess_mime(path: &Path) -> Option<&'static str> {
    let ext = path.extension()?.to_str()?.to_ascii_lowercase();
    Some(match ext.as_str() {
        "txt" | "log" => "text/plain",
        "md" | "markdown" => "text/markdown",
        "csv" => "text/csv",
        "html" | "htm" => "text/html",
        "css" => "text/css",
        "json" => "application/json",
        "jsonl" | "ndjson" => "application/x-ndjson",
        "xml" => "application/xml",
        "yaml" | "yml" => "application/x-yaml",
        "toml" => "application/toml",
        "js" | "mjs" => "application/javascript",
        "ts" => "application/typescript",
        "py" => "text/x-python",
        "rs" => "text/x-rust",
        "sh" => "application/x-sh",
        "sql" => "application/sql",
        "pdf" => "application/pdf",
        "docx" => "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
        "xlsx" => "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
        "png" => "image/png",
        "jpg" | "jpeg" => "image/jpeg",
        "gif" => "image/gif",
        "webp" => "image/webp",
        _ => return None,
    })
}

/// The attachment the backend would hold for `path`: UTF-8 text is its
/// extracted text, an image carries its bytes, anything else has no text.
fn attachment(index: usize, path: &Path, bytes: Vec<u8>, sandbox_dir: Option<&Path>) -> Attachment {
    let mime = guess_mime(path);
    let is_image = mime.is_some_and(|m| m.starts_with("image/"));
    let filename = display(path);
    let sandbox_path = sandbox_dir.map(|dir| {
        let name = ctxguard_core::attachment::display_name(&filename);
        dir.join(name).display().to_string()
    });
    let file_size = Some(bytes.len() as i64);
    let (extracted_text, image_base64) = if is_image {
        (
            None,
            Some(base64::engine::general_purpose::STANDARD.encode(&bytes)),
        )
    } else {
        (String::from_utf8(bytes).ok(), None)
    };
    Attachment {
        attachment_id: index as i64 + 1,
        filename,
        mime_type: mime.map(str::to_string),
        file_size,
        extracted_text,
        is_truncated: false,
        is_image,
        image_base64,
        sandbox_path,
    }
}

/// Runs `ctxguard preview`.
pub fn run(args: PreviewArgs) -> Result<ExitCode> {
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
    let mut attachments = Vec::with_capacity(args.files.len());
    for (i, path) in args.files.iter().enumerate() {
        if noisy {
            eprintln!("[{}/{}] reading {}", i + 1, args.files.len(), display(path));
        }
        attachments.push(attachment(i, path, read_bytes(path)?, args.sandbox_dir));
    }
    if args.files.iter().filter(|f| *f == Path::new("-")).count() > 1 {
        bail!("stdin (-) can be given once");
    }
    let options = ComposeOptions {
        inject_max_chars: args.inject_max_chars,
        ..ComposeOptions::default()
    };
    let block = compose_block(&attachments, options);
    if noisy {
        eprintln!(
            "previewing {} files under a {}-token budget…",
            args.files.len(),
            thousands(limit)
        );
    }
    let counter = TokenCounter::for_model(args.model);
    let text = block.text.clone().unwrap_or_default();
    let out = preview_messages(&[Message::user(text.clone())], &counter, limit);
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
        "{:>4}  {:>21}  {:>10}  {:>10}  {:<4}  name",
        "id",
        "chars injected",
        "tokens",
        "allocated",
        "cut"
    )?;
    for (attachment, part) in attachments.iter().zip(&block.parts) {
        let id = attachment.attachment_id.to_string();
        let name = ctxguard_core::attachment::display_name(&attachment.filename);
        match part.inlined {
            Inlined::Image => say!(
                "{id:>4}  {:>21}  {:>10}  {:>10}  {:<4}  {name} (image block)",
                "-",
                thousands(IMAGE_TOKENS),
                "-",
                "no"
            )?,
            Inlined::Nothing | Inlined::Header => say!(
                "{id:>4}  {:>21}  {:>10}  {:>10}  {:<4}  {name} (no text: not inlined)",
                "-",
                "-",
                "-",
                "-"
            )?,
            Inlined::Text => {
                let segment = out.segments.iter().find(|s| s.attachment_id == id);
                let injected = format!(
                    "{}{}",
                    thousands(part.injected_chars as i64),
                    if part.capped {
                        format!(" of {}", thousands(part.source_chars as i64))
                    } else {
                        String::new()
                    }
                );
                let (tokens, allocated, cut) =
                    segment.map_or(("-".into(), "-".into(), "no"), |s| {
                        (
                            thousands(s.tokens),
                            thousands(s.allocation),
                            if s.truncated { "yes" } else { "no" },
                        )
                    });
                say!("{id:>4}  {injected:>21}  {tokens:>10}  {allocated:>10}  {cut:<4}  {name}")?;
            }
        }
    }
    if let Some(trace) = out.traces.first() {
        let attrs = &trace.attributes;
        if let (Some(before), Some(after)) = (attrs.get("before_tokens"), attrs.get("after_tokens"))
        {
            say!("cut segments: {before} → {after} tokens")?;
        }
    }
    if block.text.is_none() {
        say!("no file has text or image data: the message is sent without a block")?;
    }
    if args.show {
        if let Some(shown) = out.messages.first().and_then(Message::text) {
            say!("\n{shown}")?;
        }
    }
    Ok(ExitCode::SUCCESS)
}
