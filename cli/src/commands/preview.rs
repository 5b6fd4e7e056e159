//! `ctxguard preview`: one attachment block from files, and what the preview keeps of each.

use crate::input::{display, read_bytes, thousands};
use anyhow::Result;
use ctxguard_core::attachment::{build_header, default_limit, preview_messages, HeaderArgs};
use ctxguard_core::budget::context_limits;
use ctxguard_core::tokens::TokenCounter;
use ctxguard_core::Message;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

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

pub fn run(model: &str, limit: Option<i64>, show: bool, files: &[PathBuf]) -> Result<ExitCode> {
    let limits = context_limits(model, None, None);
    let limit = limit.unwrap_or_else(|| default_limit(limits.context_window));
    let mut block = String::from("<attachment>");
    let mut binary = Vec::new();
    let total_bytes: usize = files
        .iter()
        .filter_map(|f| std::fs::metadata(f).ok())
        .map(|m| m.len() as usize)
        .sum();
    let noisy = total_bytes > 4 << 20;
    for (i, path) in files.iter().enumerate() {
        if noisy {
            eprintln!("[{}/{}] reading {}", i + 1, files.len(), display(path));
        }
        let bytes = read_bytes(path)?;
        let mime = guess_mime(path);
        let is_image = mime.is_some_and(|m| m.starts_with("image/"));
        let text = if is_image {
            None
        } else {
            String::from_utf8(bytes.clone()).ok()
        };
        let header = build_header(&HeaderArgs {
            attachment_id: i as i64 + 1,
            filename: display(path),
            mime_type: mime.map(str::to_string),
            file_size: bytes.len() as i64,
            sandbox_path: None,
            is_image,
        });
        block.push_str(&header);
        block.push('\n');
        match text {
            Some(t) => block.push_str(&t),
            None => binary.push(i),
        }
    }
    block.push_str("</attachment>");
    if noisy {
        eprintln!(
            "previewing {} files under a {}-token budget…",
            files.len(),
            thousands(limit)
        );
    }
    let counter = TokenCounter::for_model(model);
    let out = preview_messages(&[Message::new("user", block)], &counter, limit);
    println!("model {model}, block budget {} tokens", thousands(limit));
    println!(
        "{:>4}  {:>10}  {:>10}  {:>10}  {:<4}  name",
        "id", "chars", "tokens", "allocated", "cut"
    );
    for seg in &out.segments {
        let idx: usize = seg.attachment_id.parse().unwrap_or(0);
        let is_binary = idx > 0 && binary.contains(&(idx - 1));
        println!(
            "{:>4}  {:>10}  {:>10}  {:>10}  {:<4}  {}{}",
            seg.attachment_id,
            thousands(seg.chars as i64),
            thousands(seg.tokens as i64),
            thousands(seg.allocation),
            if seg.truncated { "yes" } else { "no" },
            seg.name,
            if is_binary { " (binary, no body)" } else { "" }
        );
    }
    if let Some(trace) = out.traces.first() {
        let attrs = &trace.attributes;
        if let (Some(before), Some(after)) = (attrs.get("before_tokens"), attrs.get("after_tokens"))
        {
            println!("cut segments: {before} → {after} tokens");
        }
    }
    if show {
        if let Some(text) = out.messages[0].text() {
            println!("\n{text}");
        }
    }
    Ok(ExitCode::SUCCESS)
}
