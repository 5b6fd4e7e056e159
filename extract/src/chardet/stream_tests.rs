//! A [`Detector`] fed an input in pieces answers exactly as [`detect`], its
//! single feed, whatever the cuts: on generated texts of many scripts and
//! codecs (with ASCII words, markup and stray bytes), and on long texts
//! whose answer is a prober's claim made only at the end of the input.

use super::{detect, detect_by_passes, Detection, Detector};
use crate::testing::{legacy_text, pieces};
use proptest::prelude::*;

fn detect_in_pieces(bytes: &[u8], sizes: &[usize]) -> Detection {
    let mut detector = Detector::new();
    for piece in pieces(bytes, sizes) {
        detector.feed(piece);
    }
    detector.finish()
}

/// Every prober's figures and the answer, the input fed in pieces of `sizes` (all of it with none).
fn report_in_pieces(
    bytes: &[u8],
    sizes: &[usize],
) -> (Vec<(Option<&'static str>, f64)>, Detection) {
    let mut detector = Detector::new();
    if sizes.is_empty() {
        detector.feed(bytes);
    } else {
        for piece in pieces(bytes, sizes) {
            detector.feed(piece);
        }
    }
    detector.finish_reporting()
}

/// [`detect_by_passes`] over the pieces, and how many passes it read.
fn detect_by_passes_in_pieces(bytes: &[u8], sizes: &[usize]) -> (Detection, usize) {
    let mut passes = 0;
    let detection = detect_by_passes(&mut |each: &mut dyn FnMut(&[u8]) -> bool| {
        passes += 1;
        for piece in pieces(bytes, sizes) {
            if !each(piece) {
                break;
            }
        }
        Ok::<(), ()>(())
    })
    .expect("pieces in memory");
    (detection, passes)
}

/// Chunk size patterns: single bytes, odd sizes, a read buffer's worth, mixtures.
const SIZES: [&[usize]; 6] = [&[1], &[2], &[7], &[4096], &[1, 4095, 13], &[3, 1, 2, 5]];

#[test]
fn long_texts_claimed_at_the_end_are_claimed_in_pieces_too() {
    // (text, times, codec, chardet 5.2.0's answer for the text repeated in that codec)
    let cases: [(&str, usize, &'static encoding_rs::Encoding, &str, f64); 9] = [
        (
            "我们的数据文件报告分析系统，服务器配置错误。",
            200,
            encoding_rs::GBK,
            "GB2312",
            0.99,
        ),
        (
            "我們的資料檔案報告分析系統，伺服器設定錯誤。",
            200,
            encoding_rs::BIG5,
            "Big5",
            0.99,
        ),
        (
            // half-width ﾊ (0xCA) is the byte chardet's SJIS context reads a pair from
            "これは日本語のテキストです。ファイルを確認してください。ﾊﾊﾝｶｸ ",
            100,
            encoding_rs::SHIFT_JIS,
            "SHIFT_JIS",
            0.99,
        ),
        (
            "これは日本語のテキストです。ファイルを確認してください。",
            100,
            encoding_rs::EUC_JP,
            "EUC-JP",
            0.99,
        ),
        (
            "Привет мир, документ файл текст данные система ошибка. ",
            60,
            encoding_rs::KOI8_R,
            "KOI8-R",
            0.99,
        ),
        (
            "Привет мир, документ файл текст данные система ошибка. ",
            60,
            encoding_rs::WINDOWS_1251,
            "windows-1251",
            0.99,
        ),
        (
            "שלום עולם, מסמך קובץ טקסט נתונים מערכת שגיאה. ",
            60,
            encoding_rs::WINDOWS_1255,
            "windows-1255",
            0.934_592_600_378_511_8,
        ),
        (
            "café naïve résumé façade déjà über Straße Größe. ",
            60,
            encoding_rs::WINDOWS_1252,
            "ISO-8859-9",
            0.520_734_170_088_052_8,
        ),
        (
            "<p class=\"x\">café naïve résumé</p> façade ",
            60,
            encoding_rs::WINDOWS_1252,
            "ISO-8859-1",
            0.73,
        ),
    ];
    for (text, times, encoding, name, confidence) in cases {
        let text = text.repeat(times);
        let (bytes, _, unmapped) = encoding.encode(&text);
        assert!(!unmapped, "{name}: every character has a byte");
        let whole = detect(&bytes);
        assert_eq!(
            (whole.encoding, whole.confidence),
            (Some(name), confidence),
            "{name}: chardet's answer"
        );
        let report = report_in_pieces(&bytes, &[]);
        for sizes in SIZES {
            assert_eq!(
                detect_in_pieces(&bytes, sizes),
                whole,
                "{name} in {sizes:?}"
            );
            assert_eq!(
                report_in_pieces(&bytes, sizes),
                report,
                "{name}: every prober's figures in {sizes:?}"
            );
        }
        let (by_passes, passes) = detect_by_passes_in_pieces(&bytes, &[4096]);
        assert_eq!(by_passes, whole, "{name} by passes");
        // the Chinese texts' claim (over a thousand characters) needs no second pass
        if ["GB2312", "Big5"].contains(&name) {
            assert_eq!(passes, 1, "{name}");
        }
        if ["KOI8-R", "windows-1251", "windows-1255"].contains(&name) {
            assert_eq!(passes, 2, "{name}");
        }
    }
}

#[test]
fn boms_escapes_and_ascii_are_told_in_pieces() {
    for input in [
        &b"\xEF\xBB\xBFx"[..],
        b"\xFF\xFEx\x00",
        b"\xFF\xFE\x00\x00",
        b"\xFF\xFE",
        b"\xFE",
        b"plain",
        b"",
        b"\x1b$B",
        b"a~{b",
        b"abc~",
    ] {
        for sizes in SIZES {
            assert_eq!(detect_in_pieces(input, sizes), detect(input), "{input:?}");
        }
    }
    // "~{" cut between its bytes is still an escape
    assert!(detect_in_pieces(b"ab~{cd", &[3]).escape);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    #[test]
    fn a_detector_fed_in_pieces_answers_as_its_single_feed(
        bytes in legacy_text(),
        sizes in proptest::collection::vec(1usize..=4096, 1..6),
    ) {
        let whole = report_in_pieces(&bytes, &[]);
        prop_assert_eq!(whole.1, detect(&bytes));
        prop_assert_eq!(report_in_pieces(&bytes, &sizes), whole.clone());
        prop_assert_eq!(detect_by_passes_in_pieces(&bytes, &sizes).0, whole.1);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(32))]

    #[test]
    fn a_detector_fed_in_tiny_pieces_answers_as_its_single_feed(
        bytes in legacy_text(),
        sizes in proptest::collection::vec(1usize..=9, 1..6),
    ) {
        prop_assert_eq!(report_in_pieces(&bytes, &sizes), report_in_pieces(&bytes, &[]));
    }
}
