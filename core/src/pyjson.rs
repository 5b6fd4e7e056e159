//! Python semantics the reference relies on: truthiness, `json.dumps` with its
//! defaults (`", "` / `": "` separators, `ensure_ascii=True`, keys in their
//! given order, `repr` floats), because the reference counts the tokens of
//! tool-call arguments serialised that way; `int()` / `float()` of JSON
//! values and strings (Unicode digits and `_` separators included), because it
//! reads exit codes and wall times with them; `str()` of a loaded value,
//! because the guard renders and measures non-string content that way; and
//! `str.isspace` / `str.strip`.

use serde_json::Value;
use std::fmt::Write;

/// Serialises `value` byte-for-byte as Python's `json.dumps(value)` does.
pub fn dumps(value: &Value) -> String {
    let mut out = String::new();
    write_value(&mut out, value);
    out
}

/// Python truthiness of a JSON value (empty containers, 0, false and null are false).
pub fn is_truthy(v: &Value) -> bool {
    match v {
        Value::Null => false,
        Value::Bool(b) => *b,
        Value::Number(n) => n.as_f64().is_some_and(|f| f != 0.0),
        Value::String(s) => !s.is_empty(),
        Value::Array(a) => !a.is_empty(),
        Value::Object(o) => !o.is_empty(),
    }
}

/// Python's `int(value)` for a JSON value: booleans are 0/1, floats are
/// truncated, strings parse as [`int_from_str`]; `None` where Python raises
/// (or the result does not fit in an `i64`).
pub fn to_int(value: &Value) -> Option<i64> {
    match value {
        Value::Bool(b) => Some(i64::from(*b)),
        Value::Number(n) => n.as_i64().or_else(|| {
            n.as_f64()
                .filter(|f| f.is_finite() && f.abs() < 9.2e18)
                .map(|f| f.trunc() as i64)
        }),
        Value::String(s) => int_from_str(s),
        _ => None,
    }
}

/// Python's `float(value)` for a JSON value: booleans are 0.0/1.0, strings
/// parse as [`float_from_str`]; `None` where Python raises.
pub fn to_float(value: &Value) -> Option<f64> {
    match value {
        Value::Bool(b) => Some(f64::from(u8::from(*b))),
        Value::Number(n) => n.as_f64(),
        Value::String(s) => float_from_str(s),
        _ => None,
    }
}

/// Python's `int(s)`: surrounding whitespace, an optional sign, then decimal
/// digits of any script with single `_` between them.
pub fn int_from_str(s: &str) -> Option<i64> {
    let t = s.trim_matches(is_space);
    let (negative, digits) = match t.as_bytes().first() {
        Some(b'-') => (true, &t[1..]),
        Some(b'+') => (false, &t[1..]),
        _ => (false, t),
    };
    let ascii = ascii_digits(digits)?;
    let magnitude: i128 = ascii.parse().ok()?;
    i64::try_from(if negative { -magnitude } else { magnitude }).ok()
}

/// Python's `float(s)`: surrounding whitespace, then a decimal literal (digits
/// of any script, `_` between digits), an exponent, or `inf`/`infinity`/`nan`.
pub fn float_from_str(s: &str) -> Option<f64> {
    let t = s.trim_matches(is_space);
    let (sign, rest) = match t.as_bytes().first() {
        Some(b'-') => ("-", &t[1..]),
        Some(b'+') => ("", &t[1..]),
        _ => ("", t),
    };
    let lower = rest.to_ascii_lowercase();
    if matches!(lower.as_str(), "inf" | "infinity" | "nan") {
        return format!("{sign}{lower}").parse().ok();
    }
    // Mantissa digits and exponent digits are each runs of digits with single underscores.
    let mut out = String::from(sign);
    let mut run = String::new();
    let mut seen_digit = false;
    for c in rest.chars() {
        if matches!(c, '.' | 'e' | 'E' | '+' | '-') {
            out.push_str(&ascii_digits_or_empty(&run)?);
            run.clear();
            out.push(c);
        } else {
            seen_digit |= digit_value(c).is_some();
            run.push(c);
        }
    }
    out.push_str(&ascii_digits_or_empty(&run)?);
    if !seen_digit {
        return None;
    }
    out.parse().ok()
}

/// [`ascii_digits`] of a possibly empty run.
fn ascii_digits_or_empty(run: &str) -> Option<String> {
    if run.is_empty() {
        Some(String::new())
    } else {
        ascii_digits(run)
    }
}

/// A run of decimal digits of any script, with single `_` between digits, as ASCII digits.
fn ascii_digits(run: &str) -> Option<String> {
    let mut out = String::with_capacity(run.len());
    let mut after_digit = false;
    let mut pending_underscore = false;
    for c in run.chars() {
        if c == '_' {
            if !after_digit || pending_underscore {
                return None;
            }
            pending_underscore = true;
            continue;
        }
        let d = digit_value(c)?;
        out.push(char::from(b'0' + d));
        after_digit = true;
        pending_underscore = false;
    }
    (after_digit && !pending_underscore).then_some(out)
}

