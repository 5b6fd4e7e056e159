//! Cell values as openpyxl returns them, normalised as
//! `normalize_excel_value` does and written as Wegent's compact row text
//! (`format_excel_row_compact`, `format_excel_sheet_header`).

use super::dates::Moment;
use super::pynum::{float_repr, PyInt};
use std::fmt::Write;

/// A cell value as openpyxl hands it over.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Raw {
    /// `str` (strings, error codes, formulas as text).
    Str(String),
    /// `int`.
    Int(PyInt),
    /// `float`.
    Float(f64),
    /// `bool`.
    Bool(bool),
    /// `datetime`, `date`, `time` or `timedelta`.
    Moment(Moment),
    /// `ArrayFormula(ref, text)`.
    Array {
        /// The `ref` attribute, if any.
        reference: Option<String>,
        /// `=` and the formula text.
        text: String,
    },
    /// `DataTableFormula(**attrib)`: the attributes it keeps.
    DataTable(Vec<(String, String)>),
}

/// A normalised value (`ExcelValue`).
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Norm {
    /// A string.
    Str(String),
    /// An integer.
    Int(PyInt),
    /// A finite, non-integral float.
    Float(f64),
    /// A boolean.
    Bool(bool),
    /// `None` inside a structure.
    Null,
    /// A JSON object (formula wrappers).
    Obj(Vec<(&'static str, Norm)>),
}

/// `_normalize_formula_flag`: strings are true when `1`/`true` (any case); absent is false.
fn flag(attrs: &[(String, String)], key: &str) -> Norm {
    let v = attrs.iter().find(|(k, _)| k == key).map(|(_, v)| v);
    Norm::Bool(v.is_some_and(|v| {
        let l = v.to_lowercase();
        l == "1" || l == "true"
    }))
}

fn opt_str(attrs: &[(String, String)], key: &str) -> Norm {
    attrs
        .iter()
        .find(|(k, _)| k == key)
        .map_or(Norm::Null, |(_, v)| Norm::Str(v.clone()))
}

impl Raw {
    /// `normalize_excel_value(value)`, taking the value (a string is moved, not copied).
    pub(crate) fn into_normalized(self) -> Norm {
        match self {
            Raw::Str(s) => Norm::Str(s),
            other => other.normalize(),
        }
    }

    /// `dumps_excel_value(normalize_excel_value(value))` appended to `out`,
    /// without the normalised copy for the common values.
    pub(crate) fn dump_normalized(&self, out: &mut String) {
        match self {
            Raw::Str(s) => json_string(out, s),
            Raw::Int(i) => {
                let _ = write!(out, "{i}");
            }
            other => other.normalize().dump(out),
        }
    }

    /// `normalize_excel_value(value)`.
    pub(crate) fn normalize(&self) -> Norm {
        match self {
            Raw::Str(s) => Norm::Str(s.clone()),
            Raw::Int(i) => Norm::Int(i.clone()),
            Raw::Float(f) => normalize_float(*f),
            Raw::Bool(b) => Norm::Bool(*b),
            Raw::Moment(m) => Norm::Str(m.render()),
            Raw::Array { reference, text } => Norm::Obj(vec![
                ("formula_type", Norm::Str("array".into())),
                ("ref", reference.clone().map_or(Norm::Null, Norm::Str)),
                ("text", Norm::Str(text.clone())),
            ]),
            Raw::DataTable(attrs) => Norm::Obj(vec![
                ("formula_type", Norm::Str("dataTable".into())),
                ("ref", opt_str(attrs, "ref")),
                ("ca", flag(attrs, "ca")),
                ("dt2D", flag(attrs, "dt2D")),
                ("dtr", flag(attrs, "dtr")),
                ("r1", opt_str(attrs, "r1")),
                ("r2", opt_str(attrs, "r2")),
                ("del1", flag(attrs, "del1")),
                ("del2", flag(attrs, "del2")),
            ]),
        }
    }
}

/// Floats: non-finite ones as `str()`, integral ones as `int()`.
fn normalize_float(f: f64) -> Norm {
    if f.is_nan() {
        Norm::Str("nan".into())
    } else if f.is_infinite() {
        Norm::Str(if f > 0.0 { "inf" } else { "-inf" }.into())
    } else if f.fract() == 0.0 {
        Norm::Int(PyInt::from_integral_float(f))
    } else {
        Norm::Float(f)
    }
}

/// `json.dumps(s, ensure_ascii=False)`.
pub(crate) fn json_string(out: &mut String, s: &str) {
    if !s.bytes().any(|b| b == b'"' || b == b'\\' || b < 0x20) {
        out.push('"');
        out.push_str(s);
        out.push('"');
        return;
    }
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
}

impl Norm {
    /// `dumps_excel_value`: compact separators, non-ASCII kept.
    pub(crate) fn dump(&self, out: &mut String) {
        match self {
            Norm::Str(s) => json_string(out, s),
            Norm::Int(i) => {
                let _ = write!(out, "{i}");
            }
            Norm::Float(f) => out.push_str(&float_repr(*f)),
            Norm::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
            Norm::Null => out.push_str("null"),
            Norm::Obj(fields) => {
                out.push('{');
                for (i, (k, v)) in fields.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    json_string(out, k);
                    out.push(':');
                    v.dump(out);
                }
                out.push('}');
            }
        }
    }
}

/// `format_excel_row_compact`: `R<row>: ` then cells joined by ` | `, a cell
/// off its expected column written as `[<column>]=`.
pub(crate) fn compact_row(source_row: &PyInt, cells: &[(u64, Norm)]) -> String {
    let mut row = CompactRow::new(source_row);
    for (column, value) in cells {
        value.dump(row.cell(*column));
    }
    row.finish()
}

/// [`compact_row`] written a cell at a time, each value dumped in place.
pub(crate) struct CompactRow {
    out: String,
    expected: u64,
    first: bool,
}

impl CompactRow {
    /// A row numbered `source_row`, no cell yet.
    pub(crate) fn new(source_row: &PyInt) -> Self {
        let mut out = String::with_capacity(64);
        let _ = write!(out, "R{source_row}: ");
        CompactRow {
            out,
            expected: 1,
            first: true,
        }
    }

    /// Starts the cell of `column` (the separator and, off its expected
    /// column, `[<column>]=`): its value is to be dumped into the text returned.
    pub(crate) fn cell(&mut self, column: u64) -> &mut String {
        if !self.first {
            self.out.push_str(" | ");
        }
        self.first = false;
        if column != self.expected {
            let _ = write!(self.out, "[{column}]=");
        }
        self.expected = column.saturating_add(1);
        &mut self.out
    }

    /// The row's text.
    pub(crate) fn finish(self) -> String {
        self.out
    }
}

/// `str.splitlines()` boundaries.
fn is_line_boundary(c: char) -> bool {
    matches!(
        c,
        '\n' | '\r'
            | '\u{b}'
            | '\u{c}'
            | '\u{1c}'
            | '\u{1d}'
            | '\u{1e}'
            | '\u{85}'
            | '\u{2028}'
            | '\u{2029}'
    )
}

/// `" ".join(name.splitlines())`.
fn collapse_lines(name: &str) -> String {
    let mut lines: Vec<&str> = Vec::new();
    let mut rest = name;
    while !rest.is_empty() {
        match rest.char_indices().find(|(_, c)| is_line_boundary(*c)) {
            Some((i, c)) => {
                lines.push(&rest[..i]);
                let mut next = i + c.len_utf8();
                if c == '\r' && rest[next..].starts_with('\n') {
                    next += 1;
                }
                rest = &rest[next..];
            }
            None => {
                lines.push(rest);
                rest = "";
            }
        }
    }
    lines.join(" ")
}

/// Wegent's cap on sheet names in headers, in characters.
const MAX_NAME: usize = 48;

/// `format_excel_sheet_header(name)`: `--- Sheet: NAME ---`, or empty for a blank name.
pub(crate) fn sheet_header(name: &str) -> String {
    let collapsed = collapse_lines(name);
    let collapsed = ctxguard_core::pyjson::strip(&collapsed);
    if collapsed.is_empty() {
        return String::new();
    }
    let shown = if collapsed.chars().count() > MAX_NAME {
        let head: String = collapsed.chars().take(MAX_NAME - 1).collect();
        format!("{head}…")
    } else {
        collapsed.to_string()
    };
    format!("--- Sheet: {shown} ---")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_render_compactly() {
        let cells = vec![
            (1, Norm::Str("a \"q\"\n".into())),
            (2, Norm::Float(0.1)),
            (5, Norm::Bool(true)),
            (6, Raw::Float(3.0).normalize()),
            (7, Raw::Float(f64::INFINITY).normalize()),
        ];
        assert_eq!(
            compact_row(&PyInt::from_i64(3), &cells),
            r#"R3: "a \"q\"\n" | 0.1 | [5]=true | 3 | "inf""#
        );
    }

    #[test]
    fn formula_objects_dump_compactly() {
        let v = Raw::Array {
            reference: Some("A1:A2".into()),
            text: "=B1:B2*2".into(),
        }
        .normalize();
        let mut out = String::new();
        v.dump(&mut out);
        assert_eq!(
            out,
            r#"{"formula_type":"array","ref":"A1:A2","text":"=B1:B2*2"}"#
        );
    }

    #[test]
    fn headers_collapse_and_cap_names() {
        assert_eq!(sheet_header("a\r\nb\u{2028}c"), "--- Sheet: a b c ---");
        assert_eq!(sheet_header(" \n "), "");
        let long = "x".repeat(60);
        assert_eq!(
            sheet_header(&long),
            format!("--- Sheet: {}… ---", "x".repeat(47))
        );
    }
}
