//! Zip containers (OOXML, XMind, `.zip` listings) read the way Python's
//! `zipfile` reads them, with every member's inflation bounded by one
//! budget shared across the document. The archive is read from a
//! [`Source`] by positioned reads; a big part is read as a [`PartStream`]
//! (inflated as it is consumed), a small one whole by [`Package::read`].

use crate::limits::Limits;
use crate::source::Source;
use std::cell::Cell;
use std::io::{self, Read, Seek, SeekFrom};
use thiserror::Error;

/// Why a zip container could not be read; the messages follow Python's
/// `zipfile` where the reference quotes it.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum PackageError {
    /// No end-of-central-directory record, or one that cannot be read.
    #[error("File is not a zip file")]
    NotAZip,
    /// The archive has no member of that name.
    #[error("There is no item named '{0}' in the archive")]
    NoItem(String),
    /// Inflating the members read so far would pass the document's budget.
    #[error(
        "too large to preview: its zip members inflate past {limit} bytes (member '{member}')"
    )]
    TooLarge {
        /// The budget in bytes.
        limit: u64,
        /// The member whose inflation passed it.
        member: String,
    },
    /// A member's data is damaged (bad compression, CRC mismatch, unsupported method).
    #[error("member '{member}' is damaged: {detail}")]
    Damaged {
        /// The member's name.
        member: String,
        /// What the zip reader reported.
        detail: String,
    },
}

/// A source read as a seekable stream through a small buffer (what the zip
/// crate reads an archive through).
pub struct SourceCursor<'a> {
    source: &'a dyn Source,
    pos: u64,
    buf: Vec<u8>,
    /// The source offset of `buf[0]`; `buf` holds `buf_len` valid bytes.
    buf_at: u64,
    buf_len: usize,
}

/// The cursor's buffer: small, since the zip crate reads headers in small pieces
/// and member data through its own buffers.
const CURSOR_BUFFER_BYTES: usize = 64 * 1024;

impl<'a> SourceCursor<'a> {
    /// A cursor at the start of `source`.
    pub fn new(source: &'a dyn Source) -> Self {
        SourceCursor {
            source,
            pos: 0,
            buf: Vec::new(),
            buf_at: 0,
            buf_len: 0,
        }
    }
}

impl Read for SourceCursor<'_> {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        if out.is_empty() || self.pos >= self.source.len() {
            return Ok(0);
        }
        let in_buf = self.pos >= self.buf_at && self.pos < self.buf_at + self.buf_len as u64;
        if !in_buf {
            if out.len() >= CURSOR_BUFFER_BYTES {
                let n = self
                    .source
                    .read_at(self.pos, out)
                    .map_err(io::Error::other)?;
                self.pos += n as u64;
                return Ok(n);
            }
            if self.buf.is_empty() {
                self.buf = vec![0; CURSOR_BUFFER_BYTES];
            }
            let n = self
                .source
                .read_at(self.pos, &mut self.buf)
                .map_err(io::Error::other)?;
            self.buf_at = self.pos;
            self.buf_len = n.min(self.buf.len());
            if self.buf_len == 0 {
                return Ok(0);
            }
        }
        let start = (self.pos - self.buf_at) as usize;
        let n = (self.buf_len - start).min(out.len());
        out[..n].copy_from_slice(&self.buf[start..start + n]);
        self.pos += n as u64;
        Ok(n)
    }
}

impl Seek for SourceCursor<'_> {
    fn seek(&mut self, to: SeekFrom) -> io::Result<u64> {
        let target = match to {
            SeekFrom::Start(p) => Some(p),
            SeekFrom::End(d) => self.source.len().checked_add_signed(d),
            SeekFrom::Current(d) => self.pos.checked_add_signed(d),
        };
        self.pos = target.ok_or_else(|| {
            io::Error::new(io::ErrorKind::InvalidInput, "a seek before the start")
        })?;
        Ok(self.pos)
    }
}

/// An opened zip archive over a source.
pub struct Package<'a> {
    archive: zip::ZipArchive<SourceCursor<'a>>,
    budget: Cell<u64>,
    limit: u64,
}

