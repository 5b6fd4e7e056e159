//! libmagic's built-in tests that run before the magic rules: tar headers
//! (is_tar.c), JSON and NDJSON (is_json.c) and CSV (is_csv.c), ported with
//! their quirks.

/// C's `isspace` in the C locale.
fn c_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | 0x0B | 0x0C | b'\r')
}

/// `from_oct`: an octal field, or -1.
fn from_oct(field: &[u8]) -> i64 {
    let mut digs = field.len();
    if digs == 0 {
        return -1;
    }
    let mut i = 0;
    while field.get(i).copied().is_some_and(c_space) {
        i += 1;
        if digs == 0 {
            return -1;
        }
        digs -= 1;
    }
    let mut value: i64 = 0;
    while digs > 0 && field.get(i).is_some_and(|b| (b'0'..=b'7').contains(b)) {
        value = (value << 3) | i64::from(field[i] - b'0');
        i += 1;
        digs -= 1;
        if value > i64::from(i32::MAX) {
            // C's int would overflow here; no checksum of a 512-byte header is this large
            return -1;
        }
    }
    if digs > 0 && field.get(i).is_some_and(|&b| b != 0 && !c_space(b)) {
        return -1;
    }
    value
}

/// `is_tar`: a 512-byte header whose checksum holds.
pub fn is_tar(buf: &[u8]) -> bool {
    let Some(header) = buf.get(..512) else {
        return false;
    };
    let name = &header[..100];
    if let Some(nul) = name.iter().position(|&b| b == 0) {
        if nul >= 7 && &name[nul - 7..nul] == b"/gpkg-1" {
            return false;
        }
    }
    let chksum = &header[148..156];
    let recsum = from_oct(chksum);
    let mut sum: i64 = header.iter().map(|&b| i64::from(b)).sum();
    // the field counts as blanks; C reads it as signed chars
    sum -= chksum.iter().map(|&b| i64::from(b as i8)).sum::<i64>();
    sum += 8 * i64::from(b' ');
    sum == recsum
}

/// Recursion bound of `json_parse` (its `lvl > 500`).
const JSON_MAX_LEVEL: usize = 500;

/// The counters `json_parse` keeps (only objects and arrays of more than one are read).
#[derive(Default)]
struct JsonStats {
    objects: u64,
    arrays_n: u64,
}

/// Bytes the JSON and CSV tests read, front to back: the upload in memory,
/// or an upload read a window at a time ([`super::window::Windowed`]), so a
/// big NDJSON log is tested whole without being held whole.
pub trait Scan {
    /// The number of bytes.
    fn len(&self) -> usize;
    /// The byte at `i`, `None` at or past the end.
    fn at(&self, i: usize) -> Option<u8>;
    /// Whether there are no bytes.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl Scan for [u8] {
    fn len(&self) -> usize {
        <[u8]>::len(self)
    }

    fn at(&self, i: usize) -> Option<u8> {
        self.get(i).copied()
    }
}

impl<const N: usize> Scan for [u8; N] {
    fn len(&self) -> usize {
        N
    }

    fn at(&self, i: usize) -> Option<u8> {
        self.get(i).copied()
    }
}

impl<T: Scan + ?Sized> Scan for &T {
    fn len(&self) -> usize {
        (**self).len()
    }

    fn at(&self, i: usize) -> Option<u8> {
        (**self).at(i)
    }
}

struct Json<'a, S: Scan + ?Sized> {
    buf: &'a S,
    st: JsonStats,
}

fn json_space(b: u8) -> bool {
    matches!(b, b' ' | b'\n' | b'\r' | b'\t')
}