/// The value of a decimal digit of any script (Unicode `Nd`), as Python's
/// `\d` and `int()` read it: `Nd` characters come in runs of ten, 0 to 9.
pub fn digit_value(c: char) -> Option<u8> {
    use crate::bpe::unicode::{class, DIGIT};
    if c.is_ascii_digit() {
        return Some(c as u8 - b'0');
    }
    if class(c) & DIGIT == 0 {
        return None;
    }
    let mut before = 0u32;
    let mut cp = c as u32;
    while let Some(prev) = cp.checked_sub(1).and_then(char::from_u32) {
        if class(prev) & DIGIT == 0 {
            break;
        }
        before += 1;
        cp -= 1;
    }
    u8::try_from(before % 10).ok()
}

/// How [`write`] spells scalars: `json.dumps` (JSON) or Python's `repr` of the decoded value.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Style {
    Json,
    Repr,
}

fn write_value(out: &mut String, value: &Value) {
    write(out, value, Style::Json);
}

fn write_repr(out: &mut String, value: &Value) {
    write(out, value, Style::Repr);
}

/// One writer for both styles: they differ only in constants and strings;
/// containers are `[a, b]` and `{k: v}` in both.
fn write(out: &mut String, value: &Value, style: Style) {
    let json = style == Style::Json;
    let text = |out: &mut String, s: &str| {
        if json {
            write_string(out, s)
        } else {
            write_str_repr(out, s)
        }
    };
    match value {
        Value::Null => out.push_str(if json { "null" } else { "None" }),
        Value::Bool(true) => out.push_str(if json { "true" } else { "True" }),
        Value::Bool(false) => out.push_str(if json { "false" } else { "False" }),
        Value::Number(n) => {
            if let Some(i) = n.as_i64() {
                let _ = write!(out, "{i}");
            } else if let Some(u) = n.as_u64() {
                let _ = write!(out, "{u}");
            } else if let Some(f) = n.as_f64() {
                out.push_str(&float_repr(f));
            }
        }
        Value::String(s) => text(out, s),
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write(out, item, style);
            }
            out.push(']');
        }
        Value::Object(map) => {
            out.push('{');
            for (i, (key, item)) in map.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                text(out, key);
                out.push_str(": ");
                write(out, item, style);
            }
            out.push('}');
        }
    }
}

