//! TIFF as Pillow 12's `TiffImagePlugin` opens and loads it: the header
//! (classic or BigTIFF), the first IFD loaded as `ImageFileDirectory_v2`
//! loads it, the mode from `OPEN_INFO` (byte order, photometric
//! interpretation, sample format, fill order, bits per sample, extra
//! samples), the size swapped by an EXIF orientation of 5–8, and the image
//! data checked to be there: uncompressed strips and tiles as Pillow's raw
//! decoder reads them, compressed ones (handed to libtiff) by their byte
//! counts. What libtiff would find wrong inside compressed data is not modelled.

use super::exif::{self, Head, Tag};
use super::Opened;
use crate::limits::Limits;

/// `OPEN_INFO`: (big-endian, photometric, sample formats, fill order, bits,
/// extra samples) → mode, and the bits per pixel of its raw mode (0 when
/// Pillow has no unpacker for it, so the raw decoder cannot be made).
type Key = (
    bool,
    i128,
    &'static [i128],
    i128,
    &'static [i128],
    &'static [i128],
    &'static str,
    u32,
);

const OPEN_INFO: &[Key] = &[
    (false, 0, &[1], 1, &[1], &[], "1", 1),
    (true, 0, &[1], 1, &[1], &[], "1", 1),
    (false, 0, &[1], 2, &[1], &[], "1", 1),
    (true, 0, &[1], 2, &[1], &[], "1", 1),
    (false, 1, &[1], 1, &[1], &[], "1", 1),
    (true, 1, &[1], 1, &[1], &[], "1", 1),
    (false, 1, &[1], 2, &[1], &[], "1", 1),
    (true, 1, &[1], 2, &[1], &[], "1", 1),
    (false, 0, &[1], 1, &[2], &[], "L", 2),
    (true, 0, &[1], 1, &[2], &[], "L", 2),
    (false, 0, &[1], 2, &[2], &[], "L", 2),
    (true, 0, &[1], 2, &[2], &[], "L", 2),
    (false, 1, &[1], 1, &[2], &[], "L", 2),
    (true, 1, &[1], 1, &[2], &[], "L", 2),
    (false, 1, &[1], 2, &[2], &[], "L", 2),
    (true, 1, &[1], 2, &[2], &[], "L", 2),
    (false, 0, &[1], 1, &[4], &[], "L", 4),
    (true, 0, &[1], 1, &[4], &[], "L", 4),
    (false, 0, &[1], 2, &[4], &[], "L", 4),
    (true, 0, &[1], 2, &[4], &[], "L", 4),
    (false, 1, &[1], 1, &[4], &[], "L", 4),
    (true, 1, &[1], 1, &[4], &[], "L", 4),
    (false, 1, &[1], 2, &[4], &[], "L", 4),
    (true, 1, &[1], 2, &[4], &[], "L", 4),
    (false, 0, &[1], 1, &[8], &[], "L", 8),
    (true, 0, &[1], 1, &[8], &[], "L", 8),
    (false, 0, &[1], 2, &[8], &[], "L", 0),
    (true, 0, &[1], 2, &[8], &[], "L", 0),
    (false, 1, &[1], 1, &[8], &[], "L", 8),
    (true, 1, &[1], 1, &[8], &[], "L", 8),
    (false, 1, &[2], 1, &[8], &[], "L", 8),
    (true, 1, &[2], 1, &[8], &[], "L", 8),
    (false, 1, &[1], 2, &[8], &[], "L", 8),
    (true, 1, &[1], 2, &[8], &[], "L", 8),
    (false, 1, &[1], 1, &[12], &[], "I;16", 12),
    (false, 0, &[1], 1, &[16], &[], "I;16", 16),
    (false, 1, &[1], 1, &[16], &[], "I;16", 16),
    (true, 1, &[1], 1, &[16], &[], "I;16B", 16),
    (false, 1, &[1], 2, &[16], &[], "I;16", 16),
    (false, 1, &[2], 1, &[16], &[], "I", 16),
    (true, 1, &[2], 1, &[16], &[], "I", 16),
    (false, 0, &[3], 1, &[32], &[], "F", 32),
    (true, 0, &[3], 1, &[32], &[], "F", 32),
    (false, 1, &[1], 1, &[32], &[], "I", 32),
    (false, 1, &[2], 1, &[32], &[], "I", 32),
    (true, 1, &[2], 1, &[32], &[], "I", 32),
    (false, 1, &[3], 1, &[32], &[], "F", 32),
    (true, 1, &[3], 1, &[32], &[], "F", 32),
    (false, 1, &[1], 1, &[8, 8], &[2], "LA", 16),
    (true, 1, &[1], 1, &[8, 8], &[2], "LA", 16),
    (false, 2, &[1], 1, &[8, 8, 8], &[], "RGB", 24),
    (true, 2, &[1], 1, &[8, 8, 8], &[], "RGB", 24),
    (false, 2, &[1], 2, &[8, 8, 8], &[], "RGB", 24),
    (true, 2, &[1], 2, &[8, 8, 8], &[], "RGB", 24),
    (false, 2, &[1], 1, &[8, 8, 8, 8], &[], "RGBA", 32),
    (true, 2, &[1], 1, &[8, 8, 8, 8], &[], "RGBA", 32),
    (false, 2, &[1], 1, &[8, 8, 8, 8], &[0], "RGB", 32),
    (true, 2, &[1], 1, &[8, 8, 8, 8], &[0], "RGB", 32),
    (false, 2, &[1], 1, &[8, 8, 8, 8, 8], &[0, 0], "RGB", 40),
    (true, 2, &[1], 1, &[8, 8, 8, 8, 8], &[0, 0], "RGB", 40),
    (
        false,
        2,
        &[1],
        1,
        &[8, 8, 8, 8, 8, 8],
        &[0, 0, 0],
        "RGB",
        48,
    ),
    (true, 2, &[1], 1, &[8, 8, 8, 8, 8, 8], &[0, 0, 0], "RGB", 48),
    (false, 2, &[1], 1, &[8, 8, 8, 8], &[1], "RGBA", 32),
    (true, 2, &[1], 1, &[8, 8, 8, 8], &[1], "RGBA", 32),
    (false, 2, &[1], 1, &[8, 8, 8, 8, 8], &[1, 0], "RGBA", 40),
    (true, 2, &[1], 1, &[8, 8, 8, 8, 8], &[1, 0], "RGBA", 40),
    (
        false,
        2,
        &[1],
        1,
        &[8, 8, 8, 8, 8, 8],
        &[1, 0, 0],
        "RGBA",
        48,
    ),
    (
        true,
        2,
        &[1],
        1,
        &[8, 8, 8, 8, 8, 8],
        &[1, 0, 0],
        "RGBA",
        48,
    ),
    (false, 2, &[1], 1, &[8, 8, 8, 8], &[2], "RGBA", 32),
    (true, 2, &[1], 1, &[8, 8, 8, 8], &[2], "RGBA", 32),
    (false, 2, &[1], 1, &[8, 8, 8, 8, 8], &[2, 0], "RGBA", 40),
    (true, 2, &[1], 1, &[8, 8, 8, 8, 8], &[2, 0], "RGBA", 40),
    (
        false,
        2,
        &[1],
        1,
        &[8, 8, 8, 8, 8, 8],
        &[2, 0, 0],
        "RGBA",
        48,
    ),
    (
        true,
        2,
        &[1],
        1,
        &[8, 8, 8, 8, 8, 8],
        &[2, 0, 0],
        "RGBA",
        48,
    ),
    (false, 2, &[1], 1, &[8, 8, 8, 8], &[999], "RGBA", 32),
    (true, 2, &[1], 1, &[8, 8, 8, 8], &[999], "RGBA", 32),
    (false, 2, &[1], 1, &[16, 16, 16], &[], "RGB", 48),
    (true, 2, &[1], 1, &[16, 16, 16], &[], "RGB", 48),
    (false, 2, &[1], 1, &[16, 16, 16, 16], &[], "RGBA", 64),
    (true, 2, &[1], 1, &[16, 16, 16, 16], &[], "RGBA", 64),
    (false, 2, &[1], 1, &[16, 16, 16, 16], &[0], "RGB", 64),
    (true, 2, &[1], 1, &[16, 16, 16, 16], &[0], "RGB", 64),
    (false, 2, &[1], 1, &[16, 16, 16, 16], &[1], "RGBA", 64),
    (true, 2, &[1], 1, &[16, 16, 16, 16], &[1], "RGBA", 64),
    (false, 2, &[1], 1, &[16, 16, 16, 16], &[2], "RGBA", 64),
    (true, 2, &[1], 1, &[16, 16, 16, 16], &[2], "RGBA", 64),
    (false, 3, &[1], 1, &[1], &[], "P", 1),
    (true, 3, &[1], 1, &[1], &[], "P", 1),
    (false, 3, &[1], 2, &[1], &[], "P", 0),
    (true, 3, &[1], 2, &[1], &[], "P", 0),
    (false, 3, &[1], 1, &[2], &[], "P", 2),
    (true, 3, &[1], 1, &[2], &[], "P", 2),
    (false, 3, &[1], 2, &[2], &[], "P", 0),
    (true, 3, &[1], 2, &[2], &[], "P", 0),
    (false, 3, &[1], 1, &[4], &[], "P", 4),
    (true, 3, &[1], 1, &[4], &[], "P", 4),
    (false, 3, &[1], 2, &[4], &[], "P", 0),
    (true, 3, &[1], 2, &[4], &[], "P", 0),
    (false, 3, &[1], 1, &[8], &[], "P", 8),
    (true, 3, &[1], 1, &[8], &[], "P", 8),
    (false, 3, &[1], 1, &[8, 8], &[0], "P", 16),
    (true, 3, &[1], 1, &[8, 8], &[0], "P", 16),
    (false, 3, &[1], 1, &[8, 8], &[2], "PA", 16),
    (true, 3, &[1], 1, &[8, 8], &[2], "PA", 16),
    (false, 3, &[1], 2, &[8], &[], "P", 8),
    (true, 3, &[1], 2, &[8], &[], "P", 8),
    (false, 5, &[1], 1, &[8, 8, 8, 8], &[], "CMYK", 32),
    (true, 5, &[1], 1, &[8, 8, 8, 8], &[], "CMYK", 32),
    (false, 5, &[1], 1, &[8, 8, 8, 8, 8], &[0], "CMYK", 40),
    (true, 5, &[1], 1, &[8, 8, 8, 8, 8], &[0], "CMYK", 40),
    (false, 5, &[1], 1, &[8, 8, 8, 8, 8, 8], &[0, 0], "CMYK", 48),
    (true, 5, &[1], 1, &[8, 8, 8, 8, 8, 8], &[0, 0], "CMYK", 48),
    (false, 5, &[1], 1, &[16, 16, 16, 16], &[], "CMYK", 64),
    (true, 5, &[1], 1, &[16, 16, 16, 16], &[], "CMYK", 64),
    (false, 6, &[1], 1, &[8], &[], "L", 8),
    (true, 6, &[1], 1, &[8], &[], "L", 8),
    (false, 6, &[1], 1, &[8, 8, 8], &[], "RGB", 32),
    (true, 6, &[1], 1, &[8, 8, 8], &[], "RGB", 32),
    (false, 8, &[1], 1, &[8, 8, 8], &[], "LAB", 24),
    (true, 8, &[1], 1, &[8, 8, 8], &[], "LAB", 24),
];

