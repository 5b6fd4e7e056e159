//! Python's CJK codecs (`_codecs_cn`, `_codecs_tw`, `_codecs_jp`,
//! `_codecs_kr`), strict. Which sequences Python accepts comes from the
//! generated tables (CPython's own answers); the characters come from
//! `encoding_rs`, whose WHATWG decoders accept a superset of each, except
//! where the generated overrides say Python maps a sequence otherwise.
//! Johab, which WHATWG lacks, is computed: hangul from its three 5-bit
//! fields, the rest through the KS X 1001 pair it stands for.

use super::{tables, CodecError};
use encoding_rs::Encoding;

/// The multi-byte codecs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// `gb2312` (EUC-CN only).
    Gb2312,
    /// `gbk` (no user-defined areas, no euro at 0x80).
    Gbk,
    /// `gb18030` (two- and four-byte).
    Gb18030,
    /// `big5` (no HKSCS).
    Big5,
    /// `shift_jis` (JIS X 0208 only).
    ShiftJis,
    /// `cp932` (Microsoft's Shift_JIS).
    Cp932,
    /// `euc_jp` (with JIS X 0212 after 0x8F).
    EucJp,
    /// `euc_kr` (KS X 1001 only).
    EucKr,
    /// `cp949` (Unified Hangul Code).
    Cp949,
    /// `johab`.
    Johab,
}

/// One codec's acceptance tables.
struct Spec {
    singles: &'static [u16; 128],
    leads: &'static [u8; 128],
    rows: &'static [[u8; 32]],
    overrides: &'static [(u32, u32)],
    base: Option<&'static Encoding>,
}

fn spec(kind: Kind) -> Spec {
    use tables as t;
    let (singles, leads, rows, overrides, base): (
        _,
        _,
        &'static [[u8; 32]],
        &'static [(u32, u32)],
        _,
    ) = match kind {
        Kind::Gb2312 => (
            &t::GB2312_SINGLES,
            &t::GB2312_LEADS,
            &t::GB2312_ROWS,
            &t::GB2312_OVERRIDES,
            Some(encoding_rs::GB18030),
        ),
        Kind::Gbk => (
            &t::GBK_SINGLES,
            &t::GBK_LEADS,
            &t::GBK_ROWS,
            &t::GBK_OVERRIDES,
            Some(encoding_rs::GB18030),
        ),
        Kind::Gb18030 => (
            &t::GB18030_SINGLES,
            &t::GB18030_LEADS,
            &t::GB18030_ROWS,
            &t::GB18030_OVERRIDES,
            Some(encoding_rs::GB18030),
        ),
        Kind::Big5 => (
            &t::BIG5_SINGLES,
            &t::BIG5_LEADS,
            &t::BIG5_ROWS,
            &t::BIG5_OVERRIDES,
            Some(encoding_rs::BIG5),
        ),
        Kind::ShiftJis => (
            &t::SHIFT_JIS_SINGLES,
            &t::SHIFT_JIS_LEADS,
            &t::SHIFT_JIS_ROWS,
            &t::SHIFT_JIS_OVERRIDES,
            Some(encoding_rs::SHIFT_JIS),
        ),
        Kind::Cp932 => (
            &t::CP932_SINGLES,
            &t::CP932_LEADS,
            &t::CP932_ROWS,
            &t::CP932_OVERRIDES,
            Some(encoding_rs::SHIFT_JIS),
        ),
        Kind::EucJp => (
            &t::EUC_JP_SINGLES,
            &t::EUC_JP_LEADS,
            &t::EUC_JP_ROWS,
            &t::EUC_JP_OVERRIDES,
            Some(encoding_rs::EUC_JP),
        ),
        Kind::EucKr => (
            &t::EUC_KR_SINGLES,
            &t::EUC_KR_LEADS,
            &t::EUC_KR_ROWS,
            &t::EUC_KR_OVERRIDES,
            Some(encoding_rs::EUC_KR),
        ),
        Kind::Cp949 => (
            &t::CP949_SINGLES,
            &t::CP949_LEADS,
            &t::CP949_ROWS,
            &t::CP949_OVERRIDES,
            Some(encoding_rs::EUC_KR),
        ),
        Kind::Johab => (
            &t::JOHAB_SINGLES,
            &t::JOHAB_LEADS,
            &t::JOHAB_ROWS,
            &[],
            None,
        ),
    };
    Spec {
        singles,
        leads,
        rows,
        overrides,
        base,
    }
}

