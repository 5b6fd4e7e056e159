//! PNG as Pillow 12's `PngImagePlugin` opens and loads it: the chunks before
//! the first IDAT are read and CRC-checked (an unreadable or broken one makes
//! the file unidentifiable, a short or invalid one refuses it), the mode comes
//! from the IHDR's bit depth and colour type, the IDAT stream is inflated row
//! by row until the image (or the stream, at a row boundary) ends, every row's
//! filter byte checked, and the chunks after it are read again without CRCs
//! (a truncated one refuses the file). APNG frame counts come from `acTL`.

use super::cursor::Cursor;
use super::{exif, Opened};
use crate::limits::Limits;

const MAGIC: &[u8] = b"\x89PNG\r\n\x1a\n";
/// `MAX_TEXT_CHUNK` (`ImageFile.SAFEBLOCK`): a compressed text chunk may inflate to this.
const MAX_TEXT_CHUNK: usize = 1 << 20;
/// `MAX_TEXT_MEMORY`: all text chunks together.
const MAX_TEXT_MEMORY: u64 = 64 * (1 << 20);

/// What the chunk walk learned (`PngStream`'s `im_*` fields and `info`).
#[derive(Default)]
struct Stream {
    size: (u32, u32),
    mode: Option<(&'static str, u32)>,
    interlace: bool,
    exif: Option<Exif>,
    raw_profile_exif: Option<String>,
    xmp_text: Option<String>,
    xmp_bytes: Option<Vec<u8>>,
    n_frames: Option<u32>,
    default_image: bool,
    bbox: Option<(u32, u32, u32, u32)>,
    seq: Option<u32>,
    text_memory: u64,
    transparency_checked: bool,
}

/// `info["exif"]`: bytes (eXIf, tEXt) or a string (zTXt, iTXt), which `Exif.load` rejects.
enum Exif {
    Bytes(Vec<u8>),
    Text,
}

/// How a chunk handler ended.
enum Handled {
    /// Returned its data: a CRC follows.
    Data(Vec<u8>),
    /// `EOFError`: image data (IDAT, fdAT) or IEND.
    Eof,
    /// `AttributeError`: no handler for this chunk type.
    Unknown,
}

/// Why reading stopped: the exception classes Pillow tells apart.
enum Raise {
    /// `SyntaxError`, `IndexError`, `struct.error`: the plugin gives up (while opening).
    Syntax,
    /// Any other exception.
    Other(String),
}

/// `rb"\w\w\w\w"` at the start of a 4-byte chunk type.
fn is_cid(cid: &[u8]) -> bool {
    cid.len() == 4 && cid.iter().all(|b| b.is_ascii_alphanumeric() || *b == b'_')
}

fn be32(s: &[u8], at: usize) -> Option<u32> {
    s.get(at..at + 4)
        .map(|b| u32::from_be_bytes([b[0], b[1], b[2], b[3]]))
}

fn be16(s: &[u8], at: usize) -> Option<u16> {
    s.get(at..at + 2).map(|b| u16::from_be_bytes([b[0], b[1]]))
}

/// `_MODES`: (bit depth, colour type) → (mode, bits per pixel of the raw mode).
fn mode_of(depth: u8, colour: u8) -> Option<(&'static str, u32)> {
    Some(match (depth, colour) {
        (1, 0) => ("1", 1),
        (2, 0) => ("L", 2),
        (4, 0) => ("L", 4),
        (8, 0) => ("L", 8),
        (16, 0) => ("I;16", 16),
        (8, 2) => ("RGB", 24),
        (16, 2) => ("RGB", 48),
        (1, 3) => ("P", 1),
        (2, 3) => ("P", 2),
        (4, 3) => ("P", 4),
        (8, 3) => ("P", 8),
        (8, 4) => ("LA", 16),
        (16, 4) => ("RGBA", 32),
        (8, 6) => ("RGBA", 32),
        (16, 6) => ("RGBA", 64),
        _ => return None,
    })
}

/// `_safe_zlib_decompress`: `decompressobj().decompress(data, MAX_TEXT_CHUNK)`,
/// which returns what an incomplete stream gives; `Ok(None)` for a
/// `zlib.error`, `Err` when input is left over at the cap.
fn safe_zlib(data: &[u8]) -> Result<Option<Vec<u8>>, Raise> {
    let mut z = flate2::Decompress::new(true);
    let mut out = Vec::new();
    let mut buf = vec![0u8; 1 << 16];
    loop {
        let at = usize::try_from(z.total_in())
            .unwrap_or(data.len())
            .min(data.len());
        let room = MAX_TEXT_CHUNK - out.len();
        if room == 0 {
            if at < data.len() {
                return Err(Raise::Other(
                    "a text chunk inflates past MAX_TEXT_CHUNK".into(),
                ));
            }
            break;
        }
        let n = room.min(buf.len());
        let before = z.total_out();
        let status = z.decompress(&data[at..], &mut buf[..n], flate2::FlushDecompress::None);
        let made = usize::try_from(z.total_out() - before).unwrap_or(0);
        out.extend_from_slice(&buf[..made]);
        match status {
            Err(_) => return Ok(None),
            Ok(flate2::Status::StreamEnd) => break,
            Ok(_) => {
                if made == 0 && usize::try_from(z.total_in()).unwrap_or(0) == at {
                    break;
                }
            }
        }
    }
    Ok(Some(out))
}

fn latin1(b: &[u8]) -> String {
    b.iter().map(|&c| char::from(c)).collect()
}

impl Stream {
    fn text_memory(&mut self, chars: usize) -> Result<(), Raise> {
        self.text_memory += chars as u64;
        if self.text_memory > MAX_TEXT_MEMORY {
            return Err(Raise::Other("too much memory used in text chunks".into()));
        }
        Ok(())
    }