impl<S: Scan + ?Sized> Json<'_, S> {
    fn skip_space(&self, mut uc: usize) -> usize {
        while self.buf.at(uc).is_some_and(json_space) {
            crate::decode::steps::step();
            uc += 1;
        }
        uc
    }

    fn at(&self, i: usize) -> Option<u8> {
        self.buf.at(i)
    }

    /// The byte at `i`, which the caller knows is there.
    fn byte(&self, i: usize) -> u8 {
        self.buf.at(i).unwrap_or(0)
    }

    fn string(&self, uc: &mut usize) -> bool {
        let ue = self.buf.len();
        while *uc < ue {
            crate::decode::steps::step();
            let c = self.byte(*uc);
            *uc += 1;
            match c {
                0 => return false,
                b'\\' => {
                    if *uc == ue {
                        return false;
                    }
                    let e = self.byte(*uc);
                    *uc += 1;
                    match e {
                        b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => {}
                        b'u' => {
                            if ue - *uc < 4 {
                                *uc = ue;
                                return false;
                            }
                            for _ in 0..4 {
                                let h = self.byte(*uc);
                                *uc += 1;
                                if !h.is_ascii_hexdigit() {
                                    return false;
                                }
                            }
                        }
                        _ => return false,
                    }
                }
                b'"' => return true,
                _ => {}
            }
        }
        false
    }

    fn array(&mut self, uc: &mut usize, lvl: usize) -> bool {
        let ue = self.buf.len();
        while *uc < ue {
            *uc = self.skip_space(*uc);
            if *uc == ue {
                return false;
            }
            if self.byte(*uc) == b']' {
                self.st.arrays_n += 1;
                *uc += 1;
                return true;
            }
            if !self.parse(uc, lvl + 1) {
                return false;
            }
            if *uc == ue {
                return false;
            }
            match self.byte(*uc) {
                b',' => *uc += 1,
                b']' => {
                    self.st.arrays_n += 1;
                    *uc += 1;
                    return true;
                }
                _ => return false,
            }
        }
        false
    }

    fn object(&mut self, uc: &mut usize, lvl: usize) -> bool {
        let ue = self.buf.len();
        while *uc < ue {
            *uc = self.skip_space(*uc);
            if *uc == ue {
                return false;
            }
            if self.byte(*uc) == b'}' {
                *uc += 1;
                return true;
            }
            let quote = self.byte(*uc);
            *uc += 1;
            if quote != b'"' || !self.string(uc) {
                return false;
            }
            *uc = self.skip_space(*uc);
            if *uc == ue {
                return false;
            }
            let colon = self.byte(*uc);
            *uc += 1;
            if colon != b':' || !self.parse(uc, lvl + 1) {
                return false;
            }
            if *uc == ue {
                return false;
            }
            let next = self.byte(*uc);
            *uc += 1;
            match next {
                b',' => {}
                b'}' => return true,
                _ => {
                    *uc -= 1;
                    return false;
                }
            }
        }
        false
    }

    fn number(&self, uc: &mut usize) -> bool {
        let ue = self.buf.len();
        let mut got = false;
        if *uc == ue {
            return false;
        }
        if self.byte(*uc) == b'-' {
            *uc += 1;
        }
        while self.at(*uc).is_some_and(|b| b.is_ascii_digit()) {
            *uc += 1;
            got = true;
        }
        if *uc == ue {
            return got;
        }
        if self.byte(*uc) == b'.' {
            *uc += 1;
        }
        while self.at(*uc).is_some_and(|b| b.is_ascii_digit()) {
            *uc += 1;
            got = true;
        }
        if *uc == ue {
            return got;
        }
        if got && matches!(self.byte(*uc), b'e' | b'E') {
            *uc += 1;
            got = false;
            if *uc == ue {
                return got;
            }
            if matches!(self.byte(*uc), b'+' | b'-') {
                *uc += 1;
            }
            while self.at(*uc).is_some_and(|b| b.is_ascii_digit()) {
                *uc += 1;
                got = true;
            }
        }
        got
    }

    /// `json_parse_const`: `uc` is past the first letter; a constant cut
    /// short by the end of the buffer still counts.
    fn constant(&self, uc: &mut usize, word: &[u8]) -> bool {
        let ue = self.buf.len();
        let start = *uc;
        *uc = (start + word.len() - 1).min(ue);
        for (k, &want) in word.iter().enumerate().skip(1) {
            let at = start + k - 1;
            if at >= ue {
                break;
            }
            if self.byte(at) != want {
                return false;
            }
        }
        true
    }

    fn parse(&mut self, ucp: &mut usize, lvl: usize) -> bool {
        crate::decode::steps::step();
        let ue = self.buf.len();
        let mut uc = self.skip_space(*ucp);
        if uc == ue {
            *ucp = uc;
            return false;
        }
        if lvl > JSON_MAX_LEVEL {
            return false;
        }
        let first = self.byte(uc);
        uc += 1;
        let (rv, object) = match first {
            b'"' => (self.string(&mut uc), false),
            b'[' => (self.array(&mut uc, lvl + 1), false),
            b'{' => (self.object(&mut uc, lvl + 1), true),
            b't' => (self.constant(&mut uc, b"true"), false),
            b'f' => (self.constant(&mut uc, b"false"), false),
            b'n' => (self.constant(&mut uc, b"null"), false),
            _ => {
                uc -= 1;
                (self.number(&mut uc), false)
            }
        };
        if rv && object {
            self.st.objects += 1;
        }
        *ucp = self.skip_space(uc);
        rv
    }
}

