//! PDF as Wegent's backend reads it: PyPDF2 3.0.1's `PdfReader`, then
//! `extract_text()` page by page, pages without text dropped, encrypted
//! files refused before any page is read.
//!
//! The reader is PyPDF2's, concept by concept, written anew: [`xref`] opens
//! the file (EOF marker, `startxref`, tables and streams, repairs),
//! [`document`] resolves objects over [`lexer`] and [`filters`], [`text`]
//! interprets content streams ([`content`]) with fonts from [`font`]
//! ([`encoding`], [`cmap`], the generated [`tables`]), and [`ocr`] is the
//! backend's scanned-PDF rule.
//!
//! Hostile files end, in time linear in their bytes: every stream decoded
//! draws on `Limits::max_inflated_bytes`; every object is read once (its
//! failure too) and every stream decoded and every `/ToUnicode` map parsed
//! once; referenced fonts are built once; references, page trees and forms
//! are bounded in depth; and what may repeat (page tree visits, pages and
//! forms read, content lists, bytes lexed) draws on one work budget that
//! grows with the bytes read and decoded (`filters::Budget`). Past a bound
//! reading stops with a `parse_failed` error that no lenient path swallows.

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

/// Work units one visit of a page tree node costs.
const NODE_UNITS: usize = 64;

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
    // A tree whose nodes name the same kids many times multiplies its pages: each visit is work.
    doc.work(NODE_UNITS)?;
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
            doc.work(dict.len() + inherit.len())?;
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

#[cfg(test)]
mod testing;

#[cfg(test)]
mod tests {
    use super::testing::{file, one_page, stream};
    use super::*;

    fn read(bytes: &[u8]) -> std::result::Result<Vec<String>, DocumentError> {
        pages(bytes, &Limits::default())
    }

    fn refusal(bytes: &[u8]) -> DocumentError {
        let e = read(bytes).expect_err("the file is refused");
        assert_eq!(e.code, ErrorCode::ParseFailed);
        assert!(
            e.message.starts_with("Failed to parse PDF: "),
            "{}",
            e.message
        );
        e
    }

    #[test]
    fn a_page_reads_with_moves_as_newlines_and_tj_gaps_as_spaces() {
        let pdf = one_page(
            b"BT /F1 12 Tf 72 700 Td (Hello) Tj [(wor) -300 (ld)] TJ 0 -20 Td (next) Tj ET",
        );
        assert_eq!(read(&pdf).expect("reads"), ["Hellowor ld\nnext"]);
    }

    #[test]
    fn cyclic_references_are_an_error() {
        // /Contents names an object that names itself.
        let mut objects = vec![
            b"<< /Type /Catalog /Pages 2 0 R >>".to_vec(),
            b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>".to_vec(),
            b"<< /Type /Page /Parent 2 0 R /Resources << >> /Contents 4 0 R >>".to_vec(),
            b"4 0 R".to_vec(),
        ];
        refusal(&file(&objects));
        // A stream whose /Length is itself.
        objects[3] = b"<< /Length 4 0 R >>\nstream\nBT ET\nendstream".to_vec();
        refusal(&file(&objects));
    }

    #[test]
    fn a_looping_page_tree_is_an_error() {
        let pdf = file(&[
            b"<< /Type /Catalog /Pages 2 0 R >>".to_vec(),
            b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>".to_vec(),
            b"<< /Type /Pages /Kids [2 0 R] /Count 1 >>".to_vec(),
        ]);
        let e = refusal(&pdf);
        assert!(e.message.contains("page tree"), "{}", e.message);
    }

    #[test]
    fn a_hundred_megabytes_of_operators_are_read_to_the_end() {
        let mut content = b"q Q ".repeat(25 * 1024 * 1024);
        content.extend_from_slice(b"BT /F1 12 Tf (end) Tj ET");
        assert!(content.len() > 100 * 1024 * 1024);
        assert_eq!(read(&one_page(&content)).expect("reads"), ["end"]);
        // Operands that never reach an operator are refused, not accumulated.
        let numbers = b"1 ".repeat(1024 * 1024);
        refusal(&one_page(&numbers));
    }