    /// Records a text chunk's key and value in `info`.
    fn text(&mut self, key: &[u8], value: String, raw: Option<&[u8]>) {
        match key {
            b"exif" => {
                self.exif = Some(match raw {
                    Some(bytes) => Exif::Bytes(bytes.to_vec()),
                    None => Exif::Text,
                })
            }
            b"Raw profile type exif" => self.raw_profile_exif = Some(value),
            b"XML:com.adobe.xmp" => self.xmp_text = Some(value),
            _ => {}
        }
    }

    /// `PngStream.call(cid, pos, length)`: the handler of one chunk type.
    fn call(&mut self, fp: &mut Cursor, cid: &[u8], length: u32) -> Result<Handled, Raise> {
        let short = || Raise::Other("truncated file read".into());
        let len = i64::from(length);
        let data = |fp: &mut Cursor| fp.safe_read(len).map(<[u8]>::to_vec).ok_or_else(short);
        Ok(match cid {
            b"IHDR" => {
                let s = data(fp)?;
                if s.len() < 13 {
                    return Err(Raise::Other("truncated IHDR chunk".into()));
                }
                self.size = (be32(&s, 0).unwrap_or(0), be32(&s, 4).unwrap_or(0));
                if let Some(m) = mode_of(s[8], s[9]) {
                    self.mode = Some(m);
                }
                if s[12] != 0 {
                    self.interlace = true;
                }
                if s[11] != 0 {
                    return Err(Raise::Syntax);
                }
                Handled::Data(s)
            }
            b"IDAT" => {
                if self.mode.is_none() {
                    // `self.im_rawmode` was never set: an AttributeError, so
                    // the chunk is skipped as an unknown one.
                    return Ok(Handled::Unknown);
                }
                if self.bbox.is_none() && self.n_frames.is_some() {
                    self.default_image = true;
                }
                Handled::Eof
            }
            b"IEND" => Handled::Eof,
            b"tRNS" => {
                let s = data(fp)?;
                match self.mode.map(|m| m.0) {
                    Some("1" | "L" | "I;16") if s.len() < 2 => return Err(Raise::Syntax),
                    Some("RGB") if s.len() < 6 => return Err(Raise::Syntax),
                    _ => {}
                }
                self.transparency_checked = true;
                Handled::Data(s)
            }
            b"gAMA" => {
                let s = data(fp)?;
                if s.len() < 4 {
                    return Err(Raise::Syntax);
                }
                Handled::Data(s)
            }
            b"sRGB" => {
                let s = data(fp)?;
                if s.is_empty() {
                    return Err(Raise::Other("truncated sRGB chunk".into()));
                }
                Handled::Data(s)
            }
            b"pHYs" => {
                let s = data(fp)?;
                if s.len() < 9 {
                    return Err(Raise::Other("truncated pHYs chunk".into()));
                }
                Handled::Data(s)
            }
            b"iCCP" => {
                let s = data(fp)?;
                let i = s.iter().position(|&b| b == 0).map_or(0, |i| i + 1);
                let Some(&method) = s.get(i) else {
                    return Err(Raise::Syntax);
                };
                if method != 0 {
                    return Err(Raise::Syntax);
                }
                safe_zlib(s.get(i + 1..).unwrap_or(&[]))?;
                Handled::Data(s)
            }
            b"tEXt" => {
                let s = data(fp)?;
                let (k, v) = match s.iter().position(|&b| b == 0) {
                    Some(i) => (&s[..i], &s[i + 1..]),
                    None => (&s[..], &[][..]),
                };
                if !k.is_empty() {
                    self.text(k, latin1(v), Some(v));
                    self.text_memory(v.len())?;
                }
                Handled::Data(s)
            }
            b"zTXt" => {
                let s = data(fp)?;
                let (k, v) = match s.iter().position(|&b| b == 0) {
                    Some(i) => (&s[..i], &s[i + 1..]),
                    None => (&s[..], &[][..]),
                };
                if v.first().is_some_and(|&m| m != 0) {
                    return Err(Raise::Syntax);
                }
                let text = safe_zlib(v.get(1..).unwrap_or(&[]))?.unwrap_or_default();
                if !k.is_empty() {
                    let n = text.len();
                    self.text(k, latin1(&text), None);
                    self.text_memory(n)?;
                }
                Handled::Data(s)
            }
            b"iTXt" => {
                let s = data(fp)?;
                self.itxt(&s)?;
                Handled::Data(s)
            }
            b"eXIf" => {
                let s = data(fp)?;
                let mut v = b"Exif\x00\x00".to_vec();
                v.extend_from_slice(&s);
                self.exif = Some(Exif::Bytes(v));
                Handled::Data(s)
            }
            b"acTL" => {
                let s = data(fp)?;
                if s.len() < 8 {
                    return Err(Raise::Other("APNG contains a truncated acTL chunk".into()));
                }
                if self.n_frames.is_some() {
                    self.n_frames = None;
                } else {
                    let n = be32(&s, 0).unwrap_or(0);
                    if n != 0 && n <= 0x8000_0000 {
                        self.n_frames = Some(n);
                    }
                }
                Handled::Data(s)
            }
            b"fcTL" => {
                let s = data(fp)?;
                if s.len() < 26 {
                    return Err(Raise::Other("APNG contains a truncated fcTL chunk".into()));
                }
                let seq = be32(&s, 0).unwrap_or(0);
                let in_order = match self.seq {
                    None => seq == 0,
                    Some(prev) => u64::from(prev) + 1 == u64::from(seq),
                };
                if !in_order {
                    return Err(Raise::Syntax);
                }
                self.seq = Some(seq);
                let (w, h) = (be32(&s, 4).unwrap_or(0), be32(&s, 8).unwrap_or(0));
                let (px, py) = (be32(&s, 12).unwrap_or(0), be32(&s, 16).unwrap_or(0));
                if u64::from(px) + u64::from(w) > u64::from(self.size.0)
                    || u64::from(py) + u64::from(h) > u64::from(self.size.1)
                {
                    return Err(Raise::Syntax);
                }
                self.bbox = Some((px, py, px + w, py + h));
                let _ = be16(&s, 20);
                Handled::Data(s)
            }
            b"fdAT" => {
                if length < 4 {
                    return Err(Raise::Other("APNG contains a truncated fdAT chunk".into()));
                }
                let s = fp.safe_read(4).ok_or_else(short)?;
                let seq = be32(s, 0).unwrap_or(0);
                let in_order = self
                    .seq
                    .is_some_and(|prev| u64::from(prev) + 1 == u64::from(seq));
                if !in_order {
                    return Err(Raise::Syntax);
                }
                self.seq = Some(seq);
                if self.mode.is_none() {
                    return Ok(Handled::Unknown);
                }
                Handled::Eof
            }
            b"PLTE" | b"cHRM" => Handled::Data(data(fp)?),
            _ => Handled::Unknown,
        })
    }

