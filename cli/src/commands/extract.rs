//! `ctxguard extract FILE`: the text Wegent's backend stores for an upload
//! (its parser and smart truncation, `ctxguard-extract`), or with `--json` the
//! whole record as a `document_parse` case's `expected`; a file the backend
//! refuses prints `rejected (CODE): MESSAGE` on stderr and exits 1. The file
//! is read at offsets as the parser asks ([`crate::file_source`]), never whole.

use crate::file_source::Upload;
use crate::input::display;
use anyhow::Result;
use ctxguard_extract::preview::{check_size, DEFAULT_MAX_UPLOAD_BYTES};
use ctxguard_extract::{upload_source, Options};
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
    let file = Upload::open(args.file, DEFAULT_MAX_UPLOAD_BYTES)?;
    let source = file.source();
    if let Err(refusal) = check_size(source.len(), DEFAULT_MAX_UPLOAD_BYTES) {
        eprintln!("rejected ({}): {}", refusal.code, refusal.message);
        return Ok(ExitCode::FAILURE);
    }
    let options = Options {
        max_text_length: args.max_text_length,
        ..Options::default()
    };
    let up = upload_source(source, &name, &options);
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
