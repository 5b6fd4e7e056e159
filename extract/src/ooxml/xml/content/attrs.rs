//! Attribute values: quoted, normalised, references expanded (entities
//! included, as libxml2 expands them in attributes even without `NOENT`).

use super::super::chars::MAX_TEXT_BYTES;
use super::super::chars::{is_name_char, is_name_start};
use super::super::dtd::{ALLOWED_EXPANSION, MAX_AMPLIFICATION};
use super::super::{char_ref, XmlError};
use super::Parser;
use std::borrow::Cow;

impl<'a> Parser<'a, '_> {
    /// A quoted attribute value, normalised as libxml2 does (entities expanded).
    pub(super) fn att_value(&mut self) -> Result<Cow<'a, str>, XmlError> {
        let quote = match self.peek() {
            Some(q @ (b'"' | b'\'')) => q,
            _ => return Err(self.err("a quoted attribute value expected")),
        };
        let body = &self.rest()[1..];
        let end = memchr::memchr(quote, body.as_bytes())
            .ok_or_else(|| self.err("an unclosed attribute value"))?;
        let raw = &body[..end];
        if raw.contains('<') {
            return Err(self.err("an unescaped '<' in an attribute value"));
        }
        self.check_chars(raw)?;
        let value = if raw
            .bytes()
            .any(|b| matches!(b, b'&' | b'\t' | b'\n' | b'\r'))
        {
            let mut out = String::with_capacity(raw.len());
            let mut stack = Vec::new();
            self.expand_attr(raw, &mut out, &mut stack, true)?;
            Cow::Owned(out)
        } else {
            Cow::Borrowed(raw)
        };
        if value.len() > MAX_TEXT_BYTES {
            return Err(self.err("an attribute value too long"));
        }
        self.st.pos += end + 2;
        Ok(value)
    }

    fn expand_attr(
        &self,
        raw: &str,
        out: &mut String,
        stack: &mut Vec<String>,
        literal: bool,
    ) -> Result<(), XmlError> {
        let mut rest = raw;
        loop {
            let found = if literal {
                rest.find(['&', '\t', '\n', '\r'])
            } else {
                rest.find('&')
            };
            let Some(i) = found else {
                out.push_str(rest);
                return Ok(());
            };
            out.push_str(&rest[..i]);
            let b = rest.as_bytes()[i];
            if b != b'&' {
                out.push(' ');
                let skip = if b == b'\r' && rest.as_bytes().get(i + 1) == Some(&b'\n') {
                    2
                } else {
                    1
                };
                rest = &rest[i + skip..];
                continue;
            }
            let after = &rest[i + 1..];
            let end = after
                .find(';')
                .ok_or_else(|| self.err("a reference without ';' in an attribute value"))?;
            let body = &after[..end];
            rest = &after[end + 1..];
            if let Some(num) = body.strip_prefix('#') {
                out.push(char_ref(num).ok_or_else(|| self.err("a bad character reference"))?);
                continue;
            }
            if let Some(c) = predefined(body) {
                out.push(c);
                continue;
            }
            valid_name(body).ok_or_else(|| self.err("a bad entity reference"))?;
            match self.st.dtd.entities.get(body) {
                Some(entity) => {
                    let value = entity
                        .value
                        .as_deref()
                        .ok_or_else(|| self.err("an attribute references an external entity"))?;
                    if value.contains('<') {
                        return Err(self.err("'<' in an entity referenced from an attribute value"));
                    }
                    if stack.iter().any(|n| n == body) {
                        return Err(self.err("an entity reference loop"));
                    }
                    if out.len() as u64
                        > ALLOWED_EXPANSION.max((self.s.len() as u64) * MAX_AMPLIFICATION)
                    {
                        return Err(self.err("maximum entity amplification factor exceeded"));
                    }
                    stack.push(body.to_string());
                    self.expand_attr(value, out, stack, false)?;
                    stack.pop();
                }
                None if self.st.dtd.lenient => {}
                None => return Err(self.err("an undeclared entity in an attribute value")),
            }
        }
    }
}

/// `&lt;` and its kin.
pub(super) fn predefined(name: &str) -> Option<char> {
    match name {
        "lt" => Some('<'),
        "gt" => Some('>'),
        "amp" => Some('&'),
        "apos" => Some('\''),
        "quot" => Some('"'),
        _ => None,
    }
}

pub(super) fn valid_name(s: &str) -> Option<()> {
    let mut cs = s.chars();
    let first = cs.next()?;
    (is_name_start(first) || first == ':').then_some(())?;
    cs.all(|c| is_name_char(c) || c == ':').then_some(())
}
