//! A strict Python decode fed the input in pieces: [`StreamDecoder`]
//! accepts exactly the inputs [`Codec::decode`] accepts, wherever the pieces
//! are cut, and its pieces of text joined are that decode's text. The few
//! bytes at a piece's end that may begin an unfinished character (at most
//! [`multi::LONGEST_SEQUENCE`] − 1) are held for the next piece, and a BOM
//! is looked for only once the input's first bytes are known.

use super::{multi, single, utf, Codec, CodecError};

/// One codec's strict decode, piece by piece.
#[derive(Debug, Clone)]
pub struct StreamDecoder {
    codec: Codec,
    /// The last piece's unfinished end (or the input's start before a BOM is looked for).
    held: Vec<u8>,
    /// Held bytes and the next piece, joined.
    joined: Vec<u8>,
    /// The start (a BOM) was read: the byte order is known.
    started: bool,
    big_endian: bool,
    /// The input offset of `held`'s first byte.
    offset: usize,
}

/// Where the start of a UTF-8 character begun in the last 4 bytes of `bytes`
/// that they do not finish lies, or the end of `bytes`.
fn utf8_cut(bytes: &[u8]) -> usize {
    let len = bytes.len();
    for back in 1..=len.min(4) {
        let b = bytes[len - back];
        if b & 0xC0 != 0x80 {
            let needs = match b {
                0xC0..=0xDF => 2,
                0xE0..=0xEF => 3,
                0xF0..=0xF7 => 4,
                _ => 1,
            };
            return if needs > back { len - back } else { len };
        }
    }
    len
}

/// Where whole UTF-16 units end in `bytes`, before a high surrogate its pair may follow.
fn utf16_cut(bytes: &[u8], big_endian: bool) -> usize {
    let even = bytes.len() & !1;
    let Some(unit) = even.checked_sub(2).and_then(|at| bytes.get(at..even)) else {
        return even;
    };
    let high = if big_endian { unit[0] } else { unit[1] };
    if (0xD8..=0xDB).contains(&high) {
        even - 2
    } else {
        even
    }
}

impl StreamDecoder {
    /// Before the input's first byte.
    pub fn new(codec: Codec) -> Self {
        StreamDecoder {
            codec,
            held: Vec::new(),
            joined: Vec::new(),
            started: false,
            big_endian: false,
            offset: 0,
        }
    }

    /// Decodes the next piece onto `out` (the text of bytes the next piece may still change waits).
    pub fn feed(&mut self, bytes: &[u8], out: &mut String) -> Result<(), CodecError> {
        self.run(bytes, false, out)
    }

    /// The input ended: decodes what was held onto `out`; an unfinished character is refused.
    pub fn finish(&mut self, out: &mut String) -> Result<(), CodecError> {
        self.run(&[], true, out)
    }

    fn run(&mut self, bytes: &[u8], last: bool, out: &mut String) -> Result<(), CodecError> {
        let mut joined = std::mem::take(&mut self.joined);
        joined.clear();
        joined.extend_from_slice(&self.held);
        joined.extend_from_slice(bytes);
        let result = self.decode_joined(&joined, last, out);
        self.joined = joined;
        let offset = self.offset;
        result.map_err(|CodecError::Invalid { at }| CodecError::Invalid {
            at: offset.saturating_add(at),
        })
    }

    /// Decodes `joined` (held bytes and a new piece) as far as it can, holding the rest.
    fn decode_joined(
        &mut self,
        joined: &[u8],
        last: bool,
        out: &mut String,
    ) -> Result<(), CodecError> {
        let Some(start) = self.read_start(joined, last) else {
            self.hold(joined, 0);
            return Ok(());
        };
        let body = joined.get(start..).unwrap_or(&[]);
        let on = |r: Result<String, CodecError>| {
            r.map_err(|CodecError::Invalid { at }| CodecError::Invalid { at: start + at })
        };
        let used = match self.codec {
            Codec::Utf8 | Codec::Utf8Sig => {
                let cut = if last { body.len() } else { utf8_cut(body) };
                out.push_str(&on(utf::utf8(body.get(..cut).unwrap_or(&[])))?);
                cut
            }
            Codec::Utf16 | Codec::Utf16Le | Codec::Utf16Be => {
                let big = self.big_endian;
                let cut = if last {
                    body.len()
                } else {
                    utf16_cut(body, big)
                };
                out.push_str(&on(utf::utf16(body.get(..cut).unwrap_or(&[]), Some(big)))?);
                cut
            }
            Codec::Utf32 | Codec::Utf32Le | Codec::Utf32Be => {
                let cut = if last { body.len() } else { body.len() & !3 };
                let text = utf::utf32(body.get(..cut).unwrap_or(&[]), Some(self.big_endian));
                out.push_str(&on(text)?);
                cut
            }
            Codec::Latin1 => {
                out.extend(body.iter().map(|&b| char::from(b)));
                body.len()
            }
            Codec::Single(table) => {
                out.push_str(&on(single::decode(table, body))?);
                body.len()
            }
            Codec::Multi(kind) => multi::decode_piece(kind, body, last, out)
                .map_err(|CodecError::Invalid { at }| CodecError::Invalid { at: start + at })?,
        };
        self.hold(joined, start + used);
        Ok(())
    }

