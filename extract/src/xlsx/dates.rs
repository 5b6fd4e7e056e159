//! openpyxl's date handling (`utils/datetime.py`): `from_excel` for
//! date-formatted serials (the 1900 leap-year bug, the 1904 epoch, times of
//! day below one, timedeltas for `[h]`-style formats, millisecond rounding)
//! and `from_ISO8601` for `t="d"` cells, rendered as Python's
//! `isoformat()` and `str(timedelta)`.

use super::pynum::round_half_even;
use ctxguard_core::pyjson::digit_value;

/// A date or time value as Python holds it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Moment {
    /// `datetime.datetime`.
    DateTime {
        /// Days since 0001-01-01 (proleptic Gregorian).
        ordinal: i64,
        /// Microseconds since midnight.
        micros: i64,
    },
    /// `datetime.date`.
    Date(i64),
    /// `datetime.time`: microseconds since midnight.
    Time(i64),
    /// `datetime.timedelta`: total microseconds.
    Delta(i128),
}

const MICROS_PER_DAY: i64 = 86_400_000_000;
/// `date(9999, 12, 31).toordinal()`.
const MAX_ORDINAL: i64 = 3_652_059;
/// `timedelta.max.days`.
const MAX_DELTA_DAYS: i128 = 999_999_999;

/// Days before `year`-01-01 counted from 0001-01-01 (ordinal of Jan 1 minus one).
fn days_before_year(year: i64) -> i64 {
    let y = year - 1;
    y * 365 + y / 4 - y / 100 + y / 400
}

fn is_leap(year: i64) -> bool {
    year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
}

fn days_in_month(year: i64, month: i64) -> i64 {
    match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        _ if is_leap(year) => 29,
        _ => 28,
    }
}

/// `date(y, m, d).toordinal()`, or `None` where Python's constructor raises.
fn ordinal(year: i64, month: i64, day: i64) -> Option<i64> {
    if !(1..=9999).contains(&year) || !(1..=12).contains(&month) {
        return None;
    }
    if day < 1 || day > days_in_month(year, month) {
        return None;
    }
    let before_month: i64 = (1..month).map(|m| days_in_month(year, m)).sum();
    Some(days_before_year(year) + before_month + day)
}

/// `(year, month, day)` of an ordinal.
fn from_ordinal(ordinal: i64) -> (i64, i64, i64) {
    // Estimate the year, then correct it.
    let mut year = (ordinal * 400 / 146_097).max(1);
    while days_before_year(year + 1) < ordinal {
        year += 1;
    }
    while days_before_year(year) >= ordinal {
        year -= 1;
    }
    let mut rest = ordinal - days_before_year(year);
    let mut month = 1;
    while rest > days_in_month(year, month) {
        rest -= days_in_month(year, month);
        month += 1;
    }
    (year, month, rest)
}

const WINDOWS_EPOCH: i64 = 693_594; // date(1899, 12, 30).toordinal()
const MAC_EPOCH: i64 = 695_056; // date(1904, 1, 1).toordinal()

/// The workbook's date system (`workbookPr date1904`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) enum Epoch {
    /// 1899-12-30, with Excel's 1900 leap-year bug below serial 60.
    #[default]
    Windows,
    /// 1904-01-01.
    Mac,
}

/// `timedelta(days=x)` in microseconds: whole days exactly, the fraction's
/// microseconds rounded half to even, as CPython's constructor computes them.
fn delta_from_days(days: f64) -> Option<i128> {
    let whole = days.trunc();
    let frac_micros = round_half_even((days - whole) * MICROS_PER_DAY as f64)?;
    check_delta(whole as i128 * MICROS_PER_DAY as i128 + frac_micros as i128)
}

/// A timedelta's microseconds, if within `timedelta`'s range.
fn check_delta(total: i128) -> Option<i128> {
    let days = total.div_euclid(MICROS_PER_DAY as i128);
    (-MAX_DELTA_DAYS..=MAX_DELTA_DAYS)
        .contains(&days)
        .then_some(total)
}

/// An Excel serial: a Python `int` (exact, possibly large) or `float`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Serial {
    /// An int that fits an `i64` (larger ones overflow every conversion).
    Int(i64),
    /// An int too large for `i64`.
    HugeInt,
    /// A float.
    Float(f64),
}