/// Whether `byte` is in the 256-bit set `row`.
fn has(row: &[u8; 32], byte: u8) -> bool {
    row[usize::from(byte >> 3)] & (1 << (byte & 7)) != 0
}

/// Whether the row of lead `lead` (by a `*_LEADS` table) accepts `trail`.
fn accepts(leads: &[u8; 128], rows: &[[u8; 32]], lead: u8, trail: u8) -> bool {
    let Some(index) = lead.checked_sub(0x80).map(|i| leads[usize::from(i)]) else {
        return false;
    };
    index
        .checked_sub(1)
        .and_then(|i| rows.get(usize::from(i)))
        .is_some_and(|row| has(row, trail))
}

/// The length of the valid sequence of `kind` starting with high byte
/// `bytes[0]` that is not a single, or `None` when Python refuses it.
fn sequence_len(kind: Kind, spec: &Spec, bytes: &[u8]) -> Option<usize> {
    let &lead = bytes.first()?;
    let &second = bytes.get(1)?;
    if kind == Kind::Gb18030 && (0x30..=0x39).contains(&second) {
        let (&third, &fourth) = (bytes.get(2)?, bytes.get(3)?);
        if !(0x81..=0xFE).contains(&lead)
            || !(0x81..=0xFE).contains(&third)
            || !(0x30..=0x39).contains(&fourth)
        {
            return None;
        }
        let linear = ((u32::from(lead - 0x81) * 10 + u32::from(second - 0x30)) * 126
            + u32::from(third - 0x81))
            * 10
            + u32::from(fourth - 0x30);
        let valid = tables::GB18030_FOUR
            .iter()
            .any(|&(start, end)| (start..=end).contains(&linear));
        return valid.then_some(4);
    }
    if kind == Kind::EucJp && lead == 0x8F {
        let &third = bytes.get(2)?;
        return accepts(
            &tables::EUC_JP_3_LEADS,
            &tables::EUC_JP_3_ROWS,
            second,
            third,
        )
        .then_some(3);
    }
    accepts(spec.leads, spec.rows, lead, second).then_some(2)
}

/// The sequence as a big-endian number (the overrides' key).
fn key(sequence: &[u8]) -> u32 {
    sequence.iter().fold(0, |acc, &b| acc << 8 | u32::from(b))
}

/// The most bytes one step of any of these decoders reads (EUC-KR's make-up
/// sequence): a sequence starting this far from a piece's end is never cut.
pub(super) const LONGEST_SEQUENCE: usize = 8;

/// `bytes.decode(kind)`, strict.
pub(super) fn decode(kind: Kind, bytes: &[u8]) -> Result<String, CodecError> {
    let mut out = String::with_capacity(bytes.len());
    decode_piece(kind, bytes, true, &mut out)?;
    Ok(out)
}