    /// `chunk_iTXt`: keyword, compression flag and method, language, translated keyword, text.
    fn itxt(&mut self, s: &[u8]) -> Result<(), Raise> {
        let Some(i) = s.iter().position(|&b| b == 0) else {
            return Ok(());
        };
        let (k, r) = (&s[..i], &s[i + 1..]);
        if r.len() < 2 {
            return Ok(());
        }
        let (cf, cm, r) = (r[0], r[1], &r[2..]);
        let mut parts = r.splitn(3, |&b| b == 0);
        let (Some(lang), Some(tk), Some(v)) = (parts.next(), parts.next(), parts.next()) else {
            return Ok(());
        };
        let v = if cf != 0 {
            if cm != 0 {
                return Ok(());
            }
            match safe_zlib(v)? {
                Some(v) => v,
                None => return Ok(()),
            }
        } else {
            v.to_vec()
        };
        if k == b"XML:com.adobe.xmp" {
            self.xmp_bytes = Some(v.clone());
        }
        let (Ok(_), Ok(_), Ok(text)) = (
            std::str::from_utf8(lang),
            std::str::from_utf8(tk),
            std::str::from_utf8(&v),
        ) else {
            return Ok(());
        };
        let n = text.chars().count();
        self.text(k, text.to_string(), None);
        self.text_memory(n)?;
        Ok(())
    }
}

/// Reads one chunk header: `Ok(None)` on `struct.error` (fewer than 4 bytes).
fn chunk_header<'a>(fp: &mut Cursor<'a>) -> Result<Option<(&'a [u8], u32)>, Raise> {
    let s = fp.read(8);
    let Some(length) = be32(s, 0) else {
        return Ok(None);
    };
    let cid = &s[4..];
    if !is_cid(cid) {
        return Err(Raise::Syntax);
    }
    Ok(Some((cid, length)))
}

