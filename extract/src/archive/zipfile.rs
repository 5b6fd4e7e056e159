//! A zip archive read the way CPython 3.12's `zipfile` reads it: the end
//! record found by the same search, the central directory walked by its
//! declared size (so the names, their order, duplicates and the refusals are
//! `namelist()`'s), names decoded as cp437 unless the UTF-8 flag is set and cut
//! at a NUL, and members read as `ZipFile.read` reads them (the last entry of
//! a name wins, the local header is checked, stored or deflated data is capped
//! at the declared size and its CRC checked), every inflation charged to one
//! budget. Members stream (`member.rs`): the upload is read where it lies,
//! through one buffer, and never held whole.

use super::member::{Layout, Member};
use crate::source::{self, Source, SourceError};

/// Why the archive or one of its members could not be read, classed as the
/// reference's callers tell them apart.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum ZipError {
    /// `zipfile.BadZipFile`: the callers report it as an unreadable archive.
    BadZip(String),
    /// Any other exception (`NotImplementedError`, `UnicodeDecodeError`,
    /// `zlib.error`, `EOFError`, `RuntimeError`): it escapes those callers.
    Other(String),
    /// Inflating the member would pass the document's budget.
    TooLarge(u64),
}

impl std::fmt::Display for ZipError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ZipError::BadZip(why) | ZipError::Other(why) => f.write_str(why),
            ZipError::TooLarge(limit) => write!(f, "its members inflate past {limit} bytes"),
        }
    }
}

/// One central-directory entry.
#[derive(Debug, Clone)]
struct Entry {
    /// `ZipInfo.filename`: decoded, cut at a NUL, or the Unicode Path extra's.
    name: String,
    /// `ZipInfo.orig_filename`: the decoded name before it was cut.
    orig_name: String,
    flags: u16,
    method: u16,
    crc: u32,
    compress_size: u64,
    file_size: u64,
    /// The local header's offset, corrected for data before the archive (may be negative).
    header_offset: i128,
}

/// An archive's central directory over its source: nothing but the end
/// record and the directory is read until a member is opened.
pub(crate) struct ZipDir<'a> {
    source: &'a dyn Source,
    entries: Vec<Entry>,
}

const END_SIG: &[u8; 4] = b"PK\x05\x06";
const END64_LOCATOR_SIG: &[u8; 4] = b"PK\x06\x07";
const END64_SIG: &[u8; 4] = b"PK\x06\x06";
const CENTRAL_SIG: &[u8; 4] = b"PK\x01\x02";
const LOCAL_SIG: &[u8; 4] = b"PK\x03\x04";
const END_SIZE: usize = 22;
const END64_LOCATOR_SIZE: usize = 20;
const END64_SIZE: usize = 56;
const CENTRAL_SIZE: usize = 46;
const LOCAL_SIZE: usize = 30;
/// `MAX_EXTRACT_VERSION`: newer entries are refused as not implemented.
const MAX_EXTRACT_VERSION: u8 = 63;
const FLAG_ENCRYPTED: u16 = 0x1;
const FLAG_COMPRESSED_PATCH: u16 = 0x20;
const FLAG_STRONG_ENCRYPTION: u16 = 0x40;
const FLAG_UTF8: u16 = 0x800;
/// The most central-directory bytes read into memory: 64 MiB holds about a
/// million entries with 20-byte names, far past any document container.
pub(crate) const MAX_CENTRAL_DIRECTORY_BYTES: u64 = 64 * 1024 * 1024;

fn u16_at(b: &[u8], at: usize) -> u16 {
    match b.get(at..at + 2) {
        Some(s) => u16::from_le_bytes([s[0], s[1]]),
        None => 0,
    }
}

fn u32_at(b: &[u8], at: usize) -> u32 {
    match b.get(at..at + 4) {
        Some(s) => u32::from_le_bytes([s[0], s[1], s[2], s[3]]),
        None => 0,
    }
}

fn u64_at(b: &[u8], at: usize) -> u64 {
    match b.get(at..at + 8) {
        Some(s) => {
            let mut a = [0u8; 8];
            a.copy_from_slice(s);
            u64::from_le_bytes(a)
        }
        None => 0,
    }
}

