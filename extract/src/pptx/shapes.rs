//! One slide's shapes as `SlideShapeFactory` makes them and the reference
//! reads them: `shape.text` of `p:sp` shapes, the rows of `p:graphicFrame`
//! tables; a `p:contentPart` fails (python-pptx has no element class for it),
//! as do a placeholder type python-pptx does not know, a run without `a:t`,
//! and a graphic frame without `a:graphic/a:graphicData/@uri`.

use super::{A, P};
use crate::limits::Limits;
use crate::ooxml::walk::{skip, text_of};
use crate::ooxml::xml::{Event, Reader, Source, XmlError};
use ctxguard_core::pyjson::strip;

const TABLE_URI: &str = "http://schemas.openxmlformats.org/drawingml/2006/table";

/// The `type` values of `p:ph` that `PP_PLACEHOLDER.from_xml` maps.
const PLACEHOLDER_TYPES: [&str; 16] = [
    "clipArt", "body", "ctrTitle", "chart", "dt", "ftr", "hdr", "media", "obj", "dgm", "pic",
    "sldImg", "sldNum", "subTitle", "tbl", "title",
];

/// Why a slide cannot be read.
#[derive(Debug)]
pub(super) enum ShapeError {
    Xml(XmlError),
    Shape(String),
}

impl From<XmlError> for ShapeError {
    fn from(e: XmlError) -> Self {
        ShapeError::Xml(e)
    }
}

fn shape(what: &str) -> ShapeError {
    ShapeError::Shape(what.to_string())
}

/// Appends the slide's lines (shape texts and table rows) to `lines`.
pub(super) fn slide_lines(
    xml: &[u8],
    limits: &Limits,
    lines: &mut Vec<String>,
) -> Result<(), ShapeError> {
    let source = Source::new(xml)?;
    let mut reader = source.reader(limits.max_xml_depth)?;
    let root = loop {
        match reader.next()? {
            Event::Start(e) => break e,
            Event::Eof => return Err(shape("no root element")),
            _ => {}
        }
    };
    let slide_like = ["sld", "sldLayout", "sldMaster", "notesMaster", "notes"];
    if root.ns.as_deref() != Some(P) || !slide_like.contains(&root.local) {
        return Err(shape("the slide part's root is not a slide"));
    }
    let mut c_sld_seen = false;
    loop {
        match reader.next()? {
            Event::Start(e) if e.is(P, "cSld") && !c_sld_seen => {
                c_sld_seen = true;
                let mut sp_tree_seen = false;
                loop {
                    match reader.next()? {
                        Event::Start(e) if e.is(P, "spTree") && !sp_tree_seen => {
                            sp_tree_seen = true;
                            shape_tree(&mut reader, lines)?;
                        }
                        Event::Start(_) => skip(&mut reader)?,
                        Event::End | Event::Eof => break,
                        Event::Text(_) | Event::Node => {}
                    }
                }
                if !sp_tree_seen {
                    return Err(shape("p:cSld has no p:spTree"));
                }
            }
            Event::Start(_) => skip(&mut reader)?,
            Event::End | Event::Eof => break,
            Event::Text(_) | Event::Node => {}
        }
    }
    while !matches!(reader.next()?, Event::Eof) {}
    if !c_sld_seen {
        return Err(shape("the slide has no p:cSld"));
    }
    Ok(())
}

fn shape_tree(reader: &mut Reader<'_>, lines: &mut Vec<String>) -> Result<(), ShapeError> {
    loop {
        match reader.next()? {
            Event::Start(e) if e.ns.as_deref() == Some(P) => match e.local {
                "sp" => {
                    let text = sp_text(reader)?;
                    if !strip(&text).is_empty() {
                        lines.push(text);
                    }
                }
                "graphicFrame" => graphic_frame(reader, lines)?,
                "contentPart" => return Err(shape("a p:contentPart shape (no python-pptx class)")),
                _ => skip(reader)?,
            },
            Event::Start(_) => skip(reader)?,
            Event::End | Event::Eof => return Ok(()),
            Event::Text(_) | Event::Node => {}
        }
    }
}

/// `shape.text` of the `p:sp` just started, after the placeholder check of its first child.
fn sp_text(reader: &mut Reader<'_>) -> Result<String, ShapeError> {
    let mut first = true;
    let mut tx_body_seen = false;
    let mut text = String::new();
    loop {
        match reader.next()? {
            Event::Start(e) => {
                if first && !e.is(P, "txBody") {
                    first = false;
                    placeholder_check(reader)?;
                } else if e.is(P, "txBody") && !tx_body_seen {
                    first = false;
                    tx_body_seen = true;
                    text = text_body(reader)?;
                } else {
                    skip(reader)?;
                }
            }
            Event::End | Event::Eof => return Ok(text),
            Event::Text(_) | Event::Node => {}
        }
    }
}

/// Inside a shape's first child: `./p:nvPr/p:ph/@type` must be one python-pptx maps.
fn placeholder_check(reader: &mut Reader<'_>) -> Result<(), ShapeError> {
    let mut ph_type: Option<Option<String>> = None;
    loop {
        match reader.next()? {
            Event::Start(e) if e.is(P, "nvPr") => loop {
                match reader.next()? {
                    Event::Start(ph) => {
                        if ph_type.is_none() && ph.is(P, "ph") {
                            ph_type = Some(ph.attr(None, "type").map(str::to_string));
                        }
                        skip(reader)?;
                    }
                    Event::End | Event::Eof => break,
                    Event::Text(_) | Event::Node => {}
                }
            },
            Event::Start(_) => skip(reader)?,
            Event::End | Event::Eof => break,
            Event::Text(_) | Event::Node => {}
        }
    }
    match ph_type {
        Some(Some(t)) if !PLACEHOLDER_TYPES.contains(&t.as_str()) => {
            Err(shape("a placeholder type python-pptx does not know"))
        }
        _ => Ok(()),
    }
}

