//! `prepare_image_bytes_for_model` with the extension's MIME type: bytes
//! kept as they are unless the long edge is over 1 568 pixels or the type
//! is converted (BMP and TIFF become PNG; an animated GIF that must be
//! re-encoded becomes PNG); a resize is `thumbnail((1568, 1568))`'s size;
//! a mode the output format cannot take keeps the upload unchanged, as the
//! reference's caught exception does. The bytes are made with the `image`
//! crate (Lanczos3); when it cannot decode what Pillow can, or the pixels
//! would pass `Limits::max_image_decode_bytes`, a blank canvas of the right
//! size and type stands in.

use super::Opened;
use crate::limits::Limits;
use crate::record::PreparedImage;

/// `MAX_MODEL_IMAGE_LONG_EDGE`.
pub(crate) const MAX_LONG_EDGE: u32 = 1568;

/// The output formats of `_MIME_OUTPUTS`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Output {
    Png,
    Jpeg,
    Gif,
    Webp,
}

impl Output {
    fn mime(self) -> &'static str {
        match self {
            Output::Png => "image/png",
            Output::Jpeg => "image/jpeg",
            Output::Gif => "image/gif",
            Output::Webp => "image/webp",
        }
    }

    /// `_resolve_output`: unknown types become PNG.
    fn of(mime: &str) -> Output {
        match mime {
            "image/jpeg" | "image/jpg" => Output::Jpeg,
            "image/gif" => Output::Gif,
            "image/webp" => Output::Webp,
            _ => Output::Png,
        }
    }

    /// Whether `_normalize_mode_for_output` and the save succeed for a mode.
    fn takes(self, mode: &str) -> bool {
        match self {
            Output::Png => !matches!(
                mode,
                "La" | "PA" | "RGBa" | "RGBX" | "YCbCr" | "LAB" | "HSV" | "I;16L" | "I;16N" | "F"
            ),
            Output::Jpeg | Output::Webp => mode != "La",
            Output::Gif => !matches!(
                mode,
                "La" | "PA" | "RGBa" | "RGBX" | "CMYK" | "YCbCr" | "LAB" | "HSV"
            ),
        }
    }
}

/// `Image.thumbnail`'s size for a box of `edge` × `edge` (`preserve_aspect_ratio`).
pub(crate) fn thumbnail_size(width: u32, height: u32, edge: u32) -> (u32, u32) {
    let (w, h) = (f64::from(width), f64::from(height));
    let (x, y) = (f64::from(edge), f64::from(edge));
    if x >= w && y >= h {
        return (width, height);
    }
    let aspect = w / h;
    // `round_aspect`: of floor and ceil, the one the key ranks lower (floor on ties), at least 1.
    let round = |number: f64, key: &dyn Fn(f64) -> f64| -> u32 {
        let (lo, hi) = (number.floor(), number.ceil());
        let pick = if key(hi) < key(lo) { hi } else { lo };
        pick.max(1.0) as u32
    };
    if x / y >= aspect {
        let nx = round(y * aspect, &|n| (aspect - n / y).abs());
        (nx, edge)
    } else {
        let ny = round(x / aspect, &|n| {
            if n == 0.0 {
                0.0
            } else {
                (aspect - x / n).abs()
            }
        });
        (edge, ny)
    }
}

/// The prepared image for an opened upload whose extension has `mime`; with
/// `make_bytes` false (or without the `image-encoders` feature) its type,
/// size and `resized` flag only, and no bytes.
pub(crate) fn prepare(
    bytes: &[u8],
    opened: &Opened,
    mime: &str,
    limits: &Limits,
    make_bytes: bool,
) -> PreparedImage {
    let input_mime = mime.to_ascii_lowercase();
    let make_bytes = make_bytes && cfg!(feature = "image-encoders");
    let unchanged = || PreparedImage {
        mime_type: input_mime.clone(),
        width: opened.width,
        height: opened.height,
        resized: false,
        data: if make_bytes {
            bytes.to_vec()
        } else {
            Vec::new()
        },
    };
    let mut output = Output::of(&input_mime);
    let needs_resize = opened.width.max(opened.height) > MAX_LONG_EDGE;
    let needs_convert = output.mime() != input_mime;
    if !needs_resize && !needs_convert {
        return unchanged();
    }
    if output == Output::Gif {
        if opened.n_frames == 0 {
            // Counting the frames raised: the exception is caught, the upload kept.
            return unchanged();
        }
        if opened.n_frames > 1 {
            output = Output::Png;
        }
    }
    if opened.reload_fails {
        return unchanged();
    }
    if !output.takes(opened.mode) {
        return unchanged();
    }
    let (width, height) = if needs_resize {
        thumbnail_size(opened.width, opened.height, MAX_LONG_EDGE)
    } else {
        (opened.width, opened.height)
    };
    if !make_bytes {
        // A conversion or a resize re-encodes: the bytes differ from the upload's.
        return PreparedImage {
            mime_type: output.mime().to_string(),
            width,
            height,
            resized: true,
            data: Vec::new(),
        };
    }
    let data = encode(bytes, output, width, height, limits);
    PreparedImage {
        mime_type: output.mime().to_string(),
        width,
        height,
        resized: data != bytes,
        data,
    }
}