/// `COMPRESSION_INFO`'s keys, and whether the name is `raw`.
fn compression_known(c: i128) -> bool {
    matches!(
        c,
        1..=8 | 32771 | 32773 | 32809 | 32946 | 34676 | 34677 | 34925 | 50000 | 50001
    )
}

/// A tag value as Pillow's `tag_v2` returns it, reduced to what is needed.
#[derive(Debug, Clone, PartialEq)]
enum Value {
    /// Integers (BYTE, SHORT, LONG, their signed forms, IFD, LONG8).
    Ints(Vec<i128>),
    /// Anything else (text, rationals, floats, undefined bytes).
    Other,
}

/// The decoded first IFD.
struct Ifd {
    head: Head,
    tags: Vec<Tag>,
    /// Whether the entry count, every entry and the next-IFD offset are in the file.
    complete: bool,
}

impl Ifd {
    fn value(&self, id: u16) -> Option<Value> {
        let t = self.tags.iter().find(|t| t.id == id)?;
        let h = self.head;
        let ints: Vec<i128> = match t.typ {
            1 => t.data.iter().map(|&b| i128::from(b)).collect(),
            6 => t.data.iter().map(|&b| i128::from(b as i8)).collect(),
            3 => t
                .data
                .chunks_exact(2)
                .map(|c| i128::from(h.u16(c)))
                .collect(),
            8 => t
                .data
                .chunks_exact(2)
                .map(|c| i128::from(h.u16(c) as i16))
                .collect(),
            4 | 13 => t
                .data
                .chunks_exact(4)
                .map(|c| i128::from(h.u32(c)))
                .collect(),
            9 => t
                .data
                .chunks_exact(4)
                .map(|c| i128::from(h.u32(c) as i32))
                .collect(),
            16 => t
                .data
                .chunks_exact(8)
                .map(|c| i128::from(h.u64(c)))
                .collect(),
            _ => return Some(Value::Other),
        };
        Some(Value::Ints(ints))
    }