/// Decodes `bytes` strictly onto `out`, saying how many bytes it read: all
/// of them when `last` (the input ends there), else it stops before the
/// first sequence (not a single byte) that starts less than
/// [`LONGEST_SEQUENCE`] bytes from the end, which the next piece may
/// complete. Every step decides from at most that many bytes, so the pieces
/// of an input cut anywhere decode as the whole does.
pub(super) fn decode_piece(
    kind: Kind,
    bytes: &[u8],
    last: bool,
    out: &mut String,
) -> Result<usize, CodecError> {
    let spec = spec(kind);
    // bytes[run..i] are valid sequences that encoding_rs decodes as Python does
    let mut run = 0;
    let mut i = 0;
    let flush = |out: &mut String, from: usize, to: usize| -> Result<(), CodecError> {
        let Some(base) = spec.base else { return Ok(()) };
        let piece = bytes.get(from..to).unwrap_or(&[]);
        if piece.is_empty() {
            return Ok(());
        }
        let text = base
            .decode_without_bom_handling_and_without_replacement(piece)
            .ok_or(CodecError::Invalid { at: from })?;
        out.push_str(&text);
        Ok(())
    };
    while let Some(&b) = bytes.get(i) {
        crate::decode::steps::step();
        if b < 0x80 {
            if spec.base.is_none() {
                out.push(char::from(b));
            }
            i += 1;
            continue;
        }
        let single = spec.singles[usize::from(b - 0x80)];
        if single != 0xFFFE {
            flush(out, run, i)?;
            out.push(char::from_u32(u32::from(single)).ok_or(CodecError::Invalid { at: i })?);
            i += 1;
            run = i;
            continue;
        }
        let tail = bytes.get(i..).unwrap_or(&[]);
        if !last && tail.len() < LONGEST_SEQUENCE {
            flush(out, run, i)?;
            return Ok(i);
        }
        if kind == Kind::EucKr && tail.starts_with(b"\xA4\xD4") {
            let cp = makeup(tail).ok_or(CodecError::Invalid { at: i })?;
            flush(out, run, i)?;
            out.push(char::from_u32(cp).ok_or(CodecError::Invalid { at: i })?);
            i += 8;
            run = i;
            continue;
        }
        let len = sequence_len(kind, &spec, tail).ok_or(CodecError::Invalid { at: i })?;
        let sequence = tail.get(..len).unwrap_or(&[]);
        let special = if spec.base.is_none() {
            Some(johab(sequence).ok_or(CodecError::Invalid { at: i })?)
        } else {
            let code = key(sequence);
            spec.overrides
                .binary_search_by_key(&code, |&(k, _)| k)
                .ok()
                .and_then(|at| spec.overrides.get(at))
                .map(|&(_, cp)| cp)
        };
        if let Some(cp) = special {
            flush(out, run, i)?;
            out.push(char::from_u32(cp).ok_or(CodecError::Invalid { at: i })?);
            run = i + len;
        }
        i += len;
    }
    flush(out, run, bytes.len())?;
    Ok(bytes.len())
}

/// `euc_kr`'s KS X 1001:1998 Annex 3 make-up sequence at the start of
/// `bytes` (A4 D4, then A4 and a choseong, A4 and a jungseong, A4 and a
/// jongseong or D4): the syllable, or `None` when Python refuses it.
fn makeup(bytes: &[u8]) -> Option<u32> {
    let seq = bytes.get(..8)?;
    if seq[2] != 0xA4 || seq[4] != 0xA4 || seq[6] != 0xA4 {
        return None;
    }
    let index = |table: &[u8; 30], c: u8| {
        c.checked_sub(0xA1)
            .and_then(|i| table.get(usize::from(i)))
            .copied()
            .filter(|&v| v != 0xFF)
            .map(u32::from)
    };
    let cho = index(&tables::EUC_KR_MAKEUP_CHO, seq[3])?;
    let jung = (0xBF..=0xD3)
        .contains(&seq[5])
        .then(|| u32::from(seq[5] - 0xBF))?;
    let jong = if seq[7] == 0xD4 {
        0
    } else {
        index(&tables::EUC_KR_MAKEUP_JONG, seq[7])?
    };
    Some(0xAC00 + cho * 588 + jung * 28 + jong)
}

/// Johab fill codes of the three fields.
const FILL_CHO: usize = 1;
const FILL_JUNG: usize = 2;
const FILL_JONG: usize = 1;