/// A failed read of the source: not a damaged archive, the host's failure.
fn unreadable(e: SourceError) -> ZipError {
    ZipError::Other(e.to_string())
}

/// How many bytes `BytesIO.read(n)` at `pos` would give: what is there, possibly short or none.
fn available(source: &dyn Source, pos: i128, n: u64) -> (u64, u64) {
    let Ok(start) = u64::try_from(pos) else {
        return (0, 0);
    };
    let start = start.min(source.len());
    (start, n.min(source.len() - start))
}

/// `BytesIO.read(n)` at `pos` for a small `n`: what is there, possibly short or empty.
fn read_small(source: &dyn Source, pos: i128, n: usize) -> Result<Vec<u8>, ZipError> {
    let (start, len) = available(source, pos, n as u64);
    let mut buf = vec![0; len as usize];
    source::read_exact_at(source, start, &mut buf).map_err(unreadable)?;
    Ok(buf)
}

/// cp437's upper half (its lower half is ASCII in Python's codec).
const CP437_HIGH: [char; 128] = [
    '\u{00c7}', '\u{00fc}', '\u{00e9}', '\u{00e2}', '\u{00e4}', '\u{00e0}', '\u{00e5}', '\u{00e7}',
    '\u{00ea}', '\u{00eb}', '\u{00e8}', '\u{00ef}', '\u{00ee}', '\u{00ec}', '\u{00c4}', '\u{00c5}',
    '\u{00c9}', '\u{00e6}', '\u{00c6}', '\u{00f4}', '\u{00f6}', '\u{00f2}', '\u{00fb}', '\u{00f9}',
    '\u{00ff}', '\u{00d6}', '\u{00dc}', '\u{00a2}', '\u{00a3}', '\u{00a5}', '\u{20a7}', '\u{0192}',
    '\u{00e1}', '\u{00ed}', '\u{00f3}', '\u{00fa}', '\u{00f1}', '\u{00d1}', '\u{00aa}', '\u{00ba}',
    '\u{00bf}', '\u{2310}', '\u{00ac}', '\u{00bd}', '\u{00bc}', '\u{00a1}', '\u{00ab}', '\u{00bb}',
    '\u{2591}', '\u{2592}', '\u{2593}', '\u{2502}', '\u{2524}', '\u{2561}', '\u{2562}', '\u{2556}',
    '\u{2555}', '\u{2563}', '\u{2551}', '\u{2557}', '\u{255d}', '\u{255c}', '\u{255b}', '\u{2510}',
    '\u{2514}', '\u{2534}', '\u{252c}', '\u{251c}', '\u{2500}', '\u{253c}', '\u{255e}', '\u{255f}',
    '\u{255a}', '\u{2554}', '\u{2569}', '\u{2566}', '\u{2560}', '\u{2550}', '\u{256c}', '\u{2567}',
    '\u{2568}', '\u{2564}', '\u{2565}', '\u{2559}', '\u{2558}', '\u{2552}', '\u{2553}', '\u{256b}',
    '\u{256a}', '\u{2518}', '\u{250c}', '\u{2588}', '\u{2584}', '\u{258c}', '\u{2590}', '\u{2580}',
    '\u{03b1}', '\u{00df}', '\u{0393}', '\u{03c0}', '\u{03a3}', '\u{03c3}', '\u{00b5}', '\u{03c4}',
    '\u{03a6}', '\u{0398}', '\u{03a9}', '\u{03b4}', '\u{221e}', '\u{03c6}', '\u{03b5}', '\u{2229}',
    '\u{2261}', '\u{00b1}', '\u{2265}', '\u{2264}', '\u{2320}', '\u{2321}', '\u{00f7}', '\u{2248}',
    '\u{00b0}', '\u{2219}', '\u{00b7}', '\u{221a}', '\u{207f}', '\u{00b2}', '\u{25a0}', '\u{00a0}',
];

/// `bytes.decode('cp437')`, which cannot fail.
pub(crate) fn cp437(raw: &[u8]) -> String {
    raw.iter()
        .map(|&b| match b.checked_sub(128) {
            Some(i) => CP437_HIGH[usize::from(i)],
            None => char::from(b),
        })
        .collect()
}