impl<'a> Package<'a> {
    /// Opens `source` as a zip archive (its central directory is read, nothing inflated).
    pub fn open(source: &'a dyn Source, limits: &Limits) -> Result<Self, PackageError> {
        let archive =
            zip::ZipArchive::new(SourceCursor::new(source)).map_err(|_| PackageError::NotAZip)?;
        Ok(Package {
            archive,
            budget: Cell::new(limits.max_inflated_bytes),
            limit: limits.max_inflated_bytes,
        })
    }

    /// Bytes the document may still inflate.
    pub(crate) fn budget_left(&self) -> u64 {
        self.budget.get()
    }

    /// Gives back the budget a part read twice was charged the first time.
    pub(crate) fn restore_budget(&self, left: u64) {
        self.budget.set(left);
    }

    /// Member names in central-directory order (`ZipFile.namelist()`).
    pub fn names(&self) -> Vec<String> {
        self.archive.file_names().map(str::to_string).collect()
    }

    /// Whether a member of this exact name exists.
    pub fn contains(&self, name: &str) -> bool {
        self.archive.index_for_name(name).is_some()
    }

    /// The inflated bytes of a member, charged to the document's budget.
    pub fn read(&mut self, name: &str) -> Result<Vec<u8>, PackageError> {
        let left = self.budget.get();
        if let Some(index) = self.archive.index_for_name(name) {
            let lzma = self
                .archive
                .by_index_raw(index)
                .is_ok_and(|m| m.compression() == zip::CompressionMethod::Lzma);
            if lzma {
                return self.read_lzma(index, name, left);
            }
        }
        let mut member = self.archive.by_name(name).map_err(|e| match e {
            zip::result::ZipError::FileNotFound => PackageError::NoItem(name.to_string()),
            other => PackageError::Damaged {
                member: name.to_string(),
                detail: other.to_string(),
            },
        })?;
        let declared = member.size();
        let crc = member.crc32();
        let mut out = Vec::with_capacity(capacity_for(&member, left) as usize);
        // Python's zipfile returns at most the declared size and checks the
        // CRC-32 of what it returned (a stream longer than declared fails).
        let read = (&mut member)
            .take(declared.min(left.saturating_add(1)))
            .read_to_end(&mut out)
            .map_err(|e| PackageError::Damaged {
                member: name.to_string(),
                detail: e.to_string(),
            })?;
        if read as u64 > left {
            return Err(PackageError::TooLarge {
                limit: self.limit,
                member: name.to_string(),
            });
        }
        if crc32fast::hash(&out) != crc {
            return Err(PackageError::Damaged {
                member: name.to_string(),
                detail: "bad CRC-32".into(),
            });
        }
        self.budget.set(left - read as u64);
        Ok(out)
    }

    /// A member as a stream: inflated as it is read, charged to the document's
    /// budget as it goes, its CRC-32 checked at its end (an LZMA member, which
    /// only Python-written archives carry, is read whole within the budget).
    pub fn stream(&mut self, name: &str) -> Result<PartStream<'_, 'a>, PackageError> {
        let left = self.budget.get();
        let index = self
            .archive
            .index_for_name(name)
            .ok_or_else(|| PackageError::NoItem(name.to_string()))?;
        let lzma = self
            .archive
            .by_index_raw(index)
            .is_ok_and(|m| m.compression() == zip::CompressionMethod::Lzma);
        let inner = if lzma {
            let whole = self.read_lzma(index, name, left)?;
            Inner::Whole(io::Cursor::new(whole))
        } else {
            let member = self
                .archive
                .by_index(index)
                .map_err(|e| PackageError::Damaged {
                    member: name.to_string(),
                    detail: e.to_string(),
                })?;
            Inner::Zip(Box::new(member))
        };
        let (declared, crc) = match &inner {
            Inner::Zip(m) => (m.size(), m.crc32()),
            Inner::Whole(_) => (0, 0),
        };
        let budget = &self.budget;
        Ok(PartStream {
            inner,
            name: name.to_string(),
            declared,
            crc,
            read: 0,
            left,
            budget,
            limit: self.limit,
            hasher: crc32fast::Hasher::new(),
            failure: None,
            done: false,
        })
    }