/// Without the encoders the bytes are never made (see `prepare`).
#[cfg(not(feature = "image-encoders"))]
fn encode(_: &[u8], _: Output, _: u32, _: u32, _: &Limits) -> Vec<u8> {
    Vec::new()
}

/// Decodes, resizes and encodes; a blank canvas when the pixels cannot be
/// had. Pixels go through 8-bit RGBA only (one resize and one encoder
/// instantiation each), which keeps the browser build small.
#[cfg(feature = "image-encoders")]
fn encode(bytes: &[u8], output: Output, width: u32, height: u32, limits: &Limits) -> Vec<u8> {
    use image::ImageEncoder;
    let rgba = match decode(bytes, limits) {
        Some(img) => {
            let rgba = img.into_rgba8();
            if rgba.width() == width && rgba.height() == height {
                rgba
            } else {
                image::imageops::resize(&rgba, width, height, image::imageops::FilterType::Lanczos3)
            }
        }
        None => image::RgbaImage::from_pixel(width, height, image::Rgba([0, 0, 0, 255])),
    };
    let mut out = Vec::new();
    let written = match output {
        Output::Png => image::codecs::png::PngEncoder::new(&mut out).write_image(
            rgba.as_raw(),
            width,
            height,
            image::ExtendedColorType::Rgba8,
        ),
        Output::Jpeg => {
            let rgb = flatten_on_white(&rgba);
            image::codecs::jpeg::JpegEncoder::new_with_quality(&mut out, 85).write_image(
                rgb.as_raw(),
                width,
                height,
                image::ExtendedColorType::Rgb8,
            )
        }
        Output::Gif => image::codecs::gif::GifEncoder::new(&mut out).encode(
            rgba.as_raw(),
            width,
            height,
            image::ExtendedColorType::Rgba8,
        ),
        Output::Webp => image::codecs::webp::WebPEncoder::new_lossless(&mut out).write_image(
            rgba.as_raw(),
            width,
            height,
            image::ExtendedColorType::Rgba8,
        ),
    };
    match written {
        Ok(()) => out,
        Err(_) => Vec::new(),
    }
}

/// The upload's first frame as the `image` crate decodes it, within the pixel budget.
#[cfg(feature = "image-encoders")]
fn decode(bytes: &[u8], limits: &Limits) -> Option<image::DynamicImage> {
    let mut reader = image::ImageReader::new(std::io::Cursor::new(bytes))
        .with_guessed_format()
        .ok()?;
    let mut l = image::Limits::default();
    l.max_alloc = Some(limits.max_image_decode_bytes);
    reader.limits(l);
    reader.decode().ok()
}

/// `_normalize_mode_for_output(…, "JPEG")`: alpha composited over white.
#[cfg(feature = "image-encoders")]
fn flatten_on_white(rgba: &image::RgbaImage) -> image::RgbImage {
    let mut out = image::RgbImage::new(rgba.width(), rgba.height());
    for (dst, src) in out.pixels_mut().zip(rgba.pixels()) {
        let a = u16::from(src[3]);
        for c in 0..3 {
            let v = (u16::from(src[c]) * a + 255 * (255 - a) + 127) / 255;
            dst[c] = u8::try_from(v).unwrap_or(255);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thumbnail_sizes_follow_pillows_rounding() {
        assert_eq!(thumbnail_size(1568, 1005, 1568), (1568, 1005));
        assert_eq!(thumbnail_size(1569, 100, 1568), (1568, 100));
        assert_eq!(thumbnail_size(20, 1844, 1568), (17, 1568));
        assert_eq!(thumbnail_size(100000, 1, 1568), (1568, 1));
        assert_eq!(thumbnail_size(3000, 3000, 1568), (1568, 1568));
    }
}