/// A member name as the entry's flags say to decode it.
fn decode_name(raw: &[u8], flags: u16) -> Result<String, ZipError> {
    if flags & FLAG_UTF8 != 0 {
        std::str::from_utf8(raw).map(str::to_string).map_err(|e| {
            ZipError::Other(format!("member name is not UTF-8 though flagged so: {e}"))
        })
    } else {
        Ok(cp437(raw))
    }
}

/// `_sanitize_filename`: the name up to its first NUL.
fn sanitize(name: &str) -> String {
    match name.find('\0') {
        Some(i) => name[..i].to_string(),
        None => name.to_string(),
    }
}

/// The end record's fields the reader needs.
struct End {
    size_cd: u64,
    offset_cd: u64,
    location: u64,
    zip64: bool,
}

/// `_EndRecData`: the end record at the very end, else the last signature in
/// the final 64 KiB + 22 bytes (read once, the only read of the tail).
fn end_record(source: &dyn Source) -> Result<Option<End>, ZipError> {
    let size = source.len();
    let window = size.min((1 << 16) + END_SIZE as u64);
    let max_comment_start = size - window;
    let mut data = vec![0; window as usize];
    source::read_exact_at(source, max_comment_start, &mut data).map_err(unreadable)?;
    if data.len() >= END_SIZE {
        let tail = &data[data.len() - END_SIZE..];
        if &tail[..4] == END_SIG && tail[20..22] == [0, 0] {
            let end = End {
                size_cd: u64::from(u32_at(tail, 12)),
                offset_cd: u64::from(u32_at(tail, 16)),
                location: size - END_SIZE as u64,
                zip64: false,
            };
            return end_record64(source, -(END_SIZE as i128), end).map(Some);
        }
    }
    let Some(start) = memchr::memmem::rfind(&data, END_SIG) else {
        return Ok(None);
    };
    let Some(rec) = data.get(start..start + END_SIZE) else {
        return Ok(None);
    };
    let location = max_comment_start + start as u64;
    let end = End {
        size_cd: u64::from(u32_at(rec, 12)),
        offset_cd: u64::from(u32_at(rec, 16)),
        location,
        zip64: false,
    };
    end_record64(source, i128::from(location) - i128::from(size), end).map(Some)
}

/// `_EndRecData64`: the zip64 end record just before the end record, when
/// its locator is there (a seek before the start reads from the start, as
/// `BytesIO` clamps it).
fn end_record64(source: &dyn Source, offset: i128, end: End) -> Result<End, ZipError> {
    let size = i128::from(source.len());
    let locator = read_small(
        source,
        (size + offset - END64_LOCATOR_SIZE as i128).max(0),
        END64_LOCATOR_SIZE,
    )?;
    if locator.len() != END64_LOCATOR_SIZE || &locator[..4] != END64_LOCATOR_SIG {
        return Ok(end);
    }
    if u32_at(&locator, 4) != 0 || u32_at(&locator, 16) > 1 {
        return Err(ZipError::BadZip(
            "the archive spans several disks".to_string(),
        ));
    }
    let at = (size + offset - (END64_LOCATOR_SIZE + END64_SIZE) as i128).max(0);
    let rec = read_small(source, at, END64_SIZE)?;
    if rec.len() != END64_SIZE || &rec[..4] != END64_SIG {
        return Ok(end);
    }
    Ok(End {
        size_cd: u64_at(&rec, 40),
        offset_cd: u64_at(&rec, 48),
        zip64: true,
        ..end
    })
}

