//! HTML notes as the reference reads them: `html.unescape` (HTML5 named
//! references, longest-prefix matches without `;`, the numeric reference
//! fix-ups), then CPython 3.12's `HTMLParser` (charrefs converted, fed once
//! and never closed, so text it holds back is lost) collecting `handle_data`
//! pieces, each cleaned; the pieces joined by spaces.

use super::entities::HTML5;
use super::{clean_text, Failure};

/// Digits `int()` converts before Python's integer string limit refuses.
const INT_MAX_STR_DIGITS: usize = 4300;

/// `_invalid_charrefs`: the numeric references HTML5 maps to other characters.
fn invalid_charref(n: u32) -> Option<char> {
    const CP1252: [u32; 32] = [
        0x20ac, 0x81, 0x201a, 0x0192, 0x201e, 0x2026, 0x2020, 0x2021, 0x02c6, 0x2030, 0x0160,
        0x2039, 0x0152, 0x8d, 0x017d, 0x8f, 0x90, 0x2018, 0x2019, 0x201c, 0x201d, 0x2022, 0x2013,
        0x2014, 0x02dc, 0x2122, 0x0161, 0x203a, 0x0153, 0x9d, 0x017e, 0x0178,
    ];
    match n {
        0x00 => Some('\u{fffd}'),
        0x0d => Some('\r'),
        0x80..=0x9f => char::from_u32(CP1252[(n - 0x80) as usize]),
        _ => None,
    }
}

/// `_invalid_codepoints`: numeric references that become nothing.
fn invalid_codepoint(n: u32) -> bool {
    matches!(n, 0x1..=0x8 | 0xb | 0xe..=0x1f | 0x7f..=0x9f | 0xfdd0..=0xfdef)
        || (n & 0xfffe == 0xfffe && n <= 0x10ffff)
}

fn entity(name: &str) -> Option<&'static str> {
    HTML5
        .binary_search_by(|(k, _)| (*k).cmp(name))
        .ok()
        .map(|i| HTML5[i].1)
}

/// A numeric reference's replacement.
fn numeric(digits: &str, radix: u32) -> Result<String, Failure> {
    let digits = digits.trim_start_matches('0');
    if radix == 10 && digits.len() > INT_MAX_STR_DIGITS {
        return Err(Failure::Document(
            "a numeric character reference exceeds Python's integer digit limit".into(),
        ));
    }
    let n = if digits.len() > 8 {
        u32::MAX
    } else if digits.is_empty() {
        0
    } else {
        u32::from_str_radix(digits, radix).unwrap_or(u32::MAX)
    };
    if let Some(c) = invalid_charref(n) {
        return Ok(c.to_string());
    }
    if (0xd800..=0xdfff).contains(&n) || n > 0x10ffff {
        return Ok('\u{fffd}'.to_string());
    }
    if invalid_codepoint(n) {
        return Ok(String::new());
    }
    Ok(char::from_u32(n).map_or_else(String::new, |c| c.to_string()))
}

