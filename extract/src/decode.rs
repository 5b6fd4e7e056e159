//! Text decoding as `DocumentParser._decode_binary_data` does it: strict
//! UTF-8 (a BOM kept as U+FEFF; `utf-8-sig`, tried next, cannot succeed where
//! strict UTF-8 failed), then chardet's guess when its confidence is over 0.5
//! and its name is not ascii/windows-1252 (moved to, or inserted at, the
//! front of the fallbacks), then gb18030, gbk, gb2312, big5 and latin-1,
//! each a strict Python decode; a name Python does not know is skipped.
//! latin-1 takes any bytes, so the reference's last resort (UTF-8 with
//! replacement) is never reached.
//!
//! Each codec is Python's exactly, including which bytes it refuses (a
//! refusal moves on to the next name): see [`codec`].
//!
//! An upload read from a source is decoded the same way without being held
//! whole: [`choose_by_passes`] makes [`decode_with`]'s choice by passes over
//! the input's pieces, and a [`StreamDecoder`] of the chosen codec decodes
//! them piece by piece to the same text.

#[cfg(test)]
mod bounds;
pub mod codec;
mod multi;
mod single;
pub(crate) mod steps;
mod stream;
mod tables;
mod utf;

pub use codec::Codec;
pub use multi::Kind as MultiByte;
pub use single::Table as SingleByte;
pub use stream::StreamDecoder;

use crate::chardet;

/// Why a strict decode failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CodecError {
    /// The bytes from this offset are no character of the codec.
    #[error("invalid or truncated sequence at byte {at}")]
    Invalid {
        /// Offset of the first byte not decoded.
        at: usize,
    },
}

/// The reference's fallbacks after chardet's guess, in order.
pub const FALLBACKS: [&str; 5] = ["gb18030", "gbk", "gb2312", "big5", "latin-1"];

/// The names tried after UTF-8, in order, for this chardet answer.
pub fn candidates(detection: &chardet::Detection) -> Vec<&'static str> {
    let mut names: Vec<&'static str> = FALLBACKS.to_vec();
    let Some(detected) = detection.encoding else {
        return names;
    };
    let normalized = detected.to_lowercase().replace(['-', '_'], "");
    let skipped = matches!(normalized.as_str(), "ascii" | "charmap" | "windows1252");
    if skipped || detection.confidence <= 0.5 {
        return names;
    }
    let lower = detected.to_lowercase();
    match names.iter().position(|n| n.to_lowercase() == lower) {
        Some(at) => {
            let name = names.remove(at);
            names.insert(0, name);
        }
        None => names.insert(0, detected),
    }
    names
}

/// What decoded the bytes: the winning name (`None` for strict UTF-8) and the text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Decoded {
    /// The name that succeeded, as the reference spelled it (`None`: UTF-8 first time).
    pub encoding: Option<&'static str>,
    /// The text.
    pub text: String,
}

/// Decodes an upload's bytes as the reference does, saying which name won.
pub fn decode_with(bytes: &[u8]) -> Decoded {
    if let Ok(text) = std::str::from_utf8(bytes) {
        return Decoded {
            encoding: None,
            text: text.to_string(),
        };
    }
    for name in candidates(&chardet::detect(bytes)) {
        if let Some(Ok(text)) = Codec::lookup(name).map(|codec| codec.decode(bytes)) {
            return Decoded {
                encoding: Some(name),
                text,
            };
        }
    }
    // Unreachable while latin-1 is a fallback; the reference's last resort.
    Decoded {
        encoding: Some("utf-8"),
        text: String::from_utf8_lossy(bytes).into_owned(),
    }
}

/// Decodes an upload's bytes to text as the reference does.
pub fn decode(bytes: &[u8]) -> String {
    decode_with(bytes).text
}

/// The name and codec [`decode_with`] picks for an input that is not UTF-8,
/// chosen by passes over it in bounded memory: `read` hands the input's
/// pieces, in order, to its argument, which answers whether it wants more.
/// One or two passes detect ([`chardet::detect_by_passes`]), then one pass
/// per candidate name runs its strict decode ([`StreamDecoder`]) until one
/// takes every byte; the caller then reads the text with a
/// [`StreamDecoder`] of that codec.
pub fn choose_by_passes<E>(read: &mut chardet::Pass<'_, E>) -> Result<(&'static str, Codec), E> {
    let detection = chardet::detect_by_passes(read)?;
    let mut scratch = String::new();
    for name in candidates(&detection) {
        let Some(codec) = Codec::lookup(name) else {
            continue;
        };
        if codec == Codec::Latin1 {
            // every byte is a latin-1 character: nothing to check
            return Ok((name, codec));
        }
        let mut decoder = StreamDecoder::new(codec);
        let mut accepted = true;
        read(&mut |piece| {
            scratch.clear();
            accepted = decoder.feed(piece, &mut scratch).is_ok();
            accepted
        })?;
        scratch.clear();
        if accepted && decoder.finish(&mut scratch).is_ok() {
            return Ok((name, codec));
        }
    }
    // Unreachable: latin-1, the last fallback, takes any bytes.
    Ok(("latin-1", Codec::Latin1))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn detection(encoding: &'static str, confidence: f64) -> chardet::Detection {
        chardet::Detection {
            encoding: Some(encoding),
            confidence,
            escape: false,
        }
    }

    #[test]
    fn the_guess_goes_first_unless_unreliable() {
        assert_eq!(
            candidates(&detection("GB2312", 0.99)),
            ["gb2312", "gb18030", "gbk", "big5", "latin-1"]
        );
        // 'ISO-8859-1' is not the list's 'latin-1': inserted
        assert_eq!(
            candidates(&detection("ISO-8859-1", 0.73)),
            ["ISO-8859-1", "gb18030", "gbk", "gb2312", "big5", "latin-1"]
        );
        assert_eq!(candidates(&detection("Windows-1252", 0.73)), FALLBACKS);
        assert_eq!(candidates(&detection("EUC-KR", 0.5)), FALLBACKS);
        assert_eq!(candidates(&detection("EUC-KR", 0.51))[0], "EUC-KR");
    }

    #[test]
    fn the_last_fallback_takes_any_bytes() {
        let last = FALLBACKS[FALLBACKS.len() - 1];
        assert_eq!(Codec::lookup(last), Some(Codec::Latin1));
        let every: Vec<u8> = (0..=255).collect();
        assert!(Codec::Latin1.decode(&every).is_ok());
    }

    #[test]
    fn utf8_first_with_its_bom_kept() {
        assert_eq!(decode("\u{FEFF}héllo".as_bytes()), "\u{FEFF}héllo");
    }

    #[test]
    fn gbk_text_and_latin1_fallback() {
        // "注释" in GBK; chardet's guess fails or is unreliable, gb18030 takes it
        assert_eq!(decode(b"# \xd7\xa2\xca\xcd\n"), "# 注释\n");
        // a lone 0xFF is no CJK character: latin-1 takes it
        assert_eq!(decode(b"caf\xe9 \xff"), "café ÿ");
    }
}
