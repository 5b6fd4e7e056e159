//! libmagic's binary magic rules (the raw-bytes pass of `file_softmagic`)
//! for the formats an upload plausibly is: executables (ELF, PE/DOS,
//! Mach-O, Java class, Python bytecode, WebAssembly), archives and
//! compression (zip and its OOXML/ODF/EPUB/APK/JAR kinds, gzip, bzip2, xz,
//! lzma, zstd, 7z, rar, lz4, ar/deb, rpm, CDF), images, audio and video
//! containers, fonts, PDF, PostScript, RTF, SQLite, PGP armour. Each mirrors
//! its magic entry (Magdir file named in the comment), including which
//! continuation names the MIME type; a format matched without one answers
//! [`Hit::NoMime`], as libmagic leaves such files to its text stage.

use super::raw_text::{plain_strings, shebang};
use super::tables::{FTYP_BRANDS, PYC_MAGICS};
use super::zip::zip;
use super::Hit;

pub(super) fn at(buf: &[u8], offset: usize, pattern: &[u8]) -> bool {
    buf.get(offset..)
        .is_some_and(|rest| rest.starts_with(pattern))
}

pub(super) fn byte(buf: &[u8], offset: usize) -> Option<u8> {
    buf.get(offset).copied()
}

pub(super) fn le16(buf: &[u8], offset: usize) -> Option<u16> {
    Some(u16::from_le_bytes([
        byte(buf, offset)?,
        byte(buf, offset + 1)?,
    ]))
}

pub(super) fn be16(buf: &[u8], offset: usize) -> Option<u16> {
    Some(u16::from_be_bytes([
        byte(buf, offset)?,
        byte(buf, offset + 1)?,
    ]))
}

pub(super) fn le32(buf: &[u8], offset: usize) -> Option<u32> {
    let b = buf.get(offset..offset.checked_add(4)?)?;
    Some(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
}

pub(super) fn be32(buf: &[u8], offset: usize) -> Option<u32> {
    let b = buf.get(offset..offset.checked_add(4)?)?;
    Some(u32::from_be_bytes([b[0], b[1], b[2], b[3]]))
}

/// `search/N pattern` from `offset`: the offset just after the first match.
pub(super) fn search(buf: &[u8], offset: usize, range: usize, pattern: &[u8]) -> Option<usize> {
    let end = offset
        .saturating_add(range)
        .saturating_add(pattern.len())
        .min(buf.len());
    let hay = buf.get(offset..end)?;
    memchr::memmem::find(hay, pattern).map(|i| offset + i + pattern.len())
}

pub(super) const fn mime(m: &'static str) -> Option<Hit> {
    Some(Hit::Mime(m))
}

/// The composite document file (OLE2) header; libmagic's CDF reader names
/// its kind from the directory, which is not ported: the generic name.
pub(super) fn cdf(buf: &[u8]) -> Option<&'static str> {
    (buf.len() >= 512 && buf.starts_with(b"\xD0\xCF\x11\xE0\xA1\xB1\x1A\xE1"))
        .then_some("application/x-ole-storage")
}

/// One group of rules: the bytes and whether they looked like text, to a hit.
type Rule = fn(&[u8], bool) -> Option<Hit>;

/// libmagic's `FILE_INDIR_MAX`: nested `indirect` rules (ID3 tags) at most.
const INDIRECT_MAX: usize = 50;

/// The binary rules in libmagic's order (by strength, where two could both match).
pub(super) fn rules(buf: &[u8], looks_text: bool) -> Option<Hit> {
    rules_within(buf, looks_text, 0)
}

/// [`rules`] at a nesting depth of `indirect` rules.
fn rules_within(buf: &[u8], looks_text: bool, depth: usize) -> Option<Hit> {
    // Magdir/audio: an ID3v2 tag, then the whole rule set on what follows it
    // (an `indirect` rule, its size synchsafe at 6)
    if buf.starts_with(b"ID3") {
        if depth >= INDIRECT_MAX {
            return Some(Hit::NoMime);
        }
        let size = (6..10).try_fold(0usize, |acc, i| {
            byte(buf, i).map(|b| (acc << 7) | usize::from(b & 0x7F))
        });
        let inner = size.and_then(|s| buf.get(s + 10..)).unwrap_or(&[]);
        return match rules_within(inner, looks_text, depth + 1) {
            Some(Hit::Mime(m)) => mime(m),
            _ => Some(Hit::NoMime),
        };
    }
    let checks: [Rule; 16] = [
        elf,
        images,
        pdf,
        archives,
        compressed,
        executables,
        media,
        fonts,
        documents,
        databases,
        zip,
        iso9660,
        plain_strings,
        shebang,
        adobe_aco,
        targa,
    ];
    checks.iter().find_map(|check| check(buf, looks_text))
}

