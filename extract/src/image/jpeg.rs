//! JPEG (and MPO) as Pillow 12 opens and loads it. `JpegImagePlugin._open`
//! walks the markers in Python up to the first SOS (size and mode from the
//! last SOF, EXIF from APP1, the MPF index from APP2); the load hands the
//! whole file to libjpeg, whose acceptance is modelled here at the marker
//! level: its own header checks (segment lengths, one SOF, known markers,
//! quantisation tables defined before their scan, progression parameters),
//! a single-scan image decoded once its entropy-coded data ends at a marker
//! (what follows is read only until the data runs out), a multi-scan one only
//! when every scan is there up to EOI. A file cut inside the last entropy
//! segment is "truncated", as the reference says.

use super::cursor::Cursor;
use super::exif::{self, Head};
use super::Opened;
use crate::limits::Limits;

fn be16(s: &[u8], at: usize) -> Option<u16> {
    s.get(at..at + 2).map(|b| u16::from_be_bytes([b[0], b[1]]))
}

fn be32(s: &[u8], at: usize) -> Option<u32> {
    s.get(at..at + 4)
        .map(|b| u32::from_be_bytes([b[0], b[1], b[2], b[3]]))
}

/// Whether Pillow's `MARKER` table has this marker.
fn known_marker(m: u16) -> bool {
    matches!(m, 0xFFC0..=0xFFFE)
}

/// What `_open` collected.
#[derive(Default)]
struct Header {
    size: (u32, u32),
    mode: Option<&'static str>,
    exif: Option<Vec<u8>>,
    xmp: Option<Vec<u8>>,
    mp: Option<Vec<u8>>,
    app1: Vec<Vec<u8>>,
    icc_chunks: Vec<Vec<u8>>,
}

/// A failure inside `_open`: a caught class (the plugin gives up) or any other.
enum Raise {
    Syntax,
    Other(String),
}

/// A segment's data as the handlers read it: `n = i16(read(2)) - 2`, `_safe_read(n)`.
fn segment<'a>(fp: &mut Cursor<'a>) -> Result<&'a [u8], Raise> {
    let n = be16(fp.read(2), 0).ok_or(Raise::Syntax)?;
    fp.safe_read(i64::from(n) - 2)
        .ok_or_else(|| Raise::Other("truncated file read".into()))
}

/// The APP handler's checks and the info it keeps.
fn app(h: &mut Header, marker: u16, s: &[u8]) -> Result<(), Raise> {
    if marker == 0xFFE1 {
        h.app1.push(s.to_vec());
    }
    if marker == 0xFFE0 && s.starts_with(b"JFIF") {
        be16(s, 5).ok_or(Raise::Syntax)?;
    } else if marker == 0xFFE1 && s.starts_with(b"Exif\0\0") {
        match &mut h.exif {
            Some(e) => e.extend_from_slice(&s[6..]),
            None => h.exif = Some(s.to_vec()),
        }
    } else if marker == 0xFFE1 && s.starts_with(b"http://ns.adobe.com/xap/1.0/\x00") {
        let i = s.iter().position(|&b| b == 0).map_or(s.len(), |i| i + 1);
        h.xmp = Some(s[i..].to_vec());
    } else if marker == 0xFFE2 && s.starts_with(b"ICC_PROFILE\0") {
        h.icc_chunks.push(s.to_vec());
    } else if marker == 0xFFED && s.starts_with(b"Photoshop 3.0\x00") {
        photoshop(s)?;
    } else if marker == 0xFFEE && s.starts_with(b"Adobe") {
        be16(s, 5).ok_or(Raise::Syntax)?;
    } else if marker == 0xFFE2 && s.starts_with(b"MPF\0") {
        h.mp = Some(s[4..].to_vec());
    }
    Ok(())
}

/// The Photoshop resource walk: a short field ends it, a missing name length raises IndexError.
fn photoshop(s: &[u8]) -> Result<(), Raise> {
    let mut offset = 14usize;
    while s.get(offset..offset + 4) == Some(b"8BIM") {
        offset += 4;
        let Some(code) = be16(s, offset) else { break };
        offset += 2;
        let name_len = *s.get(offset).ok_or(Raise::Syntax)?;
        offset += 1 + usize::from(name_len);
        offset += offset & 1;
        let Some(size) = be32(s, offset) else { break };
        offset += 4;
        let size = size as usize;
        let data = s
            .get(offset..offset.saturating_add(size).min(s.len()))
            .unwrap_or(&[]);
        if code == 0x03ED
            && (be32(data, 0).is_none()
                || be16(data, 4).is_none()
                || be32(data, 8).is_none()
                || be16(data, 12).is_none())
        {
            break;
        }
        offset = offset.saturating_add(size);
        offset += offset & 1;
    }
    Ok(())
}