/// `ZipInfo._decodeExtra`: the zip64 sizes and offset, and the Unicode Path field.
fn decode_extra(entry: &mut Entry, extra: &[u8], name_crc: u32) -> Result<(), ZipError> {
    let mut rest = extra;
    while rest.len() >= 4 {
        let kind = u16_at(rest, 0);
        let len = usize::from(u16_at(rest, 2));
        let Some(data) = rest.get(4..4 + len) else {
            return Err(ZipError::BadZip(format!(
                "corrupt extra field {kind:04x} (size={len})"
            )));
        };
        if kind == 0x0001 {
            let mut fields = data;
            let mut take = |what: &str| -> Result<u64, ZipError> {
                let v = fields.get(..8).map(|s| u64_at(s, 0)).ok_or_else(|| {
                    ZipError::BadZip(format!("corrupt zip64 extra field: {what} not found"))
                })?;
                fields = &fields[8..];
                Ok(v)
            };
            if entry.file_size == 0xFFFF_FFFF_FFFF_FFFF || entry.file_size == 0xFFFF_FFFF {
                entry.file_size = take("file size")?;
            }
            if entry.compress_size == 0xFFFF_FFFF {
                entry.compress_size = take("compress size")?;
            }
            if entry.header_offset == 0xFFFF_FFFF {
                entry.header_offset = i128::from(take("header offset")?);
            }
        } else if kind == 0x7075 {
            if data.len() < 5 {
                return Err(ZipError::BadZip(
                    "corrupt unicode path extra field (0x7075)".to_string(),
                ));
            }
            if data[0] == 1 && u32_at(data, 1) == name_crc {
                let name = std::str::from_utf8(&data[5..]).map_err(|_| {
                    ZipError::BadZip(
                        "corrupt unicode path extra field (0x7075): invalid utf-8 bytes"
                            .to_string(),
                    )
                })?;
                if !name.is_empty() {
                    entry.name = sanitize(name);
                }
            }
        }
        rest = &rest[4 + len..];
    }
    Ok(())
}

impl<'a> ZipDir<'a> {
    /// `zipfile.ZipFile(io.BytesIO(bytes))`: the central directory, or the
    /// refusal. The directory is read by its declared size, cut at the
    /// source's end and refused past [`MAX_CENTRAL_DIRECTORY_BYTES`] before
    /// anything is allocated for it.
    pub(crate) fn open(source: &'a dyn Source) -> Result<Self, ZipError> {
        let not_zip = || ZipError::BadZip("File is not a zip file".to_string());
        let end = end_record(source)?.ok_or_else(not_zip)?;
        let mut concat =
            i128::from(end.location) - i128::from(end.size_cd) - i128::from(end.offset_cd);
        if end.zip64 {
            concat -= (END64_SIZE + END64_LOCATOR_SIZE) as i128;
        }
        let start_dir = i128::from(end.offset_cd) + concat;
        if start_dir < 0 {
            return Err(ZipError::BadZip(
                "bad offset for central directory".to_string(),
            ));
        }
        let (cd_at, cd_len) = available(source, start_dir, end.size_cd);
        if cd_len > MAX_CENTRAL_DIRECTORY_BYTES {
            return Err(ZipError::Other(format!(
                "the central directory takes {cd_len} bytes, past the {MAX_CENTRAL_DIRECTORY_BYTES} this reader holds"
            )));
        }
        let mut data = vec![0; cd_len as usize];
        source::read_exact_at(source, cd_at, &mut data).map_err(unreadable)?;
        let data = &data[..];
        let mut pos = 0usize;
        let mut total: u64 = 0;
        let mut entries = Vec::new();
        let take = |pos: &mut usize, n: usize| -> &[u8] {
            let start = (*pos).min(data.len());
            let end = start.saturating_add(n).min(data.len());
            *pos = end;
            &data[start..end]
        };
        while total < end.size_cd {
            let head = take(&mut pos, CENTRAL_SIZE);
            if head.len() != CENTRAL_SIZE {
                return Err(ZipError::BadZip("truncated central directory".to_string()));
            }
            if &head[..4] != CENTRAL_SIG {
                return Err(ZipError::BadZip(
                    "bad magic number for central directory".to_string(),
                ));
            }
            let name_len = usize::from(u16_at(head, 28));
            let extra_len = usize::from(u16_at(head, 30));
            let comment_len = usize::from(u16_at(head, 32));
            let flags = u16_at(head, 8);
            let raw_name = take(&mut pos, name_len);
            let decoded = decode_name(raw_name, flags)?;
            let extra = take(&mut pos, extra_len);
            let _comment = take(&mut pos, comment_len);
            let extract_version = head[6];
            if extract_version > MAX_EXTRACT_VERSION {
                return Err(ZipError::Other(format!(
                    "zip file version {}.{} is not supported",
                    extract_version / 10,
                    extract_version % 10
                )));
            }
            let mut entry = Entry {
                name: sanitize(&decoded),
                orig_name: decoded,
                flags,
                method: u16_at(head, 10),
                crc: u32_at(head, 16),
                compress_size: u64::from(u32_at(head, 20)),
                file_size: u64::from(u32_at(head, 24)),
                header_offset: i128::from(u32_at(head, 42)),
            };
            decode_extra(&mut entry, extra, crc32fast::hash(raw_name))?;
            entry.header_offset += concat;
            entries.push(entry);
            total += (CENTRAL_SIZE + name_len + extra_len + comment_len) as u64;
        }
        Ok(ZipDir { source, entries })
    }

