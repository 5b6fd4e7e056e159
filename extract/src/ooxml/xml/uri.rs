//! RFC 3986 URI references as libxml2's `xmlParseURI` accepts them: a
//! namespace name it cannot parse is a namespace error.

fn unreserved(b: u8) -> bool {
    b.is_ascii_alphanumeric()
        || matches!(
            b,
            b'-' | b'.' | b'_' | b'~' | b'!' | b'*' | b'\'' | b'(' | b')'
        )
}

fn sub_delim(b: u8) -> bool {
    matches!(
        b,
        b'!' | b'$' | b'&' | b'\'' | b'(' | b')' | b'*' | b'+' | b',' | b';' | b'='
    )
}

/// Length of a `pct-encoded` triple at the start of `s`, if there is one.
fn pct(s: &[u8]) -> Option<usize> {
    match s {
        [b'%', a, b, ..] if a.is_ascii_hexdigit() && b.is_ascii_hexdigit() => Some(3),
        _ => None,
    }
}

/// Advances over characters accepted by `extra` besides `pchar` ones.
fn run(s: &[u8], mut i: usize, colon: bool, extra: &[u8]) -> usize {
    while i < s.len() {
        let b = s[i];
        if unreserved(b) || sub_delim(b) || b == b'@' || (colon && b == b':') || extra.contains(&b)
        {
            i += 1;
        } else if let Some(n) = pct(&s[i..]) {
            i += n;
        } else {
            break;
        }
    }
    i
}

/// `[ "?" query ] [ "#" fragment ]` and the end.
fn tail(s: &[u8], mut i: usize) -> bool {
    if s.get(i) == Some(&b'?') {
        i = run(s, i + 1, true, b"/?");
    }
    if s.get(i) == Some(&b'#') {
        i = run(s, i + 1, true, b"/?[]");
    }
    i == s.len()
}

/// `*( "/" segment )`.
fn abempty(s: &[u8], mut i: usize) -> usize {
    while s.get(i) == Some(&b'/') {
        i = run(s, i + 1, true, b"");
    }
    i
}

/// `"//" authority` starting at `i` (after the slashes).
fn authority(s: &[u8], mut i: usize) -> Option<usize> {
    // userinfo "@"
    let user_end = run(s, i, true, b"");
    let at_end = {
        let mut j = i;
        while j < s.len()
            && (unreserved(s[j]) || sub_delim(s[j]) || s[j] == b':' || pct(&s[j..]).is_some())
        {
            j += pct(&s[j..]).unwrap_or(1);
        }
        j
    };
    if s.get(at_end) == Some(&b'@') && at_end <= user_end {
        i = at_end + 1;
    }
    if s.get(i) == Some(&b'[') {
        let close = s[i..].iter().position(|&b| b == b']')?;
        i += close + 1;
    } else {
        while i < s.len() && (unreserved(s[i]) || sub_delim(s[i]) || pct(&s[i..]).is_some()) {
            i += pct(&s[i..]).unwrap_or(1);
        }
    }
    if s.get(i) == Some(&b':') {
        i += 1;
        while s.get(i).is_some_and(u8::is_ascii_digit) {
            i += 1;
        }
    }
    Some(i)
}

/// `hier-part` or `relative-part` from `i`; `first_colon`: whether the first
/// segment of a rootless path may hold a colon.
fn part(s: &[u8], i: usize, first_colon: bool) -> Option<usize> {
    if s[i..].starts_with(b"//") {
        return authority(s, i + 2).map(|j| abempty(s, j));
    }
    if s.get(i) == Some(&b'/') {
        return Some(abempty(s, i));
    }
    let j = run(s, i, first_colon, b"");
    if j == i {
        return Some(i);
    }
    Some(abempty(s, j))
}

/// Whether libxml2 parses `uri` as a URI reference.
pub(super) fn is_uri_reference(uri: &str) -> bool {
    let s = uri.as_bytes();
    // An absolute URI: scheme ":" hier-part.
    if s.first().is_some_and(u8::is_ascii_alphabetic) {
        let mut i = 1;
        while s
            .get(i)
            .is_some_and(|&b| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'-' | b'.'))
        {
            i += 1;
        }
        if s.get(i) == Some(&b':') {
            if let Some(j) = part(s, i + 1, true) {
                if tail(s, j) {
                    return true;
                }
            }
        }
    }
    part(s, 0, false).is_some_and(|j| tail(s, j))
}

#[cfg(test)]
mod tests {
    use super::is_uri_reference;

    #[test]
    fn uris_as_libxml2_parses_them() {
        for good in [
            "%41",
            "http://[::1]/",
            "http://a:b@c:80/p?q#f[x]",
            "#f[]",
            "a:b",
            "//a/b",
            "/a",
            "a/b:c",
            "a@b",
            "~",
            "http://a%20b/",
            "foo",
        ] {
            assert!(is_uri_reference(good), "{good}");
        }
        for bad in [
            "http://a b",
            "a|b",
            "%4",
            "[x]",
            "?q[",
            "1a:b",
            "http://a/%zz",
            " ",
            "éu",
        ] {
            assert!(!is_uri_reference(bad), "{bad}");
        }
    }
}
