//! Zip containers (OOXML, XMind, `.zip` listings) read the way Python's
//! `zipfile` reads them, with every member's inflation bounded by one
//! budget shared across the document.

use crate::limits::Limits;
use std::cell::Cell;
use std::io::{Cursor, Read};
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

/// An opened zip archive over borrowed bytes.
pub struct Package<'a> {
    archive: zip::ZipArchive<Cursor<&'a [u8]>>,
    budget: Cell<u64>,
    limit: u64,
}

impl<'a> Package<'a> {
    /// Opens `bytes` as a zip archive (its central directory is read, nothing inflated).
    pub fn open(bytes: &'a [u8], limits: &Limits) -> Result<Self, PackageError> {
        let archive =
            zip::ZipArchive::new(Cursor::new(bytes)).map_err(|_| PackageError::NotAZip)?;
        Ok(Package {
            archive,
            budget: Cell::new(limits.max_inflated_bytes),
            limit: limits.max_inflated_bytes,
        })
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
        let mut out = Vec::with_capacity(declared.min(left).min(1 << 24) as usize);
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
            Package::open(b"plain text", &Limits::default()),
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