fn write_string(out: &mut String, s: &str) {
    out.push('"');
    for ch in s.chars() {
        match ch {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            c if (c as u32) < 0x20 || (c as u32) > 0x7f => {
                let mut units = [0u16; 2];
                for unit in c.encode_utf16(&mut units) {
                    let _ = write!(out, "\\u{unit:04x}");
                }
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

/// Python's `str(value)` of a value `json.loads` produced: a string as is,
/// anything else as its `repr` (`None`, `True`, `[{'type': 'text'}]`, …).
pub fn py_str(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        other => {
            let mut out = String::new();
            write_repr(&mut out, other);
            out
        }
    }
}

fn write_str_repr(out: &mut String, s: &str) {
    let quote = if s.contains('\'') && !s.contains('"') {
        '"'
    } else {
        '\''
    };
    out.push(quote);
    for ch in s.chars() {
        match ch {
            '\\' => out.push_str("\\\\"),
            '\t' => out.push_str("\\t"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            c if c == quote => {
                out.push('\\');
                out.push(c);
            }
            c if !is_printable(c) => {
                let code = c as u32;
                let _ = match code {
                    0..=0xff => write!(out, "\\x{code:02x}"),
                    0x100..=0xffff => write!(out, "\\u{code:04x}"),
                    _ => write!(out, "\\U{code:08x}"),
                };
            }
            c => out.push(c),
        }
    }
    out.push(quote);
}

/// Python's `str.isprintable` for one character: false for control, format,
/// separator (but the space) and private-use characters. Unassigned code
/// points, which need the Unicode tables Python carries, count as printable.
fn is_printable(c: char) -> bool {
    let code = c as u32;
    !(c.is_control()
        || matches!(
            code,
            0xa0 | 0xad
                | 0x600..=0x605
                | 0x61c
                | 0x6dd
                | 0x70f
                | 0x8e2
                | 0x1680
                | 0x180e
                | 0x2000..=0x200f
                | 0x2028..=0x202f
                | 0x205f..=0x2064
                | 0x2066..=0x206f
                | 0x3000
                | 0xd800..=0xf8ff
                | 0xfeff
                | 0xfff9..=0xfffb
                | 0x110bd
                | 0x110cd
                | 0x13430..=0x1343f
                | 0x1bca0..=0x1bca3
                | 0x1d173..=0x1d17a
                | 0xe0001
                | 0xe0020..=0xe007f
                | 0xf0000..
        ))
}

/// Python's `str.isspace` for one character (U+001C–U+001F included, unlike `char::is_whitespace`).
pub fn is_space(c: char) -> bool {
    c.is_whitespace() || ('\u{1c}'..='\u{1f}').contains(&c)
}

/// Python's `str.strip()`: leading and trailing [`is_space`] characters removed.
pub fn strip(s: &str) -> &str {
    s.trim_matches(is_space)
}

/// Python's `repr(float)`: shortest round-trip digits, fixed notation for
/// exponents in [-4, 16), otherwise `d.ddde+XX`.
pub fn float_repr(f: f64) -> String {
    if f.is_nan() {
        return "NaN".into();
    }
    if f.is_infinite() {
        return if f > 0.0 { "Infinity" } else { "-Infinity" }.into();
    }
    // `{:e}` gives the shortest round-trip digits, e.g. "1.5e-7" or "-1e16".
    let sci = format!("{f:e}");
    let (mantissa, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let (sign, mantissa) = mantissa
        .strip_prefix('-')
        .map_or(("", mantissa), |m| ("-", m));
    let digits: String = mantissa.chars().filter(|c| *c != '.').collect();
    if (-4..16).contains(&exp) {
        let point = exp + 1; // position of the decimal point within `digits`
        let body = if point <= 0 {
            format!("0.{}{}", "0".repeat((-point) as usize), digits)
        } else if point as usize >= digits.len() {
            format!("{}{}.0", digits, "0".repeat(point as usize - digits.len()))
        } else {
            let (int, frac) = digits.split_at(point as usize);
            format!("{int}.{frac}")
        };
        format!("{sign}{body}")
    } else {
        let (first, rest) = digits.split_at(1);
        let mant = if rest.is_empty() {
            first.to_string()
        } else {
            format!("{first}.{rest}")
        };
        let esign = if exp < 0 { '-' } else { '+' };
        format!("{sign}{mant}e{esign}{:02}", exp.abs())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn matches_python_defaults() {
        assert_eq!(
            dumps(&json!({"a": 1, "b": [true, null]})),
            r#"{"a": 1, "b": [true, null]}"#
        );
        assert_eq!(dumps(&json!("é😀\n")), r#""\u00e9\ud83d\ude00\n""#);
        assert_eq!(dumps(&json!("\u{7f}\u{1}")), "\"\u{7f}\\u0001\"");
    }

    #[test]
    fn str_of_values_like_python() {
        assert_eq!(py_str(&json!("plain")), "plain");
        assert_eq!(py_str(&json!(null)), "None");
        assert_eq!(py_str(&json!(2.5)), "2.5");
        assert_eq!(
            py_str(&json!([{"type": "text", "text": "it's", "ok": true}, "a\"b", "x\u{200d}\n"])),
            r#"[{'type': 'text', 'text': "it's", 'ok': True}, 'a"b', 'x\u200d\n']"#
        );
        assert_eq!(py_str(&json!(["both ' and \""])), r#"['both \' and "']"#);
        assert_eq!(py_str(&json!(["é😀\u{1}"])), r#"['é😀\x01']"#);
    }

    #[test]
    fn strip_uses_python_whitespace() {
        assert_eq!(strip("\u{1c} \t x y\u{3000}\n"), "x y");
        assert_eq!(strip("\u{200b}x"), "\u{200b}x");
    }

    #[test]
    fn int_and_float_like_python() {
        assert_eq!(to_int(&json!(true)), Some(1));
        assert_eq!(to_int(&json!(3.9)), Some(3));
        assert_eq!(to_int(&json!(-3.9)), Some(-3));
        assert_eq!(to_int(&json!(" 1_000 ")), Some(1000));
        assert_eq!(to_int(&json!("١٢")), Some(12));
        assert_eq!(to_int(&json!("𝟗")), Some(9));
        assert_eq!(to_int(&json!("3.0")), None);
        assert_eq!(to_int(&json!("1__0")), None);
        assert_eq!(to_int(&json!("_1")), None);
        assert_eq!(to_int(&json!("")), None);
        assert_eq!(to_int(&json!(null)), None);
        assert_eq!(to_float(&json!(" 1_0.5 ")), Some(10.5));
        assert_eq!(to_float(&json!("٣.٥")), Some(3.5));
        assert_eq!(to_float(&json!("1e3")), Some(1000.0));
        assert_eq!(to_float(&json!(".5")), Some(0.5));
        assert_eq!(to_float(&json!("-Infinity")), Some(f64::NEG_INFINITY));
        assert!(to_float(&json!("nan")).is_some_and(f64::is_nan));
        assert_eq!(to_float(&json!("abc")), None);
        assert_eq!(to_float(&json!(".")), None);
        assert_eq!(to_float(&json!(false)), Some(0.0));
    }

    #[test]
    fn floats_like_python_repr() {
        assert_eq!(float_repr(1.0), "1.0");
        assert_eq!(float_repr(0.1), "0.1");
        assert_eq!(float_repr(1e16), "1e+16");
        assert_eq!(float_repr(1.5e-7), "1.5e-07");
        assert_eq!(float_repr(0.0001), "0.0001");
        assert_eq!(float_repr(123456.789), "123456.789");
        assert_eq!(float_repr(-2.5), "-2.5");
        assert_eq!(float_repr(1e15), "1000000000000000.0");
    }
}
