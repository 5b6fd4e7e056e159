//! How much text the next event needs: a streamed part's window is refilled
//! until it holds the markup the parser reads for that event (and the two
//! bytes after a run of text that the blank-text heuristic looks at), so the
//! parser over the window reads exactly what it would over the whole part.

use super::super::chars::is_blank;
use super::{Saved, State};
use memchr::memmem;

/// What the window must hold before the next event is parsed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Lookahead {
    /// This many bytes from the parser's position.
    Bytes(usize),
    /// More than the window holds: the end of the next markup is not in it.
    More,
    /// The rest of the part: the epilog (anything after the root is an
    /// error), or a document that declares entities (libxml2's amplification
    /// limits weigh their expansion against the document's size).
    Everything,
}

impl Saved {
    /// What the window `s` must hold for the next event.
    pub(crate) fn lookahead(&self, s: &str) -> Lookahead {
        if self.pending_end || self.state == State::Done {
            return Lookahead::Bytes(0);
        }
        if !self.dtd.entities.is_empty() || self.state == State::Epilog {
            return Lookahead::Everything;
        }
        let rest = s.as_bytes().get(self.pos..).unwrap_or_default();
        let needed = match self.state {
            State::Start | State::Prolog => prolog(rest),
            _ => content(rest),
        };
        needed.map_or(Lookahead::More, |n| match n {
            Needed::Bytes(n) => Lookahead::Bytes(n),
            Needed::Everything => Lookahead::Everything,
        })
    }
}

/// A known need, as opposed to one not yet found in the window (`None`).
enum Needed {
    Bytes(usize),
    Everything,
}

/// Up to the end of the root's start tag: the parser reads the declaration,
/// comments, processing instructions and the start tag in one step.
fn prolog(rest: &[u8]) -> Option<Needed> {
    let mut i = 0;
    loop {
        while rest.get(i).copied().is_some_and(is_blank) {
            i += 1;
        }
        let at = rest.get(i..)?;
        if at.len() < 9 {
            return None;
        }
        let end = if at.starts_with(b"<?") {
            quoted_until(at, b"?>")?
        } else if at.starts_with(b"<!--") {
            comment(at)?
        } else if at.starts_with(b"<!DOCTYPE") {
            return Some(Needed::Everything);
        } else if at[0] == b'<' && at[1] != b'!' {
            return Some(Needed::Bytes(i + quoted_until(at, b">")?));
        } else {
            // Anything else is an error the parser reports where it stands.
            return Some(Needed::Bytes(i + 9));
        };
        i += end;
    }
}

/// The next event of element content, with a run of blanks that the parser
/// may drop taken together with the markup after it.
fn content(rest: &[u8]) -> Option<Needed> {
    let &first = rest.first()?;
    let n = match first {
        b'<' => markup(rest)?,
        b'&' => reference(rest)?,
        _ => {
            let end = memchr::memchr2(b'<', b'&', rest)?;
            // `areBlanks` looks at the byte that ends the run and the one after.
            let mut n = end + 2;
            if rest[..end].iter().all(|&b| is_blank(b)) {
                let after = &rest[end..];
                let next = if after[0] == b'<' {
                    markup(after)?
                } else {
                    reference(after)?
                };
                n = n.max(end + next);
            }
            n
        }
    };
    Some(Needed::Bytes(n))
}

/// Markup in content: a tag, comment, CDATA section or processing instruction.
fn markup(at: &[u8]) -> Option<usize> {
    if at.len() < 9 {
        return None;
    }
    if at.starts_with(b"</") {
        memchr::memchr(b'>', at).map(|i| i + 1)
    } else if at.starts_with(b"<!--") {
        comment(at)
    } else if at.starts_with(b"<![CDATA[") {
        memmem::find(&at[9..], b"]]>").map(|i| 9 + i + 3)
    } else if at.starts_with(b"<?") {
        memmem::find(&at[2..], b"?>").map(|i| 2 + i + 2)
    } else if at.starts_with(b"<!") {
        // Refused where it stands.
        Some(9)
    } else {
        quoted_until(at, b">")
    }
}

/// `<!--…--`, and the byte after it, which must be `>`.
fn comment(at: &[u8]) -> Option<usize> {
    memmem::find(&at[4..], b"--").map(|i| 4 + i + 3)
}

/// `&…;`: a name never holds `;` or `<`, where the parser stops at the latest.
fn reference(at: &[u8]) -> Option<usize> {
    memchr::memchr2(b';', b'<', &at[1..]).map(|i| 1 + i + 1)
}

/// The end of `close` outside quoted values: a start tag's `>` (an attribute
/// value may hold `>`), the declaration's `?>` (its values are quoted).
/// Quotes where the parser expects none only make the answer longer.
fn quoted_until(at: &[u8], close: &[u8]) -> Option<usize> {
    if close == b">" {
        return tag_end(at);
    }
    let mut quote: Option<u8> = None;
    let mut i = 1;
    while i < at.len() {
        let b = at[i];
        match quote {
            Some(q) if b == q => quote = None,
            Some(_) => {}
            None if b == b'"' || b == b'\'' => quote = Some(b),
            None if at[i..].starts_with(close) => return Some(i + close.len()),
            None => {}
        }
        i += 1;
    }
    None
}

/// [`quoted_until`] for `>`, a search at a time.
fn tag_end(at: &[u8]) -> Option<usize> {
    let mut i = 1;
    loop {
        i += memchr::memchr3(b'>', b'"', b'\'', at.get(i..)?)?;
        let b = at[i];
        if b == b'>' {
            return Some(i + 1);
        }
        i += 1 + memchr::memchr(b, at.get(i + 1..)?)? + 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_start_tag_ends_at_a_closing_bracket_outside_quotes() {
        assert_eq!(quoted_until(b"<a b='>' c=\">'\">x", b">"), Some(16));
        assert_eq!(quoted_until(b"<a b='>", b">"), None);
    }

    #[test]
    fn blank_text_is_taken_with_the_markup_after_it() {
        let Some(Needed::Bytes(n)) = content(b"  \n <b attr='1'/> more") else {
            panic!("the tag is in the window");
        };
        assert_eq!(n, 17);
        assert!(content(b"  \n <b attr=").is_none());
        let Some(Needed::Bytes(n)) = content(b"text<b/>") else {
            panic!("a run of text ends at its '<'");
        };
        assert_eq!(n, 6);
    }
}