/// Whether a zlib stream yields more than `total` bytes before it errs or ends.
fn produces_more_than(stream: &[u8], total: u64) -> bool {
    let mut z = flate2::Decompress::new(true);
    let mut buf = vec![0u8; 1 << 16];
    loop {
        let at = usize::try_from(z.total_in())
            .unwrap_or(stream.len())
            .min(stream.len());
        let before = (z.total_in(), z.total_out());
        match z.decompress(&stream[at..], &mut buf, flate2::FlushDecompress::None) {
            Ok(flate2::Status::StreamEnd) | Err(_) => return z.total_out() > total,
            Ok(_) => {
                if z.total_out() > total {
                    return true;
                }
                if (z.total_in(), z.total_out()) == before {
                    return false;
                }
            }
        }
    }
}

/// A running Adler-32 (zlib's stream checksum).
struct Adler32 {
    a: u32,
    b: u32,
}

impl Default for Adler32 {
    fn default() -> Self {
        Adler32 { a: 1, b: 0 }
    }
}

impl Adler32 {
    fn update(&mut self, data: &[u8]) {
        for chunk in data.chunks(5552) {
            for &x in chunk {
                self.a += u32::from(x);
                self.b += self.a;
            }
            self.a %= 65521;
            self.b %= 65521;
        }
    }

    fn value(&self) -> u32 {
        (self.b << 16) | self.a
    }
}

/// Row accounting of Pillow's zip decoder (`ZipDecode.c`).
#[derive(Clone, Copy)]
struct Rows {
    bits: u64,
    xsize: u64,
    ysize: u64,
    interlaced: bool,
    pass: usize,
    y: u64,
    row_len: u64,
    filled: u64,
    rows: u64,
    done: bool,
}

const OFFSET: [u64; 7] = [7, 3, 3, 1, 1, 0, 0];
const STARTING_ROW: [u64; 7] = [0, 0, 4, 0, 2, 0, 1];
const COL_INCREMENT: [u64; 7] = [8, 8, 4, 4, 2, 2, 1];
const ROW_INCREMENT: [u64; 7] = [8, 8, 8, 4, 4, 2, 2];

impl Rows {
    fn new(bits: u32, xsize: u64, ysize: u64, interlaced: bool) -> Self {
        let bits = u64::from(bits);
        let mut rows = Rows {
            bits,
            xsize,
            ysize,
            interlaced,
            pass: 0,
            y: 0,
            row_len: 0,
            filled: 0,
            rows: 0,
            done: false,
        };
        rows.row_len = if interlaced {
            rows.pass_len(0)
        } else {
            (bits * xsize).div_ceil(8)
        };
        rows
    }