    /// A tag Pillow knows to hold one value: its first value.
    fn scalar(&self, id: u16) -> Option<Result<i128, ()>> {
        match self.value(id)? {
            Value::Ints(v) => Some(v.first().copied().ok_or(())),
            Value::Other => Some(Err(())),
        }
    }

    /// A tag of variable length: all its values.
    fn tuple(&self, id: u16) -> Option<Result<Vec<i128>, ()>> {
        match self.value(id)? {
            Value::Ints(v) => Some(Ok(v)),
            Value::Other => Some(Err(())),
        }
    }

    fn has(&self, id: u16) -> bool {
        self.tags.iter().any(|t| t.id == id)
    }
}

/// A caught failure (the plugin gives up) or another.
enum Raise {
    Syntax,
    Other(String),
}

fn other<T>(why: &str) -> Result<T, Raise> {
    Err(Raise::Other(why.to_string()))
}

/// A raw tile: its offset, extents (x0, y0, x1, y1) and stride (0 for the row length).
type RawTile = (i128, (i128, i128, i128, i128), i128);

/// What `_setup` derived.
struct Setup {
    mode: &'static str,
    size: (u32, u32),
    tile_size: (u64, u64),
}

/// `TiffImageFile._open` and `_setup` for the first frame.
fn setup(bytes: &[u8], ifd: &Ifd) -> Result<Setup, Raise> {
    if ifd.has(0xBC01) {
        return other("Windows Media Photo files are not supported");
    }
    let compression = match ifd.scalar(259) {
        None => 1,
        Some(Ok(c)) => c,
        Some(Err(())) => return other("unknown compression"),
    };
    if !compression_known(compression) {
        return other("unknown compression");
    }
    let planar = match ifd.scalar(284) {
        None => 1,
        Some(Ok(p)) => p,
        Some(Err(())) => return other("bad planar configuration"),
    };
    let mut photo = match ifd.scalar(262) {
        None => 0,
        Some(Ok(p)) => p,
        Some(Err(())) => return Err(Raise::Syntax),
    };
    if compression == 6 {
        photo = 6;
    }
    let fillorder = match ifd.scalar(266) {
        None => 1,
        Some(Ok(f)) => f,
        Some(Err(())) => return Err(Raise::Syntax),
    };
    let (Some(xsize), Some(ysize)) = (ifd.scalar(256), ifd.scalar(257)) else {
        return Err(Raise::Syntax);
    };
    let (Ok(xsize), Ok(ysize)) = (xsize, ysize) else {
        return other("invalid dimensions");
    };
    let (Ok(xs), Ok(ys)) = (u32::try_from(xsize), u32::try_from(ysize)) else {
        return other("invalid dimensions");
    };
    let orientation = ifd.scalar(274).and_then(Result::ok);
    let size = if matches!(orientation, Some(5..=8)) {
        (ys, xs)
    } else {
        (xs, ys)
    };
    let mut sample_format = match ifd.tuple(339) {
        None => vec![1],
        Some(Ok(v)) => v,
        Some(Err(())) => return Err(Raise::Syntax),
    };
    if sample_format.len() > 1 && sample_format.iter().all(|&s| s == 1) {
        sample_format = vec![1];
    }
    let mut bps = match ifd.tuple(258) {
        None => vec![1],
        Some(Ok(v)) => v,
        Some(Err(())) => return Err(Raise::Syntax),
    };
    let extra = match ifd.tuple(338) {
        None => vec![],
        Some(Ok(v)) => v,
        Some(Err(())) => return Err(Raise::Syntax),
    };
    let default_spp = if compression == 6 && matches!(photo, 2 | 6) {
        3
    } else {
        1
    };
    let spp = match ifd.scalar(277) {
        None => default_spp,
        Some(Ok(s)) => s,
        Some(Err(())) => return Err(Raise::Syntax),
    };
    if spp > 6 {
        return Err(Raise::Syntax);
    }
    let actual = bps.len() as i128;
    if spp < actual {
        bps.truncate(usize::try_from(spp.max(0)).unwrap_or(0));
    } else if spp > actual && actual == 1 {
        bps = vec![bps[0]; usize::try_from(spp).unwrap_or(0)];
    }
    if bps.len() as i128 != spp {
        return Err(Raise::Syntax);
    }
    let big = ifd.head.big_endian;
    let lookup = |fill: i128| {
        OPEN_INFO
            .iter()
            .find(|k| {
                k.0 == big
                    && k.1 == photo
                    && k.2 == sample_format.as_slice()
                    && k.3 == fill
                    && k.4 == bps.as_slice()
                    && k.5 == extra.as_slice()
            })
            .map(|k| (k.6, k.7))
    };
    let Some((mut mode, raw_bits)) = lookup(fillorder) else {
        return Err(Raise::Syntax);
    };
    let raw = compression == 1;
    if !raw && fillorder == 2 {
        mode = match lookup(1) {
            Some(m) => m.0,
            None => return other("unknown pixel mode"),
        };
    }
    let tile_size = (u64::from(xs), u64::from(ys));
    if raw {
        if raw_bits == 0 {
            return other("unknown raw mode for the image mode");
        }
        raw_tiles(bytes, ifd, tile_size, &bps, planar, raw_bits)?;
    } else {
        compressed_data(bytes, ifd, compression)?;
    }
    if matches!(mode, "P" | "PA") && !ifd.has(320) {
        return other("a palette image without a colour map");
    }
    Ok(Setup {
        mode,
        size,
        tile_size,
    })
}

