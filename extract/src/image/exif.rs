//! Whether `img._getexif()` is truthy: Pillow's `Exif` loads the first IFD
//! of the EXIF block (leading `Exif\0\0` prefixes stripped, a TIFF header,
//! then entries of known types whose data can be read, stopping silently at
//! the first short read), and `_get_merged_dict` is non-empty exactly when
//! that IFD kept a tag, unless following its Exif or GPS pointer raises.
//! An XMP `tiff:Orientation` adds a tag when the IFD has none.

/// The byte size of one value of each TIFF type Pillow can load.
fn unit_size(typ: u16) -> Option<u64> {
    match typ {
        1 | 2 | 6 | 7 => Some(1),
        3 | 8 => Some(2),
        4 | 9 | 11 | 13 => Some(4),
        5 | 10 | 12 | 16 => Some(8),
        _ => None,
    }
}

/// One kept tag: its type and raw value bytes.
pub(crate) struct Tag {
    /// The tag number.
    pub(crate) id: u16,
    /// The TIFF type.
    pub(crate) typ: u16,
    /// The value's bytes.
    pub(crate) data: Vec<u8>,
}

/// A TIFF header's byte order and layout.
#[derive(Clone, Copy)]
pub(crate) struct Head {
    /// `MM` byte order.
    pub(crate) big_endian: bool,
    /// Whether offsets and counts are 8 bytes.
    pub(crate) bigtiff: bool,
}

impl Head {
    /// `ImageFileDirectory_v2(ifh)`: the header must be one of Pillow's
    /// prefixes (its BigTIFF test reads the third byte, so only `II+` is big).
    pub(crate) fn parse(ifh: &[u8]) -> Option<(Head, u64)> {
        match Head::parse_any(ifh) {
            Some((head, next)) if !head.bigtiff => Some((head, next)),
            _ => None,
        }
    }

    /// A TIFF file's header: 8 bytes, or 16 when the third byte says BigTIFF.
    pub(crate) fn parse_any(ifh: &[u8]) -> Option<(Head, u64)> {
        const PREFIXES: [&[u8]; 6] = [
            b"MM\x00\x2a",
            b"II\x2a\x00",
            b"MM\x2a\x00",
            b"II\x00\x2a",
            b"MM\x00\x2b",
            b"II\x2b\x00",
        ];
        if !PREFIXES.iter().any(|p| ifh.starts_with(p)) {
            return None;
        }
        let head = Head {
            big_endian: ifh.starts_with(b"MM"),
            bigtiff: ifh.get(2) == Some(&43),
        };
        let next = if head.bigtiff {
            head.u64(ifh.get(8..16)?)
        } else {
            u64::from(head.u32(ifh.get(4..8)?))
        };
        Some((head, next))
    }

    pub(crate) fn u16(self, b: &[u8]) -> u16 {
        let a = [b[0], b[1]];
        if self.big_endian {
            u16::from_be_bytes(a)
        } else {
            u16::from_le_bytes(a)
        }
    }

    pub(crate) fn u32(self, b: &[u8]) -> u32 {
        let a = [b[0], b[1], b[2], b[3]];
        if self.big_endian {
            u32::from_be_bytes(a)
        } else {
            u32::from_le_bytes(a)
        }
    }

    pub(crate) fn u64(self, b: &[u8]) -> u64 {
        let mut a = [0u8; 8];
        a.copy_from_slice(&b[..8]);
        if self.big_endian {
            u64::from_be_bytes(a)
        } else {
            u64::from_le_bytes(a)
        }
    }
}

/// `ImageFileDirectory_v2.load` at `offset`: the tags kept before any short read.
pub(crate) fn load_ifd(data: &[u8], head: Head, offset: u64) -> Vec<Tag> {
    let mut tags: Vec<Tag> = Vec::new();
    let Ok(mut pos) = usize::try_from(offset) else {
        return tags;
    };
    let read = |pos: &mut usize, n: usize| -> Option<&[u8]> {
        let s = data.get(*pos..pos.checked_add(n)?)?;
        *pos += n;
        Some(s)
    };
    let count = if head.bigtiff {
        match read(&mut pos, 8) {
            Some(s) => head.u64(s),
            None => return tags,
        }
    } else {
        match read(&mut pos, 2) {
            Some(s) => u64::from(head.u16(s)),
            None => return tags,
        }
    };
    let entry_size = if head.bigtiff { 20 } else { 12 };
    for _ in 0..count {
        let Some(entry) = read(&mut pos, entry_size) else {
            return tags;
        };
        let id = head.u16(&entry[0..2]);
        let typ = head.u16(&entry[2..4]);
        let (n, inline) = if head.bigtiff {
            (head.u64(&entry[4..12]), &entry[12..20])
        } else {
            (u64::from(head.u32(&entry[4..8])), &entry[8..12])
        };
        let Some(unit) = unit_size(typ) else {
            continue;
        };
        let size = n.saturating_mul(unit);
        let value = if size > inline.len() as u64 {
            let at = if head.bigtiff {
                head.u64(inline)
            } else {
                u64::from(head.u32(inline))
            };
            let (Ok(at), Ok(len)) = (usize::try_from(at), usize::try_from(size)) else {
                return tags;
            };
            match at.checked_add(len).and_then(|end| data.get(at..end)) {
                Some(v) => v.to_vec(),
                // `_safe_read` raises OSError, which ends the load.
                None => return tags,
            }
        } else {
            inline[..size as usize].to_vec()
        };
        if value.is_empty() {
            continue;
        }
        match tags.iter_mut().find(|t| t.id == id) {
            Some(t) => {
                t.typ = typ;
                t.data = value;
            }
            None => tags.push(Tag {
                id,
                typ,
                data: value,
            }),
        }
    }
    tags
}

