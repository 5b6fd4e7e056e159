//! Word (.docx) as python-docx 1.2.0 reads it for `_parse_word_smart`: the
//! non-blank `paragraph.text` of every `doc.paragraphs` (the body's direct
//! `w:p` children), then one `a | b` line per row of every `doc.tables`
//! (the body's direct `w:tbl` children).
//!
//! `Paragraph.text` joins the text of the paragraph's direct `w:r` and
//! `w:hyperlink` children (a hyperlink's direct runs); a run's text joins
//! its direct `w:t` (lxml's `.text`), `w:tab` and `w:ptab` (`\t`), `w:br`
//! (`\n` for a text-wrapping break, nothing for page and column breaks),
//! `w:cr` (`\n`) and `w:noBreakHyphen` (`-`). Everything else is not read:
//! content controls, tracked insertions, fields (`w:fldSimple`), smart
//! tags, text boxes, symbols, soft hyphens, headers, footers, notes.

mod package;
mod table;

use crate::error::{DocumentError, Subject};
use crate::limits::Limits;
use crate::ooxml::walk::{skip, text_of};
use crate::ooxml::xml::{Event, Reader, Source, XmlError};
use ctxguard_core::pyjson::strip;

/// The WordprocessingML namespace.
const W: &str = "http://schemas.openxmlformats.org/wordprocessingml/2006/main";

/// Why the document body cannot be read.
#[derive(Debug, thiserror::Error)]
enum BodyError {
    #[error("word/document.xml: {0}")]
    Xml(#[from] XmlError),
    #[error("{0}")]
    Shape(String),
}

/// The paragraph texts the reference keeps (non-blank body paragraphs, then one `a | b` line per table row).
pub(crate) fn paragraphs(
    source: &dyn crate::source::Source,
    limits: &Limits,
) -> Result<Vec<String>, DocumentError> {
    let fail = |reason: String| DocumentError::failed(Subject::Word, reason);
    let xml = package::main_document(source, limits).map_err(fail)?;
    let mut out = Output::new(limits.max_inflated_bytes);
    read_document(&xml, limits, &mut out).map_err(|e| fail(e.to_string()))?;
    let Output {
        mut paragraphs,
        rows,
        ..
    } = out;
    paragraphs.extend(rows);
    Ok(paragraphs)
}

/// The texts gathered, within a budget of bytes.
pub(crate) struct Output {
    paragraphs: Vec<String>,
    rows: Vec<String>,
    left: u64,
    limit: u64,
}

impl Output {
    fn new(limit: u64) -> Self {
        Output {
            paragraphs: Vec::new(),
            rows: Vec::new(),
            left: limit,
            limit,
        }
    }

    /// Charges `bytes` of text to the budget.
    fn charge(&mut self, bytes: u128) -> Result<(), BodyError> {
        match u64::try_from(bytes).ok().filter(|&b| b <= self.left) {
            Some(b) => {
                self.left -= b;
                Ok(())
            }
            None => Err(BodyError::Shape(format!(
                "too large to preview: its text passes {} bytes",
                self.limit
            ))),
        }
    }
}

fn read_document(xml: &[u8], limits: &Limits, out: &mut Output) -> Result<(), BodyError> {
    let source = Source::new(xml)?;
    let mut reader = source.reader(limits.max_xml_depth)?;
    let root = loop {
        match reader.next()? {
            Event::Start(e) => break e,
            Event::Eof => return Err(BodyError::Shape("no root element".into())),
            _ => {}
        }
    };
    if !root.is(W, "document") {
        return Err(BodyError::Shape(
            "the main part's root is not w:document".into(),
        ));
    }
    let mut body_seen = false;
    loop {
        match reader.next()? {
            Event::Start(e) if e.is(W, "body") && !body_seen => {
                body_seen = true;
                read_body(&mut reader, out)?;
            }
            Event::Start(_) => skip(&mut reader)?,
            Event::End | Event::Eof => break,
            Event::Text(_) | Event::Node => {}
        }
    }
    // The rest of the document must still be well-formed.
    while !matches!(reader.next()?, Event::Eof) {}
    if !body_seen {
        return Err(BodyError::Shape("w:document has no w:body".into()));
    }
    Ok(())
}

fn read_body(reader: &mut Reader<'_>, out: &mut Output) -> Result<(), BodyError> {
    loop {
        match reader.next()? {
            Event::Start(e) if e.is(W, "p") => {
                let text = paragraph_text(reader)?;
                if !strip(&text).is_empty() {
                    out.charge(text.len() as u128)?;
                    out.paragraphs.push(text);
                }
            }
            Event::Start(e) if e.is(W, "tbl") => table::read_table(reader, out)?,
            Event::Start(_) => skip(reader)?,
            Event::End | Event::Eof => return Ok(()),
            Event::Text(_) | Event::Node => {}
        }
    }
}

/// `Paragraph.text` of the `w:p` just started (consumed).
pub(crate) fn paragraph_text(reader: &mut Reader<'_>) -> Result<String, XmlError> {
    let mut text = String::new();
    loop {
        match reader.next()? {
            Event::Start(e) if e.is(W, "r") => run_text(reader, &mut text)?,
            Event::Start(e) if e.is(W, "hyperlink") => loop {
                match reader.next()? {
                    Event::Start(e) if e.is(W, "r") => run_text(reader, &mut text)?,
                    Event::Start(_) => skip(reader)?,
                    Event::End | Event::Eof => break,
                    Event::Text(_) | Event::Node => {}
                }
            },
            Event::Start(_) => skip(reader)?,
            Event::End | Event::Eof => return Ok(text),
            Event::Text(_) | Event::Node => {}
        }
    }
}

/// `Run.text` of the `w:r` just started (consumed), appended to `text`.
fn run_text(reader: &mut Reader<'_>, text: &mut String) -> Result<(), XmlError> {
    loop {
        match reader.next()? {
            Event::Start(e) if e.ns.as_deref() == Some(W) => match e.local {
                "t" => text_of(reader, text)?,
                other => {
                    match other {
                        "tab" | "ptab" => text.push('\t'),
                        "cr" => text.push('\n'),
                        "noBreakHyphen" => text.push('-'),
                        "br" => {
                            if matches!(e.attr(Some(W), "type"), None | Some("textWrapping")) {
                                text.push('\n');
                            }
                        }
                        _ => {}
                    }
                    skip(reader)?;
                }
            },
            Event::Start(_) => skip(reader)?,
            Event::End | Event::Eof => return Ok(()),
            Event::Text(_) | Event::Node => {}
        }
    }
}

#[cfg(test)]
mod tests;
