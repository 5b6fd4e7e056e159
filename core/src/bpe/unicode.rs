//! Unicode classes the pre-tokenizers test, from a range table generated at
//! build time out of regex-syntax's tables (the ones tiktoken's regexes use).
//! Lookups are a constant table for ASCII, a table built on first use for the
//! rest of the BMP, and a binary search above it.

use std::sync::LazyLock;

include!(concat!(env!("OUT_DIR"), "/unicode_classes.rs"));

/// `\p{L}`.
pub(crate) const LETTER: u16 = 1;
/// `\p{N}`.
pub(crate) const NUMBER: u16 = 1 << 1;
/// `[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]`.
pub(crate) const UPPERISH: u16 = 1 << 2;
/// `[\p{Ll}\p{Lm}\p{Lo}\p{M}]`.
pub(crate) const LOWERISH: u16 = 1 << 3;
/// `\s` (White_Space).
pub(crate) const SPACE: u16 = 1 << 4;
/// Case-insensitive `s` (`s`, `S`, `ſ`).
pub(crate) const FOLD_S: u16 = 1 << 5;
/// Case-insensitive `t`.
pub(crate) const FOLD_T: u16 = 1 << 6;
/// Case-insensitive `d`.
pub(crate) const FOLD_D: u16 = 1 << 7;
/// Case-insensitive `m`.
pub(crate) const FOLD_M: u16 = 1 << 8;
/// Case-insensitive `l`.
pub(crate) const FOLD_L: u16 = 1 << 9;
/// Case-insensitive `v`.
pub(crate) const FOLD_V: u16 = 1 << 10;
/// Case-insensitive `e`.
pub(crate) const FOLD_E: u16 = 1 << 11;
/// Case-insensitive `r`.
pub(crate) const FOLD_R: u16 = 1 << 12;
/// `\d` (Unicode `Nd`), for the attachment-header patterns.
pub(crate) const DIGIT: u16 = 1 << 13;

/// Class bits of the ASCII code points, computed at compile time from the same ranges.
pub(crate) static ASCII: [u16; 128] = {
    let mut table = [0u16; 128];
    let mut i = 0;
    while i < CLASS_RANGES.len() {
        let (first, last, mask) = CLASS_RANGES[i];
        let mut c = first;
        while c <= last && c < 128 {
            table[c as usize] = mask;
            c += 1;
        }
        i += 1;
    }
    table
};

/// Class bits of every BMP code point, expanded from the range table on first
/// use (tens of microseconds) rather than shipped: 128 KiB less to download.
static BMP: LazyLock<Box<[u16]>> = LazyLock::new(|| {
    let mut bmp = vec![0u16; 0x1_0000];
    for &(first, last, mask) in CLASS_RANGES.iter().take_while(|r| r.0 <= 0xFFFF) {
        bmp[first as usize..=last.min(0xFFFF) as usize].fill(mask);
    }
    bmp.into_boxed_slice()
});

/// The class bits of `c`.
#[inline]
pub(crate) fn class(c: char) -> u16 {
    let cp = c as u32;
    if cp < 128 {
        return ASCII[cp as usize];
    }
    if cp <= 0xFFFF {
        return BMP[cp as usize];
    }
    search(cp)
}

/// The class bits of code point `cp`, by binary search of the range table.
fn search(cp: u32) -> u16 {
    match CLASS_RANGES.binary_search_by(|&(first, last, _)| {
        if last < cp {
            std::cmp::Ordering::Less
        } else if first > cp {
            std::cmp::Ordering::Greater
        } else {
            std::cmp::Ordering::Equal
        }
    }) {
        Ok(i) => CLASS_RANGES[i].2,
        Err(_) => 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bmp_table_agrees_with_the_ranges() {
        for cp in 0..=0xFFFFu32 {
            if let Some(c) = char::from_u32(cp) {
                assert_eq!(class(c), search(cp), "U+{cp:04X}");
            }
        }
    }

    #[test]
    fn the_ascii_table_agrees_with_the_ranges() {
        for cp in 0..128u32 {
            assert_eq!(ASCII[cp as usize], search(cp), "U+{cp:04X}");
        }
    }

    #[test]
    fn classes_match_expectations() {
        assert_ne!(class('a') & LOWERISH, 0);
        assert_ne!(class('A') & UPPERISH, 0);
        assert_eq!(class('A') & LOWERISH, 0);
        assert_ne!(class('中') & (UPPERISH | LOWERISH), 0);
        assert_ne!(class('7') & NUMBER, 0);
        assert_ne!(class('\u{3000}') & SPACE, 0);
        assert_ne!(class('ſ') & FOLD_S, 0);
        assert_ne!(class('\u{0301}') & UPPERISH, 0);
        assert_eq!(class('\u{0301}') & LETTER, 0);
        assert_ne!(class('𝐀') & LETTER, 0);
        assert_ne!(class('٣') & DIGIT, 0);
        assert_ne!(class('𝟘') & DIGIT, 0);
        assert_eq!(class('½') & DIGIT, 0);
    }
}