/// `from_excel(value, epoch, timedelta)`; `None` where it raises
/// `OverflowError` or `ValueError` (the cell then becomes `#VALUE!`).
pub(crate) fn from_excel(value: Serial, epoch: Epoch, timedelta: bool) -> Option<Moment> {
    if timedelta {
        let micros = match value {
            Serial::Int(i) => check_delta(i as i128 * MICROS_PER_DAY as i128)?,
            Serial::HugeInt => return None,
            Serial::Float(f) => {
                if !f.is_finite() || f.abs() > 1e9 {
                    return None;
                }
                delta_from_days(f)?
            }
        };
        let us = micros.rem_euclid(1_000_000);
        if us == 0 {
            return Some(Moment::Delta(micros));
        }
        // timedelta(seconds=td.total_seconds() // 1, microseconds=round(us, -3))
        let total_seconds = micros as f64 / 1e6;
        let seconds = total_seconds.floor();
        let rounded_us = round_half_even(us as f64 / 1000.0)? * 1000.0;
        let total = seconds as i128 * 1_000_000 + rounded_us as i128;
        return check_delta(total).map(Moment::Delta);
    }
    let epoch_ordinal = match epoch {
        Epoch::Windows => WINDOWS_EPOCH,
        Epoch::Mac => MAC_EPOCH,
    };
    let (mut day, fraction, value_f) = match value {
        Serial::Int(i) => (i as f64, 0.0, i as f64),
        Serial::HugeInt => return None,
        Serial::Float(f) => {
            if !f.is_finite() {
                return None;
            }
            let day = f.floor();
            (day, f - day, f)
        }
    };
    let millis = round_half_even(fraction * 86_400.0 * 1000.0)?;
    let diff_micros = millis as i64 * 1000;
    if (0.0..1.0).contains(&value_f) && diff_micros < MICROS_PER_DAY {
        return Some(Moment::Time(diff_micros));
    }
    if value_f > 0.0 && value_f < 60.0 && epoch == Epoch::Windows {
        day += 1.0;
    }
    if day.abs() > MAX_DELTA_DAYS as f64 {
        return None;
    }
    let mut ordinal = epoch_ordinal + day as i64;
    let mut micros = diff_micros;
    ordinal += micros.div_euclid(MICROS_PER_DAY);
    micros = micros.rem_euclid(MICROS_PER_DAY);
    if !(1..=MAX_ORDINAL).contains(&ordinal) {
        return None;
    }
    Some(Moment::DateTime { ordinal, micros })
}

/// A run of exactly `n` Unicode decimal digits at the start of `s`, as a number and the rest.
fn digits(s: &str, n: usize) -> Option<(i64, &str)> {
    let mut value = 0i64;
    let mut chars = s.char_indices();
    for _ in 0..n {
        let (_, c) = chars.next()?;
        value = value * 10 + i64::from(digit_value(c)?);
    }
    let rest = chars.next().map_or("", |(i, _)| &s[i..]);
    Some((value, rest))
}

/// One or more digits at the start of `s` (`\d+`), as text and the rest.
fn digit_run(s: &str) -> Option<(String, &str)> {
    let end = s
        .char_indices()
        .find(|(_, c)| digit_value(*c).is_none())
        .map_or(s.len(), |(i, _)| i);
    (end > 0).then(|| {
        let ascii = s[..end]
            .chars()
            .filter_map(digit_value)
            .map(|d| char::from(b'0' + d))
            .collect();
        (ascii, &s[end..])
    })
}

/// Why `from_ISO8601` raised.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct IsoError(pub String);

