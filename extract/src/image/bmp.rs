//! BMP (and headerless DIB) as Pillow 12's `BmpImagePlugin` opens and
//! loads it: the info header (core, or one of the Windows sizes; a negative
//! height is top-down), the mode from the bit depth and bit fields (`P`, or
//! `1`/`L` when the palette is a grey ramp; `RGBA` for alpha masks), the
//! unsupported depths, layouts and compressions refused, and the pixel data
//! checked to be all there (raw rows, or RLE runs that produce every pixel).

use super::cursor::Cursor;
use super::Opened;
use crate::limits::Limits;

fn le16(s: &[u8], at: usize) -> Option<u32> {
    s.get(at..at + 2)
        .map(|b| u32::from(u16::from_le_bytes([b[0], b[1]])))
}

fn le32(s: &[u8], at: usize) -> Option<u32> {
    s.get(at..at + 4)
        .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
}

/// A caught failure (`struct.error`, `IndexError`: the plugin gives up) or another.
enum Raise {
    Syntax,
    Other(String),
}

fn syntax<T>(v: Option<T>) -> Result<T, Raise> {
    v.ok_or(Raise::Syntax)
}

/// What `_bitmap` decided.
struct Bitmap {
    width: u32,
    height: u32,
    mode: &'static str,
    /// Bits per pixel of the raw mode the rows are unpacked with.
    raw_bits: u64,
    /// Bytes per stored row.
    stride: u64,
    /// `Some(rle4)` for the RLE decoder.
    rle: Option<bool>,
    offset: usize,
}

/// `BmpImageFile._bitmap(header, offset)`.
fn bitmap(fp: &mut Cursor, header: usize, offset: u32) -> Result<Bitmap, Raise> {
    if header != 0 {
        fp.seek(header);
    }
    let header_size = syntax(le32(fp.read(4), 0))?;
    let data = fp
        .safe_read(i64::from(header_size) - 4)
        .ok_or_else(|| Raise::Other("truncated file read".into()))?;
    let (width, height, bits, compression, colors, padding);
    let mut masks: Option<(u32, u32, u32, u32)> = None;
    match header_size {
        12 => {
            width = syntax(le16(data, 0))?;
            height = syntax(le16(data, 2))?;
            syntax(le16(data, 4))?;
            bits = syntax(le16(data, 6))?;
            compression = 0;
            colors = 0;
            padding = 3u64;
        }
        40 | 52 | 56 | 64 | 108 | 124 => {
            let y_flip = *syntax(data.get(7))? == 0xFF;
            width = syntax(le32(data, 0))?;
            let h = syntax(le32(data, 4))?;
            height = if y_flip { h.wrapping_neg() } else { h };
            syntax(le16(data, 8))?;
            bits = syntax(le16(data, 10))?;
            compression = syntax(le32(data, 12))?;
            syntax(le32(data, 16))?;
            syntax(le32(data, 20))?;
            syntax(le32(data, 24))?;
            colors = syntax(le32(data, 28))?;
            padding = 4;
            if compression == 3 {
                masks = Some(if data.len() >= 48 {
                    let a = if data.len() >= 52 {
                        syntax(le32(data, 48))?
                    } else {
                        0
                    };
                    (
                        syntax(le32(data, 36))?,
                        syntax(le32(data, 40))?,
                        syntax(le32(data, 44))?,
                        a,
                    )
                } else {
                    let r = syntax(le32(fp.read(4), 0))?;
                    let g = syntax(le32(fp.read(4), 0))?;
                    let b = syntax(le32(fp.read(4), 0))?;
                    (r, g, b, 0)
                });
            }
        }
        other => {
            return Err(Raise::Other(format!(
                "unsupported BMP header type ({other})"
            )))
        }
    }
    // `colors or 1 << bits`, which can be huge.
    let colors: u128 = if colors != 0 {
        u128::from(colors)
    } else if bits < 127 {
        1u128 << bits
    } else {
        u128::MAX
    };
    let mut offset = u128::from(offset);
    if offset == 14 + u128::from(header_size) && bits <= 8 {
        offset += 4 * colors;
    }
    let (mut mode, mut raw_bits) = match bits {
        1 => ("P", 1),
        4 => ("P", 4),
        8 => ("P", 8),
        16 => ("RGB", 16),
        24 => ("RGB", 24),
        32 => ("RGB", 32),
        other => {
            return Err(Raise::Other(format!(
                "unsupported BMP pixel depth ({other})"
            )))
        }
    };
    let mut rle = None;
    match compression {
        3 => {
            let (r, g, b, a) = masks.unwrap_or((0, 0, 0, 0));
            match bits {
                32 => {
                    const ALPHA: [(u32, u32, u32, u32); 5] = [
                        (0xFF00_0000, 0xFF_0000, 0xFF00, 0xFF),
                        (0xFF, 0xFF00, 0xFF_0000, 0xFF00_0000),
                        (0xFF_0000, 0xFF00, 0xFF, 0xFF00_0000),
                        (0xFF00_0000, 0xFF00, 0xFF, 0xFF_0000),
                        (0, 0, 0, 0),
                    ];
                    const PLAIN: [(u32, u32, u32, u32); 3] = [
                        (0xFF_0000, 0xFF00, 0xFF, 0),
                        (0xFF00_0000, 0xFF_0000, 0xFF00, 0),
                        (0xFF00_0000, 0xFF00, 0xFF, 0),
                    ];
                    if ALPHA.contains(&(r, g, b, a)) {
                        mode = "RGBA";
                    } else if !PLAIN.contains(&(r, g, b, a)) {
                        return Err(Raise::Other("unsupported BMP bitfields layout".into()));
                    }
                }
                24 if (r, g, b) == (0xFF_0000, 0xFF00, 0xFF) => {}
                16 if (r, g, b) == (0xF800, 0x7E0, 0x1F) || (r, g, b) == (0x7C00, 0x3E0, 0x1F) => {}
                _ => return Err(Raise::Other("unsupported BMP bitfields layout".into())),
            }
        }
        0 => {}
        1 | 2 => rle = Some(compression == 2),
        other => {
            return Err(Raise::Other(format!(
                "unsupported BMP compression ({other})"
            )))
        }
    }
    if mode == "P" {
        if !(1..=65536).contains(&colors) {
            return Err(Raise::Other(format!(
                "unsupported BMP palette size ({colors})"
            )));
        }
        let n = colors as usize;
        let palette = fp.read(padding as usize * n);
        let grey = (0..n).all(|ind| {
            let val = if n == 2 {
                [0u8, 255][ind]
            } else {
                (ind & 255) as u8
            };
            let at = ind * padding as usize;
            palette.get(at..at + 3) == Some(&[val, val, val][..])
        });
        if grey {
            mode = if n == 2 { "1" } else { "L" };
            raw_bits = if n == 2 { 1 } else { 8 };
        } else if palette.len() / padding as usize > 256 {
            // `putpalette` at load time: more than 256 entries is "invalid palette size".
            return Err(Raise::Other("invalid palette size".into()));
        }
    }
    let stride = ((u64::from(width) * u64::from(bits) + 31) >> 3) & !3;
    let offset = if offset == 0 {
        fp.tell()
    } else {
        usize::try_from(offset).unwrap_or(usize::MAX)
    };
    Ok(Bitmap {
        width,
        height,
        mode,
        raw_bits,
        stride,
        rle,
        offset,
    })
}