/// Whether following a pointer tag (Exif 0x8769, GPS 0x8825) would raise:
/// `BytesIO.seek` of a negative number does (a tuple or a float returns None).
fn pointer_raises(tag: &Tag, head: Head) -> bool {
    match tag.typ {
        6 if tag.data.len() == 1 => (tag.data[0] as i8) < 0,
        8 if tag.data.len() == 2 => (head.u16(&tag.data) as i16) < 0,
        9 if tag.data.len() == 4 => (head.u32(&tag.data) as i32) < 0,
        _ => false,
    }
}

/// `bool(Exif.load(data)._get_merged_dict())` for an `exif` info value,
/// with the XMP packet Pillow consults for the orientation.
pub(crate) fn merged_dict_is_truthy(exif: &[u8], xmp: Option<&[u8]>) -> bool {
    let mut data = exif;
    while let Some(rest) = data.strip_prefix(b"Exif\x00\x00".as_slice()) {
        data = rest;
    }
    if data.is_empty() {
        return false;
    }
    // `Exif.load` reads an 8-byte header; a BigTIFF one then fails to unpack
    // its 8-byte offset from nothing, so only classic TIFF headers load.
    let Some((head, next)) = Head::parse(&data[..data.len().min(8)]) else {
        return false;
    };
    let tags = load_ifd(data, head, next);
    for t in &tags {
        if (t.id == 0x8769 || t.id == 0x8825) && pointer_raises(t, head) {
            return false;
        }
    }
    if !tags.is_empty() {
        return true;
    }
    xmp.is_some_and(has_xmp_orientation)
}

/// `re.search(rb'tiff:Orientation(="|>)([0-9])', xmp)`.
fn has_xmp_orientation(xmp: &[u8]) -> bool {
    let needle = b"tiff:Orientation";
    let mut rest = xmp;
    while let Some(i) = memchr::memmem::find(rest, needle) {
        let after = &rest[i + needle.len()..];
        let digit_at = if after.starts_with(b"=\"") {
            2
        } else if after.starts_with(b">") {
            1
        } else {
            rest = &rest[i + 1..];
            continue;
        };
        if after.get(digit_at).is_some_and(u8::is_ascii_digit) {
            return true;
        }
        rest = &rest[i + 1..];
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ifd_le(entries: &[(u16, u16, u32, [u8; 4])]) -> Vec<u8> {
        let mut v = b"Exif\x00\x00II\x2a\x00\x08\x00\x00\x00".to_vec();
        v.extend_from_slice(&(entries.len() as u16).to_le_bytes());
        for (tag, typ, count, data) in entries {
            v.extend_from_slice(&tag.to_le_bytes());
            v.extend_from_slice(&typ.to_le_bytes());
            v.extend_from_slice(&count.to_le_bytes());
            v.extend_from_slice(data);
        }
        v.extend_from_slice(&[0; 4]);
        v
    }

    #[test]
    fn a_tag_makes_it_truthy_an_empty_ifd_does_not() {
        assert!(merged_dict_is_truthy(
            &ifd_le(&[(0x0112, 3, 1, [1, 0, 0, 0])]),
            None
        ));
        assert!(!merged_dict_is_truthy(&ifd_le(&[]), None));
        assert!(!merged_dict_is_truthy(b"Exif\x00\x00", None));
        assert!(!merged_dict_is_truthy(
            b"Exif\x00\x00XX\x2a\x00\x08\x00\x00\x00",
            None
        ));
    }

    #[test]
    fn unknown_types_empty_counts_and_unreadable_data_are_skipped() {
        assert!(!merged_dict_is_truthy(&ifd_le(&[(1, 99, 1, [0; 4])]), None));
        assert!(!merged_dict_is_truthy(&ifd_le(&[(1, 3, 0, [0; 4])]), None));
        // 100 longs at offset 0xffff: a short read ends the load.
        assert!(!merged_dict_is_truthy(
            &ifd_le(&[(1, 4, 100, [0xff, 0xff, 0, 0])]),
            None
        ));
    }

    #[test]
    fn a_negative_exif_pointer_raises_and_xmp_orientation_counts() {
        assert!(!merged_dict_is_truthy(
            &ifd_le(&[(0x8769, 9, 1, [0, 0, 0, 0x80])]),
            None
        ));
        assert!(merged_dict_is_truthy(
            &ifd_le(&[]),
            Some(b"<x tiff:Orientation=\"6\"/>")
        ));
        assert!(!merged_dict_is_truthy(
            &ifd_le(&[]),
            Some(b"tiff:Orientation=\"x\"")
        ));
    }
}