/// `from_ISO8601(text)` for a non-empty string.
pub(crate) fn from_iso8601(text: &str) -> Result<Moment, IsoError> {
    let invalid = || IsoError(format!("invalid ISO 8601 datetime value '{text}'"));
    let out_of_range = || IsoError(format!("ISO 8601 value '{text}' is out of range"));
    // (?P<date>YYYY-MM-DD)?
    let mut rest = text;
    let date = (|| {
        let (y, r) = digits(rest, 4)?;
        let r = r.strip_prefix('-')?;
        let (m, r) = digits(r, 2)?;
        let r = r.strip_prefix('-')?;
        let (d, r) = digits(r, 2)?;
        Some(((y, m, d), r))
    })();
    let date = date.map(|(ymd, r)| {
        rest = r;
        ymd
    });
    // T?
    if let Some(r) = rest.strip_prefix('T') {
        rest = r;
    }
    // (?P<time>HH:MM(:SS(\.\d{1,3})?)?)?
    let time = (|| {
        let (h, r) = digits(rest, 2)?;
        let r = r.strip_prefix(':')?;
        let (mi, r) = digits(r, 2)?;
        let mut r2 = r;
        let mut s = 0;
        let mut micro = 0i64;
        let seconds = (|| {
            let r = r.strip_prefix(':')?;
            digits(r, 2)
        })();
        if let Some((sec, r)) = seconds {
            s = sec;
            r2 = r;
            if let Some(frac) = r.strip_prefix('.') {
                let n = frac
                    .chars()
                    .take(3)
                    .take_while(|c| digit_value(*c).is_some())
                    .count();
                if n > 0 {
                    let (f, r3) = digits(frac, n)?;
                    let text: String = format!("0.{:0width$}", f, width = n);
                    let fv: f64 = text.parse().ok()?;
                    micro = (fv * 1_000_000.0) as i64;
                    r2 = r3;
                }
            }
        }
        Some(((h, mi, s, micro), r2))
    })();
    let time = time.map(|(t, _)| t);
    if let Some(moment) = match (date, time) {
        (None, None) => None,
        (None, Some((h, mi, s, us))) => {
            if h > 23 || mi > 59 || s > 59 {
                return Err(out_of_range());
            }
            Some(Moment::Time(((h * 60 + mi) * 60 + s) * 1_000_000 + us))
        }
        (Some((y, m, d)), None) => Some(Moment::Date(ordinal(y, m, d).ok_or_else(out_of_range)?)),
        (Some((y, m, d)), Some((h, mi, s, us))) => {
            let ord = ordinal(y, m, d).ok_or_else(out_of_range)?;
            if h > 23 || mi > 59 || s > 59 {
                return Err(out_of_range());
            }
            Some(Moment::DateTime {
                ordinal: ord,
                micros: ((h * 60 + mi) * 60 + s) * 1_000_000 + us,
            })
        }
    } {
        return Ok(moment);
    }
    // PT(\d+H)?(\d+M)?(\d+(\.\d{1,3})?S)?
    let mut r = text.strip_prefix("PT").ok_or_else(invalid)?;
    let mut part = |unit: char, fraction: bool| -> Option<f64> {
        let (mut number, mut after) = digit_run(r)?;
        if fraction {
            if let Some(frac) = after.strip_prefix('.') {
                let taken: Vec<(usize, char)> = frac
                    .char_indices()
                    .take(3)
                    .take_while(|(_, c)| digit_value(*c).is_some())
                    .collect();
                if let Some(&(i, c)) = taken.last() {
                    let end = i + c.len_utf8();
                    number.push('.');
                    number.extend(
                        frac[..end]
                            .chars()
                            .filter_map(digit_value)
                            .map(|d| char::from(b'0' + d)),
                    );
                    after = &frac[end..];
                }
            }
        }
        r = after.strip_prefix(unit)?;
        number.parse().ok()
    };
    let hours = part('H', false);
    let minutes = part('M', false);
    let seconds = part('S', true);
    if hours.is_none() && minutes.is_none() && seconds.is_none() {
        return Err(invalid());
    }
    let total =
        hours.unwrap_or(0.0) * 3600.0 + minutes.unwrap_or(0.0) * 60.0 + seconds.unwrap_or(0.0);
    let micros = round_half_even(total * 1e6).ok_or_else(out_of_range)?;
    check_delta(micros as i128)
        .map(Moment::Delta)
        .ok_or_else(out_of_range)
}

fn clock(micros: i64) -> String {
    let secs = micros / 1_000_000;
    let us = micros % 1_000_000;
    let base = format!("{:02}:{:02}:{:02}", secs / 3600, secs / 60 % 60, secs % 60);
    if us == 0 {
        base
    } else {
        format!("{base}.{us:06}")
    }
}