/// `BmpRleDecoder.decode`: the bytes the runs produce (up to the image's size).
fn rle_length(data: &[u8], base: usize, rle4: bool, xsize: u64, ysize: u64) -> u64 {
    let dest = xsize * ysize;
    let mut len: u64 = 0;
    let mut x: u64 = 0;
    let mut pos = 0usize;
    let read = |pos: &mut usize, n: usize| -> &[u8] {
        let start = (*pos).min(data.len());
        let end = start.saturating_add(n).min(data.len());
        *pos = end;
        &data[start..end]
    };
    while len < dest {
        let pixels = read(&mut pos, 1);
        let byte = read(&mut pos, 1);
        let (Some(&n), Some(&b)) = (pixels.first(), byte.first()) else {
            break;
        };
        if n != 0 {
            let n = if x + u64::from(n) > xsize {
                xsize.saturating_sub(x)
            } else {
                u64::from(n)
            };
            len += n;
            x += n;
        } else if b == 0 {
            if len % xsize != 0 {
                len += xsize - len % xsize;
            }
            x = 0;
        } else if b == 1 {
            break;
        } else if b == 2 {
            let delta = read(&mut pos, 2);
            if delta.len() < 2 {
                break;
            }
            // Pillow reads the offsets again (a second pair of bytes).
            let moved = read(&mut pos, 2);
            let (Some(&right), Some(&up)) = (moved.first(), moved.get(1)) else {
                // Unpacking a short read raises ValueError.
                return 0;
            };
            len += u64::from(right) + u64::from(up) * xsize;
            x = len % xsize;
        } else {
            let count = if rle4 {
                usize::from(b) / 2
            } else {
                usize::from(b)
            };
            let got = read(&mut pos, count);
            len += if rle4 {
                2 * got.len() as u64
            } else {
                got.len() as u64
            };
            if got.len() < count {
                break;
            }
            x += u64::from(b);
            // `fd.tell()` is the file position: the parity counts from the file's start.
            if (base + pos) % 2 != 0 {
                pos += 1;
            }
        }
    }
    len
}

/// Opens and loads a BMP (`BM` signature) or, as the DIB plugin, a bare info header.
pub(crate) fn read(bytes: &[u8], limits: &Limits) -> Result<Option<Opened>, String> {
    let mut fp = Cursor::new(bytes);
    let (format, result) = if bytes.starts_with(b"BM") {
        let head = fp.read(14);
        let Some(offset) = le32(head, 10) else {
            return Ok(None);
        };
        ("BMP", bitmap(&mut fp, 0, offset))
    } else {
        match le32(bytes, 0) {
            Some(12 | 40 | 52 | 56 | 64 | 108 | 124) => ("DIB", bitmap(&mut fp, 0, 0)),
            _ => return Ok(None),
        }
    };
    let b = match result {
        Ok(b) => b,
        Err(Raise::Syntax) => return Ok(None),
        Err(Raise::Other(e)) => return Err(e),
    };
    super::bomb_check(b.width, b.height, limits)?;
    if b.width == 0 || b.height == 0 {
        return Err("the BMP has no pixels".into());
    }
    let (w, h) = (u64::from(b.width), u64::from(b.height));
    let data = bytes.get(b.offset..).unwrap_or(&[]);
    match b.rle {
        Some(rle4) => {
            if !matches!(b.mode, "P" | "L") {
                return Err("unknown raw mode for the RLE data".into());
            }
            if rle_length(data, b.offset, rle4, w, h) < w * h {
                return Err("not enough image data".into());
            }
        }
        None => {
            let row = (w * b.raw_bits).div_ceil(8);
            if row > b.stride {
                return Err("the BMP's rows are shorter than its pixels".into());
            }
            let need = b.stride * (h - 1) + row;
            if (data.len() as u64) < need {
                return Err("image file is truncated (the pixel data ends early)".into());
            }
        }
    }
    Ok(Some(Opened {
        format,
        mode: b.mode,
        width: b.width,
        height: b.height,
        has_exif: false,
        n_frames: 1,
        reload_fails: false,
    }))
}
