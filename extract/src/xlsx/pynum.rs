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
    digits: String,
}

impl PyInt {
    /// The int of a machine integer.
    pub(crate) fn from_i64(v: i64) -> Self {
        PyInt {
            negative: v < 0,
            digits: v.unsigned_abs().to_string(),
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
                digits: digits.to_string(),
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
        Some(PyInt { negative, digits })
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
        PyInt { negative, digits }
    }

    /// The value as an `i64`, if it fits.
    pub(crate) fn to_i64(&self) -> Option<i64> {
        let magnitude: i128 = self.digits.parse().ok()?;
        i64::try_from(if self.negative { -magnitude } else { magnitude }).ok()
    }

    /// `self + 1`.
    pub(crate) fn incremented(&self) -> Self {
        if self.negative {
            let mut m = PyInt {
                negative: false,
                digits: self.digits.clone(),
            }
            .magnitude_decremented();
            m.negative = m.digits != "0";
            m
        } else {
            let mut bytes = self.digits.clone().into_bytes();
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
                digits: String::from_utf8(bytes).unwrap_or_default(),
            }
        }
    }

    /// |self| - 1 for a positive magnitude.
    fn magnitude_decremented(&self) -> Self {
        let mut bytes = self.digits.clone().into_bytes();
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
            digits: if trimmed.is_empty() {
                "0".into()
            } else {
                trimmed.into()
            },
        }
    }

    /// Whether the value is zero.
    pub(crate) fn is_zero(&self) -> bool {
        self.digits == "0"
    }
}

impl std::fmt::Display for PyInt {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.negative {
            f.write_str("-")?;
        }
        f.write_str(&self.digits)
    }
}

impl Ord for PyInt {
    fn cmp(&self, other: &Self) -> Ordering {
        let magnitude = |a: &PyInt, b: &PyInt| {
            a.digits
                .len()
                .cmp(&b.digits.len())
                .then_with(|| a.digits.cmp(&b.digits))
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
    fn rounding_is_bankers() {
        assert_eq!(round_half_even(2.5), Some(2.0));
        assert_eq!(round_half_even(3.5), Some(4.0));
        assert_eq!(round_half_even(-2.5), Some(-2.0));
        assert_eq!(round_half_even(f64::NAN), None);
    }
}
