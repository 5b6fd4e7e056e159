//! Python's codec registry as far as the decoder reaches it: the names
//! chardet answers and the reference's fallbacks, looked up as
//! `bytes.decode(name)` looks them up (lower-cased, punctuation runs made
//! one `_`, then the alias table).

use super::{multi, single, utf, CodecError};

/// A Python codec this crate decodes exactly.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Codec {
    /// `utf-8` (strict: no surrogates, no overlongs).
    Utf8,
    /// `utf-8-sig`: one leading BOM dropped, then UTF-8.
    Utf8Sig,
    /// `utf-16`: a BOM picks the order, else little-endian; the BOM is dropped.
    Utf16,
    /// `utf-16-le`.
    Utf16Le,
    /// `utf-16-be`.
    Utf16Be,
    /// `utf-32`: as `utf-16`, in 32-bit units.
    Utf32,
    /// `utf-32-le`.
    Utf32Le,
    /// `utf-32-be`.
    Utf32Be,
    /// `latin-1`: every byte is its code point.
    Latin1,
    /// A table codec (`cp1251`, `koi8_r`, `mac_roman`, …).
    Single(single::Table),
    /// A multi-byte CJK codec (`gb18030`, `big5`, `shift_jis`, …).
    Multi(multi::Kind),
}

/// Python's `encodings.normalize_encoding` after the registry's lower-casing.
fn normalize(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    let mut punct = false;
    for c in name.chars() {
        if c.is_alphanumeric() || c == '.' {
            if punct && !out.is_empty() {
                out.push('_');
            }
            if c.is_ascii() {
                out.push(c.to_ascii_lowercase());
            }
            punct = false;
        } else {
            punct = true;
        }
    }
    out
}

impl Codec {
    /// The codec `bytes.decode(name)` would use, or `None` (Python's `LookupError`,
    /// which the reference catches and skips), for the codecs this crate has.
    pub fn lookup(name: &str) -> Option<Codec> {
        use multi::Kind as M;
        use single::Table as S;
        Some(match normalize(name).as_str() {
            "utf_8" | "utf8" | "u8" | "utf" | "utf8_ucs2" | "utf8_ucs4" | "cp65001" => Codec::Utf8,
            "utf_8_sig" => Codec::Utf8Sig,
            "utf_16" | "utf16" | "u16" => Codec::Utf16,
            "utf_16_le" | "utf_16le" | "unicodelittleunmarked" => Codec::Utf16Le,
            "utf_16_be" | "utf_16be" | "unicodebigunmarked" => Codec::Utf16Be,
            "utf_32" | "utf32" | "u32" => Codec::Utf32,
            "utf_32_le" | "utf_32le" => Codec::Utf32Le,
            "utf_32_be" | "utf_32be" => Codec::Utf32Be,
            "latin_1" | "latin1" | "latin" | "l1" | "iso8859_1" | "iso_8859_1" | "iso8859"
            | "8859" | "cp819" | "ibm819" | "iso_ir_100" | "iso_8859_1_1987" | "csisolatin1" => {
                Codec::Latin1
            }
            "cp1251" | "windows_1251" | "1251" => Codec::Single(S::Cp1251),
            "koi8_r" | "cskoi8r" => Codec::Single(S::Koi8R),
            "iso8859_5" | "iso_8859_5" | "cyrillic" | "iso_ir_144" | "csisolatincyrillic"
            | "iso_8859_5_1988" => Codec::Single(S::Iso8859_5),
            "mac_cyrillic" | "maccyrillic" => Codec::Single(S::MacCyrillic),
            "cp866" | "866" | "ibm866" | "csibm866" => Codec::Single(S::Cp866),
            "cp855" | "855" | "ibm855" | "csibm855" => Codec::Single(S::Cp855),
            "iso8859_7" | "iso_8859_7" | "greek" | "greek8" | "iso_ir_126" | "elot_928"
            | "ecma_118" | "csisolatingreek" | "iso_8859_7_1987" => Codec::Single(S::Iso8859_7),
            "cp1253" | "windows_1253" | "1253" => Codec::Single(S::Cp1253),
            "tis_620" | "tis620" | "tis_620_0" | "tis_620_2529_0" | "tis_620_2529_1"
            | "iso_ir_166" => Codec::Single(S::Tis620),
            "iso8859_9" | "iso_8859_9" | "latin5" | "l5" | "iso_ir_148" | "csisolatin5"
            | "iso_8859_9_1989" => Codec::Single(S::Iso8859_9),
            "cp1254" | "windows_1254" | "1254" => Codec::Single(S::Cp1254),
            "cp1255" | "windows_1255" | "1255" => Codec::Single(S::Cp1255),
            "iso8859_8" | "iso_8859_8" | "hebrew" | "iso_ir_138" | "csisolatinhebrew"
            | "iso_8859_8_1988" => Codec::Single(S::Iso8859_8),
            "mac_roman" | "macroman" | "macintosh" => Codec::Single(S::MacRoman),
            "gb2312" | "chinese" | "csiso58gb231280" | "euc_cn" | "euccn" | "eucgb2312_cn"
            | "gb2312_1980" | "gb2312_80" | "iso_ir_58" => Codec::Multi(M::Gb2312),
            "gbk" | "936" | "cp936" | "ms936" => Codec::Multi(M::Gbk),
            "gb18030" | "gb18030_2000" => Codec::Multi(M::Gb18030),
            "big5" | "big5_tw" | "csbig5" => Codec::Multi(M::Big5),
            "shift_jis" | "csshiftjis" | "shiftjis" | "sjis" | "s_jis" => Codec::Multi(M::ShiftJis),
            "cp932" | "932" | "ms932" | "mskanji" | "ms_kanji" => Codec::Multi(M::Cp932),
            "euc_jp" | "eucjp" | "ujis" | "u_jis" => Codec::Multi(M::EucJp),
            "euc_kr" | "euckr" | "korean" | "ksc5601" | "ks_c_5601" | "ks_c_5601_1987"
            | "ksx1001" | "ks_x_1001" => Codec::Multi(M::EucKr),
            "cp949" | "949" | "ms949" | "uhc" => Codec::Multi(M::Cp949),
            "johab" | "cp1361" | "ms1361" => Codec::Multi(M::Johab),
            _ => return None,
        })
    }

