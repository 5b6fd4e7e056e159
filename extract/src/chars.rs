//! Python's `str` indexing over Rust strings: lengths and slices in code
//! points (the reference's `len(text)` and `text[:n]`), never bytes.

/// `len(s)`: the number of code points.
pub fn len(s: &str) -> i64 {
    // A text longer than i64::MAX code points cannot exist in memory.
    i64::try_from(s.chars().count()).unwrap_or(i64::MAX)
}

/// The byte offset of code point `n` (clamped to the end).
fn byte_offset(s: &str, n: usize) -> usize {
    s.char_indices().nth(n).map_or(s.len(), |(i, _)| i)
}

/// Python's slice index `n` of a text of `length` code points, clamped to 0..=length.
fn resolve(n: i64, length: i64) -> usize {
    let i = if n < 0 {
        (length + n).max(0)
    } else {
        n.min(length)
    };
    usize::try_from(i).unwrap_or(0)
}

/// `s[:n]` with Python's rules (a negative `n` counts from the end).
pub fn prefix(s: &str, n: i64) -> &str {
    match usize::try_from(n) {
        // A text of at most `n` bytes has at most `n` code points: nothing to count.
        Ok(n) if s.len() <= n => s,
        Ok(n) => &s[..byte_offset(s, n)],
        Err(_) => &s[..byte_offset(s, resolve(n, len(s)))],
    }
}

/// `s[start:end]` with Python's rules.
pub fn slice(s: &str, start: i64, end: i64) -> &str {
    let length = len(s);
    let (a, b) = (resolve(start, length), resolve(end, length));
    if a >= b {
        return "";
    }
    let from = byte_offset(s, a);
    let to = from + byte_offset(&s[from..], b - a);
    &s[from..to]
}

/// `s.rfind(needle, 0, end)` for a one-character needle: the code-point index
/// of the last `needle` strictly before code point `end`, or -1.
pub fn rfind_before(s: &str, needle: char, end: i64) -> i64 {
    let head = prefix(s, end.max(0));
    match head.rfind(needle) {
        Some(byte) => len(&head[..byte]),
        None => -1,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slices_count_code_points_like_python() {
        let s = "a😀b中c";
        assert_eq!(len(s), 5);
        assert_eq!(prefix(s, 2), "a😀");
        assert_eq!(prefix(s, -1), "a😀b中");
        assert_eq!(prefix(s, -9), "");
        assert_eq!(prefix(s, 99), s);
        assert_eq!(slice(s, 1, 3), "😀b");
        assert_eq!(slice(s, -2, 99), "中c");
        assert_eq!(slice(s, 3, 1), "");
    }

    #[test]
    fn rfind_before_matches_str_rfind() {
        let s = "ab\ncd\nef";
        assert_eq!(rfind_before(s, '\n', 8), 5);
        assert_eq!(rfind_before(s, '\n', 5), 2);
        assert_eq!(rfind_before(s, '\n', 2), -1);
        assert_eq!(rfind_before(s, '\n', 0), -1);
        assert_eq!(rfind_before("中\n文\n", '\n', 3), 1);
    }
}