/// Magdir/elf: the object type at 16 in the header's byte order.
fn elf(buf: &[u8], _: bool) -> Option<Hit> {
    if !buf.starts_with(b"\x7FELF") {
        return None;
    }
    let e_type = match byte(buf, 5) {
        Some(1) => le16(buf, 16),
        Some(2) => be16(buf, 16),
        _ => None,
    };
    let machine = match byte(buf, 5) {
        Some(1) => le16(buf, 18),
        Some(2) => be16(buf, 18),
        _ => None,
    };
    match e_type {
        Some(0) => mime("application/octet-stream"),
        Some(1) => mime("application/x-object"),
        Some(2) => mime("application/x-executable"),
        // ${x?pie-executable:sharedlib}: a buffer has no execute bit
        Some(3) => mime("application/x-sharedlib"),
        Some(4) => mime("application/x-coredump"),
        Some(0xFE01) if byte(buf, 7) == Some(202) => mime("application/x-executable"),
        Some(0xFF80) if machine == Some(8) => mime("application/x-sharedlib"),
        _ => Some(Hit::NoMime),
    }
}

/// Magdir/images, jpeg, riff (WebP), animation (ISO Media images are in [`media`]).
fn images(buf: &[u8], _: bool) -> Option<Hit> {
    if buf.starts_with(b"\x89PNG\r\n\x1A\n\x00\x00\x00\x0DIHDR")
        || (buf.starts_with(b"\x89PNG\r\n\x1A\n\x00\x00\x00\x04CgBI")
            && at(buf, 24, b"\x00\x00\x00\x0DIHDR"))
    {
        return mime("image/png");
    }
    if buf.starts_with(b"GIF8") {
        return mime("image/gif");
    }
    if buf.starts_with(b"\xFF\xD8\xFF") {
        return mime("image/jpeg");
    }
    if buf.starts_with(b"II*\x00") || buf.starts_with(b"MM\x00*") {
        return mime("image/tiff");
    }
    if buf.starts_with(b"BM") {
        // bitmap-bmp: the DIB header sizes that name image/bmp
        return match le32(buf, 14) {
            Some(12 | 16 | 24 | 40 | 48 | 52 | 56 | 64 | 108 | 124) => mime("image/bmp"),
            _ => None,
        };
    }
    if buf.starts_with(b"8BPS") {
        return match be16(buf, 4) {
            Some(1 | 2) => mime("image/vnd.adobe.photoshop"),
            _ => Some(Hit::NoMime),
        };
    }
    if buf.starts_with(b"gimp xcf") {
        return mime("image/x-xcf");
    }
    None
}

/// Magdir/pdf: `%PDF-` (also after a newline or a UTF-8 BOM).
fn pdf(buf: &[u8], _: bool) -> Option<Hit> {
    (buf.starts_with(b"%PDF-")
        || buf.starts_with(b"\n%PDF-")
        || buf.starts_with(b"\xEF\xBB\xBF%PDF-"))
    .then_some(Hit::Mime("application/pdf"))
}

/// Magdir/archive: 7z, rar, ar/deb, rpm, cab.
fn archives(buf: &[u8], _: bool) -> Option<Hit> {
    if buf.starts_with(b"7z\xBC\xAF\x27\x1C") {
        return mime("application/x-7z-compressed");
    }
    if buf.starts_with(b"Rar!\x1A\x07") {
        return mime("application/x-rar");
    }
    if buf.starts_with(b"!<arch>\n") {
        if at(buf, 8, b"debian-binary") {
            return mime("application/vnd.debian.binary-package");
        }
        return mime("application/x-archive");
    }
    if buf.starts_with(b"\xED\xAB\xEE\xDB") {
        return mime("application/x-rpm");
    }
    if buf.starts_with(b"MSCF\x00\x00\x00\x00") && le32(buf, 8).is_some_and(|s| s > 0) {
        return mime("application/vnd.ms-cab-compressed");
    }
    None
}

