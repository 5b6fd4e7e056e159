//! Python's table codecs (`charmap` decoding): ASCII below 0x80, the
//! generated table above, and a refused byte fails the whole decode.

use super::{tables, CodecError};

/// The single-byte codecs chardet can name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Table {
    /// `cp1251` (chardet's `windows-1251`).
    Cp1251,
    /// `koi8_r`.
    Koi8R,
    /// `iso8859_5`.
    Iso8859_5,
    /// `mac_cyrillic`.
    MacCyrillic,
    /// `cp866` (chardet's `IBM866`).
    Cp866,
    /// `cp855` (chardet's `IBM855`).
    Cp855,
    /// `iso8859_7`.
    Iso8859_7,
    /// `cp1253`.
    Cp1253,
    /// `tis_620`.
    Tis620,
    /// `iso8859_9`.
    Iso8859_9,
    /// `cp1254` (chardet's relabelled ISO-8859-9).
    Cp1254,
    /// `cp1255`.
    Cp1255,
    /// `iso8859_8`.
    Iso8859_8,
    /// `mac_roman`.
    MacRoman,
}

fn high_half(table: Table) -> &'static [u16; 128] {
    match table {
        Table::Cp1251 => &tables::CP1251,
        Table::Koi8R => &tables::KOI8_R,
        Table::Iso8859_5 => &tables::ISO8859_5,
        Table::MacCyrillic => &tables::MAC_CYRILLIC,
        Table::Cp866 => &tables::CP866,
        Table::Cp855 => &tables::CP855,
        Table::Iso8859_7 => &tables::ISO8859_7,
        Table::Cp1253 => &tables::CP1253,
        Table::Tis620 => &tables::TIS_620,
        Table::Iso8859_9 => &tables::ISO8859_9,
        Table::Cp1254 => &tables::CP1254,
        Table::Cp1255 => &tables::CP1255,
        Table::Iso8859_8 => &tables::ISO8859_8,
        Table::MacRoman => &tables::MAC_ROMAN,
    }
}

/// Decodes with one table, strictly.
pub(super) fn decode(table: Table, bytes: &[u8]) -> Result<String, CodecError> {
    let high = high_half(table);
    let mut out = String::with_capacity(bytes.len());
    for (at, &b) in bytes.iter().enumerate() {
        crate::decode::steps::step();
        if b < 0x80 {
            out.push(char::from(b));
            continue;
        }
        let unit = high[usize::from(b - 0x80)];
        match char::from_u32(u32::from(unit)).filter(|_| unit != 0xFFFE) {
            Some(c) => out.push(c),
            None => return Err(CodecError::Invalid { at }),
        }
    }
    Ok(out)
}