impl Moment {
    /// `isoformat()` for dates and times, `str()` for timedeltas.
    pub(crate) fn render(&self) -> String {
        match *self {
            Moment::DateTime { ordinal, micros } => {
                let (y, m, d) = from_ordinal(ordinal);
                format!("{y:04}-{m:02}-{d:02}T{}", clock(micros))
            }
            Moment::Date(ordinal) => {
                let (y, m, d) = from_ordinal(ordinal);
                format!("{y:04}-{m:02}-{d:02}")
            }
            Moment::Time(micros) => clock(micros),
            Moment::Delta(total) => {
                let days = total.div_euclid(MICROS_PER_DAY as i128);
                let rest = total.rem_euclid(MICROS_PER_DAY as i128) as i64;
                let secs = rest / 1_000_000;
                let us = rest % 1_000_000;
                let mut out = String::new();
                if days != 0 {
                    let plural = if days.abs() != 1 { "s" } else { "" };
                    out.push_str(&format!("{days} day{plural}, "));
                }
                out.push_str(&format!(
                    "{}:{:02}:{:02}",
                    secs / 3600,
                    secs / 60 % 60,
                    secs % 60
                ));
                if us != 0 {
                    out.push_str(&format!(".{us:06}"));
                }
                out
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn win(v: f64) -> String {
        from_excel(Serial::Float(v), Epoch::Windows, false)
            .map(|m| m.render())
            .unwrap_or_else(|| "#VALUE!".into())
    }

    #[test]
    fn serials_as_openpyxl_converts_them() {
        assert_eq!(win(45000.0), "2023-03-15T00:00:00");
        assert_eq!(win(0.5), "12:00:00");
        assert_eq!(win(59.0), "1900-02-28T00:00:00");
        assert_eq!(win(61.0), "1900-03-01T00:00:00");
        assert_eq!(win(60.0), "1900-02-28T00:00:00");
        assert_eq!(win(1.0), "1900-01-01T00:00:00");
        assert_eq!(win(0.0), "00:00:00");
        assert_eq!(win(-1.0), "1899-12-29T00:00:00");
        assert_eq!(win(45000.123456789), "2023-03-15T02:57:46.667000");
        assert_eq!(win(3e6), "#VALUE!");
        assert_eq!(win(0.99999999), "23:59:59.999000");
        assert_eq!(win(0.999999999), "1900-01-01T00:00:00");
        let mac = from_excel(Serial::Int(0), Epoch::Mac, false).map(|m| m.render());
        assert_eq!(mac.as_deref(), Some("00:00:00"));
        let mac = from_excel(Serial::Int(1), Epoch::Mac, false).map(|m| m.render());
        assert_eq!(mac.as_deref(), Some("1904-01-02T00:00:00"));
    }

    #[test]
    fn timedeltas_as_python_prints_them() {
        let td = |v: f64| from_excel(Serial::Float(v), Epoch::Windows, true).map(|m| m.render());
        assert_eq!(td(2.4270833333333335).as_deref(), Some("2 days, 10:15:00"));
        assert_eq!(td(1.0).as_deref(), Some("1 day, 0:00:00"));
        assert_eq!(td(-0.5).as_deref(), Some("-1 day, 12:00:00"));
        assert_eq!(td(0.25).as_deref(), Some("6:00:00"));
    }

    #[test]
    fn iso_values() {
        let iso = |s: &str| from_iso8601(s).map(|m| m.render());
        assert_eq!(
            iso("2024-11-05T06:07:08").as_deref(),
            Ok("2024-11-05T06:07:08")
        );
        assert_eq!(iso("2001-01-01").as_deref(), Ok("2001-01-01"));
        assert_eq!(iso("23:59:58").as_deref(), Ok("23:59:58"));
        assert_eq!(
            iso("2024-01-01T10:00:00.5Z").as_deref(),
            Ok("2024-01-01T10:00:00.500000")
        );
        assert_eq!(iso("PT1H30M").as_deref(), Ok("1:30:00"));
        assert!(iso("2024-13-01").is_err());
        assert!(iso("garbage").is_err());
    }
}