/// The SOF handler: size, 8-bit samples, 1, 3 or 4 layers, ICC chunks, component triples.
fn sof(h: &mut Header, s: &[u8]) -> Result<(), Raise> {
    let (Some(height), Some(width)) = (be16(s, 1), be16(s, 3)) else {
        return Err(Raise::Syntax);
    };
    h.size = (u32::from(width), u32::from(height));
    if s[0] != 8 {
        return Err(Raise::Syntax);
    }
    h.mode = Some(match s.get(5) {
        Some(1) => "L",
        Some(3) => "RGB",
        Some(4) => "CMYK",
        _ => return Err(Raise::Syntax),
    });
    if !h.icc_chunks.is_empty() {
        h.icc_chunks.sort();
        h.icc_chunks[0].get(13).ok_or(Raise::Syntax)?;
        h.icc_chunks.clear();
    }
    if (s.len() - 6) % 3 != 0 {
        // The last component triple is short: IndexError.
        return Err(Raise::Syntax);
    }
    Ok(())
}

/// The DQT handler: whole tables of 8- or 16-bit values.
fn dqt(s: &[u8]) -> Result<(), Raise> {
    let mut s = s;
    while let Some(&v) = s.first() {
        let len = 1 + if v / 16 == 0 { 64 } else { 128 };
        if s.len() < len {
            return Err(Raise::Syntax);
        }
        s = &s[len..];
    }
    Ok(())
}

/// `JpegImageFile._open`: the header up to the first SOS, or how it failed.
fn open_header(bytes: &[u8]) -> Result<Option<Header>, String> {
    if !bytes.starts_with(b"\xff\xd8\xff") {
        return Ok(None);
    }
    let mut fp = Cursor::new(bytes);
    fp.seek(3);
    let mut h = Header::default();
    let mut s: Vec<u8> = vec![0xFF];
    let result: Result<(), Raise> = (|| loop {
        let Some(&first) = s.first() else {
            return Err(Raise::Syntax);
        };
        if first != 0xFF {
            s = fp.read(1).to_vec();
            continue;
        }
        s.extend_from_slice(fp.read(1));
        let marker = be16(&s, 0).ok_or(Raise::Syntax)?;
        if known_marker(marker) {
            match marker {
                0xFFC0..=0xFFC3 | 0xFFC5..=0xFFC7 | 0xFFC9..=0xFFCB | 0xFFCD..=0xFFCF | 0xFFDE => {
                    let seg = segment(&mut fp)?;
                    if seg.is_empty() {
                        return Err(Raise::Syntax);
                    }
                    sof(&mut h, seg)?;
                }
                0xFFDB => dqt(segment(&mut fp)?)?,
                0xFFE0..=0xFFEF => {
                    let seg = segment(&mut fp)?;
                    app(&mut h, marker, seg)?;
                }
                0xFFC4 | 0xFFCC | 0xFFDA | 0xFFDC | 0xFFDD | 0xFFDF | 0xFFFE => {
                    segment(&mut fp)?;
                }
                _ => {}
            }
            if marker == 0xFFDA {
                return Ok(());
            }
            s = fp.read(1).to_vec();
        } else if marker == 0xFFFF {
            s = vec![0xFF];
        } else if marker == 0xFF00 {
            s = fp.read(1).to_vec();
        } else {
            return Err(Raise::Syntax);
        }
    })();
    match result {
        Ok(()) => Ok(Some(h)),
        Err(Raise::Syntax) => Ok(None),
        Err(Raise::Other(e)) => Err(e),
    }
}

