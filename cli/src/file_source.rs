//! An upload read where it lies: a [`Source`] over an open file by positioned
//! reads (`pread` on Unix, seek-and-read elsewhere), so `ctxguard extract` and
//! `ctxguard preview` never hold a file whole; the parser asks for the bytes
//! it needs, at the offsets it needs them. Stdin cannot be read at offsets, so
//! `-` is read into memory, but never past the upload cap.

use anyhow::{Context, Result};
use ctxguard_extract::{Source, SourceError};
use std::fs::File;
use std::io::Read;
use std::path::Path;

/// An open file read at offsets; its length is the one it had when opened.
pub struct FileSource {
    file: File,
    len: u64,
    /// Seek-and-read needs `&mut`; positioned reads on Unix do not.
    #[cfg(not(unix))]
    cursor: std::sync::Mutex<()>,
}

impl FileSource {
    /// Opens `path` for positioned reads.
    pub fn open(path: &Path) -> Result<Self> {
        let file = File::open(path).with_context(|| format!("cannot read {}", path.display()))?;
        let len = file
            .metadata()
            .with_context(|| format!("cannot read {}", path.display()))?
            .len();
        Ok(FileSource {
            file,
            len,
            #[cfg(not(unix))]
            cursor: std::sync::Mutex::new(()),
        })
    }

    #[cfg(unix)]
    fn read_into(&self, offset: u64, buf: &mut [u8]) -> std::io::Result<usize> {
        use std::os::unix::fs::FileExt;
        loop {
            match self.file.read_at(buf, offset) {
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                other => return other,
            }
        }
    }

    #[cfg(not(unix))]
    fn read_into(&self, offset: u64, buf: &mut [u8]) -> std::io::Result<usize> {
        use std::io::{Seek, SeekFrom};
        let _held = self
            .cursor
            .lock()
            .map_err(|_| std::io::Error::other("an earlier read panicked"))?;
        let mut file = &self.file;
        file.seek(SeekFrom::Start(offset))?;
        loop {
            match file.read(buf) {
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                other => return other,
            }
        }
    }
}

impl Source for FileSource {
    fn len(&self) -> u64 {
        self.len
    }

    fn read_at(&self, offset: u64, buf: &mut [u8]) -> Result<usize, SourceError> {
        if offset >= self.len || buf.is_empty() {
            return Ok(0);
        }
        // Never past the length the parser was told: a file that grew reads as it was.
        let want = buf
            .len()
            .min(usize::try_from(self.len - offset).unwrap_or(usize::MAX));
        self.read_into(offset, &mut buf[..want])
            .map_err(|e| SourceError::Read {
                offset,
                reason: e.to_string(),
            })
    }
}

/// Where an upload's bytes come from: a file read at offsets, or stdin's bytes.
pub enum Upload {
    /// A file on disk, never read whole.
    File(FileSource),
    /// Stdin, read into memory up to the cap (one byte more says it was over).
    Stdin(Vec<u8>),
}

impl Upload {
    /// Opens `path`, or reads stdin for `-` up to `max_bytes + 1` bytes.
    pub fn open(path: &Path, max_bytes: u64) -> Result<Self> {
        if path == Path::new("-") {
            let mut buf = Vec::new();
            std::io::stdin()
                .lock()
                .take(max_bytes.saturating_add(1))
                .read_to_end(&mut buf)
                .context("cannot read stdin")?;
            return Ok(Upload::Stdin(buf));
        }
        FileSource::open(path).map(Upload::File)
    }

    /// The upload as the parser reads it.
    pub fn source(&self) -> &dyn Source {
        match self {
            Upload::File(file) => file,
            Upload::Stdin(bytes) => bytes,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ctxguard_extract::source::read_exact_at;
    use ctxguard_extract::SourceReader;

    fn scratch(name: &str, bytes: &[u8]) -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!("ctxguard-file-source-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("the temp dir is writable");
        let path = dir.join(name);
        std::fs::write(&path, bytes).expect("the temp dir is writable");
        path
    }

    #[test]
    fn a_file_reads_at_offsets_without_moving_a_cursor() {
        let bytes: Vec<u8> = (0..=255u8).cycle().take(700_000).collect();
        let path = scratch("offsets.bin", &bytes);
        let source = FileSource::open(&path).expect("just written");
        assert_eq!(source.len(), 700_000);
        let mut buf = [0u8; 7];
        read_exact_at(&source, 300_001, &mut buf).expect("in range");
        assert_eq!(&buf, &bytes[300_001..300_008]);
        read_exact_at(&source, 5, &mut buf).expect("in range");
        assert_eq!(&buf, &bytes[5..12]);
        assert_eq!(source.read_at(700_000, &mut buf), Ok(0));
        let mut all = Vec::new();
        SourceReader::new(&source, 100, 650_000)
            .read_to_end(&mut all)
            .expect("in range");
        assert_eq!(all, &bytes[100..650_100]);
    }

    #[test]
    fn a_file_that_shrank_is_an_error_naming_where_it_ended() {
        let path = scratch("shrinks.bin", &[7u8; 4096]);
        let source = FileSource::open(&path).expect("just written");
        std::fs::write(&path, [7u8; 1000]).expect("rewritten");
        let mut buf = vec![0u8; 4096];
        let err = read_exact_at(&source, 0, &mut buf).expect_err("the file is shorter now");
        assert_eq!(
            err,
            SourceError::Ended {
                at: 1000,
                len: 4096
            }
        );
    }

    #[test]
    fn a_file_that_grew_reads_as_it_was_when_opened() {
        let path = scratch("grows.bin", b"abc");
        let source = FileSource::open(&path).expect("just written");
        std::fs::write(&path, b"abcdef").expect("rewritten");
        let mut buf = [0u8; 6];
        assert_eq!(source.read_at(0, &mut buf), Ok(3));
        assert_eq!(source.read_at(3, &mut buf), Ok(0));
    }

    #[test]
    fn a_parse_through_a_file_equals_the_parse_of_its_bytes() {
        let csv = "name,age\nAlice,30\nBob,41\n".repeat(2000);
        let path = scratch("people.csv", csv.as_bytes());
        let source = FileSource::open(&path).expect("just written");
        let options = ctxguard_extract::Options::default();
        let from_file = ctxguard_extract::upload_source(&source, "people.csv", &options);
        let from_bytes = ctxguard_extract::upload(csv.as_bytes(), "people.csv", &options);
        assert_eq!(from_file.to_json(true), from_bytes.to_json(true));
    }
}
