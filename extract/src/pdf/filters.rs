//! Stream filters as PyPDF2 3.0.1 applies them (`filters.decode_stream_data`):
//! Flate (with PNG predictors 10-15), LZW (no predictor), ASCII85, and the
//! filters it passes through (DCT, JPX, CCITT) or refuses (everything else,
//! RunLength included, and ASCIIHex, which fails on bytes in 3.0.1). Every
//! decoder draws on one budget of output bytes, so a bomb stops at the limit.

use super::error::{bound, fail, Bound, Result};
use super::object::{Dict, Object};
use std::cell::Cell;

/// Units of work each byte of the file allows (a page, form or content
/// stream read more than this many times over is a structure that
/// multiplies itself).
pub(crate) const WORK_PER_FILE_BYTE: u64 = 32;

/// Units of work each decompressed byte adds (it is read at least once).
pub(crate) const WORK_PER_INFLATED_BYTE: u64 = 4;

/// Units every file may spend whatever its size (a small file may still
/// show a form or a page a few thousand times).
pub(crate) const WORK_FLOOR: u64 = 8 << 20;

/// What reading one document may still cost: the bytes all decoding may
/// still produce, and the units of work (bytes lexed, interpreted or
/// copied, fixed costs per page, form and font) the reader may still do,
/// which grow with every byte decoded. Both end reading with a [`Bound`].
#[derive(Debug)]
pub(crate) struct Budget {
    left: Cell<u64>,
    work_left: Cell<u64>,
    work_total: Cell<u64>,
}

impl Budget {
    /// A budget of `bytes` decoded, and of work for a file of `file_bytes`.
    pub(crate) fn new(bytes: u64, file_bytes: u64) -> Self {
        let work = WORK_FLOOR.saturating_add(file_bytes.saturating_mul(WORK_PER_FILE_BYTE));
        Budget {
            left: Cell::new(bytes),
            work_left: Cell::new(work),
            work_total: Cell::new(work),
        }
    }

    /// Takes `n` decoded bytes from the budget, or fails once it is spent;
    /// each byte decoded allows [`WORK_PER_INFLATED_BYTE`] more units of work.
    pub(crate) fn spend(&self, n: usize) -> Result<()> {
        let n = n as u64;
        match self.left.get().checked_sub(n) {
            Some(left) => {
                self.left.set(left);
                let more = n.saturating_mul(WORK_PER_INFLATED_BYTE);
                self.work_left
                    .set(self.work_left.get().saturating_add(more));
                self.work_total
                    .set(self.work_total.get().saturating_add(more));
                Ok(())
            }
            None => bound(Bound::Inflated),
        }
    }

    /// Takes `units` of work, or fails once the work budget is spent.
    pub(crate) fn work(&self, units: u64) -> Result<()> {
        match self.work_left.get().checked_sub(units) {
            Some(left) => {
                self.work_left.set(left);
                Ok(())
            }
            None => {
                self.work_left.set(0);
                bound(Bound::Work {
                    units: self.work_total.get(),
                    factor: WORK_PER_FILE_BYTE,
                })
            }
        }
    }
}