    /// `bytes.decode(codec)` with `errors="strict"`.
    pub fn decode(self, bytes: &[u8]) -> Result<String, CodecError> {
        match self {
            Codec::Utf8 => utf::utf8(bytes),
            Codec::Utf8Sig => utf::utf8(bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes)),
            Codec::Utf16 => utf::utf16(bytes, None),
            Codec::Utf16Le => utf::utf16(bytes, Some(false)),
            Codec::Utf16Be => utf::utf16(bytes, Some(true)),
            Codec::Utf32 => utf::utf32(bytes, None),
            Codec::Utf32Le => utf::utf32(bytes, Some(false)),
            Codec::Utf32Be => utf::utf32(bytes, Some(true)),
            Codec::Latin1 => Ok(bytes.iter().map(|&b| char::from(b)).collect()),
            Codec::Single(table) => single::decode(table, bytes),
            Codec::Multi(kind) => multi::decode(kind, bytes),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chardet_names_find_python_codecs() {
        for (name, codec) in [
            ("GB2312", Codec::Multi(multi::Kind::Gb2312)),
            ("SHIFT_JIS", Codec::Multi(multi::Kind::ShiftJis)),
            ("CP932", Codec::Multi(multi::Kind::Cp932)),
            ("EUC-KR", Codec::Multi(multi::Kind::EucKr)),
            ("Johab", Codec::Multi(multi::Kind::Johab)),
            ("MacCyrillic", Codec::Single(single::Table::MacCyrillic)),
            ("IBM866", Codec::Single(single::Table::Cp866)),
            ("TIS-620", Codec::Single(single::Table::Tis620)),
            ("Windows-1254", Codec::Single(single::Table::Cp1254)),
            ("ISO-8859-1", Codec::Latin1),
            ("latin-1", Codec::Latin1),
            ("UTF-8-SIG", Codec::Utf8Sig),
            ("utf-16le", Codec::Utf16Le),
            ("UTF-32", Codec::Utf32),
        ] {
            assert_eq!(Codec::lookup(name), Some(codec), "{name}");
        }
        // Python has no codec of these names
        assert_eq!(Codec::lookup("EUC-TW"), None);
        assert_eq!(Codec::lookup("X-ISO-10646-UCS-4-3412"), None);
    }
}
