//! The `created_at` times of compaction records: ISO 8601 UTC with
//! microseconds, formatted as the reference writes them and parsed in any of
//! the forms the wire allows.

/// Whether `s` looks like `YYYY-MM-DDTHH:MM:SS[.frac](+00:00|Z)`.
pub fn is_iso8601_utc(s: &str) -> bool {
    let body = s
        .strip_suffix("+00:00")
        .or_else(|| s.strip_suffix('Z'))
        .or_else(|| s.strip_suffix("-00:00"));
    let Some(body) = body else { return false };
    let (main, frac) = body.split_once('.').unwrap_or((body, ""));
    let b = main.as_bytes();
    let digits =
        |r: std::ops::Range<usize>| b.get(r).is_some_and(|x| x.iter().all(u8::is_ascii_digit));
    b.len() == 19
        && digits(0..4)
        && b[4] == b'-'
        && digits(5..7)
        && b[7] == b'-'
        && digits(8..10)
        && b[10] == b'T'
        && digits(11..13)
        && b[13] == b':'
        && digits(14..16)
        && b[16] == b':'
        && digits(17..19)
        && frac.bytes().all(|c| c.is_ascii_digit())
}

/// Formats a Unix time in microseconds as the reference's `created_at` (`…+00:00`).
pub fn format_created_at(unix_micros: i64) -> String {
    let secs = unix_micros.div_euclid(1_000_000);
    let micros = unix_micros.rem_euclid(1_000_000);
    let days = secs.div_euclid(86_400);
    let rem = secs.rem_euclid(86_400);
    let (y, m, d) = civil_from_days(days);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}.{micros:06}+00:00",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

/// Unix microseconds of a `created_at` (`YYYY-MM-DDTHH:MM:SS[.frac](Z|+00:00)`);
/// `None` when it is not one, or names no real date and time. Digits past the
/// sixth of the fraction are dropped.
pub fn parse_created_at(s: &str) -> Option<i64> {
    if !is_iso8601_utc(s) {
        return None;
    }
    let num = |r: std::ops::Range<usize>| s.get(r).and_then(|x| x.parse::<i64>().ok());
    let (y, mo, d) = (num(0..4)?, num(5..7)?, num(8..10)?);
    let (h, mi, sec) = (num(11..13)?, num(14..16)?, num(17..19)?);
    if !(1..=12).contains(&mo) || !(1..=31).contains(&d) || h > 23 || mi > 59 || sec > 60 {
        return None;
    }
    let micros = match s.as_bytes().get(19) {
        Some(b'.') => s[20..]
            .bytes()
            .take_while(u8::is_ascii_digit)
            .chain(std::iter::repeat(b'0'))
            .take(6)
            .fold(0i64, |acc, b| acc * 10 + i64::from(b - b'0')),
        _ => 0,
    };
    let secs = days_from_civil(y, mo, d) * 86_400 + h * 3600 + mi * 60 + sec;
    Some(secs * 1_000_000 + micros)
}

/// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's algorithm).
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// Days since 1970-01-01 to (year, month, day), proleptic Gregorian (H. Hinnant's algorithm).
fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (if m <= 2 { y + 1 } else { y }, m, d)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn created_at_round_trip() {
        assert_eq!(
            format_created_at(1_782_226_534_512_345),
            "2026-06-23T14:55:34.512345+00:00"
        );
        assert!(is_iso8601_utc("2026-06-23T14:55:34.512345+00:00"));
        assert!(is_iso8601_utc("2026-06-23T14:55:34Z"));
        assert!(!is_iso8601_utc("2026-06-23 14:55:34"));
        assert_eq!(
            parse_created_at("2026-06-23T14:55:34.512345+00:00"),
            Some(1_782_226_534_512_345)
        );
        assert_eq!(
            parse_created_at("2026-06-23T14:55:34.5Z"),
            Some(1_782_226_534_500_000)
        );
        assert_eq!(
            parse_created_at("2026-06-23T14:55:34.1234567Z"),
            Some(1_782_226_534_123_456)
        );
        assert_eq!(parse_created_at("2026-13-23T14:55:34Z"), None);
        for micros in [0, 1, 951_782_400_000_000, 4_102_444_799_999_999, -1] {
            assert_eq!(parse_created_at(&format_created_at(micros)), Some(micros));
        }
    }
}