    /// Inflated bytes the whole image takes (every row with its filter byte).
    fn total_bytes(&self) -> u64 {
        let mut probe = Rows { ..*self };
        let mut total: u64 = 0;
        while !probe.done {
            total += probe.row_len + 1;
            probe.next_row();
        }
        total
    }

    fn pass_len(&self, pass: usize) -> u64 {
        ((self.xsize + OFFSET[pass]) / COL_INCREMENT[pass] * self.bits).div_ceil(8)
    }

    /// Consumes inflated bytes; `Err` on a filter type Pillow does not know.
    fn feed(&mut self, mut out: &[u8]) -> Result<(), String> {
        while !out.is_empty() && !self.done {
            if self.filled == 0 && out[0] > 4 {
                return Err(format!("unknown PNG row filter type {}", out[0]));
            }
            let take = (self.row_len + 1 - self.filled).min(out.len() as u64);
            self.filled += take;
            out = &out[take as usize..];
            if self.filled == self.row_len + 1 {
                self.filled = 0;
                self.rows += 1;
                self.next_row();
            }
        }
        Ok(())
    }

    fn next_row(&mut self) {
        if self.interlaced {
            self.y += ROW_INCREMENT[self.pass];
            while self.y >= self.ysize || self.row_len == 0 {
                self.pass += 1;
                if self.pass == 7 {
                    self.y = self.ysize;
                    break;
                }
                self.y = STARTING_ROW[self.pass];
                self.row_len = self.pass_len(self.pass);
            }
        } else {
            self.y += 1;
        }
        if self.y >= self.ysize {
            self.done = true;
        }
    }
}

/// Opens and loads a PNG: `Ok(None)` when the PNG plugin does not take it.
pub(crate) fn read(bytes: &[u8], limits: &Limits) -> Result<Option<Opened>, String> {
    if !bytes.starts_with(MAGIC) {
        return Ok(None);
    }
    let mut fp = Cursor::new(bytes);
    fp.seek(8);
    let mut st = Stream::default();
    // The chunk walk of `_open`, up to the first image data.
    let mut tile: Option<(usize, u32)> = None;
    loop {
        let (cid, length) = match chunk_header(&mut fp) {
            Ok(Some(h)) => h,
            Ok(None) | Err(Raise::Syntax) => return Ok(None),
            Err(Raise::Other(e)) => return Err(e),
        };
        let data_at = fp.tell();
        let handled = match st.call(&mut fp, cid, length) {
            Ok(h) => h,
            Err(Raise::Syntax) => return Ok(None),
            Err(Raise::Other(e)) => return Err(e),
        };
        let data = match handled {
            Handled::Eof => {
                if cid == b"fdAT" {
                    tile = Some((data_at + 4, length - 4));
                } else if cid == b"IDAT" {
                    tile = Some((data_at, length));
                }
                break;
            }
            Handled::Data(d) => d,
            Handled::Unknown => match fp.safe_read(i64::from(length)) {
                Some(d) => d.to_vec(),
                None => return Err("truncated file read".into()),
            },
        };
        let mut crc = crc32fast::Hasher::new();
        crc.update(cid);
        crc.update(&data);
        match be32(fp.read(4), 0) {
            Some(c) if c == crc.finalize() => {}
            _ => return Ok(None),
        }
    }
    let (width, height) = st.size;
    super::bomb_check(width, height, limits)?;
    let n_frames = st.n_frames.map_or(1, |n| n + u32::from(st.default_image));
    let Some((mode, bits)) = st.mode else {
        return Err("the PNG's bit depth and colour type have no mode".into());
    };
    let Some((start, first_len)) = tile else {
        return Err("cannot load this image: no image data".into());
    };
    // `_getexif` loads first (errors swallowed) unless `exif` is already known;
    // an error raised after the tiles were cleared then does not recur.
    let exif_before_load = st.exif.is_some();
    let deferred = load(bytes, &mut st, start, first_len, bits, n_frames > 1)?;
    if let Some(e) = &deferred {
        if exif_before_load {
            return Err(e.clone());
        }
    }
    let has_exif = deferred.is_none()
        && match &st.exif {
            Some(Exif::Bytes(b)) => {
                exif::merged_dict_is_truthy(b, st.xmp_for_orientation().as_deref())
            }
            Some(Exif::Text) => false,
            None => match &st.raw_profile_exif {
                Some(text) => raw_profile(text).is_some_and(|b| {
                    exif::merged_dict_is_truthy(&b, st.xmp_for_orientation().as_deref())
                }),
                None => false,
            },
        };
    Ok(Some(Opened {
        format: "PNG",
        mode,
        width,
        height,
        has_exif,
        n_frames: u64::from(n_frames),
        reload_fails: deferred.is_some(),
    }))
}