    #[test]
    fn a_flate_bomb_stops_at_the_inflation_limit() {
        let bomb = miniz_oxide::deflate::compress_to_vec_zlib(&vec![b' '; 8 * 1024 * 1024], 1);
        let pdf = file(&[
            b"<< /Type /Catalog /Pages 2 0 R >>".to_vec(),
            b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>".to_vec(),
            b"<< /Type /Page /Parent 2 0 R /Resources << >> /Contents 4 0 R >>".to_vec(),
            stream("/Filter /FlateDecode", &bomb),
        ]);
        let limits = Limits {
            max_inflated_bytes: 1024 * 1024,
            ..Limits::default()
        };
        let e = pages(&pdf, &limits).expect_err("over the limit");
        assert!(e.message.contains("size limit"), "{}", e.message);
        assert!(
            pages(&pdf, &Limits::default()).is_ok(),
            "within the default limit it reads"
        );
    }

    #[test]
    fn broken_cross_references_are_repaired_or_refused() {
        let pdf = one_page(b"BT /F1 12 Tf (ok) Tj ET");
        // Offsets all wrong: each object is found by its header.
        let text = String::from_utf8_lossy(&pdf).into_owned();
        let shifted = text.replacen("0000000009 00000 n", "0000000001 00000 n", 1);
        assert_eq!(read(shifted.as_bytes()).expect("repaired"), ["ok"]);
        // startxref pointing into an object: the table is rebuilt from the headers.
        let at = text.find("startxref\n").expect("written") + "startxref\n".len();
        let end = text[at..].find('\n').expect("a line") + at;
        let rebuilt = format!("{}{}{}", &text[..at], 20, &text[end..]);
        assert_eq!(read(rebuilt.as_bytes()).expect("rebuilt"), ["ok"]);
        // A /Prev chain that points back at itself ends.
        let xref = text[at..end].to_string();
        let looping = text.replace("/Root 1 0 R >>", &format!("/Root 1 0 R /Prev {xref} >>"));
        assert_eq!(read(looping.as_bytes()).expect("the loop ends"), ["ok"]);
        // No %%EOF, no startxref, nothing at all.
        refusal(&pdf[..pdf.len() - 7]);
        refusal(text.replace("startxref", "startxxx").as_bytes());
        assert_eq!(
            refusal(b"").message,
            "Failed to parse PDF: Cannot read an empty file"
        );
    }

    #[test]
    fn forms_showing_themselves_end() {
        // A form that shows itself three times: 3^16 readings unbounded.
        let pdf = file(&[
            b"<< /Type /Catalog /Pages 2 0 R >>".to_vec(),
            b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>".to_vec(),
            b"<< /Type /Page /Parent 2 0 R /Resources << /XObject << /X 4 0 R >> >> /Contents 5 0 R >>".to_vec(),
            stream(
                "/Type /XObject /Subtype /Form /Resources << /XObject << /X 4 0 R >> >>",
                b"/X Do /X Do /X Do",
            ),
            stream("", b"/X Do"),
        ]);
        let text = read(&pdf).expect("reads");
        assert!(text.iter().all(|t| t.chars().all(|c| c == '\n')));
    }

    #[test]
    fn encrypted_files_are_refused_unread() {
        let text = String::from_utf8_lossy(&one_page(b"BT ET")).into_owned();
        let pdf = text.replace(
            "/Root 1 0 R",
            "/Root 1 0 R /Encrypt << /Filter /Standard /V 1 >>",
        );
        let e = read(pdf.as_bytes()).expect_err("encrypted");
        assert_eq!(e.code, ErrorCode::EncryptedPdf);
        assert_eq!(e.message, "Cannot parse encrypted PDF file");
    }

