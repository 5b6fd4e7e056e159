//! Images as the reference prepares them (Pillow 12 opens and fully loads
//! the file; `prepare_image_bytes_for_model` converts and resizes to a long
//! edge of at most 1 568 pixels): the metadata text and the prepared image.
//!
//! Pillow opens by content, not by extension: each plugin this module
//! knows (BMP, GIF, JPEG/MPO, PNG, WebP, TIFF, in Pillow's order) is asked in
//! turn; the first that takes the file names its format and mode, the
//! decompression-bomb check runs on its size, and the whole first frame is
//! decoded (without keeping pixels) to refuse what `img.load()` refuses.
//! The prepared image is then decided by the extension's MIME type, as the
//! reference decides it, and made with the `image` crate.

mod bmp;
mod cursor;
mod exif;
mod gif;
mod jpeg;
mod png;
mod prepare;
mod tiff;
mod webp;

use crate::error::{DocumentError, Subject};
use crate::limits::Limits;
use crate::record::Extracted;
use std::fmt::Write;

/// What opening and loading an image told: `img.format`, `img.mode`,
/// `img.size`, whether `_getexif()` was truthy, and `n_frames`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Opened {
    /// `img.format` (`PNG`, `JPEG`, `MPO`, …).
    pub(crate) format: &'static str,
    /// `img.mode` (`RGB`, `P`, `I;16`, …).
    pub(crate) mode: &'static str,
    /// Width in pixels.
    pub(crate) width: u32,
    /// Height in pixels.
    pub(crate) height: u32,
    /// Whether the EXIF note is written.
    pub(crate) has_exif: bool,
    /// Frames in the file (1 for still images; 0 when counting them raises).
    pub(crate) n_frames: u64,
    /// Whether a fresh `load()` raises (a PNG decoder error that the parse
    /// survived because `_getexif` had loaded first): the prepare step then
    /// keeps the upload.
    pub(crate) reload_fails: bool,
}

/// `Image._decompression_bomb_check`: `Err` past the limit (the reference's is
/// twice `MAX_IMAGE_PIXELS`; `Limits::max_image_pixels` may lower it).
pub(crate) fn bomb_check(width: u32, height: u32, limits: &Limits) -> Result<(), String> {
    let pixels = u64::from(width.max(1)) * u64::from(height.max(1));
    let limit = limits.max_image_pixels;
    if pixels > limit {
        return Err(format!(
            "Image size ({pixels} pixels) exceeds limit of {limit} pixels, could be decompression bomb DOS attack."
        ));
    }
    Ok(())
}

/// One plugin: `Ok(None)` when it does not take the file.
type Plugin = fn(&[u8], &Limits) -> Result<Option<Opened>, String>;

/// The plugins in the order `Image.open` tries them.
const PLUGINS: [Plugin; 6] = [
    bmp::read,
    gif::read,
    jpeg::read,
    png::read,
    tiff::read,
    webp::read,
];

/// `Image.open` then `img.load()`: the opened image or Pillow's refusal.
pub(crate) fn open(bytes: &[u8], limits: &Limits) -> Result<Opened, String> {
    for plugin in PLUGINS {
        if let Some(opened) = plugin(bytes, limits)? {
            return Ok(opened);
        }
    }
    Err("cannot identify image file: no image plugin takes its content".into())
}

/// The MIME type the reference's table gives an image extension.
fn extension_mime(extension: &str) -> &'static str {
    match extension {
        ".jpg" | ".jpeg" => "image/jpeg",
        ".png" => "image/png",
        ".gif" => "image/gif",
        ".bmp" => "image/bmp",
        ".webp" => "image/webp",
        ".tif" | ".tiff" => "image/tiff",
        _ => "application/octet-stream",
    }
}

/// Parses an image upload with its lower-cased extension: the metadata text
/// (format, prepared size, mode, bytes, EXIF note) and the prepared image.
pub(crate) fn parse(
    bytes: &[u8],
    extension: &str,
    limits: &Limits,
    make_bytes: bool,
) -> Result<Extracted, DocumentError> {
    let opened = open(bytes, limits).map_err(|e| DocumentError::failed(Subject::Image, e))?;
    let prepared = prepare::prepare(
        bytes,
        &opened,
        extension_mime(extension),
        limits,
        make_bytes,
    );
    let mut text = String::from("[图片文件]\n");
    let _ = write!(
        text,
        "格式: {}\n尺寸: {} x {} 像素\n颜色模式: {}\n文件大小: {} 字节",
        opened.format,
        prepared.width,
        prepared.height,
        opened.mode,
        bytes.len()
    );
    if opened.has_exif {
        text.push_str("\n\n[EXIF 信息]\n包含 EXIF 元数据");
    }
    let mut extracted = Extracted::text(text);
    extracted.image = Some(prepared);
    Ok(extracted)
}