/// `html.unescape(s)`.
pub(crate) fn unescape(s: &str) -> Result<String, Failure> {
    if !s.contains('&') {
        return Ok(s.to_string());
    }
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(i) = rest.find('&') {
        out.push_str(&rest[..i]);
        let after = &rest[i + 1..];
        let (replacement, used) = reference(after)?;
        match replacement {
            Some(r) => {
                out.push_str(&r);
                rest = &after[used..];
            }
            None => {
                out.push('&');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    Ok(out)
}

/// The reference after an `&` (`_charref`'s match and `_replace_charref`):
/// the replacement and the bytes it consumed, or `None` when nothing matches.
fn reference(after: &str) -> Result<(Option<String>, usize), Failure> {
    if let Some(num) = after.strip_prefix('#') {
        let (hex, body) = match num.strip_prefix(['x', 'X']) {
            Some(h) => (true, h),
            None => (false, num),
        };
        let len = body
            .bytes()
            .take_while(|b| {
                if hex {
                    b.is_ascii_hexdigit()
                } else {
                    b.is_ascii_digit()
                }
            })
            .count();
        if len == 0 {
            return Ok((None, 0));
        }
        let prefix = after.len() - body.len();
        let semi = usize::from(body[len..].starts_with(';'));
        let r = numeric(&body[..len], if hex { 16 } else { 10 })?;
        return Ok((Some(r), prefix + len + semi));
    }
    // `[^\t\n\f <&#;]{1,32};?`
    let mut end = 0;
    for (count, (i, c)) in after.char_indices().enumerate() {
        if count == 32 || matches!(c, '\t' | '\n' | '\u{c}' | ' ' | '<' | '&' | '#' | ';') {
            break;
        }
        end = i + c.len_utf8();
    }
    if end == 0 {
        return Ok((None, 0));
    }
    let semi = usize::from(after[end..].starts_with(';'));
    let s = &after[..end + semi];
    if let Some(r) = entity(s) {
        return Ok((Some(r.to_string()), end + semi));
    }
    // The longest prefix (at least 2 characters) that is a name.
    let bounds: Vec<usize> = s.char_indices().map(|(i, _)| i).skip(2).collect();
    for &x in bounds.iter().rev() {
        if let Some(r) = entity(&s[..x]) {
            return Ok((Some(format!("{r}{}", &s[x..])), end + semi));
        }
    }
    Ok((Some(format!("&{s}")), end + semi))
}

/// Python's `str.lower()` for the ASCII tag names these regexes match.
fn starts_with_ci(s: &str, prefix: &str) -> bool {
    s.len() >= prefix.len() && s.as_bytes()[..prefix.len()].eq_ignore_ascii_case(prefix.as_bytes())
}

/// `[\s]` of Python's `re` for `str` patterns.
fn is_re_space(c: char) -> bool {
    ctxguard_core::pyjson::is_space(c)
}

/// The text `_HTMLTextExtractor` collects from `raw_html`.
pub(crate) fn text(raw_html: &str) -> Result<String, Failure> {
    let data = unescape(raw_html)?;
    let mut parts: Vec<String> = Vec::new();
    let mut push = |piece: &str| -> Result<(), Failure> {
        let cleaned = clean_text(piece);
        if !cleaned.is_empty() {
            parts.push(cleaned);
        }
        Ok(())
    };
    parse(&data, &mut push)?;
    Ok(clean_text(&parts.join(" ")))
}

/// `HTMLParser.goahead(0)` over the whole text with `convert_charrefs=True`.
fn parse(raw: &str, data: &mut dyn FnMut(&str) -> Result<(), Failure>) -> Result<(), Failure> {
    let n = raw.len();
    let mut i = 0usize;
    let mut cdata: Option<String> = None;
    while i < n {
        let j;
        match &cdata {
            None => match raw[i..].find('<') {
                Some(k) => j = i + k,
                None => {
                    // Text that may end in a cut reference is held back (and lost).
                    let from = floor_char(raw, i.max(n.saturating_sub(34)));
                    if let Some(amp) = raw[from..].rfind('&') {
                        let tail = &raw[from + amp..];
                        if !tail.chars().any(|c| is_re_space(c) || c == ';') {
                            break;
                        }
                    }
                    j = n;
                }
            },
            Some(tag) => match find_cdata_end(&raw[i..], tag) {
                Some(k) => j = i + k,
                None => break,
            },
        }
        if i < j {
            if cdata.is_none() {
                data(&unescape(&raw[i..j])?)?;
            } else {
                data(&raw[i..j])?;
            }
        }
        i = j;
        if i == n {
            break;
        }
        let rest = &raw[i..];
        let k: Option<usize> = if rest.len() >= 2 && rest.as_bytes()[1].is_ascii_alphabetic() {
            start_tag(raw, i, &mut cdata, data)?
        } else if rest.starts_with("</") {
            end_tag(raw, i, &mut cdata, data)?
        } else if rest.starts_with("<!--") {
            comment(raw, i)
        } else if rest.starts_with("<?") {
            raw[i + 2..].find('>').map(|p| i + 2 + p + 1)
        } else if rest.starts_with("<!") {
            declaration(raw, i)?
        } else if i + 1 < n {
            data("<")?;
            Some(i + 1)
        } else {
            None
        };
        match k {
            Some(k) => i = k,
            // An incomplete construct: the parser waits for more text (never fed).
            None => break,
        }
    }
    Ok(())
}

fn floor_char(s: &str, mut i: usize) -> usize {
    while i > 0 && !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// `re.compile(r'</\s*%s\s*>' % tag, re.I).search`.
fn find_cdata_end(s: &str, tag: &str) -> Option<usize> {
    let mut from = 0;
    while let Some(p) = s[from..].find("</") {
        let at = from + p;
        let mut r = s[at + 2..].trim_start_matches(is_re_space);
        if starts_with_ci(r, tag) {
            r = r[tag.len()..].trim_start_matches(is_re_space);
            if r.starts_with('>') {
                return Some(at);
            }
        }
        from = at + 2;
    }
    None
}

/// `_markupbase.parse_comment`: to the first `--\s*>`.
fn comment(raw: &str, i: usize) -> Option<usize> {
    let mut from = i + 4;
    while let Some(p) = raw[from..].find("--") {
        let at = from + p + 2;
        let r = raw[at..].trim_start_matches(is_re_space);
        if r.starts_with('>') {
            return Some(raw.len() - r.len() + 1);
        }
        from = from + p + 1;
    }
    None
}

/// `parse_html_declaration` (DOCTYPE, marked sections, bogus comments).
fn declaration(raw: &str, i: usize) -> Result<Option<usize>, Failure> {
    let rest = &raw[i..];
    if let Some(after) = rest.strip_prefix("<![") {
        // `_scan_name`: a name token must follow, else AssertionError.
        let name_len = after
            .char_indices()
            .take_while(|(k, c)| {
                if *k == 0 {
                    c.is_ascii_alphabetic()
                } else {
                    c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.')
                }
            })
            .count();
        if after.is_empty() {
            return Ok(None);
        }
        if name_len == 0 {
            return Err(Failure::Document(
                "expected name token in a marked section".into(),
            ));
        }
        let spaces = after[name_len..]
            .chars()
            .take_while(|c| is_re_space(*c))
            .map(char::len_utf8)
            .sum::<usize>();
        if name_len + spaces == after.len() {
            return Ok(None);
        }
        let name = after[..name_len].to_ascii_lowercase();
        let close = match name.as_str() {
            "temp" | "cdata" | "ignore" | "include" | "rcdata" => "]]>",
            "if" | "else" | "endif" => "]>",
            _ => {
                return Err(Failure::Document(format!(
                    "unknown status keyword '{name}' in marked section"
                )))
            }
        };
        return Ok(raw[i + 3..].find(close).map(|p| i + 3 + p + close.len()));
    }
    if starts_with_ci(rest, "<!doctype") {
        return Ok(raw[i + 9..].find('>').map(|p| i + 9 + p + 1));
    }
    Ok(raw[i + 2..].find('>').map(|p| i + 2 + p + 1))
}

/// `[a-zA-Z][^\t\n\r\f />\x00]*` at the start.
fn tag_name_len(s: &str) -> usize {
    let mut len = 0;
    for (k, c) in s.char_indices() {
        let ok = if k == 0 {
            c.is_ascii_alphabetic()
        } else {
            !matches!(c, '\t' | '\n' | '\r' | '\u{c}' | ' ' | '/' | '>' | '\0')
        };
        if !ok {
            break;
        }
        len = k + c.len_utf8();
    }
    len
}

/// `parse_starttag` with `check_for_whole_start_tag`: the end of the tag,
/// or `None` when it is not complete.
fn start_tag(
    raw: &str,
    i: usize,
    cdata: &mut Option<String>,
    data: &mut dyn FnMut(&str) -> Result<(), Failure>,
) -> Result<Option<usize>, Failure> {
    let name_len = tag_name_len(&raw[i + 1..]);
    let name = raw[i + 1..i + 1 + name_len].to_lowercase();
    let Some(end) = whole_start_tag(raw, i, name_len) else {
        return Ok(None);
    };
    let inner = &raw[i..end];
    let trimmed = inner.trim_end_matches(is_re_space);
    if !(trimmed.ends_with('>')) {
        // Junk that does not end the tag properly is data.
        data(inner)?;
        return Ok(Some(end));
    }
    if !trimmed.ends_with("/>") && (name == "script" || name == "style") {
        *cdata = Some(name);
    }
    Ok(Some(end))
}

/// `locatestarttagend_tolerant` and the checks after it (simplified to the
/// quoting rules that decide where a tag ends).
fn whole_start_tag(raw: &str, i: usize, name_len: usize) -> Option<usize> {
    let b = raw.as_bytes();
    let mut j = i + 1 + name_len;
    let mut quote: Option<u8> = None;
    while j < b.len() {
        let c = b[j];
        match quote {
            Some(q) => {
                if c == q {
                    quote = None;
                }
            }
            None => {
                if c == b'>' {
                    return Some(j + 1);
                }
                if (c == b'"' || c == b'\'') && j > 0 && b[j - 1] == b'=' {
                    quote = Some(c);
                } else if (c == b'"' || c == b'\'') && j > 0 && b[j - 1].is_ascii_whitespace() {
                    // A quote after `= ` also opens a value.
                    let before = raw[..j].trim_end();
                    if before.ends_with('=') {
                        quote = Some(c);
                    }
                }
            }
        }
        j += 1;
    }
    None
}

/// `parse_endtag`.
fn end_tag(
    raw: &str,
    i: usize,
    cdata: &mut Option<String>,
    data: &mut dyn FnMut(&str) -> Result<(), Failure>,
) -> Result<Option<usize>, Failure> {
    let Some(gt) = raw[i + 1..].find('>') else {
        return Ok(None);
    };
    let gtpos = i + 1 + gt + 1;
    // `endtagfind`: `</\s*name\s*>`.
    let inner = raw[i + 2..gtpos - 1].trim_matches(is_re_space);
    let well_formed = !inner.is_empty()
        && inner.chars().enumerate().all(|(k, c)| {
            if k == 0 {
                c.is_ascii_alphabetic()
            } else {
                c.is_ascii_alphanumeric() || matches!(c, '-' | '.' | ':' | '_')
            }
        });
    if !well_formed {
        if cdata.is_some() {
            data(&raw[i..gtpos])?;
            return Ok(Some(gtpos));
        }
        let name_len = tag_name_len(&raw[i + 2..]);
        if name_len == 0 {
            if raw[i..].starts_with("</>") {
                return Ok(Some(i + 3));
            }
            return Ok(raw[i + 2..].find('>').map(|p| i + 2 + p + 1));
        }
        return Ok(raw[i + 2 + name_len..]
            .find('>')
            .map(|p| i + 2 + name_len + p + 1));
    }
    let elem = inner.to_lowercase();
    if let Some(tag) = cdata.as_deref() {
        if elem != tag {
            data(&raw[i..gtpos])?;
            return Ok(Some(gtpos));
        }
    }
    *cdata = None;
    Ok(Some(gtpos))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unescape_follows_html5() {
        assert_eq!(unescape("a &amp; b").ok(), Some("a & b".into()));
        assert_eq!(
            unescape("&ampx &notit; &#65;&#x42;&#0;&#128;").ok(),
            Some("&x ¬it; AB\u{fffd}€".into())
        );
        assert_eq!(
            unescape("&bogus; &#xd800;").ok(),
            Some("&bogus; \u{fffd}".into())
        );
    }

    #[test]
    fn notes_keep_the_text_between_tags() {
        assert_eq!(
            text("<div>Html <b>note</b> &amp; entity</div><p>para</p>").ok(),
            Some("Html note & entity para".into())
        );
        assert_eq!(
            text("<i>fallback html</i>").ok(),
            Some("fallback html".into())
        );
        assert_eq!(
            text("<script>var x</script>after").ok(),
            Some("var x after".into())
        );
        // Text that may end in a cut reference is held back, and never flushed.
        assert_eq!(text("text &amp").ok(), Some("".into()));
        assert_eq!(text("tail <b").ok(), Some("tail".into()));
        for (html, want) in [
            ("a < b", "a < b"),
            ("x <!-- c --> y", "x y"),
            ("<p title=\"a>b\">q</p>", "q"),
            ("a &amp;lt;b&amp;gt; c", "a <b> c"),
            ("<br/>x<br />y", "x y"),
            ("<![CDATA[zz]]>w", "w"),
            ("&lt;b&gt;bold&lt;/b&gt;", "bold"),
            ("</ b>x", "x"),
            ("<a href=x>y</a>", "y"),
            ("<p>&nbsp;x&#160;</p>", "x"),
        ] {
            assert_eq!(text(html).ok().as_deref(), Some(want), "{html}");
        }
        assert!(matches!(text("<![bogus x]]>"), Err(Failure::Document(_))));
    }
}
