//! Cell coordinates as `openpyxl.utils.cell` reads them.

use super::pynum::PyInt;

/// `column_index_from_string(col)`: up to three letters (any case, as
/// Python upper-cases them), A = 1 … ZZZ = 18278; `None` where it raises.
pub(crate) fn column_index(col: &str) -> Option<u32> {
    if (1..=3).contains(&col.len()) && col.bytes().all(|b| b.is_ascii_uppercase()) {
        let idx = col
            .bytes()
            .fold(0u32, |idx, b| idx * 26 + u32::from(b - b'A' + 1));
        return (1..=18278).contains(&idx).then_some(idx);
    }
    if col.chars().count() > 3 {
        return None;
    }
    let upper: String = col.chars().flat_map(char::to_uppercase).collect();
    let mut idx = 0u32;
    for (c, power) in upper.chars().rev().zip([1u32, 26, 676]) {
        if !c.is_ascii_uppercase() {
            return None;
        }
        idx += (c as u32 - 'A' as u32 + 1) * power;
    }
    (1..=18278).contains(&idx).then_some(idx)
}

/// `get_column_letter(idx)` for 1 ≤ idx ≤ 18278.
pub(crate) fn column_letter(idx: i64) -> Option<String> {
    if !(1..=18278).contains(&idx) {
        return None;
    }
    let mut n = idx;
    let mut out = Vec::new();
    while n > 0 {
        let rem = (n - 1) % 26;
        out.push(char::from(b'A' + rem as u8));
        n = (n - 1) / 26;
    }
    Some(out.into_iter().rev().collect())
}

/// `coordinate_to_tuple(coordinate)`: the letters before the first ASCII
/// digit name the column, the rest is `int()`-ed as the row (so `A1_0` is
/// row 10 and `A0` row 0); `None` where the reference raises.
pub(crate) fn coordinate_to_tuple(coordinate: &str) -> Option<(PyInt, u32)> {
    let split = match coordinate.char_indices().find(|(_, c)| c.is_ascii_digit()) {
        Some((i, _)) => i,
        // No digit: Python's loop ends on the last character.
        None => coordinate.char_indices().last().map_or(0, |(i, _)| i),
    };
    let (col, row) = coordinate.split_at(split);
    let row = PyInt::parse(row)?;
    let col = column_index(col)?;
    Some((row, col))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn coordinates_read_as_openpyxl_reads_them() {
        let t = |s: &str| coordinate_to_tuple(s).map(|(r, c)| (r.to_string(), c));
        assert_eq!(t("B3"), Some(("3".into(), 2)));
        assert_eq!(t("xfd1048576"), Some(("1048576".into(), 16384)));
        assert_eq!(t("A0"), Some(("0".into(), 1)));
        assert_eq!(t("A1_0"), Some(("10".into(), 1)));
        assert_eq!(t("ZZZ1"), Some(("1".into(), 18278)));
        for bad in ["AAAA1", "$A$1", "1", "A", "AB", "A1B", ""] {
            assert_eq!(t(bad), None, "{bad}");
        }
        assert_eq!(column_letter(28).as_deref(), Some("AB"));
        assert_eq!(column_letter(702).as_deref(), Some("ZZ"));
        assert_eq!(column_letter(18279), None);
    }
}
