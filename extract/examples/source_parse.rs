//! Parses one file read through a [`Source`] by positioned reads (never read
//! whole) and reports the time, the throughput, the text kept and the peak
//! resident memory: `cargo run --release -p ctxguard-extract --example
//! source_parse -- FILE`. `--whole` reads the file into memory first (the
//! slice path), for comparison.

use ctxguard_extract::{parse, Options, Source, SourceError};
use std::fs::File;
use std::os::unix::fs::FileExt;
use std::time::Instant;

/// A file read at offsets.
struct FileSource {
    file: File,
    len: u64,
}

impl Source for FileSource {
    fn len(&self) -> u64 {
        self.len
    }

    fn read_at(&self, offset: u64, buf: &mut [u8]) -> Result<usize, SourceError> {
        self.file
            .read_at(buf, offset)
            .map_err(|e| SourceError::Read {
                offset,
                reason: e.to_string(),
            })
    }
}

/// `VmHWM` of this process, in KiB.
fn peak_rss_kib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmHWM:"))
                .and_then(|l| l.split_whitespace().nth(1)?.parse().ok())
        })
        .unwrap_or(0)
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let whole = args.iter().any(|a| a == "--whole");
    let Some(path) = args.iter().find(|a| !a.starts_with("--")) else {
        eprintln!("usage: source_parse [--whole] FILE");
        std::process::exit(2);
    };
    let file = File::open(path).unwrap_or_else(|e| {
        eprintln!("{path}: {e}");
        std::process::exit(2);
    });
    let len = file.metadata().map(|m| m.len()).unwrap_or(0);
    let extension = ctxguard_extract::format::extension(path);
    let start = Instant::now();
    let outcome = if whole {
        let bytes = std::fs::read(path).unwrap_or_default();
        parse(&bytes, &extension, &Options::default())
    } else {
        parse(&FileSource { file, len }, &extension, &Options::default())
    };
    let seconds = start.elapsed().as_secs_f64();
    let mb = len as f64 / 1e6;
    match outcome {
        Ok(parsed) => println!(
            "ok: {} chars kept, truncated {}, digest {:016x}",
            parsed.text_length(),
            parsed.is_truncated(),
            fnv1a(parsed.text.as_bytes())
        ),
        Err(e) => println!("refused: {}", e.message),
    }
    println!(
        "{mb:.1} MB in {seconds:.2} s = {:.1} MB/s; peak RSS {:.1} MiB",
        mb / seconds,
        peak_rss_kib() as f64 / 1024.0
    );
}

/// FNV-1a of the text, to compare two runs' output.
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}
