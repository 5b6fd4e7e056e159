//! The simple-font encodings PyPDF2 3.0.1 knows by name (`charset_encoding`,
//! `_predefined_cmap`), its glyph list, and the Python codecs the text path
//! decodes string bytes with.

use super::tables;

/// How a font's string bytes become text before its `/ToUnicode` map applies.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Encoding {
    /// A Python codec by name: `charmap` (Latin-1), `utf-16-be`, `gbk`,
    /// `gb2312`, or a name no codec has (which then reads as Latin-1).
    Codec(String),
    /// A byte table (PyPDF2's dict encodings): code -> text.
    Table(Box<[Option<String>]>),
}

/// `charset_encoding[name]`: the 256-entry tables by their PDF names (PyPDF2
/// spells Standard `/StandardCoding`, so `/StandardEncoding` is not found).
pub(crate) fn named_table(name: &str) -> Option<&'static [&'static str; 256]> {
    Some(match name {
        "/StandardCoding" => &tables::STANDARD,
        "/WinAnsiEncoding" => &tables::WIN_ANSI,
        "/MacRomanEncoding" => &tables::MAC_ROMAN,
        "/PDFDocEncoding" => &tables::PDF_DOC,
        "/Symbol" => &tables::SYMBOL,
        "/ZapfDingbats" => &tables::ZAPF_DINGBATS,
        _ => return None,
    })
}

/// A named table as a byte table.
pub(crate) fn table_of(t: &[&str; 256]) -> Box<[Option<String>]> {
    t.iter().map(|s| Some((*s).to_string())).collect()
}

/// `_predefined_cmap[name]`: CMap names PyPDF2 reads with a codec.
pub(crate) fn predefined_cmap(name: &str) -> Option<&'static str> {
    Some(match name {
        "/Identity-H" | "/Identity-V" => "utf-16-be",
        "/GB-EUC-H" | "/GB-EUC-V" => "gbk",
        "/GBpc-EUC-H" | "/GBpc-EUC-V" => "gb2312",
        _ => return None,
    })
}

/// `adobe_glyphs[name]` (the name with its leading `/`).
pub(crate) fn glyph(name: &str) -> Option<&'static str> {
    tables::GLYPHS
        .binary_search_by(|(k, _)| k.as_bytes().cmp(name.as_bytes()))
        .ok()
        .map(|i| tables::GLYPHS[i].1)
}

/// `bytes.decode("charmap")`: each byte is the code point of the same value.
pub(crate) fn latin1(bytes: &[u8]) -> String {
    bytes.iter().map(|&b| char::from(b)).collect()
}

/// `bytes.decode("utf-16-be", "surrogatepass")`; `None` for an odd length.
/// A lone surrogate (Python keeps it) becomes U+FFFD here.
pub(crate) fn utf16be(bytes: &[u8]) -> Option<String> {
    if bytes.len() % 2 != 0 {
        return None;
    }
    let units = bytes.chunks(2).map(|c| u16::from_be_bytes([c[0], c[1]]));
    Some(
        char::decode_utf16(units)
            .map(|r| r.unwrap_or('\u{FFFD}'))
            .collect(),
    )
}

/// `bytes.decode(codec, "surrogatepass")`, `None` where Python raises.
pub(crate) fn decode_with(codec: &str, bytes: &[u8]) -> Option<String> {
    match codec {
        "charmap" => Some(latin1(bytes)),
        "utf-16-be" => utf16be(bytes),
        "gbk" | "gb2312" => crate::decode::codec::Codec::lookup(codec)?
            .decode(bytes)
            .ok(),
        _ => None,
    }
}