    /// Reads `bytes`, failing the test if that takes longer than `secs`
    /// (debug build; a looping reader runs for minutes).
    fn timed(bytes: &[u8], secs: u64) -> std::result::Result<Vec<String>, DocumentError> {
        let start = std::time::Instant::now();
        let out = read(bytes);
        let took = start.elapsed();
        assert!(
            took < std::time::Duration::from_secs(secs),
            "reading {} bytes took {took:?}",
            bytes.len()
        );
        out
    }

    /// `file` plus an incremental update: `objects` (number, body) appended
    /// with a second cross-reference section whose `/Prev` is the first.
    fn updated(base: &[u8], objects: &[(usize, &[u8])]) -> Vec<u8> {
        let text = String::from_utf8_lossy(base);
        let at = text.rfind("startxref\n").expect("written") + "startxref\n".len();
        let prev: usize = text[at..]
            .trim()
            .trim_end_matches("%%EOF")
            .trim()
            .parse()
            .expect("an offset");
        let mut out = base.to_vec();
        let mut offsets = Vec::new();
        for (n, body) in objects {
            offsets.push((*n, out.len()));
            out.extend_from_slice(format!("{n} 0 obj\n").as_bytes());
            out.extend_from_slice(body);
            out.extend_from_slice(b"\nendobj\n");
        }
        let xref = out.len();
        out.extend_from_slice(b"xref\n");
        for (n, o) in offsets {
            out.extend_from_slice(format!("{n} 1\n{o:010} 00000 n \n").as_bytes());
        }
        out.extend_from_slice(
            format!("trailer\n<< /Size 6 /Root 1 0 R /Prev {prev} >>\nstartxref\n{xref}\n%%EOF\n")
                .as_bytes(),
        );
        out
    }

    #[test]
    fn a_dictionary_running_into_endobj_is_refused_not_read_forever() {
        // A bit flip turns `/Type` into `/Ty%e`: the comment swallows the
        // catalog's `>>`, and its dictionary runs into `endobj`, which PyPDF2
        // 3.0.1 reads as a null key and value without moving on, forever.
        let mut pdf = one_page(b"BT /F1 12 Tf 72 700 Td (Hello) Tj ET");
        pdf[23] ^= 0x55;
        assert_eq!(&pdf[17..28], b"<< /Ty%e /C");
        let e = timed(&pdf, 5).expect_err("refused");
        assert_eq!(e.code, ErrorCode::ParseFailed);
        assert!(e.message.contains("never closes"), "{}", e.message);
    }

    #[test]
    fn self_referencing_contents_in_an_update_end_quickly() {
        let base = one_page(b"BT /F1 12 Tf (base) Tj ET");
        // The update's page names object 4 as its content; object 4 is a reference to itself.
        let page: &[u8] =
            b"<< /Type /Page /Parent 2 0 R /Resources << /Font << /F1 4 0 R >> >> /Contents 5 0 R >>";
        for body in [
            &b"5 0 R"[..],
            b"<< /Length 5 0 R >>\nstream\nBT ET\nendstream",
            b"[5 0 R 5 0 R 5 0 R]",
            b"<< /Filter 5 0 R /Length 5 >>\nstream\nBT ET\nendstream",
            b"<< /Length 2 /Contents 5 0 R",
        ] {
            let pdf = updated(&base, &[(3, page), (5, body)]);
            let _ = timed(&pdf, 5);
        }
        // The same object through both sections, the newer one a dictionary that never closes.
        let pdf = updated(&base, &[(5, b"<< /Length 5 0 R /Contents 5 0 R")]);
        let e = timed(&pdf, 5).expect_err("refused");
        assert!(e.message.contains("never closes"), "{}", e.message);
    }

    #[test]
    fn a_page_tree_that_multiplies_its_pages_is_refused_in_linear_time() {
        // Eight levels of nodes naming the next level ten times: 10^8 pages.
        let mut objects = vec![b"<< /Type /Catalog /Pages 2 0 R >>".to_vec()];
        for level in 0..8 {
            let kid = format!("{} 0 R ", level + 3);
            objects.push(
                format!("<< /Type /Pages /Kids [{}] /Count 1 >>", kid.repeat(10)).into_bytes(),
            );
        }
        objects.push(b"<< /Type /Page /Resources << >> /Contents 11 0 R >>".to_vec());
        objects.push(stream("", b"BT (x) Tj ET"));
        let e = timed(&file(&objects), 10).expect_err("refused");
        assert!(e.message.contains("too costly"), "{}", e.message);
    }