/// The decode parameters a filter sees: the raw `/DecodeParms` value, already
/// resolved by the caller when it is a dictionary or an array of them.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Parms<'a> {
    /// No parameters (or something else PyPDF2 ignores).
    None,
    /// One dictionary.
    One(&'a Dict),
    /// An array (its dictionaries are searched in order).
    Many(&'a [Object]),
}

/// Applies the filters of a stream in order.
pub(crate) fn decode(
    filters: &[Object],
    parms: Parms<'_>,
    raw: &[u8],
    budget: &Budget,
) -> Result<Vec<u8>> {
    let mut data = raw.to_vec();
    if data.is_empty() {
        return Ok(data);
    }
    for filter in filters {
        let name = filter.as_name().unwrap_or("");
        data = match name {
            "/FlateDecode" | "/Fl" => flate(&data, parms, budget)?,
            "/ASCIIHexDecode" | "/AHx" => {
                // 3.0.1 compares the bytes' ints with str characters: it never finds
                // `>` and fails on the first byte (`int` has no `isspace`).
                return fail("ASCIIHexDecode cannot decode bytes (PyPDF2 3.0.1 fails here)");
            }
            "/LZWDecode" | "/LZW" => lzw(&data, budget)?,
            "/ASCII85Decode" | "/A85" => ascii85(&data, budget)?,
            "/DCTDecode" | "/JPXDecode" => data,
            "/CCITTFaxDecode" => data,
            "/Crypt" => data,
            other => return fail(format!("unsupported filter {other}")),
        };
    }
    Ok(data)
}

/// `decompress`: zlib, and on any error whatever a byte-by-byte decoder
/// recovers before it (PyPDF2's fallback), within the budget.
fn inflate(data: &[u8], budget: &Budget) -> Result<Vec<u8>> {
    use miniz_oxide::inflate::stream::{inflate, InflateState};
    use miniz_oxide::{DataFormat, MZFlush, MZStatus};
    let mut state = InflateState::new_boxed(DataFormat::Zlib);
    let mut out = Vec::new();
    let mut buf = vec![0u8; 64 * 1024];
    let mut input = data;
    loop {
        let r = inflate(&mut state, input, &mut buf, MZFlush::None);
        input = &input[r.bytes_consumed..];
        if r.bytes_written > 0 {
            budget.spend(r.bytes_written)?;
            out.extend_from_slice(&buf[..r.bytes_written]);
        }
        match r.status {
            Ok(MZStatus::StreamEnd) => break,
            Ok(_) if r.bytes_consumed == 0 && r.bytes_written == 0 => break,
            Ok(_) => {}
            Err(_) => break,
        }
    }
    Ok(out)
}

/// `FlateDecode.decode`.
fn flate(data: &[u8], parms: Parms<'_>, budget: &Budget) -> Result<Vec<u8>> {
    let out = inflate(data, budget)?;
    let lookup = |key: &str| -> Option<Object> {
        match parms {
            Parms::None => None,
            Parms::One(d) => d.get(key).cloned(),
            Parms::Many(items) => items
                .iter()
                .filter_map(Object::as_dict)
                .filter_map(|d| d.get(key).cloned())
                .next_back(),
        }
    };
    let predictor = lookup("/Predictor").and_then(|p| p.as_int()).unwrap_or(1);
    if predictor == 1 {
        return Ok(out);
    }
    let columns = lookup("/Columns").and_then(|c| c.as_int()).unwrap_or(1);
    let bits = lookup("/BitsPerComponent")
        .and_then(|c| c.as_int())
        .unwrap_or(8);
    if !(10..=15).contains(&predictor) {
        return fail(format!("Unsupported flatedecode predictor {predictor}"));
    }
    let row_bits = columns.checked_mul(bits).filter(|b| *b >= 0);
    let Some(row_bits) = row_bits else {
        return fail("invalid predictor columns");
    };
    let row = usize::try_from((row_bits + 7) / 8 + 1).unwrap_or(usize::MAX);
    png_unpredict(&out, row)
}

/// `_decode_png_prediction`: rows of `row` bytes (filter byte first), the
/// left neighbour always one byte back, as PyPDF2 computes it.
fn png_unpredict(data: &[u8], row: usize) -> Result<Vec<u8>> {
    if row == 0 || data.len() % row != 0 {
        return fail("Image data is not rectangular");
    }
    let mut out = Vec::with_capacity(data.len());
    let mut prev = vec![0u8; row];
    let mut cur = vec![0u8; row];
    for chunk in data.chunks(row) {
        cur.copy_from_slice(chunk);
        match cur[0] {
            0 => {}
            1 => {
                for i in 2..row {
                    cur[i] = cur[i].wrapping_add(cur[i - 1]);
                }
            }
            2 => {
                for i in 1..row {
                    cur[i] = cur[i].wrapping_add(prev[i]);
                }
            }
            3 => {
                for i in 1..row {
                    let left = if i > 1 { u32::from(cur[i - 1]) } else { 0 };
                    let avg = (left + u32::from(prev[i])) / 2;
                    cur[i] = cur[i].wrapping_add(avg as u8);
                }
            }
            4 => {
                for i in 1..row {
                    let left = if i > 1 { i32::from(cur[i - 1]) } else { 0 };
                    let up = i32::from(prev[i]);
                    let up_left = if i > 1 { i32::from(prev[i - 1]) } else { 0 };
                    let p = left + up - up_left;
                    let (pa, pb, pc) = ((p - left).abs(), (p - up).abs(), (p - up_left).abs());
                    let paeth = if pa <= pb && pa <= pc {
                        left
                    } else if pb <= pc {
                        up
                    } else {
                        up_left
                    };
                    cur[i] = cur[i].wrapping_add(paeth as u8);
                }
            }
            other => return fail(format!("Unsupported PNG filter {other}")),
        }
        out.extend_from_slice(&cur[1..]);
        std::mem::swap(&mut prev, &mut cur);
    }
    Ok(out)
}

/// `LZWDecode.Decoder.decode`: 9 to 12-bit codes, early change, a missing
/// stop code is an error.
fn lzw(data: &[u8], budget: &Budget) -> Result<Vec<u8>> {
    // The table as (prefix code, last byte, length); entries are rebuilt on demand.
    let mut table: Vec<(u16, u8, u32)> = (0..=255u16).map(|b| (u16::MAX, b as u8, 1)).collect();
    table.resize(4096, (u16::MAX, 0, 0));
    let mut dict_len = 258usize;
    let mut bits = 9u32;
    let (mut byte_pos, mut bit_pos) = (0usize, 0u32);
    let mut next_code = |bits: u32| -> Option<usize> {
        let mut fill = bits;
        let mut value = 0usize;
        while fill > 0 {
            let next = *data.get(byte_pos)?;
            let here = (8 - bit_pos).min(fill);
            let part = (usize::from(next) >> (8 - bit_pos - here)) & (0xFF >> (8 - here));
            value |= part << (fill - here);
            fill -= here;
            bit_pos += here;
            if bit_pos >= 8 {
                bit_pos = 0;
                byte_pos += 1;
            }
        }
        Some(value)
    };
    let mut out = Vec::new();
    let emit = |code: usize, table: &[(u16, u8, u32)], out: &mut Vec<u8>| -> Result<u8> {
        let len = table[code].2 as usize;
        budget.spend(len)?;
        let start = out.len();
        out.resize(start + len, 0);
        let mut c = code;
        for i in (0..len).rev() {
            out[start + i] = table[c].1;
            c = usize::from(table[c].0);
        }
        Ok(out[start])
    };
    let mut cw = 256usize;
    loop {
        let pw = cw;
        let Some(code) = next_code(bits) else {
            return fail("Missed the stop code in LZWDecode!");
        };
        cw = code;
        if cw == 257 {
            break;
        } else if cw == 256 {
            dict_len = 258;
            bits = 9;
        } else if pw == 256 {
            if table[cw].2 == 0 {
                return fail("invalid LZW code");
            }
            emit(cw, &table, &mut out)?;
        } else {
            if table[pw].2 == 0 {
                return fail("invalid LZW code");
            }
            if dict_len >= 4096 {
                return fail("LZW table overflow");
            }
            if cw < dict_len {
                let first = emit(cw, &table, &mut out)?;
                table[dict_len] = (pw as u16, first, table[pw].2 + 1);
            } else {
                // dict[pW] + dict[pW][0]
                let start = out.len();
                emit(pw, &table, &mut out)?;
                let first = out[start];
                budget.spend(1)?;
                out.push(first);
                table[dict_len] = (pw as u16, first, table[pw].2 + 1);
            }
            dict_len += 1;
            if dict_len >= (1 << bits) - 1 && bits < 12 {
                bits += 1;
            }
        }
    }
    Ok(out)
}

/// `ASCII85Decode.decode`: groups of five, `z` for four zeros, `~` ends.
fn ascii85(data: &[u8], budget: &Budget) -> Result<Vec<u8>> {
    let mut out = Vec::with_capacity(data.len() / 5 * 4 + 4);
    let (mut n, mut value) = (0u32, 0u64);
    for &c in data {
        if (b'!'..=b'u').contains(&c) {
            n += 1;
            value = value * 85 + u64::from(c - 33);
            if n == 5 {
                let Ok(v) = u32::try_from(value) else {
                    return fail("ASCII85 group out of range");
                };
                out.extend_from_slice(&v.to_be_bytes());
                n = 0;
                value = 0;
            }
        } else if c == b'z' {
            if n != 0 {
                return fail("ASCII85 'z' inside a group");
            }
            out.extend_from_slice(&[0; 4]);
        } else if c == b'~' {
            if n > 0 {
                for _ in 0..5 - n {
                    value = value * 85 + 84;
                }
                let Ok(v) = u32::try_from(value) else {
                    return fail("ASCII85 group out of range");
                };
                out.extend_from_slice(&v.to_be_bytes()[..(n - 1) as usize]);
            }
            break;
        }
    }
    budget.spend(out.len())?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn zlib(data: &[u8]) -> Vec<u8> {
        miniz_oxide::deflate::compress_to_vec_zlib(data, 6)
    }

    fn flate_name() -> Vec<Object> {
        vec![Object::Name("/FlateDecode".into())]
    }

    #[test]
    fn flate_round_trips_and_keeps_what_a_broken_stream_yields() {
        let packed = zlib(b"hello world");
        let budget = Budget::new(1 << 20, 0);
        assert_eq!(
            decode(&flate_name(), Parms::None, &packed, &budget).expect("inflates"),
            b"hello world"
        );
        let cut = &packed[..packed.len() - 6];
        let partial =
            decode(&flate_name(), Parms::None, cut, &budget).expect("partial data is kept");
        assert!(b"hello world".starts_with(&partial));
    }

    #[test]
    fn a_flate_bomb_stops_at_the_budget() {
        let bomb = zlib(&vec![0u8; 50 * 1024 * 1024]);
        assert!(bomb.len() < 100 * 1024);
        let budget = Budget::new(1024 * 1024, 0);
        let err = decode(&flate_name(), Parms::None, &bomb, &budget).expect_err("over budget");
        assert!(err.to_string().contains("size limit"));
    }

    #[test]
    fn png_up_predictor_rows() {
        let rows = [2u8, 1, 2, 2, 1, 1];
        assert_eq!(
            png_unpredict(&rows, 3).expect("rectangular"),
            vec![1, 2, 2, 3]
        );
        assert!(png_unpredict(&rows[..5], 3).is_err());
    }

    #[test]
    fn lzw_decodes_the_spec_example() {
        // PDF reference 7.4.4.2: 80 0B 60 50 22 0C 0C 85 01 -> "-----A---B"
        let data = [0x80, 0x0B, 0x60, 0x50, 0x22, 0x0C, 0x0C, 0x85, 0x01];
        assert_eq!(
            lzw(&data, &Budget::new(100, 0)).expect("decodes"),
            b"-----A---B"
        );
        assert!(
            lzw(&data[..4], &Budget::new(100, 0)).is_err(),
            "no stop code"
        );
    }

    #[test]
    fn ascii85_groups() {
        assert_eq!(
            ascii85(b"87cURD]i,\"Ebo80~>", &Budget::new(100, 0)).expect("decodes"),
            b"Hello World!"
        );
        assert_eq!(
            ascii85(b"z~>", &Budget::new(100, 0)).expect("decodes"),
            [0; 4]
        );
    }
}