// The fixtures are encoded with the image crate's encoders.
#[cfg(all(test, feature = "image-encoders"))]
mod tests {
    use super::*;

    fn encode(img: image::DynamicImage, format: image::ImageFormat) -> Vec<u8> {
        let mut out = std::io::Cursor::new(Vec::new());
        img.write_to(&mut out, format).expect("encodes in memory");
        out.into_inner()
    }

    fn opened(bytes: &[u8]) -> Result<Opened, String> {
        open(bytes, &Limits::default())
    }

    #[test]
    fn each_plugin_names_its_format_and_mode() {
        let rgb = image::DynamicImage::new_rgb8(5, 3);
        let grey = image::DynamicImage::new_luma8(5, 3);
        let rgba = image::DynamicImage::new_rgba8(5, 3);
        for (bytes, format, mode) in [
            (encode(rgb.clone(), image::ImageFormat::Png), "PNG", "RGB"),
            (encode(grey.clone(), image::ImageFormat::Png), "PNG", "L"),
            (encode(rgba.clone(), image::ImageFormat::Png), "PNG", "RGBA"),
            (encode(rgb.clone(), image::ImageFormat::Jpeg), "JPEG", "RGB"),
            (encode(grey.clone(), image::ImageFormat::Jpeg), "JPEG", "L"),
            (encode(rgb.clone(), image::ImageFormat::Bmp), "BMP", "RGB"),
            (
                encode(rgba.clone(), image::ImageFormat::WebP),
                "WEBP",
                "RGBA",
            ),
        ] {
            let o = opened(&bytes).unwrap_or_else(|e| panic!("{format}: {e}"));
            assert_eq!((o.format, o.mode, o.width, o.height), (format, mode, 5, 3));
        }
        let gif = encode(rgb, image::ImageFormat::Gif);
        let o = opened(&gif).expect("a GIF");
        assert_eq!((o.format, o.width, o.height, o.n_frames), ("GIF", 5, 3, 1));
    }

    #[test]
    fn truncated_and_unknown_files_are_refused() {
        let png = encode(
            image::DynamicImage::new_rgb8(40, 40),
            image::ImageFormat::Png,
        );
        assert!(opened(&png[..png.len() / 2]).is_err());
        let jpeg = encode(
            image::DynamicImage::new_rgb8(64, 64),
            image::ImageFormat::Jpeg,
        );
        assert!(opened(&jpeg[..jpeg.len() / 2]).is_err());
        let err = parse(
            b"<svg xmlns='http://www.w3.org/2000/svg'/>",
            ".png",
            &Limits::default(),
            true,
        )
        .expect_err("not an image");
        assert_eq!(err.fixed_part(), "Failed to parse image: ");
    }

    #[test]
    fn bombs_are_refused_before_any_pixel_is_allocated() {
        // A PNG claiming 100 000 × 100 000 pixels with a few bytes of data.
        let chunk = |kind: &[u8], data: &[u8]| {
            let mut c = (data.len() as u32).to_be_bytes().to_vec();
            c.extend_from_slice(kind);
            c.extend_from_slice(data);
            let mut crc = crc32fast::Hasher::new();
            crc.update(kind);
            crc.update(data);
            c.extend_from_slice(&crc.finalize().to_be_bytes());
            c
        };
        let ihdr = [
            &100_000u32.to_be_bytes()[..],
            &100_000u32.to_be_bytes()[..],
            &[8, 2, 0, 0, 0],
        ]
        .concat();
        let png = [
            &b"\x89PNG\r\n\x1a\n"[..],
            &chunk(b"IHDR", &ihdr),
            &chunk(b"IDAT", b"x\x9c\x03\0\0\0\0\x01"),
            &chunk(b"IEND", b""),
        ]
        .concat();
        let started = std::time::Instant::now();
        let err = opened(&png).expect_err("a bomb");
        assert!(err.contains("decompression bomb"), "{err}");
        assert!(started.elapsed().as_millis() < 1000);
        // A GIF whose screen is 65 535 × 65 535.
        let gif = b"GIF89a\xff\xff\xff\xff\x00\x00\x00,\x00\x00\x00\x00\x01\x00\x01\x00\x00\x02\x02D\x01\x00;";
        assert!(opened(gif)
            .expect_err("a bomb")
            .contains("decompression bomb"));
        // A lower limit applies to any format.
        let limits = Limits {
            max_image_pixels: 10,
            ..Limits::default()
        };
        let small = encode(image::DynamicImage::new_rgb8(4, 4), image::ImageFormat::Png);
        assert!(open(&small, &limits).is_err());
    }

