//! `.zip` uploads: no text extraction, a description of the archive and its
//! first ten member names, as `_parse_archive` writes it.

pub(crate) mod member;
pub(crate) mod zipfile;

use crate::error::{DocumentError, Subject};
use crate::limits::Limits;
use crate::record::Extracted;
use crate::source::Source;
use std::fmt::Write;
use zipfile::{ZipDir, ZipError};

/// Names the listing shows before it says how many more there are.
const PREVIEW: usize = 10;

/// Describes a zip upload: `[压缩文件]`, its size, and when `zipfile` can
/// read its central directory the member count and the first ten names;
/// an unreadable one (`BadZipFile`) is said so in the text, any other
/// failure of `zipfile` refuses the upload.
/// Only the end record and the central directory are read from `source`.
pub(crate) fn parse(source: &dyn Source, _limits: &Limits) -> Result<Extracted, DocumentError> {
    let mut text = format!("[压缩文件]\n格式: ZIP\n文件大小: {} 字节", source.len());
    match ZipDir::open(source) {
        Ok(dir) => {
            let names: Vec<&str> = dir.names().collect();
            let _ = write!(text, "\n包含文件数: {}", names.len());
            if !names.is_empty() {
                let shown = names.len().min(PREVIEW);
                let _ = write!(text, "\n\n文件列表 (前 {shown} 个):");
                for name in &names[..shown] {
                    let _ = write!(text, "\n  - {name}");
                }
                if names.len() > shown {
                    let _ = write!(text, "\n  ... 还有 {} 个文件", names.len() - shown);
                }
            }
        }
        Err(ZipError::BadZip(_)) => text.push_str("\n(无法读取压缩包内容)"),
        Err(ZipError::Other(reason)) => {
            return Err(DocumentError::failed(Subject::Archive, reason))
        }
        Err(ZipError::TooLarge(limit)) => {
            return Err(DocumentError::failed(
                Subject::Archive,
                format!("too large to preview: past {limit} bytes"),
            ))
        }
    }
    Ok(Extracted::text(text))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::package::testing::zip_of;
    use zipfile::ZipDir;

    fn text(bytes: &[u8]) -> String {
        parse(&bytes, &Limits::default()).expect("a listing").text
    }

    #[test]
    fn lists_count_and_the_first_ten_names_in_order() {
        let names: Vec<String> = (0..12).map(|i| format!("d/f{i}.txt")).collect();
        let members: Vec<(&str, &[u8])> = names.iter().map(|n| (n.as_str(), &b"x"[..])).collect();
        let zip = zip_of(&members);
        let t = text(&zip);
        assert!(t.starts_with(&format!("[压缩文件]\n格式: ZIP\n文件大小: {} 字节\n包含文件数: 12\n\n文件列表 (前 10 个):\n  - d/f0.txt", zip.len())));
        assert!(t.ends_with("  - d/f9.txt\n  ... 还有 2 个文件"), "{t}");
    }

    #[test]
    fn unreadable_archives_are_said_so_and_empty_ones_have_no_list() {
        assert_eq!(
            text(b"nope"),
            "[压缩文件]\n格式: ZIP\n文件大小: 4 字节\n(无法读取压缩包内容)"
        );
        let empty = b"PK\x05\x06\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0";
        assert_eq!(
            text(empty),
            "[压缩文件]\n格式: ZIP\n文件大小: 22 字节\n包含文件数: 0"
        );
    }

    /// A stored archive of `(name bytes, flags, data)` entries (duplicates allowed).
    fn stored_zip(entries: &[(&[u8], u16, &[u8])]) -> Vec<u8> {
        let mut out = Vec::new();
        let mut cd = Vec::new();
        for (name, flags, data) in entries {
            let offset = out.len() as u32;
            let crc = crc32fast::hash(data);
            let sizes = [crc, data.len() as u32, data.len() as u32];
            out.extend_from_slice(b"PK\x03\x04\x14\0");
            out.extend_from_slice(&flags.to_le_bytes());
            out.extend_from_slice(&[0; 6]);
            sizes
                .iter()
                .for_each(|v| out.extend_from_slice(&v.to_le_bytes()));
            out.extend_from_slice(&(name.len() as u16).to_le_bytes());
            out.extend_from_slice(&[0, 0]);
            out.extend_from_slice(name);
            out.extend_from_slice(data);
            cd.extend_from_slice(b"PK\x01\x02\x14\x03\x14\0");
            cd.extend_from_slice(&flags.to_le_bytes());
            cd.extend_from_slice(&[0; 6]);
            sizes
                .iter()
                .for_each(|v| cd.extend_from_slice(&v.to_le_bytes()));
            cd.extend_from_slice(&(name.len() as u16).to_le_bytes());
            cd.extend_from_slice(&[0; 12]);
            cd.extend_from_slice(&offset.to_le_bytes());
            cd.extend_from_slice(name);
        }
        let at = out.len() as u32;
        let n = (entries.len() as u16).to_le_bytes();
        out.extend_from_slice(&cd);
        out.extend_from_slice(b"PK\x05\x06\0\0\0\0");
        out.extend_from_slice(&n);
        out.extend_from_slice(&n);
        out.extend_from_slice(&(cd.len() as u32).to_le_bytes());
        out.extend_from_slice(&at.to_le_bytes());
        out.extend_from_slice(&[0, 0]);
        out
    }

    fn raw_zip(name: &[u8], flags: u16) -> Vec<u8> {
        stored_zip(&[(name, flags, b"x")])
    }

    #[test]
    fn names_decode_as_cp437_unless_flagged_utf8_and_stop_at_nul() {
        assert!(text(&raw_zip(b"caf\x82.txt", 0)).ends_with("  - café.txt"));
        assert!(text(&raw_zip("中.txt".as_bytes(), 0x800)).ends_with("  - 中.txt"));
        assert!(text(&raw_zip(b"evil.txt\0.exe", 0)).ends_with("  - evil.txt"));
        let err = parse(&raw_zip(b"caf\x82", 0x800), &Limits::default()).expect_err("bad UTF-8");
        assert_eq!(err.fixed_part(), "Failed to parse archive: ");
    }

    #[test]
    fn members_are_read_as_zipfile_reads_them() {
        let zip = stored_zip(&[
            (b"a", 0, b"first"),
            (b"a", 0, b"second"),
            (b"b", 0, &[b'z'; 5000]),
        ]);
        let dir = ZipDir::open(&zip).expect("a zip");
        assert_eq!(dir.names().collect::<Vec<_>>(), ["a", "a", "b"]);
        assert_eq!(dir.read("a", 1 << 20).expect("the last one"), b"second");
        assert_eq!(dir.read("b", 100), Err(ZipError::TooLarge(100)));
        let mut broken = zip.clone();
        // Damage the CRC in the last entry's central record: BadZipFile on read.
        let cd = memchr::memmem::rfind(&broken, b"PK\x01\x02").expect("a central directory");
        broken[cd + 16] ^= 0xff;
        let dir = ZipDir::open(&broken).expect("still a zip");
        assert!(matches!(dir.read("b", 1 << 20), Err(ZipError::BadZip(_))));
        // A stored member cut short is an EOFError, not a BadZipFile.
        let cut = stored_zip(&[(b"c", 0, &[b'q'; 100])]);
        let mut cut = cut.clone();
        cut[18] = 0xff; // compressed size claims more than is there
        cut[22] = 0xff;
        let cd = memchr::memmem::rfind(&cut, b"PK\x01\x02").expect("a central directory");
        cut[cd + 20] = 0xff;
        cut[cd + 24] = 0xff;
        let dir = ZipDir::open(&cut).expect("a zip");
        assert!(matches!(
            dir.read("c", 1 << 20),
            Err(ZipError::Other(_)) | Err(ZipError::BadZip(_))
        ));
    }

    #[test]
    fn a_member_streams_in_chunks_within_its_budget() {
        let data: Vec<u8> = (0..400_000u32)
            .flat_map(|i| (i % 251).to_le_bytes())
            .collect();
        let zip = zip_of(&[("big.bin", &data)]);
        let dir = ZipDir::open(&zip).expect("a zip");
        let mut member = dir.open_member("big.bin", 1 << 30).expect("present");
        let mut out = Vec::new();
        let mut chunk = [0u8; 1000];
        loop {
            let n = member.read_chunk(&mut chunk).expect("intact");
            if n == 0 {
                break;
            }
            out.extend_from_slice(&chunk[..n]);
        }
        assert_eq!(out, data);
        let mut member = dir.open_member("big.bin", 1_000_000).expect("present");
        let err = std::io::copy(&mut member, &mut std::io::sink()).expect_err("past the budget");
        assert_eq!(err.to_string(), "its members inflate past 1000000 bytes");
    }
}
