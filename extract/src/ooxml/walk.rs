//! Navigating a reader's events the way python-docx and python-pptx look at
//! elements: direct children only, the first match of a tag, `.text` of an
//! element (its text before its first child node).

use super::xml::{Event, Reader, XmlError};
use ctxguard_core::pyjson::{digit_value, is_space};

/// Consumes the rest of the current element (its `Start` already read), children included.
pub(crate) fn skip(reader: &mut Reader<'_>) -> Result<(), XmlError> {
    skip_levels(reader, 1)
}

/// Consumes events until `depth` open elements have ended.
fn skip_levels(reader: &mut Reader<'_>, mut depth: usize) -> Result<(), XmlError> {
    while depth > 0 {
        match reader.next()? {
            Event::Start(_) => depth += 1,
            Event::End => depth -= 1,
            Event::Eof => return Ok(()),
            Event::Text(_) | Event::Node => {}
        }
    }
    Ok(())
}

/// lxml's `.text` of the current element (the text before its first child
/// node, `""` when none), consuming the element.
pub(crate) fn text_of(reader: &mut Reader<'_>, out: &mut String) -> Result<(), XmlError> {
    loop {
        match reader.next()? {
            Event::Text(t) => out.push_str(&t),
            Event::End | Event::Eof => return Ok(()),
            Event::Start(_) => return skip_levels(reader, 2),
            Event::Node => return skip(reader),
        }
    }
}

/// Python's `int(s)` for an attribute value, saturated to ±2^62 (`None`: a `ValueError`).
pub(crate) fn py_int(s: &str) -> Option<i128> {
    const CAP: i128 = 1 << 62;
    let t = s.trim_matches(is_space);
    let (negative, digits) = match t.chars().next() {
        Some('-') => (true, &t[1..]),
        Some('+') => (false, &t[1..]),
        _ => (false, t),
    };
    let mut value: i128 = 0;
    let mut after_digit = false;
    let mut underscore = false;
    for c in digits.chars() {
        if c == '_' {
            if !after_digit || underscore {
                return None;
            }
            underscore = true;
            continue;
        }
        let d = digit_value(c)?;
        value = (value * 10 + i128::from(d)).min(CAP);
        after_digit = true;
        underscore = false;
    }
    if !after_digit || underscore {
        return None;
    }
    Some(if negative { -value } else { value })
}

#[cfg(test)]
mod tests {
    use super::py_int;

    #[test]
    fn ints_parse_as_python_does() {
        assert_eq!(py_int(" 3 "), Some(3));
        assert_eq!(py_int("+1_0"), Some(10));
        assert_eq!(py_int("-2"), Some(-2));
        assert_eq!(py_int("٣"), Some(3));
        assert_eq!(py_int("99999999999999999999999999"), Some(1 << 62));
        for bad in ["", "1_", "_1", "1__0", "0x10", "1.0", "a"] {
            assert_eq!(py_int(bad), None, "{bad}");
        }
    }
}