/// Magdir/compress.
fn compressed(buf: &[u8], _: bool) -> Option<Hit> {
    if buf.starts_with(b"\x1F\x8B") {
        return mime("application/gzip");
    }
    if buf.starts_with(b"BZh") {
        return mime("application/x-bzip2");
    }
    if buf.starts_with(b"\xFD7zXZ\x00") {
        return mime("application/x-xz");
    }
    if let Some(magic) = le32(buf, 0) {
        if (0xFD2F_B522..=0xFD2F_B528).contains(&magic) {
            return mime("application/zstd");
        }
        if magic == 0x184D_2204 || magic == 0x184C_2102 {
            return mime("application/x-lz4");
        }
    }
    if buf.starts_with(b"\x5D\x00\x00") && matches!(byte(buf, 12), Some(0x00 | 0xFF)) {
        return mime("application/x-lzma");
    }
    None
}

/// Magdir/msdos, mach, cafebabe, python, webassembly.
fn executables(buf: &[u8], looks_text: bool) -> Option<Hit> {
    if buf.starts_with(b"\x00asm") {
        return if le32(buf, 4) == Some(1) {
            mime("application/wasm")
        } else {
            Some(Hit::NoMime)
        };
    }
    if let Some(magic) = be32(buf, 0) {
        match magic {
            0xFEED_FACE | 0xFEED_FACF | 0xCEFA_EDFE | 0xCFFA_EDFE => {
                return mime("application/x-mach-binary")
            }
            0xCAFE_BABE => {
                // Java class (major version > 30) or a Mach-O universal binary (few architectures)
                let second = be32(buf, 4).unwrap_or(0);
                return if second > 30 {
                    mime("application/x-java-applet")
                } else {
                    mime("application/x-mach-binary")
                };
            }
            _ => {}
        }
    }
    if let Some(hit) = dos_com(buf) {
        return Some(hit);
    }
    // `string/b MZ`: not for text-looking files
    if buf.starts_with(b"MZ") && !looks_text {
        let lfanew = le32(buf, 0x3C).and_then(|o| usize::try_from(o).ok());
        let at_new = |sig: &[u8]| lfanew.is_some_and(|o| at(buf, o, sig));
        if le16(buf, 0x18).is_some_and(|v| v < 0x40) {
            if at_new(b"NE") {
                return mime("image/x-ms-icl");
            }
            if !at_new(b"LX") && !at_new(b"PE") {
                return mime("application/x-dosexec");
            }
        }
        if at_new(b"PE\x00\x00") {
            return mime("application/vnd.microsoft.portable-executable");
        }
        return Some(Hit::NoMime);
    }
    if buf.starts_with(b"\xDE\x12\x04\x95") || buf.starts_with(b"\x95\x04\x12\xDE") {
        return mime("application/x-gettext-translation");
    }
    if be32(buf, 0).is_some_and(|m| PYC_MAGICS.binary_search(&m).is_ok()) {
        return mime("application/x-bytecode.python");
    }
    // PEP 552 headers: `\r\n` at 2, flags below 4, CPython's `0x0d` second byte or a PyPy magic
    if at(buf, 2, b"\x0D\x0A")
        && le32(buf, 4).is_some_and(|f| f < 4)
        && (byte(buf, 1) == Some(0x0D) || matches!(le16(buf, 0), Some(240 | 256 | 336)))
    {
        return mime("application/x-bytecode.python");
    }
    None
}

/// Magdir/msdos `0 ubyte 0xb8` (`mov ax, …` COM programs; a `ubyte` test,
/// so text starting with 0xB8, such as GBK, matches too): an interrupt
/// instruction 0xCD within 118 bytes from 3, or a non-zero byte 3.
fn dos_com(buf: &[u8]) -> Option<Hit> {
    if byte(buf, 0) != Some(0xB8) || buf.starts_with(b"\xB8\xC0\x07\x8E") {
        return None;
    }
    if le32(buf, 1).is_some_and(|v| v & 0xFFFF_FFFE == 0x21CD_4CFE) {
        return mime("application/x-c32-comboot-syslinux-exec");
    }
    const DOSEXEC: Option<Hit> = Some(Hit::Mime("application/x-dosexec"));
    if let Some(after) = search(buf, 3, 118, b"\xCD") {
        return match byte(buf, after) {
            Some(0x13) => {
                let second = buf
                    .get(3..11)
                    .map(|b| u64::from_be_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]]));
                if second.is_some_and(|v| v != 0x8EC0_B8C0_078E_D88D) {
                    DOSEXEC
                } else {
                    Some(Hit::NoMime)
                }
            }
            Some(0x16) => {
                if be32(buf, 8).is_some_and(|v| v != 0x3DE4_E475) {
                    DOSEXEC
                } else {
                    Some(Hit::NoMime)
                }
            }
            _ => DOSEXEC,
        };
    }
    match byte(buf, 3) {
        Some(0x00 | 0xB1) | None => Some(Hit::NoMime),
        Some(_) => DOSEXEC,
    }
}