    /// An LZMA member as Python's `zipfile` reads it: a 4-byte version and
    /// properties-size header, the properties, then the raw stream (the zip
    /// crate expects the `.lzma` header instead); CRC-32 checked.
    fn read_lzma(&mut self, index: usize, name: &str, left: u64) -> Result<Vec<u8>, PackageError> {
        let damaged = |detail: String| PackageError::Damaged {
            member: name.to_string(),
            detail,
        };
        let mut member = self
            .archive
            .by_index_raw(index)
            .map_err(|e| damaged(e.to_string()))?;
        let (size, crc) = (member.size(), member.crc32());
        if size > left {
            return Err(PackageError::TooLarge {
                limit: self.limit,
                member: name.to_string(),
            });
        }
        let mut raw = Vec::new();
        (&mut member)
            .take(left.saturating_add(1024))
            .read_to_end(&mut raw)
            .map_err(|e| damaged(e.to_string()))?;
        let body = raw
            .get(4..)
            .ok_or_else(|| damaged("a truncated LZMA header".into()))?;
        let options = lzma_rs::decompress::Options {
            unpacked_size: lzma_rs::decompress::UnpackedSize::UseProvided(Some(size)),
            memlimit: Some(usize::try_from(left.min(1 << 30)).unwrap_or(usize::MAX)),
            allow_incomplete: false,
        };
        let mut out = Vec::with_capacity(size.min(1 << 24) as usize);
        lzma_rs::lzma_decompress_with_options(&mut &body[..], &mut out, &options)
            .map_err(|e| damaged(format!("{e:?}")))?;
        if out.len() as u64 != size || crc32fast::hash(&out) != crc {
            return Err(damaged("bad CRC-32 or size".into()));
        }
        self.budget.set(left - size);
        Ok(out)
    }
}

/// Where a [`PartStream`]'s bytes come from.
enum Inner<'p, 'a> {
    /// A stored or deflated member, inflated by the zip reader as it is read.
    Zip(Box<zip::read::ZipFile<'p, SourceCursor<'a>>>),
    /// A member already read whole (and charged) by [`Package::read`]'s rules.
    Whole(io::Cursor<Vec<u8>>),
}

/// The buffer to inflate a member into: its declared size when deflate could
/// produce it from the member's compressed bytes (at most 1032 to 1), so that
/// a big part is not copied as its buffer grows; otherwise at most 16 MiB,
/// grown as it is read. Never more than the budget left. A lying size only
/// reserves pages that are never written (natively and in wasm32, whose
/// grown memory the browser backs only where it is touched), while growing
/// by doubling held the old and the new buffer at once: in wasm32, where
/// grown memory is never given back, a 700 MB part cost 2 GB of memory.
fn capacity_for(member: &zip::read::ZipFile<'_, SourceCursor<'_>>, left: u64) -> u64 {
    let declared = member.size().min(left);
    let reachable = member
        .compressed_size()
        .saturating_mul(1032)
        .saturating_add(64);
    let deflated = member.compression() == zip::CompressionMethod::Deflated;
    if deflated && declared <= reachable {
        declared
    } else {
        declared.min(1 << 24)
    }
}

/// One member being read as a stream ([`Package::stream`]): `ZipFile.read`'s
/// rules (at most the declared size, the CRC-32 of what was returned) a
/// buffer at a time. A failure is kept as a [`PackageError`] for
/// [`PartStream::take_failure`], so a parser over the stream can report the
/// archive's reason rather than its own.
pub struct PartStream<'p, 'a> {
    inner: Inner<'p, 'a>,
    name: String,
    declared: u64,
    crc: u32,
    read: u64,
    left: u64,
    budget: &'p Cell<u64>,
    limit: u64,
    hasher: crc32fast::Hasher,
    failure: Option<PackageError>,
    done: bool,
}

impl PartStream<'_, '_> {
    /// Why the stream failed, if it did.
    pub fn take_failure(&mut self) -> Option<PackageError> {
        self.failure.take()
    }

    /// Reads the rest of the member, to learn whether it fails (the archive's
    /// reason comes before a parser's, as when the member is read whole first).
    pub fn drain(&mut self) -> Option<PackageError> {
        let _ = io::copy(self, &mut io::sink());
        self.take_failure()
    }

