//! Python's numbers as the reference meets them: `int(text)` of any size
//! (Unicode digits, `_` separators, surrounding whitespace, the 4 300-digit
//! limit), `float(text)`, `float.is_integer()` then `int(f)` exactly, and
//! `repr(float)`.

use ctxguard_core::pyjson::{digit_value, is_space};
use std::cmp::Ordering;

/// CPython's `sys.get_int_max_str_digits()` default: longer decimal strings raise.
const MAX_STR_DIGITS: usize = 4300;

/// A Python `int`: sign and canonical decimal digits (no leading zeros; zero is "0", never negative).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) struct PyInt {
    negative: bool,
    digits: Digits,
}

/// Most digits held inline (every `i64` fits).
const INLINE_DIGITS: usize = 22;

/// Decimal digits, inline when short (no allocation for the numbers cells
/// and rows hold, a sheet's millions of them), else on the heap. Canonical:
/// inline exactly when short, unused bytes zero, so derived equality holds.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum Digits {
    Inline { len: u8, bytes: [u8; INLINE_DIGITS] },
    Heap(String),
}

impl Digits {
    fn new(digits: &str) -> Self {
        if digits.len() <= INLINE_DIGITS {
            let mut bytes = [0; INLINE_DIGITS];
            bytes[..digits.len()].copy_from_slice(digits.as_bytes());
            Digits::Inline {
                len: digits.len() as u8,
                bytes,
            }
        } else {
            Digits::Heap(digits.to_string())
        }
    }

    fn from_string(digits: String) -> Self {
        if digits.len() <= INLINE_DIGITS {
            Digits::new(&digits)
        } else {
            Digits::Heap(digits)
        }
    }

    /// The digits of `v`.
    fn of_u64(mut v: u64) -> Self {
        let mut bytes = [0; INLINE_DIGITS];
        let mut at = INLINE_DIGITS;
        loop {
            at -= 1;
            bytes[at] = b'0' + (v % 10) as u8;
            v /= 10;
            if v == 0 {
                break;
            }
        }
        bytes.copy_within(at.., 0);
        let len = INLINE_DIGITS - at;
        bytes[len..].fill(0);
        Digits::Inline {
            len: len as u8,
            bytes,
        }
    }

    fn as_str(&self) -> &str {
        match self {
            Digits::Inline { len, bytes } => bytes
                .get(..usize::from(*len))
                .and_then(|b| std::str::from_utf8(b).ok())
                .unwrap_or("0"),
            Digits::Heap(s) => s,
        }
    }
}

impl PyInt {
    /// The int of a machine integer.
    pub(crate) fn from_i64(v: i64) -> Self {
        PyInt {
            negative: v < 0,
            digits: Digits::of_u64(v.unsigned_abs()),
        }
    }

    /// `int(text)`; `None` where Python raises `ValueError`.
    pub(crate) fn parse(text: &str) -> Option<Self> {
        // Plain ASCII digits (nearly every cell): no Unicode or separator rules apply.
        let plain = text.strip_prefix('-').unwrap_or(text);
        if !plain.is_empty() && plain.len() <= 18 && plain.bytes().all(|b| b.is_ascii_digit()) {
            let trimmed = plain.trim_start_matches('0');
            let digits = if trimmed.is_empty() { "0" } else { trimmed };
            return Some(PyInt {
                negative: plain.len() < text.len() && digits != "0",
                digits: Digits::new(digits),
            });
        }
        let t = text.trim_matches(is_space);
        let (negative, body) = match t.as_bytes().first() {
            Some(b'-') => (true, &t[1..]),
            Some(b'+') => (false, &t[1..]),
            _ => (false, t),
        };
        let mut digits = String::with_capacity(body.len());
        let mut after_digit = false;
        let mut count = 0usize;
        for c in body.chars() {
            if c == '_' {
                if !after_digit {
                    return None;
                }
                after_digit = false;
                continue;
            }
            let d = digit_value(c)?;
            count += 1;
            after_digit = true;
            if !(digits.is_empty() && d == 0) {
                digits.push(char::from(b'0' + d));
            }
        }
        if !after_digit || count > MAX_STR_DIGITS {
            return None;
        }
        if digits.is_empty() {
            digits.push('0');
        }
        let negative = negative && digits != "0";
        Some(PyInt {
            negative,
            digits: Digits::from_string(digits),
        })
    }

