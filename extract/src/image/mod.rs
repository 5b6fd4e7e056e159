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

/// `Image.MAX_IMAGE_PIXELS`: past twice this Pillow refuses to open an image.
pub(crate) const MAX_IMAGE_PIXELS: u64 = 1024 * 1024 * 1024 / 4 / 3;

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
) -> Result<Extracted, DocumentError> {
    let opened = open(bytes, limits).map_err(|e| DocumentError::failed(Subject::Image, e))?;
    let prepared = prepare::prepare(bytes, &opened, extension_mime(extension), limits);
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