/// The raw decoder's tiles: every strip or tile inside the image and all its rows there.
fn raw_tiles(
    bytes: &[u8],
    ifd: &Ifd,
    size: (u64, u64),
    bps: &[i128],
    planar: i128,
    raw_bits: u32,
) -> Result<(), Raise> {
    let (xsize, ysize) = size;
    let bits: i128 = bps.iter().sum();
    let (offsets, w, h) = if ifd.has(273) {
        let Some(Ok(offsets)) = ifd.tuple(273) else {
            return other("bad strip offsets");
        };
        let h = match ifd.scalar(278) {
            None => i128::from(ysize),
            Some(Ok(h)) => h,
            Some(Err(())) => return other("bad rows per strip"),
        };
        (offsets, i128::from(xsize), h)
    } else if ifd.has(324) {
        let Some(Ok(offsets)) = ifd.tuple(324) else {
            return other("bad tile offsets");
        };
        let (Some(Ok(w)), Some(Ok(h))) = (ifd.scalar(322), ifd.scalar(323)) else {
            return other("invalid tile dimensions");
        };
        (offsets, w, h)
    } else {
        return Err(Raise::Syntax);
    };
    let offsets = if w == i128::from(xsize) && h == i128::from(ysize) && planar != 2 {
        offsets.last().map(|&o| vec![o]).unwrap_or_default()
    } else {
        offsets
    };
    let (xs, ys) = (i128::from(xsize), i128::from(ysize));
    let planes = if planar == 2 {
        bps.len().max(1) as i128
    } else {
        1
    };
    let tile_bits = if planar == 2 {
        bps.first().copied().unwrap_or(1)
    } else {
        i128::from(raw_bits)
    };
    let (mut x, mut y) = (0i128, 0i128);
    let mut tiles: Vec<RawTile> = Vec::with_capacity(offsets.len());
    for offset in offsets {
        let stride = if x + w > xs { w * bits / 8 / planes } else { 0 };
        tiles.push((offset, (x, y, (x + w).min(xs), (y + h).min(ys)), stride));
        x += w;
        if x >= xs {
            x = 0;
            y += h;
            if y >= ys {
                y = 0;
            }
        }
        if w <= 0 {
            break;
        }
    }
    tiles.sort_by_key(|t| t.0);
    for (offset, (x0, y0, x1, y1), stride) in tiles {
        if x1 <= x0 || y1 <= y0 || x0 < 0 || y0 < 0 {
            return other("a tile cannot extend outside the image");
        }
        let row = ((x1 - x0) * tile_bits + 7) / 8;
        let step = if stride != 0 {
            if stride < row {
                return other("a strip's stride is shorter than its rows");
            }
            stride
        } else {
            row
        };
        let need = offset + (y1 - y0 - 1) * step + row;
        if offset < 0 || need > bytes.len() as i128 {
            return other("image file is truncated (a strip ends past the file)");
        }
    }
    Ok(())
}

