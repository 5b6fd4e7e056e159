//! The zip rules of libmagic 5.44: Magdir/msooxml (the strongest: OOXML by
//! member names), Magdir/archive (APK, the `mimetype` member of
//! ODF/EPUB/OpenOffice, JAR by its 0xCAFE extra field) and the generic
//! `Zip archive data`.

use super::binary::{at, byte, le16, le32, mime, search};
use super::Hit;

/// The name of the zip entry whose local header is at `header`.
fn entry_name(buf: &[u8], header: usize) -> &[u8] {
    let len = le16(buf, header + 26).map_or(0, usize::from);
    buf.get(header + 30..)
        .map_or(&[], |rest| rest.get(..len).unwrap_or(rest))
}

/// Magdir/msooxml's `msooxml` test on a name.
fn ooxml_kind(name: &[u8]) -> Option<&'static str> {
    if name.starts_with(b"word/") {
        Some("application/vnd.openxmlformats-officedocument.wordprocessingml.document")
    } else if name.starts_with(b"ppt/") {
        Some("application/vnd.openxmlformats-officedocument.presentationml.presentation")
    } else if name.starts_with(b"xl/") {
        Some("application/vnd.openxmlformats-officedocument.spreadsheetml.sheet")
    } else if name.starts_with(b"visio/") {
        Some("application/vnd.ms-visio.drawing.main+xml")
    } else if name.starts_with(b"AppManifest.xaml") {
        Some("application/x-silverlight-app")
    } else {
        None
    }
}

/// The zip rules of Magdir/msooxml (strongest), archive (APK, JAR, the
/// `mimetype` member of ODF/EPUB) and the generic `Zip archive data`.
pub(super) fn zip(buf: &[u8], _: bool) -> Option<Hit> {
    if buf.starts_with(b"PK\x05\x06") {
        return mime("application/zip");
    }
    if buf.starts_with(b"PK00PK\x03\x04") {
        return mime("application/zip");
    }
    if !buf.starts_with(b"PK\x03\x04") {
        return None;
    }
    // msooxml: the first member's name, else (first member a package part)
    // the members found by three successive searches from its data's end
    // (the second member is skipped over: each search starts 26 bytes past
    // the previous match).
    if let Some(kind) = ooxml_kind(entry_name(buf, 0)) {
        return mime(kind);
    }
    let first = entry_name(buf, 0);
    let package_part = [
        &b"[Content_Types].xml"[..],
        b"_rels/.rels",
        b"docProps",
        b"customXml",
    ]
    .iter()
    .any(|p| memchr::memmem::find(first, p).is_some());
    if package_part {
        let start = le32(buf, 18).map(|c| c as usize + 49);
        if let Some(second) = start.and_then(|s| search(buf, s, 6000, b"PK\x03\x04")) {
            let mut from = second + 26;
            for _ in 0..3 {
                let Some(next) = search(buf, from, 6000, b"PK\x03\x04") else {
                    break;
                };
                let header = next - 4;
                if let Some(kind) = ooxml_kind(entry_name(buf, header)) {
                    return mime(kind);
                }
                from = next + 26;
            }
        }
    }
    // archive: APK and JAR
    let name_len = le16(buf, 26);
    let name = entry_name(buf, 0);
    if name_len == Some(19) && name.starts_with(b"AndroidManifest.xml")
        || name_len == Some(11) && name.starts_with(b"classes.dex")
    {
        return mime("application/vnd.android.package-archive");
    }
    // (the MANIFEST.MF tests read at offsets from the end, which a buffer
    // handed to magic_buffer does not have: they never match)
    // archive: a first member `mimetype` holding the type
    if at(buf, 26, b"\x08\x00\x00\x00mimetypeapplication/") {
        let sub = buf.get(50..).unwrap_or(&[]);
        if sub.starts_with(b"vnd.oasis.opendocument.") {
            let kind = buf.get(73..).unwrap_or(&[]);
            for (name, mime_type) in ODF_KINDS {
                if kind.starts_with(name) {
                    let after = byte(buf, 73 + name.len());
                    if after == Some(b'-') {
                        if at(buf, 73 + name.len(), b"-template") {
                            return mime(
                                ODF_TEMPLATES
                                    .iter()
                                    .find(|(n, _)| *n == name)
                                    .map_or(mime_type, |&(_, t)| t),
                            );
                        }
                        return Some(Hit::NoMime);
                    }
                    return mime(mime_type);
                }
            }
            return Some(Hit::NoMime);
        }
        if sub.starts_with(b"epub+zip") {
            return mime("application/epub+zip");
        }
        return mime("application/zip");
    }
    let cafe = le16(buf, 26)
        .and_then(|n| le16(buf, usize::from(n) + 30))
        .is_some_and(|v| v == 0xCAFE);
    if cafe {
        return mime("application/java-archive");
    }
    mime("application/zip")
}

/// OpenDocument kinds after `vnd.oasis.opendocument.` (their plain MIME types).
const ODF_KINDS: [(&[u8], &str); 7] = [
    (b"text", "application/vnd.oasis.opendocument.text"),
    (b"graphics", "application/vnd.oasis.opendocument.graphics"),
    (
        b"presentation",
        "application/vnd.oasis.opendocument.presentation",
    ),
    (
        b"spreadsheet",
        "application/vnd.oasis.opendocument.spreadsheet",
    ),
    (b"chart", "application/vnd.oasis.opendocument.chart"),
    (b"formula", "application/vnd.oasis.opendocument.formula"),
    (b"image", "application/vnd.oasis.opendocument.image"),
];

/// Their `-template` variants.
const ODF_TEMPLATES: [(&[u8], &str); 7] = [
    (b"text", "application/vnd.oasis.opendocument.text-template"),
    (
        b"graphics",
        "application/vnd.oasis.opendocument.graphics-template",
    ),
    (
        b"presentation",
        "application/vnd.oasis.opendocument.presentation-template",
    ),
    (
        b"spreadsheet",
        "application/vnd.oasis.opendocument.spreadsheet-template",
    ),
    (
        b"chart",
        "application/vnd.oasis.opendocument.chart-template",
    ),
    (
        b"formula",
        "application/vnd.oasis.opendocument.formula-template",
    ),
    (
        b"image",
        "application/vnd.oasis.opendocument.image-template",
    ),
];