/// Magdir/riff, animation (ISO Media, Matroska), vorbis, audio, flash, asf, midi.
fn media(buf: &[u8], _: bool) -> Option<Hit> {
    if buf.starts_with(b"RIFF") || buf.starts_with(b"RIFX") {
        if at(buf, 8, b"WAVE") {
            return mime("audio/x-wav");
        }
        if at(buf, 8, b"AVI ") {
            return mime("video/x-msvideo");
        }
        if at(buf, 8, b"WEBP") {
            return mime("image/webp");
        }
        if at(buf, 8, b"RMID") {
            return mime("audio/mid");
        }
        return Some(Hit::NoMime);
    }
    if at(buf, 4, b"ftyp") {
        let brand = buf.get(8..12).unwrap_or(&[]);
        return Some(
            FTYP_BRANDS
                .iter()
                .find(|(b, _)| brand.starts_with(b))
                .map_or(Hit::NoMime, |&(_, m)| Hit::Mime(m)),
        );
    }
    if buf.starts_with(b"\x1A\x45\xDF\xA3") {
        if let Some(end) = search(buf, 4, 4096, b"\x42\x82") {
            let doc = buf.get(end + 1..).unwrap_or(&[]);
            if doc.starts_with(b"webm") {
                return mime("video/webm");
            }
            if doc.starts_with(b"matroska") {
                return mime("video/x-matroska");
            }
        }
        return Some(Hit::NoMime);
    }
    if buf.starts_with(b"OggS") {
        let kind = buf.get(28..).unwrap_or(&[]);
        return Some(if byte(buf, 4) != Some(0) {
            Hit::NoMime
        } else if kind.starts_with(b"\x7FFLAC")
            || kind.starts_with(b"\x01vorbis")
            || kind.starts_with(b"OpusHead")
            || kind.starts_with(b"Speex   ")
        {
            Hit::Mime("audio/ogg")
        } else if kind.starts_with(b"\x80theora")
            || kind.starts_with(b"fishead\x00")
            || kind.starts_with(b"\x01video\x00\x00\x00")
        {
            Hit::Mime("video/ogg")
        } else {
            Hit::NoMime
        });
    }
    if buf.starts_with(b".snd") && be32(buf, 12).is_some_and(|e| (1..=27).contains(&e)) {
        return mime("audio/basic");
    }
    if buf.starts_with(b"FORM") && (at(buf, 8, b"AIFF") || at(buf, 8, b"AIFC")) {
        return mime("audio/x-aiff");
    }
    if buf.starts_with(b"fLaC") {
        return mime("audio/flac");
    }
    if let Some(hit) = mime_of_mpeg(buf) {
        return Some(hit);
    }
    if buf.starts_with(b"FLV\x01") {
        return mime("video/x-flv");
    }
    if buf.starts_with(b"\x30\x26\xB2\x75\x8E\x66\xCF\x11\xA6\xD9\x00\xAA\x00\x62\xCE\x6C") {
        return mime("video/x-ms-asf");
    }
    if buf.starts_with(b"MThd") {
        return mime("audio/midi");
    }
    None
}

/// MPEG audio frame headers (Magdir/animation's `MPEG ADTS` entries).
fn mime_of_mpeg(buf: &[u8]) -> Option<Hit> {
    let h = be16(buf, 0)?;
    match h & 0xFFFE {
        // layer III v1 names its type only with a valid bitrate nibble
        0xFFFA => {
            let rate = byte(buf, 2)? & 0xF0;
            (rate != 0 && rate != 0xF0).then_some(Hit::Mime("audio/mpeg"))
        }
        0xFFFC | 0xFFF2 | 0xFFF4 | 0xFFF6 | 0xFFE2 => mime("audio/mpeg"),
        _ if h & 0xFFF6 == 0xFFF0 => mime("audio/x-hx-aac-adts"),
        _ => None,
    }
}