/// Compressed strips or tiles: libtiff refuses one whose bytes run past the file.
fn compressed_data(bytes: &[u8], ifd: &Ifd, compression: i128) -> Result<(), Raise> {
    if compression == 50001 {
        return other("decoder error: the reference's libtiff has no WebP codec");
    }
    if !ifd.complete {
        return other("decoder error: libtiff cannot read the whole directory");
    }
    if !ifd.has(273) && !ifd.has(324) {
        return other("decoder error: no strip or tile offsets");
    }
    let (offsets, counts) = if ifd.has(324) { (324, 325) } else { (273, 279) };
    let (Some(Ok(offsets)), Some(Ok(counts))) = (ifd.tuple(offsets), ifd.tuple(counts)) else {
        return Ok(());
    };
    for (o, c) in offsets.iter().zip(counts.iter()) {
        if *o < 0 || *c < 0 || o + c > bytes.len() as i128 {
            return other("decoder error: read error on a strip");
        }
    }
    Ok(())
}

/// Frames in the IFD chain (a pointer back into it ends the chain).
fn count_frames(bytes: &[u8], head: Head, first: u64) -> u64 {
    let mut seen: Vec<u64> = Vec::new();
    let mut next = first;
    while next != 0 && !seen.contains(&next) && seen.len() < 1 << 16 {
        seen.push(next);
        next = next_ifd(bytes, head, next).unwrap_or(0);
    }
    seen.len() as u64
}

