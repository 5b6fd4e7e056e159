//! Linear-time checks of the text side (decode with chardet, and the
//! sniffer) on hostile inputs built in memory: the loop iterations counted
//! by [`super::steps`] grow in proportion to the input (eight times the
//! input, at most nine times the steps) and stay under a fixed number per byte.

use super::steps;

/// Steps per input byte allowed (some thirty probers each read the input once).
const PER_BYTE: u64 = 120;

fn steps_of(f: impl FnOnce()) -> u64 {
    steps::take();
    f();
    steps::take()
}

/// Runs `f` on `make(n)` and `make(8n)` and checks the counts.
fn linear(name: &str, make: impl Fn(usize) -> Vec<u8>, f: impl Fn(&[u8])) {
    let n = 16 * 1024;
    let (small, large) = (make(n), make(8 * n));
    let a = steps_of(|| f(&small));
    let b = steps_of(|| f(&large));
    assert!(a > 0, "{name}: no steps counted");
    assert!(
        b <= 9 * a + 1000,
        "{name}: {a} steps for {} bytes but {b} for {}",
        small.len(),
        large.len()
    );
    assert!(
        b <= PER_BYTE * large.len() as u64,
        "{name}: {b} steps for {} bytes",
        large.len()
    );
}

/// A deterministic byte stream.
fn noise(n: usize, seed: u64) -> Vec<u8> {
    let mut x = seed;
    (0..n)
        .map(|_| {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (x >> 56) as u8
        })
        .collect()
}

fn repeat(unit: &[u8], n: usize) -> Vec<u8> {
    unit.iter().copied().cycle().take(n).collect()
}

#[test]
fn decoding_is_linear() {
    let decode = |b: &[u8]| {
        let _ = super::decode(b);
    };
    linear("random bytes", |n| noise(n, 1), decode);
    // long ASCII letter runs that a high byte never follows (the word filter's worst case)
    linear(
        "letter runs",
        |n| {
            let mut v = repeat(b"abcdefghij!", n);
            v.push(0xFF);
            v
        },
        decode,
    );
    linear(
        "one letter run",
        |n| {
            let mut v = repeat(b"a", n);
            v.push(b' ');
            v.push(0xE9);
            v
        },
        decode,
    );
    linear(
        "sjis hiragana",
        |n| {
            let mut v = repeat(b"\x82\xa0\x82\xa2 ", n);
            v.push(0xFF);
            v
        },
        decode,
    );
    linear(
        "euc-kr make-up",
        |n| {
            let mut v = repeat(b"\xa4\xd4\xa4\xa8\xa4\xc7\xa4\xb1", n);
            v.push(0xFF);
            v
        },
        decode,
    );
    linear(
        "xml tags",
        |n| {
            let mut v = repeat(b"<a\xe9>", n);
            v.push(0xFF);
            v
        },
        decode,
    );
    linear(
        "utf-16 without bom",
        |n| {
            let mut v = repeat(b"a\x00", n);
            v.push(0xFF);
            v
        },
        decode,
    );
    linear(
        "gb18030 four-byte",
        |n| repeat(b"\x81\x30\x81\x30", n),
        decode,
    );
}

#[test]
fn sniffing_is_linear() {
    let sniff = |b: &[u8]| {
        let _ = crate::sniff::mime_type(b);
    };
    linear("nested arrays", |n| repeat(b"[", n), sniff);
    linear("json objects", |n| repeat(b"{\"a\":", n), sniff);
    linear("ndjson", |n| repeat(b"{\"a\": 1}\n", n), sniff);
    linear("csv quotes", |n| repeat(b"\"", n), sniff);
    linear("csv lines", |n| repeat(b"a,b\n", n), sniff);
    linear("random", |n| noise(n, 2), sniff);
    linear("text", |n| repeat(b"plain words\n", n), sniff);
    linear(
        "nested id3",
        |n| repeat(b"ID3\x03\x00\x00\x00\x00\x00\x00", n),
        sniff,
    );
}

#[test]
fn deep_nesting_does_not_overflow_the_stack() {
    assert_eq!(
        crate::sniff::mime_type(&repeat(b"[", 1 << 20)),
        "text/plain"
    );
    let id3 = repeat(b"ID3\x03\x00\x00\x00\x00\x00\x00", 1 << 20);
    assert_eq!(crate::sniff::mime_type(&id3), "application/octet-stream");
}
