//! `_parse_pdf_smart`'s OCR rule: when the pages hold fewer than 100
//! "meaningful" characters (Python's `str.isalpha()`, or one of
//! `，。、；：''（）【】`), the backend tries OCR. The recording had no OCR
//! engine, so the text stands; the preview marks such a file as possibly scanned.

use super::tables::ALPHA;

/// The meaningful characters the rule needs.
const THRESHOLD: usize = 100;

/// Python's `c.isalpha()`.
pub(crate) fn is_alpha(c: char) -> bool {
    let cp = c as u32;
    ALPHA
        .binary_search_by(|&(lo, hi)| {
            if hi < cp {
                std::cmp::Ordering::Less
            } else if lo > cp {
                std::cmp::Ordering::Greater
            } else {
                std::cmp::Ordering::Equal
            }
        })
        .is_ok()
}

fn is_meaningful(c: char) -> bool {
    is_alpha(c) || "，。、；：''（）【】".contains(c)
}

/// Whether the backend would try OCR on these page texts.
pub(crate) fn needs_ocr(pages: &[String]) -> bool {
    let mut n = 0;
    for page in pages {
        for c in page.chars() {
            if is_meaningful(c) {
                n += 1;
                if n >= THRESHOLD {
                    return false;
                }
            }
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn letters_count_digits_do_not() {
        assert!(is_alpha('a') && is_alpha('中') && is_alpha('ß'));
        assert!(!is_alpha('1') && !is_alpha(' ') && !is_alpha('\u{300}'));
        assert!(needs_ocr(&["1234 ".repeat(100)]));
        assert!(needs_ocr(&["a".repeat(99)]));
        assert!(!needs_ocr(&["a".repeat(50), "（".repeat(50)]));
    }
}