/// `TextFrame.text` of the text body just started: its `a:p` children joined with `\n`.
fn text_body(reader: &mut Reader<'_>) -> Result<String, ShapeError> {
    let mut paragraphs: Vec<String> = Vec::new();
    loop {
        match reader.next()? {
            Event::Start(e) if e.is(A, "p") => paragraphs.push(paragraph(reader)?),
            Event::Start(_) => skip(reader)?,
            Event::End | Event::Eof => return Ok(paragraphs.join("\n")),
            Event::Text(_) | Event::Node => {}
        }
    }
}

/// `_Paragraph.text`: its `a:r`, `a:br` (`\v`) and `a:fld` children.
fn paragraph(reader: &mut Reader<'_>) -> Result<String, ShapeError> {
    let mut text = String::new();
    loop {
        match reader.next()? {
            Event::Start(e) if e.ns.as_deref() == Some(A) && matches!(e.local, "r" | "fld") => {
                let required = e.local == "r";
                let mut t_seen = false;
                loop {
                    match reader.next()? {
                        Event::Start(t) if t.is(A, "t") && !t_seen => {
                            t_seen = true;
                            text_of(reader, &mut text)?;
                        }
                        Event::Start(_) => skip(reader)?,
                        Event::End | Event::Eof => break,
                        Event::Text(_) | Event::Node => {}
                    }
                }
                if required && !t_seen {
                    return Err(shape("a text run without a:t"));
                }
            }
            Event::Start(e) if e.is(A, "br") => {
                text.push('\u{b}');
                skip(reader)?;
            }
            Event::Start(_) => skip(reader)?,
            Event::End | Event::Eof => return Ok(text),
            Event::Text(_) | Event::Node => {}
        }
    }
}

/// A `p:graphicFrame`: `has_table` reads `a:graphic/a:graphicData/@uri`; a table's rows are added.
fn graphic_frame(reader: &mut Reader<'_>, lines: &mut Vec<String>) -> Result<(), ShapeError> {
    let mut graphic_seen = false;
    let mut uri_found = false;
    loop {
        match reader.next()? {
            Event::Start(e) if e.is(A, "graphic") && !graphic_seen => {
                graphic_seen = true;
                let mut data_seen = false;
                loop {
                    match reader.next()? {
                        Event::Start(d) if d.is(A, "graphicData") && !data_seen => {
                            data_seen = true;
                            let uri = d.attr(None, "uri").map(str::to_string);
                            uri_found = uri.is_some();
                            if uri.as_deref() == Some(TABLE_URI) {
                                graphic_data_table(reader, lines)?;
                            } else {
                                skip(reader)?;
                            }
                        }
                        Event::Start(_) => skip(reader)?,
                        Event::End | Event::Eof => break,
                        Event::Text(_) | Event::Node => {}
                    }
                }
            }
            Event::Start(_) => skip(reader)?,
            Event::End | Event::Eof => break,
            Event::Text(_) | Event::Node => {}
        }
    }
    if !uri_found {
        return Err(shape(
            "a graphic frame without a:graphic/a:graphicData/@uri",
        ));
    }
    Ok(())
}

/// Inside a table's `a:graphicData`: the first `a:tbl`, its rows.
fn graphic_data_table(reader: &mut Reader<'_>, lines: &mut Vec<String>) -> Result<(), ShapeError> {
    let mut tbl_seen = false;
    loop {
        match reader.next()? {
            Event::Start(e) if e.is(A, "tbl") && !tbl_seen => {
                tbl_seen = true;
                loop {
                    match reader.next()? {
                        Event::Start(tr) if tr.is(A, "tr") => lines.extend(table_row(reader)?),
                        Event::Start(_) => skip(reader)?,
                        Event::End | Event::Eof => break,
                        Event::Text(_) | Event::Node => {}
                    }
                }
            }
            Event::Start(_) => skip(reader)?,
            Event::End | Event::Eof => break,
            Event::Text(_) | Event::Node => {}
        }
    }
    if tbl_seen {
        Ok(())
    } else {
        Err(shape("a table graphic frame without a:tbl"))
    }
}

/// An `a:tr`: its cells' stripped non-blank texts joined with ` | `.
fn table_row(reader: &mut Reader<'_>) -> Result<Option<String>, ShapeError> {
    let mut cells: Vec<String> = Vec::new();
    loop {
        match reader.next()? {
            Event::Start(tc) if tc.is(A, "tc") => {
                let mut body_seen = false;
                let mut text = String::new();
                loop {
                    match reader.next()? {
                        Event::Start(b) if b.is(A, "txBody") && !body_seen => {
                            body_seen = true;
                            text = text_body(reader)?;
                        }
                        Event::Start(_) => skip(reader)?,
                        Event::End | Event::Eof => break,
                        Event::Text(_) | Event::Node => {}
                    }
                }
                let stripped = strip(&text);
                if !stripped.is_empty() {
                    cells.push(stripped.to_string());
                }
            }
            Event::Start(_) => skip(reader)?,
            Event::End | Event::Eof => break,
            Event::Text(_) | Event::Node => {}
        }
    }
    Ok((!cells.is_empty()).then(|| cells.join(" | ")))
}
