//! `json.loads` of CPython 3.12 on the decoded `content.json`: its grammar
//! (NaN, Infinity and -Infinity accepted; only ` \t\n\r` as whitespace;
//! control characters refused in strings), objects keeping a repeated key's
//! first position with its last value, integers of any size (refused past
//! Python's 4 300-digit conversion limit), the C scanner's nesting limit, and
//! a leading BOM refused; values rendered as Python's `str()` renders them.

use super::Failure;

/// Containers the C scanner nests before `RecursionError`.
pub(crate) const MAX_DEPTH: usize = 1497;
/// Python's `sys.get_int_max_str_digits()` default.
const INT_MAX_STR_DIGITS: usize = 4300;

/// A decoded JSON value as Python holds it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Py {
    /// `None`
    None,
    /// `True` / `False`
    Bool(bool),
    /// An `int`, as its decimal digits (with a leading `-` when negative).
    Int(String),
    /// A `float`.
    Float(f64),
    /// A `str`.
    Str(String),
    /// A `list`.
    List(Vec<Py>),
    /// A `dict` in insertion order.
    Dict(Vec<(String, Py)>),
}

impl Py {
    /// `dict.get(key)`.
    pub(crate) fn get(&self, key: &str) -> Option<&Py> {
        match self {
            Py::Dict(items) => items.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    /// Python truthiness.
    pub(crate) fn truthy(&self) -> bool {
        match self {
            Py::None => false,
            Py::Bool(b) => *b,
            Py::Int(d) => d != "0",
            Py::Float(f) => *f != 0.0,
            Py::Str(s) => !s.is_empty(),
            Py::List(v) => !v.is_empty(),
            Py::Dict(v) => !v.is_empty(),
        }
    }

    /// `str(value)`.
    pub(crate) fn to_py_str(&self) -> String {
        match self {
            Py::Str(s) => s.clone(),
            other => {
                let mut out = String::new();
                other.repr(&mut out);
                out
            }
        }
    }

    /// `repr(value)`.
    fn repr(&self, out: &mut String) {
        match self {
            Py::None => out.push_str("None"),
            Py::Bool(true) => out.push_str("True"),
            Py::Bool(false) => out.push_str("False"),
            Py::Int(d) => out.push_str(d),
            Py::Float(f) => out.push_str(&float_repr(*f)),
            Py::Str(s) => out.push_str(&str_repr(s)),
            Py::List(items) => {
                out.push('[');
                for (i, v) in items.iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    v.repr(out);
                }
                out.push(']');
            }
            Py::Dict(items) => {
                out.push('{');
                for (i, (k, v)) in items.iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    out.push_str(&str_repr(k));
                    out.push_str(": ");
                    v.repr(out);
                }
                out.push('}');
            }
        }
    }
}

/// `repr(str)`, by way of core's Python `str()` of a one-item list.
fn str_repr(s: &str) -> String {
    let list = serde_json::Value::Array(vec![serde_json::Value::String(s.to_string())]);
    let r = ctxguard_core::pyjson::py_str(&list);
    r[1..r.len() - 1].to_string()
}

/// `repr(float)`.
fn float_repr(f: f64) -> String {
    if f.is_nan() {
        return "nan".into();
    }
    if f.is_infinite() {
        return if f > 0.0 { "inf".into() } else { "-inf".into() };
    }
    match serde_json::Number::from_f64(f) {
        Some(n) => ctxguard_core::pyjson::py_str(&serde_json::Value::Number(n)),
        None => "nan".into(),
    }
}

fn invalid(what: &str, at: usize) -> Failure {
    Failure::Content(format!("{what} (char {at})"))
}

struct Parser<'a> {
    s: &'a [u8],
    text: &'a str,
    pos: usize,
}