/// The character of a valid Johab pair.
fn johab(pair: &[u8]) -> Option<u32> {
    let (&c, &c2) = (pair.first()?, pair.get(1)?);
    if c < 0xD8 {
        let code = usize::from(c) << 8 | usize::from(c2);
        let (cho, jung, jong) = ((code >> 10) & 31, (code >> 5) & 31, code & 31);
        let jamo = |table: &[u16; 32], field: usize| table.get(field).map(|&j| u32::from(j));
        return match (cho == FILL_CHO, jung == FILL_JUNG, jong == FILL_JONG) {
            (true, true, true) => Some(0x3000),
            (true, true, false) => jamo(&tables::JOHAB_JONG_JAMO, jong),
            (true, false, true) => jamo(&tables::JOHAB_JUNG_JAMO, jung),
            (false, true, true) => jamo(&tables::JOHAB_CHO_JAMO, cho),
            _ => {
                let ci = u32::from(*tables::JOHAB_CHO_INDEX.get(cho)?);
                let ji = u32::from(*tables::JOHAB_JUNG_INDEX.get(jung)?);
                let ti = if jong == FILL_JONG {
                    0
                } else {
                    u32::from(*tables::JOHAB_JONG_INDEX.get(jong)?)
                };
                Some(0xAC00 + ci * 588 + ji * 28 + ti)
            }
        };
    }
    // KS X 1001 outside hangul: the EUC-KR pair the row and cell stand for.
    let (c, c2) = (u32::from(c), u32::from(c2));
    let mut t1 = if c < 0xE0 {
        2 * (c - 0xD9)
    } else {
        2 * c - 0x197
    };
    let mut t2 = if c2 < 0x91 { c2 - 0x31 } else { c2 - 0x43 };
    t1 = t1 + u32::from(t2 >= 0x5E) + 0x21;
    t2 = if t2 < 0x5E { t2 } else { t2 - 0x5E } + 0x21;
    let euc = [u8::try_from(t1 | 0x80).ok()?, u8::try_from(t2 | 0x80).ok()?];
    let text = encoding_rs::EUC_KR.decode_without_bom_handling_and_without_replacement(&euc)?;
    let mut chars = text.chars();
    let first = chars.next()?;
    chars.next().is_none().then_some(u32::from(first))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn python_refuses_what_whatwg_accepts() {
        // the euro at 0x80 is WHATWG's, not Python's gbk/gb18030
        assert!(decode(Kind::Gbk, b"\x80").is_err());
        assert!(decode(Kind::Gb18030, b"\x80").is_err());
        // GBK's user-defined area is gb18030's only
        assert!(decode(Kind::Gbk, b"\xA2\xE3").is_err());
        assert_eq!(
            decode(Kind::Gb18030, b"\xA2\xE3").as_deref(),
            Ok("\u{20AC}")
        );
        // HKSCS pairs are not Python's big5
        assert!(decode(Kind::Big5, b"\x88\x62").is_err());
        // a lead at the end is a truncated character
        assert!(decode(Kind::ShiftJis, b"a\x82").is_err());
    }

    #[test]
    fn python_maps_some_pairs_otherwise() {
        assert_eq!(decode(Kind::Gb2312, b"\xA1\xA4").as_deref(), Ok("\u{30FB}"));
        assert_eq!(
            decode(Kind::ShiftJis, b"\x81\x60x").as_deref(),
            Ok("\u{301C}x")
        );
        assert_eq!(decode(Kind::Cp932, b"\x81\x60").as_deref(), Ok("\u{FF5E}"));
        assert_eq!(decode(Kind::Cp932, b"\xA0").as_deref(), Ok("\u{F8F0}"));
        assert_eq!(
            decode(Kind::Gb18030, b"\x81\x35\xF4\x37").as_deref(),
            Ok("\u{1E3F}")
        );
        assert_eq!(decode(Kind::EucJp, b"\x8F\xA2\xB7").as_deref(), Ok("~"));
        assert_eq!(
            decode(Kind::Gb18030, b"\x90\x30\x81\x30").as_deref(),
            Ok("\u{10000}")
        );
    }

    #[test]
    fn euc_kr_make_up_sequences() {
        // 똠 (not in KS X 1001) as A4D4 + ㄸ + ㅗ + ㅁ
        assert_eq!(
            decode(Kind::EucKr, b"\xA4\xD4\xA4\xA8\xA4\xC7\xA4\xB1").as_deref(),
            Ok("\u{B620}")
        );
        assert!(
            decode(Kind::EucKr, b"\xA4\xD4\xA4\xA8").is_err(),
            "truncated"
        );
        // cp949 has the filler as a character instead
        assert_eq!(decode(Kind::Cp949, b"\xA4\xD4").as_deref(), Ok("\u{3164}"));
    }

    #[test]
    fn johab_hangul_and_symbols() {
        // 0x8861 is the syllable 가, 0xD931 the first KS X 1001 symbol row's first cell
        assert_eq!(
            decode(Kind::Johab, b"\x88\x61a").as_deref(),
            Ok("\u{AC00}a")
        );
        assert_eq!(decode(Kind::Johab, b"\xD9\x31").as_deref(), Ok("\u{3000}"));
        assert!(decode(Kind::Johab, b"\xFF").is_err());
    }
}