/// `jpeg_factory`'s MPO test: an MP index of more than one image (not Ultra HDR).
/// `Err(())` is the `struct.error` that makes the plugin give up.
fn is_mpo(h: &Header) -> Result<bool, ()> {
    let Some(mp) = &h.mp else {
        return Ok(false);
    };
    let Some((head, next)) = Head::parse(&mp[..mp.len().min(8)]) else {
        return Ok(false);
    };
    let tags = exif::load_ifd(mp, head, next);
    let value = |id: u16| tags.iter().find(|t| t.id == id);
    let Some(count) = value(0xB001) else {
        return Ok(false);
    };
    // A LONG or SHORT scalar; anything else is a TypeError (a plain JPEG).
    let quant = match (count.typ, count.data.len()) {
        (4 | 9 | 13, 4) => u64::from(head.u32(&count.data)),
        (3 | 8, 2) => u64::from(head.u16(&count.data)),
        (1 | 6, 1) => u64::from(count.data[0]),
        _ => return Ok(false),
    };
    let Some(entries) = value(0xB002) else {
        return Ok(false);
    };
    if !matches!(entries.typ, 7 | 1) {
        return Ok(false);
    }
    let big = mp.starts_with(b"MM\x00\x2a");
    for n in 0..quant {
        let at = usize::try_from(n * 16).map_err(|_| ())?;
        let attr = entries.data.get(at..at + 16).ok_or(())?;
        let a = u32::from_le_bytes([attr[0], attr[1], attr[2], attr[3]]);
        let a = if big { a.swap_bytes() } else { a };
        if (a >> 24) & 7 != 0 {
            return Ok(false);
        }
    }
    if quant <= 1 {
        return Ok(false);
    }
    Ok(!h
        .app1
        .iter()
        .any(|s| memchr::memmem::find(s, b" hdrgm:Version=\"").is_some()))
}

/// Opens and loads a JPEG: `Ok(None)` when the JPEG plugin does not take it.
pub(crate) fn read(bytes: &[u8], limits: &Limits) -> Result<Option<Opened>, String> {
    let Some(h) = open_header(bytes)? else {
        return Ok(None);
    };
    let mpo = match is_mpo(&h) {
        Ok(m) => m,
        Err(()) => return Ok(None),
    };
    let Some(mode) = h.mode else {
        return Err("cannot load a JPEG without a frame header".into());
    };
    let (width, height) = h.size;
    super::bomb_check(width, height, limits)?;
    libjpeg::decodes(bytes)?;
    let has_exif = h
        .exif
        .as_deref()
        .is_some_and(|e| exif::merged_dict_is_truthy(e, h.xmp.as_deref()));
    Ok(Some(Opened {
        format: if mpo { "MPO" } else { "JPEG" },
        mode,
        width,
        height,
        has_exif,
        n_frames: 1,
        reload_fails: false,
    }))
}

mod libjpeg {
    //! libjpeg's reading of the whole file, at the marker level.

    use super::be16;

    /// Where the walk stopped.
    enum Stop {
        /// The data ran out (a suspension Pillow turns into "truncated").
        Eof,
        /// A fatal libjpeg error.
        Fatal(String),
    }