/// Magdir/fonts: sfnt (TrueType), OpenType CFF, WOFF, WOFF2.
fn fonts(buf: &[u8], _: bool) -> Option<Hit> {
    if buf.starts_with(b"wOFF") {
        return mime("font/woff");
    }
    if buf.starts_with(b"wOF2") {
        return mime("font/woff2");
    }
    if buf.starts_with(b"\x00\x01\x00\x00") || buf.starts_with(b"true") || buf.starts_with(b"typ1")
    {
        let tag = buf.get(12..16).unwrap_or(&[]);
        let tag_ok = tag.len() == 4
            && tag[0].is_ascii_alphabetic()
            && tag[1].is_ascii_alphabetic()
            && (tag[2].is_ascii_alphabetic() || tag[2] == b'/')
            && (tag[3].is_ascii_alphabetic() || tag[3] == b'2' || tag[3] == b' ');
        return (be16(buf, 4).is_some_and(|n| n < 47) && tag_ok).then_some(Hit::Mime("font/sfnt"));
    }
    if buf.starts_with(b"OTTO") {
        return mime("application/vnd.ms-opentype");
    }
    None
}

/// Magdir/printer (PostScript), rtf, pgp.
fn documents(buf: &[u8], _: bool) -> Option<Hit> {
    if buf.starts_with(b"%!") || buf.starts_with(b"\x04%!") || buf.starts_with(b"\x1B%-12345X%!PS")
    {
        return mime("application/postscript");
    }
    if buf.starts_with(b"{\\rtf") {
        return mime("text/rtf");
    }
    if at(buf, 2, b"---BEGIN PGP PRIVATE KEY BLOCK-")
        || at(buf, 2, b"---BEGIN PGP PUBLIC KEY BLOCK-")
    {
        return mime("application/pgp-keys");
    }
    if buf.starts_with(b"-----BEGIN PGP MESSAGE-") {
        return mime("application/pgp-encrypted");
    }
    if buf.starts_with(b"-----BEGIN PGP SIGNATURE-") {
        return mime("application/pgp-signature");
    }
    None
}

/// Magdir/sql (SQLite 3), pcap.
fn databases(buf: &[u8], _: bool) -> Option<Hit> {
    if buf.starts_with(b"SQLite format 3\x00") {
        return if be16(buf, 16).is_some_and(|s| s > 0) {
            mime("application/vnd.sqlite3")
        } else {
            Some(Hit::NoMime)
        };
    }
    if matches!(
        be32(buf, 0),
        Some(0xA1B2_C3D4 | 0xD4C3_B2A1 | 0xA1B2_3C4D | 0x4D3C_B2A1)
    ) {
        return mime("application/vnd.tcpdump.pcap");
    }
    None
}

/// Magdir/isa-ish: ISO 9660 (`CD001` at 32769).
fn iso9660(buf: &[u8], _: bool) -> Option<Hit> {
    at(buf, 32769, b"CD001").then_some(Hit::Mime("application/x-iso9660-image"))
}

/// Magdir/images Adobe Photoshop colour swatches: a version below 3, a
/// colour count whose entries fit, and colour-space words as the rule reads them.
fn adobe_aco(buf: &[u8], _: bool) -> Option<Hit> {
    let version = be16(buf, 0)?;
    let count = be16(buf, 2)?;
    if version >= 3 || count == 0 || be16(buf, 4)? >= 16 {
        return None;
    }
    be32(buf, usize::from(count) * 10)?;
    let w = |o| be16(buf, o);
    let aco = if w(4)? == 0 {
        w(12)? == 0 && (version < 2 || w(16).is_some_and(|v| v > 0))
    } else if version < 2 {
        w(14).is_some_and(|v| v < 16)
    } else {
        w(14) == Some(0)
    };
    aco.then_some(Hit::Mime("application/x-adobe-aco"))
}

/// Magdir/images Targa (strength -40, so last): a header whose fixed bits
/// are clear, an image type below 34 and a usual pixel depth.
fn targa(buf: &[u8], _: bool) -> Option<Hit> {
    let b = |i| byte(buf, i);
    let head_clear = b(1)? & 0xFE == 0 && b(2)? & 0xC4 == 0 && b(7)? & 0xC0 == 0;
    let descriptor = b(17)?;
    let ok = head_clear
        && descriptor & 0xC0 != 0xC0
        && (1..34).contains(&b(2)?)
        && descriptor & 0x0F != 11
        && matches!(b(16)?, 1 | 8 | 15 | 16 | 24 | 32);
    ok.then_some(Hit::Mime("image/x-tga"))
}
