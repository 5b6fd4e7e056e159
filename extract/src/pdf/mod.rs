//! PDF as Wegent's backend reads it: PyPDF2 3.0.1's `PdfReader`, then
//! `extract_text()` page by page, pages without text dropped, encrypted
//! files refused before any page is read.
//!
//! The reader is PyPDF2's, concept by concept, written anew: [`xref`] opens
//! the file (EOF marker, `startxref`, tables and streams, repairs),
//! [`document`] resolves objects over [`lexer`] and [`filters`], [`text`]
//! interprets content streams ([`content`]) with fonts from [`font`]
//! ([`encoding`], [`cmap`], the generated [`tables`]), and [`ocr`] is the
//! backend's scanned-PDF rule. Every stream decoded draws on
//! `Limits::max_inflated_bytes`; references, page trees and forms are
//! bounded in depth, so any input ends in text or a `parse_failed` error.

mod cmap;
mod content;
mod document;
mod encoding;
mod error;
mod filters;
mod font;
mod lexer;
mod object;
mod ocr;
mod tables;
mod text;
mod xref;

use crate::error::{DocumentError, ErrorCode, Subject};
use crate::limits::Limits;
use document::Document;
use error::{fail, Result};
use object::{Dict, Object};
use std::rc::Rc;

pub(crate) use ocr::needs_ocr;

/// How deep a page tree may nest (PyPDF2 recurses until Python's limit).
const MAX_TREE_DEPTH: usize = 256;

/// The text of each page that yielded text (`extract_text()`), in order; encrypted files refused.
pub(crate) fn pages(
    bytes: &[u8],
    limits: &Limits,
) -> std::result::Result<Vec<String>, DocumentError> {
    let mut doc = Document::new(bytes, limits.max_inflated_bytes);
    let failed = |e: error::PdfError| DocumentError::failed(Subject::Pdf, e);
    xref::read(&mut doc).map_err(failed)?;
    if doc.trailer.contains("/Encrypt") {
        return Err(DocumentError::new(
            ErrorCode::EncryptedPdf,
            "Cannot parse encrypted PDF file",
        ));
    }
    let read = || -> Result<Vec<String>> {
        let mut out = Vec::new();
        for page in flatten(&doc)? {
            let text = text::extract(&doc, &page, text::Content::Page, 0)?;
            if !text.is_empty() {
                out.push(text);
            }
        }
        Ok(out)
    };
    read().map_err(failed)
}

/// `_flatten`: the page dictionaries in order, with inherited `/Resources`,
/// `/MediaBox`, `/CropBox` and `/Rotate` (one inheritance map shared along
/// the walk, as PyPDF2 shares it).
fn flatten(doc: &Document<'_>) -> Result<Vec<Dict>> {
    let root = doc.must(&doc.trailer, "/Root")?;
    let Some(catalog) = root.as_dict() else {
        return fail(format!("the document catalog is a {}", root.kind()));
    };
    let pages = doc.must(catalog, "/Pages")?;
    let mut inherit: Vec<(Rc<str>, Object)> = Vec::new();
    let mut out = Vec::new();
    walk(doc, &pages, &mut inherit, &mut out, 0)?;
    Ok(out)
}

fn walk(
    doc: &Document<'_>,
    node: &Object,
    inherit: &mut Vec<(Rc<str>, Object)>,
    out: &mut Vec<Dict>,
    depth: usize,
) -> Result<()> {
    if depth > MAX_TREE_DEPTH {
        return fail("the page tree nests too deeply (or loops)");
    }
    let Some(dict) = node.as_dict() else {
        return fail(format!("a page tree node is a {}", node.kind()));
    };
    let kind = match doc.key(dict, "/Type")? {
        Some(t) => t.as_name().map(str::to_owned),
        None => Some("/Pages".to_string()),
    };
    match kind.as_deref() {
        Some("/Pages") => {
            for attr in ["/Resources", "/MediaBox", "/CropBox", "/Rotate"] {
                if let Some(v) = doc.key(dict, attr)? {
                    match inherit.iter_mut().find(|(k, _)| &**k == attr) {
                        Some(slot) => slot.1 = v,
                        None => inherit.push((attr.into(), v)),
                    }
                }
            }
            let kids = doc.must(dict, "/Kids")?;
            let Object::Array(kids) = kids else {
                return fail(format!("/Kids is a {}, not an array", kids.kind()));
            };
            for kid in kids.iter() {
                let kid = doc.resolve(kid)?;
                walk(doc, &kid, inherit, out, depth + 1)?;
            }
        }
        Some("/Page") => {
            let mut page = dict.clone();
            for (k, v) in inherit.iter() {
                if !page.contains(k) {
                    page.insert(k.clone(), v.clone());
                }
            }
            out.push(page);
        }
        _ => {}
    }
    Ok(())
}