impl Parser<'_> {
    fn ws(&mut self) {
        while matches!(self.s.get(self.pos), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.pos += 1;
        }
    }

    fn value(&mut self, depth: usize) -> Result<Py, Failure> {
        let at = self.pos;
        let Some(&c) = self.s.get(at) else {
            return Err(invalid("Expecting value", at));
        };
        match c {
            b'"' => Ok(Py::Str(self.string()?)),
            b'{' | b'[' => {
                if depth >= MAX_DEPTH {
                    return Err(Failure::Document(
                        "maximum recursion depth exceeded while decoding a JSON document".into(),
                    ));
                }
                if c == b'{' {
                    self.object(depth + 1)
                } else {
                    self.array(depth + 1)
                }
            }
            b'n' if self.s[at..].starts_with(b"null") => {
                self.pos += 4;
                Ok(Py::None)
            }
            b't' if self.s[at..].starts_with(b"true") => {
                self.pos += 4;
                Ok(Py::Bool(true))
            }
            b'f' if self.s[at..].starts_with(b"false") => {
                self.pos += 5;
                Ok(Py::Bool(false))
            }
            b'N' if self.s[at..].starts_with(b"NaN") => {
                self.pos += 3;
                Ok(Py::Float(f64::NAN))
            }
            b'I' if self.s[at..].starts_with(b"Infinity") => {
                self.pos += 8;
                Ok(Py::Float(f64::INFINITY))
            }
            b'-' if self.s[at..].starts_with(b"-Infinity") => {
                self.pos += 9;
                Ok(Py::Float(f64::NEG_INFINITY))
            }
            b'-' | b'0'..=b'9' => self.number(),
            _ => Err(invalid("Expecting value", at)),
        }
    }

    fn number(&mut self) -> Result<Py, Failure> {
        let start = self.pos;
        let digits = |p: &mut Parser, from: usize| {
            let mut i = from;
            while p.s.get(i).is_some_and(u8::is_ascii_digit) {
                i += 1;
            }
            i
        };
        let mut i = start;
        if self.s[i] == b'-' {
            i += 1;
        }
        match self.s.get(i) {
            Some(b'0') => i += 1,
            Some(b'1'..=b'9') => i = digits(self, i),
            _ => return Err(invalid("Expecting value", start)),
        }
        let mut float = false;
        if self.s.get(i) == Some(&b'.') && self.s.get(i + 1).is_some_and(u8::is_ascii_digit) {
            i = digits(self, i + 1);
            float = true;
        }
        if matches!(self.s.get(i), Some(b'e' | b'E')) {
            let mut j = i + 1;
            if matches!(self.s.get(j), Some(b'+' | b'-')) {
                j += 1;
            }
            if self.s.get(j).is_some_and(u8::is_ascii_digit) {
                i = digits(self, j);
                float = true;
            }
        }
        self.pos = i;
        let text = &self.text[start..i];
        if float {
            return Ok(Py::Float(text.parse::<f64>().unwrap_or(f64::NAN)));
        }
        let (neg, body) = match text.strip_prefix('-') {
            Some(b) => (true, b),
            None => (false, text),
        };
        if body.len() > INT_MAX_STR_DIGITS {
            return Err(Failure::Document(format!(
                "an integer of {} digits exceeds Python's limit for integer string conversion",
                body.len()
            )));
        }
        Ok(Py::Int(if neg && body != "0" {
            format!("-{body}")
        } else {
            body.to_string()
        }))
    }

    fn hex4(&self, at: usize) -> Option<u32> {
        let h = self.text.get(at..at + 4)?;
        if !h.bytes().all(|b| b.is_ascii_hexdigit()) {
            return None;
        }
        u32::from_str_radix(h, 16).ok()
    }

    /// A string starting at the quote: escapes resolved, surrogate pairs
    /// joined, a lone surrogate (which Rust strings cannot hold) as U+FFFD.
    fn string(&mut self) -> Result<String, Failure> {
        let begin = self.pos;
        let mut i = self.pos + 1;
        let mut out = String::new();
        loop {
            let run = self.s[i..]
                .iter()
                .position(|&b| b == b'"' || b == b'\\' || b < 0x20)
                .map(|p| i + p);
            let Some(k) = run else {
                return Err(invalid("Unterminated string starting at", begin));
            };
            out.push_str(&self.text[i..k]);
            match self.s[k] {
                b'"' => {
                    self.pos = k + 1;
                    return Ok(out);
                }
                b'\\' => {
                    let Some(&e) = self.s.get(k + 1) else {
                        return Err(invalid("Unterminated string starting at", begin));
                    };
                    i = k + 2;
                    match e {
                        b'"' => out.push('"'),
                        b'\\' => out.push('\\'),
                        b'/' => out.push('/'),
                        b'b' => out.push('\u{8}'),
                        b'f' => out.push('\u{c}'),
                        b'n' => out.push('\n'),
                        b'r' => out.push('\r'),
                        b't' => out.push('\t'),
                        b'u' => {
                            let Some(u) = self.hex4(k + 2) else {
                                return Err(invalid("Invalid \\uXXXX escape", k + 1));
                            };
                            i = k + 6;
                            let mut cp = u;
                            if (0xd800..0xdc00).contains(&u) && self.s.get(i..i + 2) == Some(b"\\u")
                            {
                                if let Some(lo) = self.hex4(i + 2) {
                                    if (0xdc00..0xe000).contains(&lo) {
                                        cp = 0x10000 + ((u - 0xd800) << 10) + (lo - 0xdc00);
                                        i += 6;
                                    }
                                }
                            }
                            out.push(char::from_u32(cp).unwrap_or('\u{fffd}'));
                        }
                        _ => return Err(invalid("Invalid \\escape", k)),
                    }
                }
                _ => return Err(invalid("Invalid control character at", k)),
            }
        }
    }

    fn array(&mut self, depth: usize) -> Result<Py, Failure> {
        self.pos += 1;
        let mut items = Vec::new();
        self.ws();
        if self.s.get(self.pos) == Some(&b']') {
            self.pos += 1;
            return Ok(Py::List(items));
        }
        loop {
            self.ws();
            items.push(self.value(depth)?);
            self.ws();
            match self.s.get(self.pos) {
                Some(b']') => {
                    self.pos += 1;
                    return Ok(Py::List(items));
                }
                Some(b',') => self.pos += 1,
                _ => return Err(invalid("Expecting ',' delimiter", self.pos)),
            }
        }
    }

    fn object(&mut self, depth: usize) -> Result<Py, Failure> {
        self.pos += 1;
        let mut items: Vec<(String, Py)> = Vec::new();
        self.ws();
        if self.s.get(self.pos) == Some(&b'}') {
            self.pos += 1;
            return Ok(Py::Dict(items));
        }
        loop {
            self.ws();
            if self.s.get(self.pos) != Some(&b'"') {
                return Err(invalid(
                    "Expecting property name enclosed in double quotes",
                    self.pos,
                ));
            }
            let key = self.string()?;
            self.ws();
            if self.s.get(self.pos) != Some(&b':') {
                return Err(invalid("Expecting ':' delimiter", self.pos));
            }
            self.pos += 1;
            self.ws();
            let value = self.value(depth)?;
            match items.iter_mut().find(|(k, _)| *k == key) {
                Some(slot) => slot.1 = value,
                None => items.push((key, value)),
            }
            self.ws();
            match self.s.get(self.pos) {
                Some(b'}') => {
                    self.pos += 1;
                    return Ok(Py::Dict(items));
                }
                Some(b',') => self.pos += 1,
                _ => return Err(invalid("Expecting ',' delimiter", self.pos)),
            }
        }
    }
}