    #[test]
    fn the_prepared_image_follows_the_extension() {
        let limits = Limits::default();
        let bmp = encode(image::DynamicImage::new_rgb8(6, 4), image::ImageFormat::Bmp);
        let parsed = parse(&bmp, ".bmp", &limits, true).expect("a BMP");
        let img = parsed.image.expect("an image");
        assert_eq!(
            (img.mime_type.as_str(), img.width, img.height, img.resized),
            ("image/png", 6, 4, true)
        );
        assert!(img.data.starts_with(b"\x89PNG"));
        assert_eq!(
            parsed.text,
            format!(
                "[图片文件]\n格式: BMP\n尺寸: 6 x 4 像素\n颜色模式: RGB\n文件大小: {} 字节",
                bmp.len()
            )
        );
        let wide = encode(
            image::DynamicImage::new_rgb8(3000, 10),
            image::ImageFormat::Png,
        );
        let img = parse(&wide, ".jpg", &limits, true)
            .expect("a PNG named .jpg")
            .image
            .expect("an image");
        assert_eq!(
            (img.mime_type.as_str(), img.width, img.height, img.resized),
            ("image/jpeg", 1568, 5, true)
        );
        assert!(img.data.starts_with(b"\xff\xd8"));
        let small = encode(
            image::DynamicImage::new_rgb8(30, 10),
            image::ImageFormat::Png,
        );
        let img = parse(&small, ".png", &limits, true)
            .expect("a PNG")
            .image
            .expect("an image");
        assert_eq!((img.resized, img.data == small), (false, true));
    }

    /// A deterministic stream of mutations over encoded images: no input
    /// panics, and the parse answers within the limits.
    #[test]
    fn mutated_images_never_panic() {
        let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        let base = image::DynamicImage::new_rgba8(23, 17);
        let grey = image::DynamicImage::new_luma8(9, 31);
        let mut samples = Vec::new();
        for format in [
            image::ImageFormat::Png,
            image::ImageFormat::Jpeg,
            image::ImageFormat::Gif,
            image::ImageFormat::Bmp,
            image::ImageFormat::WebP,
        ] {
            let img = if format == image::ImageFormat::Jpeg {
                image::DynamicImage::ImageRgb8(base.to_rgb8())
            } else {
                base.clone()
            };
            samples.push(encode(img, format));
            if format != image::ImageFormat::Gif {
                samples.push(encode(grey.clone(), format));
            }
        }
        samples.push(b"II*\x00\x08\x00\x00\x00\x03\x00\x00\x01\x03\x00\x01\x00\x00\x00\x04\x00\x00\x00\x01\x01\x03\x00\x01\x00\x00\x00\x04\x00\x00\x00\x11\x01\x04\x00\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00".to_vec());
        let exts = [".png", ".jpg", ".gif", ".bmp", ".webp", ".tif"];
        for round in 0..2000 {
            let mut bytes = samples[round % samples.len()].clone();
            for _ in 0..1 + next() % 4 {
                if bytes.is_empty() {
                    break;
                }
                let at = (next() as usize) % bytes.len();
                match next() % 4 {
                    0 => bytes[at] ^= 1 << (next() % 8),
                    1 => bytes.truncate(at),
                    2 => bytes[at] = 0xff,
                    _ => bytes.insert(at, (next() % 256) as u8),
                }
            }
            let ext = exts[(next() as usize) % exts.len()];
            if let Ok(parsed) = parse(&bytes, ext, &Limits::default(), true) {
                assert!(parsed.image.is_some());
            }
        }
    }
}