    /// `int(f)` of an integral finite float, exactly.
    pub(crate) fn from_integral_float(f: f64) -> Self {
        let negative = f < 0.0;
        let bits = f.abs().to_bits();
        let exponent = ((bits >> 52) & 0x7ff) as i32;
        let mut mantissa = bits & ((1u64 << 52) - 1);
        if exponent != 0 {
            mantissa |= 1u64 << 52;
        }
        // value = mantissa * 2^(exponent - 1075); integral, so shift right while negative.
        let mut shift = exponent - 1075;
        if exponent == 0 {
            shift = -1074;
        }
        let digits = if shift <= 0 {
            let s = (-shift) as u32;
            let v = if s >= 64 { 0 } else { mantissa >> s };
            v.to_string()
        } else {
            // Decimal big number: little-endian base 10^9 limbs, doubled `shift` times.
            let mut limbs: Vec<u64> = vec![
                mantissa % 1_000_000_000,
                mantissa / 1_000_000_000 % 1_000_000_000,
                mantissa / 1_000_000_000_000_000_000,
            ];
            for _ in 0..shift {
                let mut carry = 0u64;
                for limb in limbs.iter_mut() {
                    let v = *limb * 2 + carry;
                    *limb = v % 1_000_000_000;
                    carry = v / 1_000_000_000;
                }
                if carry > 0 {
                    limbs.push(carry);
                }
            }
            while limbs.len() > 1 && limbs.last() == Some(&0) {
                limbs.pop();
            }
            let mut s = String::new();
            for (i, limb) in limbs.iter().rev().enumerate() {
                if i == 0 {
                    s.push_str(&limb.to_string());
                } else {
                    s.push_str(&format!("{limb:09}"));
                }
            }
            s
        };
        let negative = negative && digits != "0";
        PyInt {
            negative,
            digits: Digits::from_string(digits),
        }
    }

    /// The value as an `i64`, if it fits.
    pub(crate) fn to_i64(&self) -> Option<i64> {
        let magnitude: i128 = self.digits.as_str().parse().ok()?;
        i64::try_from(if self.negative { -magnitude } else { magnitude }).ok()
    }

    /// `self + 1`.
    pub(crate) fn incremented(&self) -> Self {
        if let Some(next) = self.to_i64().and_then(|v| v.checked_add(1)) {
            return PyInt::from_i64(next);
        }
        if self.negative {
            let mut m = PyInt {
                negative: false,
                digits: self.digits.clone(),
            }
            .magnitude_decremented();
            m.negative = m.digits.as_str() != "0";
            m
        } else {
            let mut bytes = self.digits.as_str().as_bytes().to_vec();
            let mut i = bytes.len();
            loop {
                if i == 0 {
                    bytes.insert(0, b'1');
                    break;
                }
                i -= 1;
                if bytes[i] == b'9' {
                    bytes[i] = b'0';
                } else {
                    bytes[i] += 1;
                    break;
                }
            }
            PyInt {
                negative: false,
                digits: Digits::from_string(String::from_utf8(bytes).unwrap_or_default()),
            }
        }
    }

    /// |self| - 1 for a positive magnitude.
    fn magnitude_decremented(&self) -> Self {
        let mut bytes = self.digits.as_str().as_bytes().to_vec();
        let mut i = bytes.len();
        while i > 0 {
            i -= 1;
            if bytes[i] == b'0' {
                bytes[i] = b'9';
            } else {
                bytes[i] -= 1;
                break;
            }
        }
        let s = String::from_utf8(bytes).unwrap_or_default();
        let trimmed = s.trim_start_matches('0');
        PyInt {
            negative: false,
            digits: Digits::new(if trimmed.is_empty() { "0" } else { trimmed }),
        }
    }

    /// Whether the value is zero.
    pub(crate) fn is_zero(&self) -> bool {
        self.digits.as_str() == "0"
    }
}

impl std::fmt::Display for PyInt {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.negative {
            f.write_str("-")?;
        }
        f.write_str(self.digits.as_str())
    }
}

impl Ord for PyInt {
    fn cmp(&self, other: &Self) -> Ordering {
        let magnitude = |a: &PyInt, b: &PyInt| {
            let (a, b) = (a.digits.as_str(), b.digits.as_str());
            a.len().cmp(&b.len()).then_with(|| a.cmp(b))
        };
        match (self.negative, other.negative) {
            (false, true) => Ordering::Greater,
            (true, false) => Ordering::Less,
            (false, false) => magnitude(self, other),
            (true, true) => magnitude(other, self),
        }
    }
}

