//! `ctxguard extract FILE`: the text Wegent's backend stores for an upload
//! (its parser and smart truncation, `ctxguard-extract`), or with `--json` the
//! whole record as a `document_parse` case's `expected`; a file the backend
//! refuses prints `rejected (CODE): MESSAGE` on stderr and exits 1.

use crate::input::{display, read_bytes};
use anyhow::Result;
use ctxguard_extract::preview::{check_size, DEFAULT_MAX_UPLOAD_BYTES};
use ctxguard_extract::{upload, Options};
use std::io::Write as _;
use std::path::Path;
use std::process::ExitCode;

/// What `ctxguard extract` was asked.
pub struct ExtractArgs<'a> {
    /// The upload (`-`: stdin, with `filename`).
    pub file: &'a Path,
    /// The name the file is uploaded under (default: the path's last part).
    pub filename: Option<&'a str>,
    /// `MAX_EXTRACTED_TEXT_LENGTH`.
    pub max_text_length: i64,
    /// Print the record as JSON instead of the text.
    pub json: bool,
}

/// The name an upload of `path` carries.
pub fn upload_name(path: &Path) -> String {
    path.file_name()
        .map_or_else(|| display(path), |n| n.to_string_lossy().into_owned())
}

/// Runs `ctxguard extract`.
pub fn run(args: ExtractArgs) -> Result<ExitCode> {
    let name = args
        .filename
        .map_or_else(|| upload_name(args.file), str::to_string);
    let bytes = read_bytes(args.file)?;
    if let Err(refusal) = check_size(bytes.len() as u64, DEFAULT_MAX_UPLOAD_BYTES) {
        eprintln!("rejected ({}): {}", refusal.code, refusal.message);
        return Ok(ExitCode::FAILURE);
    }
    let options = Options {
        max_text_length: args.max_text_length,
        ..Options::default()
    };
    let up = upload(&bytes, &name, &options);
    if args.json {
        say!("{}", up.to_json(true))?;
    }
    match &up.outcome {
        Ok(parsed) => {
            if !args.json {
                let mut out = std::io::stdout().lock();
                out.write_all(parsed.text.as_bytes())?;
                out.flush()?;
            }
            Ok(ExitCode::SUCCESS)
        }
        Err(refusal) => {
            eprintln!("rejected ({}): {}", refusal.code, refusal.message);
            Ok(ExitCode::FAILURE)
        }
    }
}
