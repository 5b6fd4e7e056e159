//! WebP as Pillow 12's `WebPImagePlugin` opens and loads it through
//! libwebp's animation decoder: the RIFF form and a VP8, VP8L or VP8X first
//! chunk; the mode `RGBA` when `WebPGetFeatures` reports alpha (the VP8X
//! flag, the VP8L header bit), else `RGB`; the canvas size; the frame count;
//! EXIF and XMP from their chunks; and the first frame decoded (here by the
//! `image` crate's WebP decoder) to refuse what libwebp cannot read.

use super::Opened;
use crate::limits::Limits;

fn le24(s: &[u8], at: usize) -> Option<u32> {
    s.get(at..at + 3)
        .map(|b| u32::from(b[0]) | u32::from(b[1]) << 8 | u32::from(b[2]) << 16)
}

fn le32(s: &[u8], at: usize) -> Option<u32> {
    s.get(at..at + 4)
        .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
}

/// The chunks of a RIFF WEBP body: `(fourcc, data)`, stopping at the first that does not fit.
fn chunks(body: &[u8]) -> Vec<(&[u8], &[u8])> {
    let mut out = Vec::new();
    let mut pos = 0usize;
    while let (Some(tag), Some(size)) = (body.get(pos..pos + 4), le32(body, pos + 4)) {
        let start = pos + 8;
        let Some(end) = start.checked_add(size as usize) else {
            break;
        };
        let Some(data) = body.get(start..end) else {
            break;
        };
        out.push((tag, data));
        pos = end + (size as usize & 1);
    }
    out
}

/// `WebPGetFeatures`' width, height and alpha of a frame's bitstream chunk.
fn bitstream_features(tag: &[u8], data: &[u8]) -> Option<(u32, u32, bool)> {
    match tag {
        b"VP8 " => {
            if data.get(3..6)? != [0x9d, 0x01, 0x2a] {
                return None;
            }
            let w = u32::from(u16::from_le_bytes([*data.get(6)?, *data.get(7)?]) & 0x3fff);
            let h = u32::from(u16::from_le_bytes([*data.get(8)?, *data.get(9)?]) & 0x3fff);
            Some((w, h, false))
        }
        b"VP8L" => {
            if *data.first()? != 0x2f {
                return None;
            }
            let bits = le32(data, 1)?;
            let w = (bits & 0x3fff) + 1;
            let h = ((bits >> 14) & 0x3fff) + 1;
            Some((w, h, (bits >> 28) & 1 == 1))
        }
        _ => None,
    }
}

/// Opens and loads a WebP: `Ok(None)` when the WebP plugin does not take it.
pub(crate) fn read(bytes: &[u8], limits: &Limits) -> Result<Option<Opened>, String> {
    let prefix = &bytes[..bytes.len().min(16)];
    if !(prefix.starts_with(b"RIFF")
        && prefix.get(8..12) == Some(b"WEBP")
        && matches!(prefix.get(12..16), Some(b"VP8 " | b"VP8X" | b"VP8L")))
    {
        return Ok(None);
    }
    let refuse =
        || "could not create the WebP decoder: the file is not a readable WebP".to_string();
    let riff_size = le32(bytes, 4).ok_or_else(refuse)? as usize;
    // The RIFF size must be even-sized data that is all there.
    let Some(end) = riff_size.checked_add(8) else {
        return Err(refuse());
    };
    if riff_size < 12 || bytes.len() < end {
        return Err(refuse());
    }
    let body = &bytes[12..end];
    let list = chunks(body);
    let Some(&(first, first_data)) = list.first() else {
        return Err(refuse());
    };
    let (width, height, alpha, frames, exif, xmp) = if first == b"VP8X" {
        let flags = *first_data.first().ok_or_else(refuse)?;
        let w = le24(first_data, 4).ok_or_else(refuse)? + 1;
        let h = le24(first_data, 7).ok_or_else(refuse)? + 1;
        let animated = flags & 0x02 != 0;
        let frames = if animated {
            list.iter().filter(|(t, _)| *t == b"ANMF").count() as u64
        } else {
            1
        };
        let find = |tag: &[u8]| {
            list.iter()
                .find(|(t, d)| *t == tag && !d.is_empty())
                .map(|(_, d)| d.to_vec())
        };
        (
            w,
            h,
            flags & 0x10 != 0,
            frames,
            find(b"EXIF"),
            find(b"XMP "),
        )
    } else {
        let (w, h, alpha) = bitstream_features(first, first_data).ok_or_else(refuse)?;
        (w, h, alpha, 1, None, None)
    };
    if frames == 0 {
        return Err(refuse());
    }
    super::bomb_check(width, height, limits)?;
    let pixels = u64::from(width) * u64::from(height) * 4;
    if pixels <= limits.max_image_decode_bytes {
        let decoder = image::codecs::webp::WebPDecoder::new(std::io::Cursor::new(bytes))
            .map_err(|e| format!("could not create the WebP decoder: {e}"))?;
        let mut buf =
            vec![0u8; usize::try_from(image::ImageDecoder::total_bytes(&decoder)).unwrap_or(0)];
        image::ImageDecoder::read_image(decoder, &mut buf)
            .map_err(|e| format!("failed to read the first WebP frame: {e}"))?;
    }
    let has_exif = exif
        .as_deref()
        .is_some_and(|e| super::exif::merged_dict_is_truthy(e, xmp.as_deref()));
    Ok(Some(Opened {
        format: "WEBP",
        mode: if alpha { "RGBA" } else { "RGB" },
        width,
        height,
        has_exif,
        n_frames: frames,
        reload_fails: false,
    }))
}
