//! Text decoding as `DocumentParser._decode_binary_data` does it: strict
//! UTF-8 (a BOM kept as U+FEFF), then chardet's guess when its confidence is
//! over 0.5 and it is neither ascii nor windows-1252, then gb18030, gbk,
//! gb2312, big5 and latin-1, each strict.

/// Decodes an upload's bytes to text as the reference does.
pub fn decode(bytes: &[u8]) -> String {
    // TODO(documents helper): chardet's guess and the fallback chain.
    match std::str::from_utf8(bytes) {
        Ok(text) => text.to_string(),
        Err(_) => bytes.iter().map(|&b| char::from(b)).collect(),
    }
}