    fn fail(&mut self, e: PackageError) -> io::Error {
        let message = e.to_string();
        self.failure = Some(e);
        self.done = true;
        io::Error::other(message)
    }

    fn step(&mut self, out: &mut [u8]) -> io::Result<usize> {
        let member = match &mut self.inner {
            Inner::Whole(cursor) => return cursor.read(out),
            Inner::Zip(member) => member,
        };
        let room = (self.declared - self.read).min(out.len() as u64) as usize;
        let n = if room == 0 {
            0
        } else {
            match member.read(&mut out[..room]) {
                Ok(n) => n,
                Err(e) => {
                    let damaged = PackageError::Damaged {
                        member: self.name.clone(),
                        detail: e.to_string(),
                    };
                    return Err(self.fail(damaged));
                }
            }
        };
        self.read += n as u64;
        if self.read > self.left {
            let too_large = PackageError::TooLarge {
                limit: self.limit,
                member: self.name.clone(),
            };
            return Err(self.fail(too_large));
        }
        self.hasher.update(&out[..n]);
        if n == 0 {
            self.done = true;
            if std::mem::take(&mut self.hasher).finalize() != self.crc {
                let damaged = PackageError::Damaged {
                    member: self.name.clone(),
                    detail: "bad CRC-32".into(),
                };
                return Err(self.fail(damaged));
            }
            self.budget.set(self.left - self.read);
        }
        Ok(n)
    }
}

impl Read for PartStream<'_, '_> {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        if self.done || out.is_empty() {
            return Ok(0);
        }
        self.step(out)
    }
}

#[cfg(test)]
pub(crate) mod testing {
    //! Small archives built in memory for the parsers' tests.
    use std::io::Write;

    /// A zip of `(name, bytes)` members, deflated.
    pub fn zip_of(members: &[(&str, &[u8])]) -> Vec<u8> {
        let mut out = std::io::Cursor::new(Vec::new());
        {
            let mut w = zip::ZipWriter::new(&mut out);
            let options = zip::write::SimpleFileOptions::default()
                .compression_method(zip::CompressionMethod::Deflated);
            for (name, data) in members {
                w.start_file(*name, options)
                    .expect("an in-memory zip accepts members");
                w.write_all(data).expect("writing to memory cannot fail");
            }
            w.finish().expect("an in-memory zip finishes");
        }
        out.into_inner()
    }
}

#[cfg(test)]
mod tests {
    use super::testing::zip_of;
    use super::*;

    #[test]
    fn members_are_listed_and_read() {
        let bytes = zip_of(&[("b.txt", b"bee"), ("a/c.xml", b"<c/>")]);
        let mut p = Package::open(&bytes, &Limits::default()).expect("a zip");
        assert_eq!(p.names(), ["b.txt", "a/c.xml"]);
        assert_eq!(p.read("a/c.xml").expect("present"), b"<c/>");
        assert_eq!(p.read("nope"), Err(PackageError::NoItem("nope".into())));
        assert_eq!(
            PackageError::NoItem("x".into()).to_string(),
            "There is no item named 'x' in the archive"
        );
    }

    #[test]
    fn not_a_zip_says_so() {
        assert!(matches!(
            Package::open(&&b"plain text"[..], &Limits::default()),
            Err(PackageError::NotAZip)
        ));
        assert_eq!(PackageError::NotAZip.to_string(), "File is not a zip file");
    }

    #[test]
    fn inflation_is_bounded_by_one_budget() {
        let big = vec![b'a'; 10_000];
        let bytes = zip_of(&[("one", &big), ("two", &big)]);
        let limits = Limits {
            max_inflated_bytes: 15_000,
            ..Limits::default()
        };
        let mut p = Package::open(&bytes, &limits).expect("a zip");
        assert_eq!(p.read("one").expect("fits").len(), 10_000);
        let err = p.read("two").expect_err("over the budget");
        assert_eq!(
            err.to_string(),
            "too large to preview: its zip members inflate past 15000 bytes (member 'two')"
        );
    }
}
