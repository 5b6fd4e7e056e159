//! XML exactly as python-docx and python-pptx parse their parts: lxml 5.4
//! over libxml2 2.13 with `remove_blank_text=True, resolve_entities=False`.
//!
//! A pull reader (its own state bounded by nesting, not size) that refuses
//! every document libxml2 reports an error for (well-formedness, namespace
//! errors, its limits without `XML_PARSE_HUGE`: 257 levels, 10 MB text nodes
//! and attribute values, 50 000-byte names, entity amplification) and yields
//! the text lxml's `.text` would hold: whitespace-only runs that
//! `remove_blank_text` drops are dropped by the same heuristic, and a
//! reference to a declared entity stays a child node (nothing expands in
//! content, so no entity bomb can grow).
//!
//! Its input is one decoded text held whole: a part is inflated whole (within
//! the inflation budget) before it is read. The small parts keep that shape
//! for good (content types, relationships, `ppt/presentation.xml`, one slide
//! at a time); `word/document.xml` is the one big part still read so, its
//! texts handed on as they are read so that only the XML itself is held.
//!
//! Neither quick-xml nor roxmltree gives these answers: quick-xml accepts
//! many documents libxml2 refuses (`]]>` in text, control characters,
//! undeclared prefixes, bad names), and roxmltree expands entities in
//! content and keeps the blank text lxml drops; checking their output
//! against every rule would be this reader again.

mod chars;
mod content;
mod dtd;
mod uri;

pub(crate) use content::{Element, Event, Reader};
use std::borrow::Cow;
use thiserror::Error;

/// Why a part is not XML as lxml reads it.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("XML error at byte {offset}: {what}")]
pub(crate) struct XmlError {
    /// Where in the decoded text it was found.
    pub offset: usize,
    /// What was wrong.
    pub what: String,
}

impl XmlError {
    fn at(offset: usize, what: &str) -> Self {
        XmlError {
            offset,
            what: what.to_string(),
        }
    }
}

/// The decoded text of one XML part, from which readers are made.
pub(crate) struct Source<'b> {
    text: Cow<'b, str>,
}

impl<'b> Source<'b> {
    /// Decodes `bytes` in the encoding libxml2 detects or is told.
    pub(crate) fn new(bytes: &'b [u8]) -> Result<Self, XmlError> {
        match chars::decode(bytes) {
            Ok(text) => Ok(Source { text }),
            Err(chars::DecodeError::Invalid(enc)) => {
                Err(XmlError::at(0, &format!("bytes that are not valid {enc}")))
            }
            Err(chars::DecodeError::Unsupported(name)) => Err(XmlError::at(
                0,
                &format!("an encoding that cannot be read here: {name}"),
            )),
        }
    }

    /// A reader over the whole document, nesting at most `max_depth` elements.
    pub(crate) fn reader(&self, max_depth: usize) -> Result<Reader<'_>, XmlError> {
        Reader::new(&self.text, max_depth)
    }
}

/// The namespaces the readers resolve names in.
pub(crate) mod ns {
    /// The XML namespace (`xml:space`).
    pub(crate) const XML: &str = "http://www.w3.org/XML/1998/namespace";
    /// The namespace `xmlns` attributes live in.
    pub(crate) const XMLNS: &str = "http://www.w3.org/2000/xmlns/";
}

/// `&#…;` without the `&#` and `;`: the character it stands for, if valid.
fn char_ref(body: &str) -> Option<char> {
    let (digits, radix) = match body.strip_prefix('x') {
        Some(hex) => (hex, 16),
        None => (body, 10),
    };
    if digits.is_empty() || !digits.chars().all(|c| c.is_digit(radix)) {
        return None;
    }
    let value = u32::from_str_radix(digits.get(..digits.len().min(12))?, radix).ok()?;
    char::from_u32(value).filter(|&c| chars::is_char(c))
}

/// Reads a whole document, failing on its first error (a check for parts
/// the reference parses but whose content nothing reads).
pub(crate) fn check(bytes: &[u8], max_depth: usize) -> Result<(), XmlError> {
    let source = Source::new(bytes)?;
    let mut reader = source.reader(max_depth)?;
    while !matches!(reader.next()?, Event::Eof) {}
    Ok(())
}

#[cfg(test)]
mod tests;
