//! Number formats as openpyxl classifies them (`styles/numbers.py`): the
//! built-in codes by id, `is_date_format` and `is_timedelta_format`.

/// `BUILTIN_FORMATS[id]`, or `None` for ids openpyxl does not know (23–36, 50–163, …).
pub(crate) fn builtin(id: i64) -> Option<&'static str> {
    Some(match id {
        0 => "General",
        1 => "0",
        2 => "0.00",
        3 => "#,##0",
        4 => "#,##0.00",
        5 => "\"$\"#,##0_);(\"$\"#,##0)",
        6 => "\"$\"#,##0_);[Red](\"$\"#,##0)",
        7 => "\"$\"#,##0.00_);(\"$\"#,##0.00)",
        8 => "\"$\"#,##0.00_);[Red](\"$\"#,##0.00)",
        9 => "0%",
        10 => "0.00%",
        11 => "0.00E+00",
        12 => "# ?/?",
        13 => "# ??/??",
        14 => "mm-dd-yy",
        15 => "d-mmm-yy",
        16 => "d-mmm",
        17 => "mmm-yy",
        18 => "h:mm AM/PM",
        19 => "h:mm:ss AM/PM",
        20 => "h:mm",
        21 => "h:mm:ss",
        22 => "m/d/yy h:mm",
        37 => "#,##0_);(#,##0)",
        38 => "#,##0_);[Red](#,##0)",
        39 => "#,##0.00_);(#,##0.00)",
        40 => "#,##0.00_);[Red](#,##0.00)",
        41 => r#"_(* #,##0_);_(* \(#,##0\);_(* "-"_);_(@_)"#,
        42 => r#"_("$"* #,##0_);_("$"* \(#,##0\);_("$"* "-"_);_(@_)"#,
        43 => r#"_(* #,##0.00_);_(* \(#,##0.00\);_(* "-"??_);_(@_)"#,
        44 => r#"_("$"* #,##0.00_)_("$"* \(#,##0.00\)_("$"* "-"??_)_(@_)"#,
        45 => "mm:ss",
        46 => "[h]:mm:ss",
        47 => "mmss.0",
        48 => "##0.0E+0",
        49 => "@",
        _ => return None,
    })
}

/// The first section of a format (`fmt.split(";")[0]`).
fn first_section(fmt: &str) -> &str {
    fmt.split(';').next().unwrap_or("")
}

/// `STRIP_RE.sub("", fmt)`: quoted literals (`".*?"`) and bracketed groups
/// other than `[h]`, `[hh]`, `[m]`, `[mm]`, `[s]`, `[ss]` removed.
fn strip_literals(fmt: &str) -> String {
    let mut out = String::with_capacity(fmt.len());
    let mut i = 0;
    while i < fmt.len() {
        let rest = &fmt[i..];
        if let Some(after) = rest.strip_prefix('"') {
            if let Some(close) = after.find('"') {
                i += 1 + close + 1;
                continue;
            }
        } else if let Some(after) = rest.strip_prefix('[') {
            let elapsed = ["h]", "hh]", "m]", "mm]", "s]", "ss]"]
                .iter()
                .any(|p| after.starts_with(p));
            if !elapsed {
                if let Some(close) = after.find(']') {
                    i += 1 + close + 1;
                    continue;
                }
            }
        }
        let c = rest.chars().next().unwrap_or(' ');
        out.push(c);
        i += c.len_utf8();
    }
    out
}

/// `is_date_format(fmt)`: a date or time letter not escaped by `_` or `\`.
pub(crate) fn is_date_format(fmt: &str) -> bool {
    let stripped = strip_literals(first_section(fmt));
    let mut prev: Option<char> = None;
    for c in stripped.chars() {
        if "dmhysDMHYS".contains(c) && !matches!(prev, Some('_' | '\\')) {
            return true;
        }
        prev = Some(c);
    }
    false
}

/// `is_timedelta_format(fmt)`: an elapsed-time bracket (`[h]`, `[mm]`, … any case).
pub(crate) fn is_timedelta_format(fmt: &str) -> bool {
    let lower = first_section(fmt).to_lowercase();
    ["[h]", "[hh]", "[m]", "[mm]", "[s]", "[ss]"]
        .iter()
        .any(|p| lower.contains(p))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_are_recognised_as_openpyxl_does() {
        for fmt in [
            "yyyy-mm-dd",
            "mm-dd-yy",
            "h:mm",
            "[h]:mm:ss",
            "d",
            "[$-409]mmm d",
        ] {
            assert!(is_date_format(fmt), "{fmt}");
        }
        for fmt in [
            "General", "0.00", "\"day\"0", "[Red]0", "_d0", "\\d0", "0;yyyy", "@",
        ] {
            assert!(!is_date_format(fmt), "{fmt}");
        }
        assert!(is_timedelta_format("[H]:MM"));
        assert!(!is_timedelta_format("h:mm"));
        assert!(!is_date_format("[H]:mm".replace("mm", "00").as_str()));
    }
}