impl PartialOrd for PyInt {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// `float(text)`; `None` where Python raises.
pub(crate) fn parse_float(text: &str) -> Option<f64> {
    ctxguard_core::pyjson::float_from_str(text)
}

/// `repr(f)` of a finite float.
pub(crate) fn float_repr(f: f64) -> String {
    ctxguard_core::pyjson::float_repr(f)
}

/// `round(x)` of a float to the nearest integer, halves to even (`None` for NaN or infinities).
pub(crate) fn round_half_even(x: f64) -> Option<f64> {
    if !x.is_finite() {
        return None;
    }
    let r = x.round();
    if (r - x).abs() == 0.5 && r % 2.0 != 0.0 {
        Some(r - x.signum())
    } else {
        Some(r)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ints_parse_as_python_does() {
        let p = |s: &str| PyInt::parse(s).map(|i| i.to_string());
        assert_eq!(p(" 007 ").as_deref(), Some("7"));
        assert_eq!(p("-0").as_deref(), Some("0"));
        assert_eq!(p("1_000").as_deref(), Some("1000"));
        assert_eq!(p("+١٢").as_deref(), Some("12"));
        assert_eq!(p("1__0"), None);
        assert_eq!(p("_1"), None);
        assert_eq!(p("1.0"), None);
        assert_eq!(p(""), None);
        assert_eq!(p(&"9".repeat(4301)), None);
        assert!(p(&"9".repeat(4300)).is_some());
    }

    #[test]
    fn integral_floats_convert_exactly() {
        assert_eq!(
            PyInt::from_integral_float(1e20).to_string(),
            "100000000000000000000"
        );
        assert_eq!(
            PyInt::from_integral_float(1e100).to_string(),
            "10000000000000000159028911097599180468360808563945281389781327557747838772170381060813469985856815104"
        );
        assert_eq!(PyInt::from_integral_float(-3.0).to_string(), "-3");
        assert_eq!(PyInt::from_integral_float(-0.0).to_string(), "0");
        assert_eq!(
            PyInt::from_integral_float(9007199254740992.0).to_string(),
            "9007199254740992"
        );
    }

    #[test]
    fn ordering_and_increment() {
        let i = |v: i64| PyInt::from_i64(v);
        assert!(i(-5) < i(-4) && i(-1) < i(0) && i(9) < i(10));
        assert_eq!(i(-1).incremented(), i(0));
        assert_eq!(i(-10).incremented(), i(-9));
        assert_eq!(i(99).incremented(), i(100));
    }

    #[test]
    fn ints_equal_whichever_way_they_were_made_short_or_long() {
        let parsed = |t: &str| PyInt::parse(t).expect("an int");
        assert_eq!(parsed("0012"), PyInt::from_i64(12));
        assert_eq!(parsed("-0"), PyInt::from_i64(0));
        assert_eq!(parsed("\u{0661}\u{0662}"), PyInt::from_i64(12));
        assert_eq!(PyInt::from_i64(11).incremented(), parsed("12"));
        assert_eq!(PyInt::from_i64(i64::MIN).to_string(), i64::MIN.to_string());
        let max = PyInt::from_i64(i64::MAX);
        assert_eq!(max.incremented().to_string(), "9223372036854775808");
        let long = "1".repeat(30);
        let big = parsed(&long);
        assert_eq!(big.to_string(), long);
        assert_eq!(parsed(&format!("+{long}")), big);
        assert!(big > max && parsed(&format!("-{long}")) < PyInt::from_i64(i64::MIN));
        let nines = parsed(&"9".repeat(22));
        assert_eq!(
            nines.incremented().to_string(),
            format!("1{}", "0".repeat(22))
        );
        assert_eq!(
            PyInt::from_integral_float(1e25).to_string(),
            "10000000000000000905969664"
        );
    }

    #[test]
    fn rounding_is_bankers() {
        assert_eq!(round_half_even(2.5), Some(2.0));
        assert_eq!(round_half_even(3.5), Some(4.0));
        assert_eq!(round_half_even(-2.5), Some(-2.0));
        assert_eq!(round_half_even(f64::NAN), None);
    }
}
