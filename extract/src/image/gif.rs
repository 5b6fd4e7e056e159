//! GIF as Pillow 12's `GifImagePlugin` opens and loads it: the logical
//! screen and global palette, the blocks before the first image descriptor
//! (a frame past the screen grows the image), the mode (`P`, or `L` when
//! the palette is the identity grey ramp), and the first frame's LZW data
//! decoded exactly as `GifDecode.c` does (sub-blocks read on past the end
//! code until every pixel is written; the data running out is truncation).
//! `n_frames` walks the later frames as `_seek(…, update_image=False)` does.

use super::cursor::Cursor;
use super::Opened;
use crate::limits::Limits;

fn le16(s: &[u8], at: usize) -> Option<u16> {
    s.get(at..at + 2).map(|b| u16::from_le_bytes([b[0], b[1]]))
}

/// `_is_palette_needed`: any entry other than `(i, i, i)`; `Err` for the
/// IndexError of a short final entry that matched so far.
fn palette_needed(p: &[u8]) -> Result<bool, ()> {
    for (n, entry) in p.chunks(3).enumerate() {
        let i = n as u64;
        if u64::from(entry[0]) != i {
            return Ok(true);
        }
        let (Some(&g), Some(&b)) = (entry.get(1), entry.get(2)) else {
            return Err(());
        };
        if u64::from(g) != i || u64::from(b) != i {
            return Ok(true);
        }
    }
    Ok(false)
}

/// `GifImageFile.data()`: one sub-block, `None` at a zero length or the end.
fn data<'a>(fp: &mut Cursor<'a>) -> Option<&'a [u8]> {
    let s = fp.read(1);
    match s.first() {
        Some(&n) if n != 0 => Some(fp.read(usize::from(n))),
        _ => None,
    }
}

/// The first image descriptor of a frame, as `_seek` finds it.
struct Frame {
    extent: (u32, u32, u32, u32),
    /// `Some(needed)` when the frame has a local palette.
    local_palette: Option<bool>,
    bits: u8,
    offset: usize,
}

/// How `_seek` ended.
enum Seek {
    Frame(Frame),
    /// EOFError: no (more) image.
    End,
    /// IndexError or struct.error.
    Broken,
}

/// The block walk of `_seek`, from the cursor's position.
fn seek_frame(fp: &mut Cursor) -> Seek {
    let s = fp.read(1);
    if s.is_empty() || s == b";" {
        return Seek::End;
    }
    let mut s: Option<&[u8]> = Some(s);
    loop {
        let cur = match s {
            Some(c) => c,
            None => fp.read(1),
        };
        if cur.is_empty() || cur == b";" {
            return Seek::End;
        }
        if cur == b"!" {
            let label = fp.read(1);
            let block = data(fp);
            let Some(&label) = label.first() else {
                return Seek::Broken;
            };
            if label == 249 {
                if let Some(block) = block {
                    // A short read leaves the block empty: `block[0]` raises IndexError.
                    let Some(&flags) = block.first() else {
                        return Seek::Broken;
                    };
                    if flags & 1 != 0 && block.get(3).is_none() {
                        return Seek::Broken;
                    }
                    if le16(block, 1).is_none() {
                        return Seek::Broken;
                    }
                }
            } else if label == 254 {
                let mut b = block;
                while b.is_some() {
                    b = data(fp);
                }
                s = None;
                continue;
            }
            while data(fp).is_some() {}
        } else if cur == b"," {
            let d = fp.read(9);
            let (Some(x0), Some(y0), Some(w), Some(h)) =
                (le16(d, 0), le16(d, 2), le16(d, 4), le16(d, 6))
            else {
                return Seek::Broken;
            };
            let Some(&flags) = d.get(8) else {
                return Seek::Broken;
            };
            let mut local_palette = None;
            if flags & 128 != 0 {
                let bits = (flags & 7) + 1;
                let p = fp.read(3 << bits);
                match palette_needed(p) {
                    Ok(needed) => local_palette = Some(needed),
                    Err(()) => return Seek::Broken,
                }
            }
            let Some(&bits) = fp.read(1).first() else {
                return Seek::Broken;
            };
            let (x0, y0) = (u32::from(x0), u32::from(y0));
            return Seek::Frame(Frame {
                extent: (x0, y0, x0 + u32::from(w), y0 + u32::from(h)),
                local_palette,
                bits,
                offset: fp.tell(),
            });
        }
        s = None;
    }
}