    struct Walk<'a> {
        b: &'a [u8],
        pos: usize,
    }

    impl<'a> Walk<'a> {
        fn byte(&mut self) -> Result<u8, Stop> {
            let c = *self.b.get(self.pos).ok_or(Stop::Eof)?;
            self.pos += 1;
            Ok(c)
        }

        /// `next_marker`: garbage and fill bytes skipped, `FF 00` passed over.
        fn marker(&mut self) -> Result<u8, Stop> {
            loop {
                let mut c = self.byte()?;
                while c != 0xFF {
                    c = self.byte()?;
                }
                loop {
                    c = self.byte()?;
                    if c != 0xFF {
                        break;
                    }
                }
                if c != 0 {
                    return Ok(c);
                }
            }
        }

        /// A segment's body after its 2-byte length (which counts itself).
        fn segment(&mut self) -> Result<&'a [u8], Stop> {
            let hi = self.byte()?;
            let lo = self.byte()?;
            let len = usize::from(u16::from_be_bytes([hi, lo]));
            if len < 2 {
                return Err(Stop::Fatal("bogus marker length".into()));
            }
            let body = self.b.get(self.pos..self.pos + len - 2).ok_or(Stop::Eof)?;
            self.pos += len - 2;
            Ok(body)
        }

        /// Skips a segment whose length may be bogus (APPn, COM): no error.
        fn skip_variable(&mut self) -> Result<(), Stop> {
            let hi = self.byte()?;
            let lo = self.byte()?;
            let len = usize::from(u16::from_be_bytes([hi, lo]));
            if len > 2 {
                if self.pos + len - 2 > self.b.len() {
                    return Err(Stop::Eof);
                }
                self.pos += len - 2;
            }
            Ok(())
        }

        /// Entropy-coded data up to the marker that ends it (RST markers belong
        /// to it; with restarts, `jpeg_resync_to_restart` also skips any marker
        /// below SOF0).
        fn entropy(&mut self, restarts: bool) -> Result<(), Stop> {
            loop {
                let c = self.byte()?;
                if c != 0xFF {
                    continue;
                }
                let mut d = self.byte()?;
                while d == 0xFF {
                    d = self.byte()?;
                }
                if d == 0 || (0xD0..=0xD7).contains(&d) || (restarts && d < 0xC0) {
                    continue;
                }
                // Leave the marker for `marker()`.
                self.pos -= 2;
                return Ok(());
            }
        }
    }

    fn fatal<T>(what: &str) -> Result<T, Stop> {
        Err(Stop::Fatal(what.to_string()))
    }

    /// What the frame header declared.
    #[derive(Default)]
    struct Frame {
        seen: bool,
        progressive: bool,
        /// Component ids and quantisation table numbers.
        components: Vec<(u8, u8)>,
    }

    fn sof(f: &mut Frame, body: &[u8], marker: u8) -> Result<(), Stop> {
        if f.seen {
            return fatal("duplicate SOF");
        }
        if body.len() < 6 {
            return fatal("bogus SOF length");
        }
        let height = be16(body, 1).unwrap_or(0);
        let width = be16(body, 3).unwrap_or(0);
        let nc = usize::from(body[5]);
        if body.len() - 6 != nc * 3 {
            return fatal("bogus SOF length");
        }
        if height == 0 || width == 0 || nc == 0 {
            return fatal("empty JPEG image");
        }
        for c in body[6..].chunks(3) {
            let (h, v) = (c[1] >> 4, c[1] & 15);
            if !(1..=4).contains(&h) || !(1..=4).contains(&v) {
                return fatal("bogus sampling factors");
            }
            f.components.push((c[0], c[2]));
        }
        f.seen = true;
        f.progressive = matches!(marker, 0xC2 | 0xCA);
        Ok(())
    }

    fn dht(body: &[u8]) -> Result<(), Stop> {
        let mut s = body;
        while s.len() > 16 {
            let index = s[0];
            let count: usize = s[1..17].iter().map(|&n| usize::from(n)).sum();
            if count > 256 || count > s.len() - 17 {
                return fatal("bogus Huffman table definition");
            }
            if index & 0x0F >= 4 || index & 0xE0 != 0 {
                return fatal("bogus DHT index");
            }
            // `jpeg_make_d_derived_tbl`: the code lengths must fit, DC symbols be at most 15.
            // The all-ones code of each length is reserved.
            let longest = s[1..17].iter().rposition(|&n| n != 0).map_or(0, |i| i + 1);
            let mut code: u32 = 0;
            for (len, &n) in s[1..=longest].iter().enumerate() {
                code += u32::from(n);
                if code >= (1u32 << (len + 1)) {
                    return fatal("bogus Huffman table definition");
                }
                code <<= 1;
            }
            let values = &s[17..17 + count];
            if index & 0x10 == 0 && values.iter().any(|&v| v > 15) {
                return fatal("bogus Huffman table definition");
            }
            s = &s[17 + count..];
        }
        if !s.is_empty() {
            return fatal("bogus DHT length");
        }
        Ok(())
    }

    fn dqt(body: &[u8], defined: &mut [bool; 4]) -> Result<(), Stop> {
        let mut s = body;
        while let Some(&n) = s.first() {
            let table = usize::from(n & 0x0F);
            if table >= 4 {
                return fatal("bogus DQT index");
            }
            let len = 1 + if n >> 4 != 0 { 128 } else { 64 };
            if s.len() < len {
                return fatal("bogus DQT length");
            }
            defined[table] = true;
            s = &s[len..];
        }
        Ok(())
    }

    /// The SOS header's checks; returns whether the scan covers every component.
    fn sos(f: &Frame, body: &[u8], defined: &[bool; 4]) -> Result<bool, Stop> {
        if !f.seen {
            return fatal("SOS without SOF");
        }
        let n = usize::from(*body.first().unwrap_or(&0));
        if body.len() != n * 2 + 4 || n == 0 || n > 4 {
            return fatal("bogus SOS length");
        }
        let mut ids: Vec<u8> = Vec::with_capacity(n);
        for c in body[1..1 + 2 * n].chunks(2) {
            let Some(&(_, tq)) = f.components.iter().find(|(id, _)| *id == c[0]) else {
                return fatal("bad component id in SOS");
            };
            if ids.contains(&c[0]) {
                return fatal("duplicate component id in SOS");
            }
            ids.push(c[0]);
            if usize::from(tq) >= 4 || !defined[usize::from(tq)] {
                return fatal("quantisation table not defined");
            }
        }
        let tail = &body[1 + 2 * n..];
        let (ss, se, ah, al) = (tail[0], tail[1], tail[2] >> 4, tail[2] & 15);
        if f.progressive {
            let mut bad = false;
            if ss == 0 {
                bad |= se != 0;
            } else {
                bad |= se < ss || se > 63 || n != 1;
            }
            if ah != 0 {
                bad |= al != ah.wrapping_sub(1);
            }
            bad |= al > 13;
            if bad {
                return fatal("invalid progressive parameters");
            }
        }
        Ok(n == f.components.len())
    }

    /// Whether libjpeg decodes every scanline of the file.
    pub(super) fn decodes(bytes: &[u8]) -> Result<(), String> {
        let mut w = Walk { b: bytes, pos: 2 };
        let mut frame = Frame::default();
        let mut quant = [false; 4];
        let mut restarts = false;
        // None before the first SOS; then whether the image has several scans.
        let mut multi: Option<bool> = None;
        // A single-scan image is decoded once its scan's data is there.
        let mut decoded = false;
        let result = (|| -> Result<(), Stop> {
            loop {
                let m = w.marker()?;
                match m {
                    0xC0..=0xC3 | 0xC9..=0xCB => {
                        if frame.seen {
                            // `get_sof` refuses a second frame before reading it whole.
                            return fatal("duplicate SOF");
                        }
                        let body = w.segment()?;
                        sof(&mut frame, body, m)?;
                    }
                    0xC5..=0xC7 | 0xCD..=0xCF => return fatal("unsupported JPEG process"),
                    0xC4 => dht(w.segment()?)?,
                    0xCC => {
                        let body = w.segment()?;
                        if body.len() % 2 != 0 {
                            return fatal("bogus DAC length");
                        }
                    }
                    0xDB => dqt(w.segment()?, &mut quant)?,
                    0xDD => {
                        let body = w.segment()?;
                        if body.len() != 2 {
                            return fatal("bogus DRI length");
                        }
                        restarts = body != [0, 0];
                    }
                    0xDA => {
                        let body = w.segment()?;
                        let all = sos(&frame, body, &quant)?;
                        match multi {
                            None => multi = Some(!all || frame.progressive),
                            Some(false) => return fatal("EOI expected"),
                            Some(true) => {}
                        }
                        w.entropy(restarts)?;
                        if multi == Some(false) {
                            decoded = true;
                        }
                    }
                    0xD9 => {
                        if multi.is_none() {
                            if frame.seen {
                                return fatal("SOF without SOS");
                            }
                            // A tables-only stream: libjpeg wants a new SOI next.
                            if bytes.get(w.pos..w.pos + 2) != Some(b"\xff\xd8") {
                                return fatal("no SOI after a tables-only stream");
                            }
                            w.pos += 2;
                            continue;
                        }
                        return Ok(());
                    }
                    0xE0..=0xEF | 0xFE => w.skip_variable()?,
                    0xD0..=0xD7 | 0x01 => {}
                    0xDC => w.skip_variable()?,
                    0xD8 => return fatal("unexpected SOI"),
                    _ => return fatal("unknown JPEG marker"),
                }
            }
        })();
        match result {
            Ok(()) => Ok(()),
            Err(Stop::Eof) if decoded => Ok(()),
            Err(Stop::Eof) => Err("image file is truncated (its data ends inside a scan)".into()),
            Err(Stop::Fatal(e)) => Err(format!("broken data stream when reading image file: {e}")),
        }
    }
}