    /// `namelist()`: every entry's name in central-directory order, duplicates kept.
    pub(crate) fn names(&self) -> impl Iterator<Item = &str> {
        self.entries.iter().map(|e| e.name.as_str())
    }

    /// Whether `name` is in `namelist()`.
    pub(crate) fn contains(&self, name: &str) -> bool {
        self.entries.iter().any(|e| e.name == name)
    }

    /// `ZipFile.read(name)`: the last entry of that name, inflated within
    /// `budget` bytes, whole: for small parts (the caller's `budget` is its bound).
    pub(crate) fn read(&self, name: &str, budget: u64) -> Result<Vec<u8>, ZipError> {
        let mut member = self.open_member(name, budget)?;
        let mut out = Vec::with_capacity(member.declared_size().min(budget).min(1 << 20) as usize);
        let mut chunk = vec![0; 1 << 16];
        loop {
            let n = member.read_chunk(&mut chunk)?;
            if n == 0 {
                return Ok(out);
            }
            out.extend_from_slice(&chunk[..n]);
        }
    }

    /// `ZipFile.open(name)`: the last entry of that name as a stream, its
    /// local header checked now, its data read from the source as it is
    /// consumed, every inflated byte charged to `budget`, the CRC checked at its end.
    pub(crate) fn open_member(&self, name: &str, budget: u64) -> Result<Member<'a>, ZipError> {
        let entry = self
            .entries
            .iter()
            .rev()
            .find(|e| e.name == name)
            .ok_or_else(|| {
                ZipError::Other(format!("there is no item named '{name}' in the archive"))
            })?;
        if entry.header_offset < 0 {
            return Err(ZipError::Other(format!(
                "member '{name}' has a negative local header offset"
            )));
        }
        let header = read_small(self.source, entry.header_offset, LOCAL_SIZE)?;
        if header.len() != LOCAL_SIZE {
            return Err(ZipError::BadZip(format!(
                "truncated file header of '{name}'"
            )));
        }
        if &header[..4] != LOCAL_SIG {
            return Err(ZipError::BadZip(format!(
                "bad magic number for the file header of '{name}'"
            )));
        }
        let name_len = usize::from(u16_at(&header, 26));
        let extra_len = usize::from(u16_at(&header, 28));
        let name_at = entry.header_offset + LOCAL_SIZE as i128;
        let local_name = read_small(self.source, name_at, name_len)?;
        if entry.flags & FLAG_COMPRESSED_PATCH != 0 {
            return Err(ZipError::Other(format!(
                "'{name}' holds compressed patched data"
            )));
        }
        if entry.flags & FLAG_STRONG_ENCRYPTION != 0 {
            return Err(ZipError::Other(format!("'{name}' uses strong encryption")));
        }
        if decode_name(&local_name, u16_at(&header, 6))? != entry.orig_name {
            return Err(ZipError::BadZip(format!(
                "file name of '{name}' differs in its local header"
            )));
        }
        if entry.flags & FLAG_ENCRYPTED != 0 {
            return Err(ZipError::Other(format!(
                "'{name}' is encrypted, a password is required"
            )));
        }
        let data_at = name_at + name_len as i128 + extra_len as i128;
        let (start, there) = available(self.source, data_at, entry.compress_size);
        Member::new(
            self.source,
            Layout {
                name: name.to_string(),
                method: entry.method,
                data_at: start,
                available: there,
                compress_size: entry.compress_size,
                file_size: entry.file_size,
                crc: entry.crc,
            },
            budget,
        )
    }
}