    /// Keeps `joined[from..]` for the next piece.
    fn hold(&mut self, joined: &[u8], from: usize) {
        self.held.clear();
        self.held
            .extend_from_slice(joined.get(from..).unwrap_or(&[]));
        self.offset = self.offset.saturating_add(from);
    }

    /// Where the text starts in `joined` once the codec's BOM rule is read
    /// (the order of `utf-16`/`utf-32` picked, `utf-8-sig`'s BOM dropped), or
    /// `None` while too few of the input's first bytes are known to tell.
    fn read_start(&mut self, joined: &[u8], last: bool) -> Option<usize> {
        if self.started {
            return Some(0);
        }
        let needs = match self.codec {
            Codec::Utf8Sig => 3,
            Codec::Utf16 => 2,
            Codec::Utf32 => 4,
            _ => 0,
        };
        if joined.len() < needs && !last {
            return None;
        }
        self.started = true;
        let (big, start) = match self.codec {
            Codec::Utf8Sig => (
                false,
                if joined.starts_with(b"\xEF\xBB\xBF") {
                    3
                } else {
                    0
                },
            ),
            Codec::Utf16 => match joined {
                [0xFF, 0xFE, ..] => (false, 2),
                [0xFE, 0xFF, ..] => (true, 2),
                _ => (false, 0),
            },
            Codec::Utf32 => match joined {
                [0xFF, 0xFE, 0, 0, ..] => (false, 4),
                [0, 0, 0xFE, 0xFF, ..] => (true, 4),
                _ => (false, 0),
            },
            Codec::Utf16Be | Codec::Utf32Be => (true, 0),
            _ => (false, 0),
        };
        self.big_endian = big;
        Some(start)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::decode::{MultiByte, SingleByte};
    use proptest::prelude::*;

    /// Every codec the decoder has.
    const CODECS: [Codec; 22] = [
        Codec::Utf8,
        Codec::Utf8Sig,
        Codec::Utf16,
        Codec::Utf16Le,
        Codec::Utf16Be,
        Codec::Utf32,
        Codec::Utf32Le,
        Codec::Utf32Be,
        Codec::Latin1,
        Codec::Single(SingleByte::Koi8R),
        Codec::Single(SingleByte::Cp1255),
        Codec::Single(SingleByte::Tis620),
        Codec::Multi(MultiByte::Gb2312),
        Codec::Multi(MultiByte::Gbk),
        Codec::Multi(MultiByte::Gb18030),
        Codec::Multi(MultiByte::Big5),
        Codec::Multi(MultiByte::ShiftJis),
        Codec::Multi(MultiByte::Cp932),
        Codec::Multi(MultiByte::EucJp),
        Codec::Multi(MultiByte::EucKr),
        Codec::Multi(MultiByte::Cp949),
        Codec::Multi(MultiByte::Johab),
    ];

    /// The streamed decode of `bytes` cut after each of `cuts` (modulo the length).
    fn streamed(codec: Codec, bytes: &[u8], cuts: &[usize]) -> Result<String, CodecError> {
        let mut at: Vec<usize> = cuts.iter().map(|c| c % (bytes.len() + 1)).collect();
        at.sort_unstable();
        let mut decoder = StreamDecoder::new(codec);
        let mut out = String::new();
        let mut from = 0;
        for cut in at {
            decoder.feed(&bytes[from..cut], &mut out)?;
            from = cut;
        }
        decoder.feed(&bytes[from..], &mut out)?;
        decoder.finish(&mut out)?;
        Ok(out)
    }

    #[test]
    fn sequences_cut_at_every_byte_decode_as_the_whole() {
        let cases: [(Codec, &[u8]); 9] = [
            (Codec::Utf8Sig, "\u{FEFF}héllo 注释 🦀".as_bytes()),
            (Codec::Utf16, b"\xFE\xFF\x00a\xD8\x3D\xDE\x00"),
            (Codec::Utf32, b"\xFF\xFE\x00\x00a\x00\x00\x00"),
            (
                Codec::Multi(MultiByte::Gb18030),
                b"a\x81\x35\xF4\x37\x90\x30\x81\x30\xd7\xa2",
            ),
            (Codec::Multi(MultiByte::Big5), b"\xa4\xa4\xa4\xe5 x"),
            (
                Codec::Multi(MultiByte::EucKr),
                b"\xA4\xD4\xA4\xA8\xA4\xC7\xA4\xB1!",
            ),
            (Codec::Multi(MultiByte::EucJp), b"\x8F\xA2\xB7\xa4\xa2"),
            (Codec::Multi(MultiByte::ShiftJis), b"\x82\xa0x\x81\x60"),
            (Codec::Multi(MultiByte::Johab), b"\x88\x61a\xD9\x31"),
        ];
        for (codec, bytes) in cases {
            let whole = codec.decode(bytes).expect("a valid input");
            for cut in 0..=bytes.len() {
                assert_eq!(
                    streamed(codec, bytes, &[cut]).as_ref(),
                    Ok(&whole),
                    "{codec:?} cut at {cut}"
                );
            }
            let mut every = StreamDecoder::new(codec);
            let mut out = String::new();
            for b in bytes {
                every
                    .feed(std::slice::from_ref(b), &mut out)
                    .expect("valid");
            }
            every.finish(&mut out).expect("valid");
            assert_eq!(out, whole, "{codec:?} byte by byte");
        }
    }

    #[test]
    fn an_unfinished_character_at_the_end_is_refused() {
        for (codec, bytes) in [
            (Codec::Utf8, &b"ab\xe6\xb3"[..]),
            (Codec::Utf16Le, b"a\x00\x3D\xD8"),
            (Codec::Multi(MultiByte::Gb18030), b"x\x81\x35\xF4"),
            (Codec::Multi(MultiByte::EucKr), b"\xA4\xD4\xA4\xA8"),
        ] {
            assert!(codec.decode(bytes).is_err());
            assert!(streamed(codec, bytes, &[1]).is_err(), "{codec:?}");
        }
    }

    /// Bytes rich in the cases: leads, trails, surrogate halves, BOMs, ASCII.
    fn codec_bytes() -> impl Strategy<Value = Vec<u8>> {
        proptest::collection::vec(
            prop_oneof![
                0x20u8..0x7F,
                0x80u8..=0xFF,
                Just(0u8),
                Just(0xD8u8),
                Just(0xDCu8),
                Just(0xFEu8),
                Just(0xFFu8),
                0x30u8..=0x39,
                0xA1u8..=0xFE,
            ],
            0..64,
        )
    }

    proptest! {
        #[test]
        fn streamed_decodes_accept_and_refuse_as_the_whole_decode(
            bytes in codec_bytes(),
            cuts in proptest::collection::vec(any::<usize>(), 0..6),
        ) {
            for codec in CODECS {
                prop_assert_eq!(
                    streamed(codec, &bytes, &cuts).is_ok(),
                    codec.decode(&bytes).is_ok(),
                    "{:?}", codec
                );
                if let Ok(whole) = codec.decode(&bytes) {
                    prop_assert_eq!(streamed(codec, &bytes, &cuts), Ok(whole), "{:?}", codec);
                }
            }
        }

        /// Valid text of each CJK codec (from encoding_rs) cut anywhere.
        #[test]
        fn streamed_cjk_text_decodes_as_the_whole(
            text in "[a-z \\n\u{4e00}-\u{4fff}\u{3040}-\u{30ff}\u{ac00}-\u{ad00}]{0,40}",
            cuts in proptest::collection::vec(any::<usize>(), 0..6),
        ) {
            for (encoding, codec) in [
                (encoding_rs::GB18030, Codec::Multi(MultiByte::Gb18030)),
                (encoding_rs::GBK, Codec::Multi(MultiByte::Gbk)),
                (encoding_rs::BIG5, Codec::Multi(MultiByte::Big5)),
                (encoding_rs::SHIFT_JIS, Codec::Multi(MultiByte::Cp932)),
                (encoding_rs::EUC_JP, Codec::Multi(MultiByte::EucJp)),
                (encoding_rs::EUC_KR, Codec::Multi(MultiByte::Cp949)),
            ] {
                let (bytes, _, _) = encoding.encode(&text);
                let whole = codec.decode(&bytes).ok();
                prop_assert_eq!(streamed(codec, &bytes, &cuts).ok(), whole, "{:?}", codec);
            }
        }
    }
}