/// `file_is_json`: `Some(false)` for one JSON text (`application/json`),
/// `Some(true)` for several of the same kind (`application/x-ndjson`).
pub fn json<S: Scan + ?Sized>(buf: &S) -> Option<bool> {
    let mut parser = Json {
        buf,
        st: JsonStats::default(),
    };
    let start = parser.skip_space(0);
    let mut uc = 0;
    if !parser.parse(&mut uc, 0) {
        return None;
    }
    let has_container = |p: &Json<'_, S>| p.st.arrays_n > 0 || p.st.objects > 0;
    if uc == buf.len() {
        return has_container(&parser).then_some(false);
    }
    if buf.at(start) == buf.at(uc) && parser.parse(&mut uc, 1) {
        return has_container(&parser).then_some(true);
    }
    None
}

/// `CSV_LINES`: the lines examined.
const CSV_LINES: usize = 10;

/// `csv_parse`: the same number of commas on the first lines (ten, or all if more than two).
pub fn csv<S: Scan + ?Sized>(buf: &S) -> bool {
    let (mut nf, mut tf, mut nl) = (0usize, 0usize, 0usize);
    let mut i = 0;
    while i < buf.len() {
        crate::decode::steps::step();
        let c = buf.at(i).unwrap_or(0);
        i += 1;
        match c {
            b'"' => {
                // eatquote: to the byte after the closing quote of the pair run
                let mut quote = false;
                let mut end = buf.len();
                while i < buf.len() {
                    crate::decode::steps::step();
                    let q = buf.at(i).unwrap_or(0);
                    i += 1;
                    if q != b'"' {
                        if quote {
                            end = i - 1;
                            break;
                        }
                        continue;
                    }
                    quote = !quote;
                }
                i = end.min(buf.len());
            }
            b',' => nf += 1,
            b'\n' => {
                nl += 1;
                if nl == CSV_LINES {
                    return tf != 0 && tf == nf;
                }
                if tf == 0 {
                    if nf == 0 {
                        return false;
                    }
                    tf = nf;
                } else if tf != nf {
                    return false;
                }
                nf = 0;
            }
            _ => {}
        }
    }
    tf != 0 && nl > 2
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_kinds() {
        assert_eq!(json(b"{\"a\": 1}\n"), Some(false));
        assert_eq!(json(b"[1, 2]"), Some(false));
        assert_eq!(json(b"{\"a\": 1}\n{\"a\": 2}\n"), Some(true));
        assert_eq!(json(b"\"just a string\""), None, "no object or array");
        assert_eq!(json(b"{\"a\": tr"), None);
        assert_eq!(json(b"[tr"), None);
        assert_eq!(json(b"{"), None);
    }

    #[test]
    fn json_depth_is_bounded() {
        let deep = "[".repeat(100_000);
        assert_eq!(json(deep.as_bytes()), None);
    }

    #[test]
    fn csv_needs_equal_commas_on_three_lines() {
        assert!(csv(b"a,b\n1,2\n3,4\n"));
        assert!(!csv(b"a,b\n1,2\n"));
        assert!(!csv(b"a,b\n1\n3,4\n"));
        assert!(csv(b"\"x,y\",b\n1,2\n3,4\n"));
    }

    #[test]
    fn tar_checksum() {
        let mut h = vec![0u8; 512];
        h[..5].copy_from_slice(b"a.txt");
        h[148..156].copy_from_slice(b"        ");
        let sum: u32 = h.iter().map(|&b| u32::from(b)).sum();
        let field = format!("{sum:06o}\0 ");
        h[148..156].copy_from_slice(field.as_bytes());
        assert!(is_tar(&h));
        h[0] = b'b';
        assert!(!is_tar(&h));
    }
}