/// `json.loads(text)`.
pub(crate) fn loads(text: &str) -> Result<Py, Failure> {
    if text.starts_with('\u{feff}') {
        return Err(invalid("Unexpected UTF-8 BOM (decode using utf-8-sig)", 0));
    }
    let mut p = Parser {
        s: text.as_bytes(),
        text,
        pos: 0,
    };
    p.ws();
    let v = p.value(0)?;
    p.ws();
    if p.pos != text.len() {
        return Err(invalid("Extra data", p.pos));
    }
    Ok(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn python_accepts_what_strict_json_does_not() {
        assert_eq!(loads("NaN").ok().map(|v| v.to_py_str()), Some("nan".into()));
        assert_eq!(
            loads(" [Infinity, -Infinity] ").ok().map(|v| v.to_py_str()),
            Some("[inf, -inf]".into())
        );
        assert_eq!(
            loads(r#"{"a": 1, "b": 2, "a": 3}"#)
                .ok()
                .map(|v| v.to_py_str()),
            Some("{'a': 3, 'b': 2}".into())
        );
        assert_eq!(loads("-0").ok().map(|v| v.to_py_str()), Some("0".into()));
        assert_eq!(
            loads("1e400").ok().map(|v| v.to_py_str()),
            Some("inf".into())
        );
        assert_eq!(
            loads("[1.5, 10.0, 1e5, true, null, \"it's\"]")
                .ok()
                .map(|v| v.to_py_str()),
            Some("[1.5, 10.0, 100000.0, True, None, \"it's\"]".into())
        );
    }

    #[test]
    fn python_refuses_what_it_refuses() {
        for bad in [
            "",
            "[1,]",
            "{'a':1}",
            "[01]",
            "\u{feff}[]",
            "\"a\u{1}\"",
            "[1] x",
            "{\"a\" 1}",
            "\"\\x\"",
        ] {
            assert!(matches!(loads(bad), Err(Failure::Content(_))), "{bad:?}");
        }
        let deep = format!("{}{}", "[".repeat(MAX_DEPTH), "]".repeat(MAX_DEPTH));
        assert!(loads(&deep).is_ok());
        let deeper = format!("{}{}", "[".repeat(MAX_DEPTH + 1), "]".repeat(MAX_DEPTH + 1));
        assert!(matches!(loads(&deeper), Err(Failure::Document(_))));
        assert!(matches!(
            loads(&"9".repeat(4301)),
            Err(Failure::Document(_))
        ));
    }
}