/// Whether the IFD's entry count and every entry are in the file (libtiff
/// refuses a directory it cannot read; a missing next-IFD offset is no error).
fn entries_present(bytes: &[u8], head: Head, at: u64) -> bool {
    let Ok(at) = usize::try_from(at) else {
        return false;
    };
    let (count_len, entry_len) = if head.bigtiff { (8, 20) } else { (2, 12) };
    let Some(count) = bytes.get(at..at.saturating_add(count_len)) else {
        return false;
    };
    let n = if head.bigtiff {
        usize::try_from(head.u64(count)).unwrap_or(usize::MAX)
    } else {
        usize::from(head.u16(count))
    };
    n.checked_mul(entry_len)
        .and_then(|l| l.checked_add(at + count_len))
        .is_some_and(|end| end <= bytes.len())
}

/// The offset of the IFD after the one at `at`, 0 when it cannot be read.
fn next_ifd(bytes: &[u8], head: Head, at: u64) -> Option<u64> {
    let at = usize::try_from(at).ok()?;
    if head.bigtiff {
        let n = usize::try_from(head.u64(bytes.get(at..at + 8)?)).ok()?;
        let p = at.checked_add(8)?.checked_add(n.checked_mul(20)?)?;
        Some(head.u64(bytes.get(p..p + 8)?))
    } else {
        let n = usize::from(head.u16(bytes.get(at..at + 2)?));
        let p = at + 2 + n * 12;
        Some(u64::from(head.u32(bytes.get(p..p + 4)?)))
    }
}

/// Opens and loads a TIFF: `Ok(None)` when the TIFF plugin does not take it.
pub(crate) fn read(bytes: &[u8], limits: &Limits) -> Result<Option<Opened>, String> {
    let Some(&third) = bytes.get(2) else {
        return Ok(None);
    };
    let ifh = &bytes[..bytes.len().min(if third == 43 { 16 } else { 8 })];
    let Some((head, first)) = Head::parse_any(ifh) else {
        return Ok(None);
    };
    if first == 0 {
        return Err("no more images in TIFF file".into());
    }
    if first >= 1 << 63 {
        return Err("unable to seek to frame".into());
    }
    let ifd = Ifd {
        head,
        tags: exif::load_ifd(bytes, head, first),
        complete: entries_present(bytes, head, first),
    };
    let s = match setup(bytes, &ifd) {
        Ok(s) => s,
        Err(Raise::Syntax) => return Ok(None),
        Err(Raise::Other(e)) => return Err(e),
    };
    super::bomb_check(s.size.0, s.size.1, limits)?;
    if s.tile_size.0 == 0 || s.tile_size.1 == 0 {
        return Err("the TIFF image has no pixels".into());
    }
    Ok(Some(Opened {
        format: "TIFF",
        mode: s.mode,
        width: s.size.0,
        height: s.size.1,
        has_exif: false,
        n_frames: count_frames(bytes, head, first),
        reload_fails: false,
    }))
}