    #[test]
    fn content_listing_one_stream_many_times_is_bounded_by_the_work_budget() {
        let big = miniz_oxide::deflate::compress_to_vec_zlib(&b"q Q ".repeat(256 * 1024), 9);
        let list = "5 0 R ".repeat(200);
        let pdf = file(&[
            b"<< /Type /Catalog /Pages 2 0 R >>".to_vec(),
            b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>".to_vec(),
            format!("<< /Type /Page /Parent 2 0 R /Resources << >> /Contents [{list}] >>")
                .into_bytes(),
            b"null".to_vec(),
            stream("/Filter /FlateDecode", &big),
        ]);
        // 200 MB of operators from a few kilobytes: refused long before they are all read.
        let e = timed(&pdf, 10).expect_err("refused");
        assert!(e.message.contains("too costly"), "{}", e.message);
        // Listed twice, it reads.
        let twice = String::from_utf8_lossy(&pdf).replace(&list, "5 0 R 5 0 R ");
        assert!(timed(twice.as_bytes(), 10).is_ok());
    }

    #[test]
    fn a_table_wrong_everywhere_is_repaired_with_one_scan() {
        // Every offset shifted: each object is found by its header, from one index.
        let pdf = one_page(b"BT /F1 12 Tf (ok) Tj ET");
        let text = String::from_utf8_lossy(&pdf).into_owned();
        let mut lines: Vec<String> = text.split('\n').map(str::to_owned).collect();
        for line in lines.iter_mut() {
            if line.len() == 19 && line.ends_with(" 00000 n ") {
                *line = "0000000003 00000 n ".to_string();
            }
        }
        assert_eq!(
            timed(lines.join("\n").as_bytes(), 5).expect("repaired"),
            ["ok"]
        );
    }

    #[test]
    fn a_long_right_to_left_run_reads_in_linear_time() {
        // PyPDF2 prepends each right-to-left character (`x + text`): quadratic in the run.
        let cmap = b"/CIDInit /ProcSet findresource begin 12 dict begin begincmap\n\
            1 begincodespacerange <00> <FF> endcodespacerange\n\
            1 beginbfchar <41> <05D0> endbfchar\nendcmap end end";
        let mut content = b"BT /F1 12 Tf (".to_vec();
        content.extend(std::iter::repeat_n(b'A', 300_000));
        content.extend_from_slice(b") Tj ET");
        let pdf = file(&[
            b"<< /Type /Catalog /Pages 2 0 R >>".to_vec(),
            b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>".to_vec(),
            b"<< /Type /Page /Parent 2 0 R /Resources << /Font << /F1 4 0 R >> >> /Contents 5 0 R >>"
                .to_vec(),
            b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /ToUnicode 6 0 R >>".to_vec(),
            stream("", &content),
            stream("", cmap),
        ]);
        let text = timed(&pdf, 10).expect("reads");
        assert_eq!(text, ["\u{05D0}".repeat(300_000)]);
    }

    #[test]
    fn truncated_input_never_panics() {
        // Every prefix and every byte flipped: each ends, quickly (this sweep
        // once met a flip PyPDF2 reads forever, see the endobj test above).
        let pdf = one_page(b"BT /F1 12 Tf 72 700 Td (Hello) Tj ET");
        let start = std::time::Instant::now();
        for n in 0..pdf.len() {
            let _ = timed(&pdf[..n], 2);
            let mut flipped = pdf.clone();
            flipped[n] ^= 0x55;
            let _ = timed(&flipped, 2);
        }
        assert!(start.elapsed() < std::time::Duration::from_secs(30));
    }
}
