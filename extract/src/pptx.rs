//! PowerPoint (.pptx) as python-pptx 1.0.2 reads it for
//! `_parse_powerpoint_smart`: per slide of `prs.slides` (the presentation's
//! `p:sldIdLst`), `--- Slide N ---` (N counts every slide), then for each
//! shape of `slide.shapes` (the direct shape children of `p:spTree`) its
//! `shape.text` when it has one that is not blank (autoshapes, text boxes
//! and placeholders: paragraphs joined with `\n`, `a:br` as `\v`), then for
//! a table frame each row's non-blank stripped cells joined with ` | `.
//! Group members, notes, layouts, masters and pictures are not read; a slide
//! with nothing is dropped.
//!
//! The slides' texts go to the truncation strategy as they are read
//! ([`units_streamed`]), and one slide's XML is held at a time (every part is
//! checked as the package loads, then a slide is inflated again when its text
//! is read); the presentation part, which lists the slides, is held whole.

mod package;
mod shapes;

use crate::error::{DocumentError, Subject};
use crate::limits::Limits;
use crate::ooxml::walk::skip;
use crate::ooxml::xml::{Event, Source, XmlError};
use crate::truncate::{units_streamed, Truncated, Unit, UnitSink};

/// The PresentationML namespace.
const P: &str = "http://schemas.openxmlformats.org/presentationml/2006/main";
/// The DrawingML namespace.
const A: &str = "http://schemas.openxmlformats.org/drawingml/2006/main";
/// The relationships namespace of `r:id`.
const R: &str = "http://schemas.openxmlformats.org/officeDocument/2006/relationships";
/// The chart namespace (`c:chart` and `c:externalData` carry an `rId` too).
const C: &str = "http://schemas.openxmlformats.org/drawingml/2006/chart";

/// Why the slides cannot be read.
#[derive(Debug, thiserror::Error)]
enum SlideError {
    #[error("{part}: {source}")]
    Xml { part: String, source: XmlError },
    #[error("{0}")]
    Shape(String),
}

/// The presentation's text truncated at `max_length`: one text per slide
/// with content, each starting `--- Slide N ---` (N counts every slide),
/// handed to the strategy slide by slide (one slide's XML held at a time).
pub(crate) fn text(
    source: &dyn crate::source::Source,
    limits: &Limits,
    max_length: i64,
) -> Result<Truncated, DocumentError> {
    let fail = |reason: String| DocumentError::failed(Subject::PowerPoint, reason);
    let mut loaded = package::load(source, limits).map_err(fail)?;
    let ids = slide_ids(&loaded, limits).map_err(|e| fail(e.to_string()))?;
    let mut read = |sink: &mut dyn UnitSink| {
        read_slides(&mut loaded, &ids, limits, sink).map_err(|e| fail(e.to_string()))
    };
    units_streamed(Unit::Slide, max_length, 1, &mut read, |e| {
        DocumentError::failed(Subject::PowerPoint, e)
    })
}

/// The `r:id` of each slide in `p:sldIdLst`, after the checks `prs.slides` makes.
fn slide_ids(loaded: &package::Loaded<'_>, limits: &Limits) -> Result<Vec<String>, SlideError> {
    let part = "the presentation part";
    let xml_err = |source| SlideError::Xml {
        part: part.into(),
        source,
    };
    let source = Source::new(&loaded.presentation).map_err(xml_err)?;
    let mut reader = source.reader(limits.max_xml_depth).map_err(xml_err)?;
    let mut level = 0usize;
    let mut list_seen = false;
    let mut in_list = false;
    let mut ids = Vec::new();
    let mut renamed = Vec::new();
    loop {
        match reader.next().map_err(xml_err)? {
            Event::Start(e) => {
                level += 1;
                if level == 1 && !e.is(P, "presentation") {
                    return Err(SlideError::Shape(
                        "the presentation part's root is not p:presentation".into(),
                    ));
                }
                if level == 2 && !list_seen && e.is(P, "sldIdLst") {
                    list_seen = true;
                    in_list = true;
                } else if level == 3 && in_list {
                    // `rename_slide_parts` reads `rId` of every child of the list.
                    let ns = e.ns.as_deref().unwrap_or("");
                    let has_rid = matches!(
                        (ns, e.local),
                        (P, "sldId" | "sldMasterId" | "sldLayoutId" | "oleObj")
                            | (C, "chart" | "externalData")
                            | (A, "hlinkClick" | "hlinkHover")
                    );
                    let rid = e.attr(Some(R), "id").filter(|_| has_rid).ok_or_else(|| {
                        SlideError::Shape(
                            "a child of p:sldIdLst without a slide relationship id".into(),
                        )
                    })?;
                    renamed.push(rid.to_string());
                    if e.is(P, "sldId") {
                        ids.push(rid.to_string());
                    }
                    skip(&mut reader).map_err(xml_err)?;
                    level -= 1;
                }
            }
            Event::End => {
                if level == 2 && in_list {
                    in_list = false;
                }
                level = level.saturating_sub(1);
            }
            Event::Node if level == 2 && in_list => {
                return Err(SlideError::Shape(
                    "a comment or instruction inside p:sldIdLst".into(),
                ));
            }
            Event::Text(_) | Event::Node => {}
            Event::Eof => break,
        }
    }
    for rid in &renamed {
        match loaded.presentation_rels.get(rid) {
            Some(package::Target::Part(_)) => {}
            Some(package::Target::External) => {
                return Err(SlideError::Shape(format!(
                    "slide relationship '{rid}' points outside the package"
                )));
            }
            None => {
                return Err(SlideError::Shape(format!(
                    "no relationship '{rid}' for a slide"
                )))
            }
        }
    }
    Ok(ids)
}

/// Hands the text of every slide with content to `sink`, within a budget of bytes.
fn read_slides(
    loaded: &mut package::Loaded<'_>,
    ids: &[String],
    limits: &Limits,
    sink: &mut dyn UnitSink,
) -> Result<(), SlideError> {
    let mut left = limits.max_inflated_bytes;
    for (n, rid) in ids.iter().enumerate() {
        let Some(package::Target::Part(partname)) = loaded.presentation_rels.get(rid) else {
            return Err(SlideError::Shape(format!(
                "no slide part for relationship '{rid}'"
            )));
        };
        if loaded.content_types.get(partname).map(String::as_str) != Some(package::CT_SLIDE) {
            return Err(SlideError::Shape(format!(
                "'{partname}' is not a slide part"
            )));
        }
        let partname = partname.clone();
        let xml = loaded.xml(&partname).map_err(SlideError::Shape)?;
        let mut lines = vec![format!("--- Slide {} ---", n + 1)];
        shapes::slide_lines(&xml, limits, &mut lines).map_err(|e| match e {
            shapes::ShapeError::Xml(source) => SlideError::Xml {
                part: partname.clone(),
                source,
            },
            shapes::ShapeError::Shape(what) => SlideError::Shape(format!("{partname}: {what}")),
        })?;
        if lines.len() > 1 {
            let text = lines.join("\n");
            left = left.checked_sub(text.len() as u64).ok_or_else(|| {
                SlideError::Shape(format!(
                    "too large to preview: its text passes {} bytes",
                    limits.max_inflated_bytes
                ))
            })?;
            sink.unit(0, &text);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests;