impl Stream {
    /// The XMP packet `getexif` searches: the `XML:com.adobe.xmp` text, else the iTXt bytes.
    fn xmp_for_orientation(&self) -> Option<Vec<u8>> {
        match &self.xmp_text {
            Some(t) if !t.is_empty() => Some(t.as_bytes().to_vec()),
            _ => self.xmp_bytes.clone().filter(|b| !b.is_empty()),
        }
    }
}

/// `bytes.fromhex("".join(text.split("\n")[3:]))`, `None` on a ValueError.
fn raw_profile(text: &str) -> Option<Vec<u8>> {
    let hex: String = text.split('\n').skip(3).collect();
    let mut out = Vec::with_capacity(hex.len() / 2);
    let mut chars = hex.chars().peekable();
    loop {
        while chars
            .peek()
            .is_some_and(|c| c.is_ascii_whitespace() || *c == '\u{b}')
        {
            chars.next();
        }
        let Some(a) = chars.next() else {
            break;
        };
        let b = chars.next()?;
        out.push(u8::try_from(a.to_digit(16)? * 16 + b.to_digit(16)?).ok()?);
    }
    Some(out)
}

/// `ImageFile.load` with PNG's `load_read` and `load_end`: inflates the
/// image data across IDAT (and fdAT) chunks until every row is decoded,
/// then reads the chunks after it. `Err` is raised inside the tile loop
/// (the tiles stay, so a second `load()` raises again); `Ok(Some(_))` is
/// raised after the tiles were cleared (a second `load()` succeeds).
fn load(
    bytes: &[u8],
    st: &mut Stream,
    start: usize,
    first_len: u32,
    bits: u32,
    animated: bool,
) -> Result<Option<String>, String> {
    let truncated = || "image file is truncated".to_string();
    let (x0, y0, x1, y1) = st.bbox.unwrap_or((0, 0, st.size.0, st.size.1));
    let (xsize, ysize) = (u64::from(x1 - x0), u64::from(y1 - y0));
    if xsize == 0 || ysize == 0 {
        return Err("the image data has no pixels".into());
    }
    let mut rows = Rows::new(bits, xsize, ysize, st.interlace);
    let total = rows.total_bytes();
    let mut adler = Adler32::default();
    // The compressed bytes inflated so far (to re-check a late error).
    let mut fed: Vec<u8> = Vec::new();
    // The last four bytes the inflater consumed: at the stream's end, its checksum.
    let mut trailer: u32 = 0;
    let mut fp = Cursor::new(bytes);
    fp.seek(start);
    let mut idat = u64::from(first_len);
    let mut z = flate2::Decompress::new(true);
    let mut scratch = vec![0u8; 1 << 16];
    // A decoder error is raised only after the tiles are cleared and `load_end` ran.
    let mut decoder_error: Option<String> = None;
    'decode: while !rows.done {
        while idat == 0 {
            fp.read(4);
            let (cid, length) = match chunk_header(&mut fp) {
                Ok(Some(h)) => h,
                Ok(None) => return Err(truncated()),
                Err(_) => return Err("broken PNG file".into()),
            };
            match cid {
                b"IDAT" | b"DDAT" => idat = u64::from(length),
                b"fdAT" => {
                    match st.call(&mut fp, cid, length) {
                        Ok(_) => {}
                        Err(Raise::Syntax) => {
                            return Err("APNG contains frame sequence errors".into())
                        }
                        Err(Raise::Other(e)) => return Err(e),
                    }
                    idat = u64::from(length) - 4;
                }
                _ => return Err(format!("{} (image data ends early)", truncated())),
            }
        }
        let want = usize::try_from(idat.min(1 << 16)).unwrap_or(1 << 16);
        idat -= want as u64;
        let chunk = fp.read(want);
        if chunk.is_empty() {
            return Err(truncated());
        }
        let mut input = chunk;
        // Drain until the input is used and the inflater has nothing pending.
        loop {
            if rows.done {
                break;
            }
            let before_in = z.total_in();
            let before_out = z.total_out();
            // zlib is given only the room the image still needs, so (like
            // Pillow's row-sized output) it stops before the stream's trailer.
            let room = usize::try_from(total.saturating_sub(z.total_out()))
                .unwrap_or(usize::MAX)
                .clamp(1, scratch.len());
            let result = z.decompress(input, &mut scratch[..room], flate2::FlushDecompress::None);
            let used = (z.total_in() - before_in) as usize;
            let made = (z.total_out() - before_out) as usize;
            let input_before = input;
            for &b in &input[..used.min(input.len())] {
                trailer = (trailer << 8) | u32::from(b);
            }
            input = &input[used.min(input.len())..];
            adler.update(&scratch[..made]);
            if let Err(e) = rows.feed(&scratch[..made]) {
                decoder_error = Some(e);
                break 'decode;
            }
            fed.extend_from_slice(&input_before[..used.min(input_before.len())]);
            let status = match result {
                Ok(s) => s,
                // miniz checks further ahead than zlib: when the stream holds more
                // output than the image needs, zlib stops before the bad part.
                Err(_) if rows.done && produces_more_than(&fed, total) => break 'decode,
                Err(e) => {
                    decoder_error =
                        Some(format!("broken data stream when reading image file: {e}"));
                    break 'decode;
                }
            };
            if status == flate2::Status::StreamEnd {
                // zlib checks the stream's Adler-32 when it reaches it.
                if adler.value() != trailer {
                    decoder_error = Some("broken data stream: incorrect data check".into());
                    break 'decode;
                }
                if rows.filled == 0 && rows.rows > 0 {
                    rows.done = true;
                    break;
                }
                // The stream ended mid-row: Pillow reads on until the data runs out.
                return Err(format!(
                    "{} (the image data stream ends mid-row)",
                    truncated()
                ));
            }
            if rows.done {
                // zlib goes on through what needs no output (an end of block, the
                // next block's header, the checksum) until a byte must be written.
                let mut probe = [0u8; 1];
                let before = z.total_in();
                let more = z.decompress(input, &mut probe, flate2::FlushDecompress::None);
                for &b in &input[..usize::try_from(z.total_in() - before)
                    .unwrap_or(0)
                    .min(input.len())]
                {
                    trailer = (trailer << 8) | u32::from(b);
                }
                match more {
                    Err(e) => {
                        decoder_error =
                            Some(format!("broken data stream when reading image file: {e}"))
                    }
                    Ok(flate2::Status::StreamEnd)
                        if z.total_out() == total && adler.value() != trailer =>
                    {
                        decoder_error = Some("broken data stream: incorrect data check".into());
                    }
                    Ok(_) => {}
                }
                break 'decode;
            }
            if (used == 0 && made == 0) || (input.is_empty() && made < room) {
                break;
            }
        }
    }
    // `load_end`: skip what is left of this chunk, then read the rest.
    fp.skip(usize::try_from(idat).unwrap_or(usize::MAX));
    let end = load_end(&mut fp, st, animated);
    Ok(end.err().or(decoder_error))
}

/// `PngImageFile.load_end`: the chunks after the image data, without CRCs.
fn load_end(fp: &mut Cursor, st: &mut Stream, animated: bool) -> Result<(), String> {
    let truncated = || "image file is truncated".to_string();
    loop {
        fp.read(4);
        let (cid, length) = match chunk_header(fp) {
            Ok(Some(h)) => h,
            Ok(None) | Err(_) => break,
        };
        if cid == b"IEND" || (cid == b"fcTL" && animated) {
            break;
        }
        match st.call(fp, cid, length) {
            Ok(Handled::Data(_)) => {}
            Ok(Handled::Eof) => {
                let n = if cid == b"fdAT" { length - 4 } else { length };
                fp.safe_read(i64::from(n)).ok_or_else(truncated)?;
            }
            Ok(Handled::Unknown) => {
                fp.safe_read(i64::from(length)).ok_or_else(truncated)?;
            }
            Err(Raise::Syntax) => return Err("broken chunk after the image data".into()),
            Err(Raise::Other(e)) => return Err(e),
        }
    }
    Ok(())
}