/// `GifDecode.c` over everything after the frame's code size byte: `Ok`
/// once every pixel is written, `Err` on a broken code or when the data ends.
fn lzw(data: &[u8], bits: u8, pixels: u64) -> Result<(), String> {
    const GIFTABLE: usize = 4096;
    const GIFBITS: u32 = 12;
    if bits > 12 {
        return Err("broken data stream: LZW code size over 12".into());
    }
    let bits = u32::from(bits);
    let clear = 1usize << bits;
    let end = clear + 1;
    let mut link = vec![0u16; GIFTABLE];
    // Pillow feeds the decoder 64 KiB reads; it returns at an end code or
    // when a sub-block is not all there, and the next empty read is truncation.
    const BLOCK: usize = 65536;
    let mut fed = data.len().min(BLOCK);
    let more = |fed: &mut usize| -> bool {
        if *fed >= data.len() {
            return false;
        }
        *fed = data.len().min(*fed + BLOCK);
        true
    };
    let mut written: u64 = 0;
    let (mut next, mut codesize, mut codemask) = (clear + 2, bits + 1, (1usize << (bits + 1)) - 1);
    let mut first = true;
    let mut lastcode = 0usize;
    let (mut bitbuffer, mut bitcount) = (0u64, 0u32);
    let mut blocksize = 0usize;
    let mut pos = 0usize;
    let truncated = || Err("image file is truncated (the LZW data ends)".to_string());
    loop {
        while bitcount < codesize {
            if blocksize > 0 {
                // A sub-block is only started when all of it has been fed.
                let c = data[pos];
                pos += 1;
                blocksize -= 1;
                bitbuffer |= u64::from(c) << bitcount;
                bitcount += 8;
            } else {
                let need = data.get(pos).map(|&c| usize::from(c) + 1);
                match need {
                    Some(n) if fed - pos >= n => {
                        blocksize = n - 1;
                        pos += 1;
                    }
                    _ => {
                        if !more(&mut fed) {
                            return truncated();
                        }
                    }
                }
            }
        }
        let c = (bitbuffer as usize) & codemask;
        bitbuffer >>= codesize;
        bitcount -= codesize;
        if c == clear {
            if !first {
                next = clear + 2;
                codesize = bits + 1;
                codemask = (1usize << codesize) - 1;
                first = true;
            }
            continue;
        }
        if c == end {
            // The decoder returns; Pillow reads on, and an empty read is truncation.
            if !more(&mut fed) {
                return truncated();
            }
            continue;
        }
        let count: u64;
        if first {
            if c > clear {
                return Err("broken data stream (bad first LZW code)".into());
            }
            lastcode = c;
            first = false;
            count = 1;
        } else {
            let thiscode = c;
            if c > next {
                return Err("broken data stream (LZW code out of range)".into());
            }
            let mut len: u64 = 0;
            let mut c = c;
            if c == next {
                len += 1;
                c = lastcode;
            }
            while c >= clear {
                if len as usize >= GIFTABLE || c >= GIFTABLE {
                    return Err("broken data stream (LZW string too long)".into());
                }
                len += 1;
                c = usize::from(link[c]);
            }
            len += 1;
            if next < GIFTABLE {
                link[next] = lastcode as u16;
                if next == codemask && codesize < GIFBITS {
                    codesize += 1;
                    codemask = (1usize << codesize) - 1;
                }
                next += 1;
            }
            lastcode = thiscode;
            count = len;
        }
        written += count;
        if written >= pixels {
            return Ok(());
        }
    }
}

/// Opens and loads a GIF: `Ok(None)` when the GIF plugin does not take it.
pub(crate) fn read(bytes: &[u8], limits: &Limits) -> Result<Option<Opened>, String> {
    let mut fp = Cursor::new(bytes);
    let s = fp.read(13);
    if !(s.starts_with(b"GIF87a") || s.starts_with(b"GIF89a")) {
        return Ok(None);
    }
    let (Some(w), Some(h)) = (le16(s, 6), le16(s, 8)) else {
        return Ok(None);
    };
    let Some(&flags) = s.get(10) else {
        return Ok(None);
    };
    let mut global_palette = false;
    if flags & 128 != 0 {
        if s.get(11).is_none() {
            return Ok(None);
        }
        let bits = (flags & 7) + 1;
        match palette_needed(fp.read(3 << bits)) {
            Ok(needed) => global_palette = needed,
            Err(()) => return Ok(None),
        }
    }
    let rewind = fp.tell();
    let frame = match seek_frame(&mut fp) {
        Seek::Frame(f) => f,
        Seek::End => return Err("image not found in GIF frame".into()),
        Seek::Broken => return Ok(None),
    };
    let (mut width, mut height) = (u32::from(w), u32::from(h));
    let (x0, y0, x1, y1) = frame.extent;
    if x1 > width || y1 > height {
        width = width.max(x1);
        height = height.max(y1);
        super::bomb_check(width, height, limits)?;
    }
    let paletted = match frame.local_palette {
        Some(needed) => needed,
        None => global_palette,
    };
    let mode = if paletted { "P" } else { "L" };
    super::bomb_check(width, height, limits)?;
    let pixels = u64::from(x1 - x0) * u64::from(y1 - y0);
    if pixels == 0 {
        return Err("the GIF frame has no pixels".into());
    }
    lzw(&bytes[frame.offset.min(bytes.len())..], frame.bits, pixels)?;
    let _ = rewind;
    let n_frames = count_frames(bytes, frame.offset);
    Ok(Some(Opened {
        format: "GIF",
        mode,
        width,
        height,
        has_exif: false,
        n_frames,
        reload_fails: false,
    }))
}

/// `n_frames`: frames found by skipping each frame's data and seeking the
/// next descriptor; 0 when the walk raises (the caller's `getattr` then
/// fails, and the prepare step keeps the upload).
fn count_frames(bytes: &[u8], first_offset: usize) -> u64 {
    let mut fp = Cursor::new(bytes);
    let mut offset = first_offset;
    let mut frames = 1u64;
    loop {
        fp.seek(offset);
        while data(&mut fp).is_some() {}
        match seek_frame(&mut fp) {
            Seek::Frame(f) => {
                frames += 1;
                offset = f.offset;
            }
            Seek::End => return frames,
            Seek::Broken => return 0,
        }
    }
}
