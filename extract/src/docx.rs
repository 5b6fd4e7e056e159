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
//!
//! Each text goes to the truncation strategy as it is read
//! ([`units_streamed`]: paragraphs and rows are two segments, shown in that
//! order), so no list of every text is built and only what the output can
//! show is kept. `word/document.xml` itself is still inflated whole, within
//! the inflation budget: the XML reader reads one decoded text.

mod package;
mod table;

use crate::error::{DocumentError, Subject};
use crate::limits::Limits;
use crate::ooxml::walk::{skip, text_of};
use crate::ooxml::xml::{Event, Reader, Source, XmlError};
use crate::truncate::{units_streamed, Truncated, Unit, UnitSink};
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

/// The output's segments: every body paragraph, then every table row.
const PARAGRAPHS: usize = 0;
const ROWS: usize = 1;

/// The document's text truncated at `max_length`: the reference's paragraph
/// texts (non-blank body paragraphs, then one `a | b` line per table row),
/// handed to the strategy as they are read.
pub(crate) fn text(
    source: &dyn crate::source::Source,
    limits: &Limits,
    max_length: i64,
) -> Result<Truncated, DocumentError> {
    let fail = |reason: String| DocumentError::failed(Subject::Word, reason);
    let xml = package::main_document(source, limits).map_err(fail)?;
    let mut read = |sink: &mut dyn UnitSink| {
        let mut out = Output::new(limits.max_inflated_bytes, sink);
        read_document(&xml, limits, &mut out).map_err(|e| fail(e.to_string()))
    };
    units_streamed(Unit::Paragraph, max_length, 2, &mut read, |e| {
        DocumentError::failed(Subject::Word, e)
    })
}

/// Where the texts go, within a budget of bytes.
pub(crate) struct Output<'s> {
    sink: &'s mut dyn UnitSink,
    left: u64,
    limit: u64,
}

impl<'s> Output<'s> {
    fn new(limit: u64, sink: &'s mut dyn UnitSink) -> Self {
        Output {
            sink,
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

fn read_document(xml: &[u8], limits: &Limits, out: &mut Output<'_>) -> Result<(), BodyError> {
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

fn read_body(reader: &mut Reader<'_>, out: &mut Output<'_>) -> Result<(), BodyError> {
    loop {
        match reader.next()? {
            Event::Start(e) if e.is(W, "p") => {
                let text = paragraph_text(reader)?;
                if !strip(&text).is_empty() {
                    out.charge(text.len() as u128)?;
                    out.sink.unit(PARAGRAPHS, &text);
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
