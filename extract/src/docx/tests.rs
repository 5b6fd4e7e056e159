use super::*;
use crate::package::testing::zip_of;

const CT: &str = r#"<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>"#;
const RELS: &str = r#"<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>"#;

/// A minimal package around a `w:body`'s content.
pub(crate) fn docx_with_body(body: &str) -> Vec<u8> {
    let doc = format!(
        r#"<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>{body}</w:body></w:document>"#
    );
    zip_of(&[
        ("[Content_Types].xml", CT.as_bytes()),
        ("_rels/.rels", RELS.as_bytes()),
        ("word/document.xml", doc.as_bytes()),
    ])
}

/// Every unit handed to the sink, segment by segment.
#[derive(Default)]
struct Collected([Vec<String>; 2]);

impl UnitSink for Collected {
    fn unit(&mut self, segment: usize, text: &str) {
        self.0[segment].push(text.to_string());
    }
}

/// The whole list the strategy cuts: body paragraphs, then table rows.
fn paragraphs(
    source: &dyn crate::source::Source,
    limits: &Limits,
) -> Result<Vec<String>, DocumentError> {
    let fail = |reason: String| DocumentError::failed(Subject::Word, reason);
    let xml = package::main_document(source, limits).map_err(fail)?;
    let mut collected = Collected::default();
    let mut out = Output::new(limits.max_inflated_bytes, &mut collected);
    read_document(&xml, limits, &mut out).map_err(|e| fail(e.to_string()))?;
    let [mut paragraphs, rows] = collected.0;
    paragraphs.extend(rows);
    Ok(paragraphs)
}

fn parse(body: &str) -> Result<Vec<String>, DocumentError> {
    paragraphs(&docx_with_body(body), &Limits::default())
}

#[test]
fn paragraphs_then_rows() {
    let body = r#"<w:tbl><w:tr><w:tc><w:p><w:r><w:t> a </w:t></w:r></w:p></w:tc><w:tc><w:p/></w:tc><w:tc><w:p><w:r><w:t>b</w:t></w:r></w:p><w:p><w:r><w:t>c</w:t></w:r></w:p></w:tc></w:tr></w:tbl><w:p><w:r><w:t>x</w:t><w:tab/><w:t>y</w:t><w:br/><w:br w:type="page"/><w:noBreakHyphen/></w:r><w:ins><w:r><w:t>no</w:t></w:r></w:ins><w:hyperlink><w:r><w:t>link</w:t></w:r></w:hyperlink></w:p><w:p><w:r><w:t>  </w:t></w:r></w:p>"#;
    assert_eq!(parse(body).expect("parses"), ["x\ty\n-link", "a | b\nc"]);
}

#[test]
fn merged_cells_repeat_and_a_lost_continuation_fails() {
    let row = |cells: &str| format!("<w:tr>{cells}</w:tr>");
    let tc = |pr: &str, t: &str| {
        format!("<w:tc><w:tcPr>{pr}</w:tcPr><w:p><w:r><w:t>{t}</w:t></w:r></w:p></w:tc>")
    };
    let body = format!(
        "<w:tbl>{}{}</w:tbl>",
        row(&(tc(r#"<w:gridSpan w:val="2"/>"#, "wide")
            + &tc(r#"<w:vMerge w:val="restart"/>"#, "tall"))),
        row(&(tc("", "p") + &tc("", "q") + &tc("<w:vMerge/>", "ignored")))
    );
    assert_eq!(
        parse(&body).expect("parses"),
        ["wide | wide | tall", "p | q | tall"]
    );
    let lost = format!("<w:tbl>{}</w:tbl>", row(&tc("<w:vMerge/>", "x")));
    assert!(parse(&lost).is_err());
    let bad_span = format!(
        "<w:tbl>{}</w:tbl>",
        row(&tc(r#"<w:gridSpan w:val="two"/>"#, "x"))
    );
    assert!(parse(&bad_span).is_err());
}

#[test]
fn not_a_word_package_fails_with_the_prefix() {
    let err = paragraphs(&&b"not a zip"[..], &Limits::default()).expect_err("refused");
    assert!(err.message.starts_with("Failed to parse Word document: "));
    let no_ct = zip_of(&[("word/document.xml", b"<x/>")]);
    assert!(paragraphs(&no_ct, &Limits::default()).is_err());
}

#[test]
fn a_zip_bomb_is_too_large_to_preview() {
    let filler = "<w:p/>".repeat(400_000);
    let bytes = docx_with_body(&filler);
    assert!(bytes.len() < 100_000, "{} bytes of zip", bytes.len());
    let limits = Limits {
        max_inflated_bytes: 1_000_000,
        ..Limits::default()
    };
    let err = paragraphs(&bytes, &limits).expect_err("over the budget");
    assert!(
        err.message.contains("too large to preview"),
        "{}",
        err.message
    );
}

#[test]
fn entities_do_not_expand_and_deep_nesting_does_not_recurse() {
    let mut dtd = String::from("<!DOCTYPE w:document [<!ENTITY l0 \"lol\">");
    for i in 1..12 {
        dtd.push_str(&format!(
            "<!ENTITY l{i} \"{}\">",
            format!("&l{};", i - 1).repeat(10)
        ));
    }
    dtd.push_str("]>");
    let doc = format!(
        r#"{dtd}<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body><w:p><w:r><w:t>a&l11;b</w:t></w:r></w:p></w:body></w:document>"#
    );
    let bytes = zip_of(&[
        ("[Content_Types].xml", CT.as_bytes()),
        ("_rels/.rels", RELS.as_bytes()),
        ("word/document.xml", doc.as_bytes()),
    ]);
    let started = std::time::Instant::now();
    assert!(
        paragraphs(&bytes, &Limits::default()).is_err(),
        "libxml2's amplification limit"
    );
    assert!(started.elapsed().as_secs() < 5);
    let deep = format!(
        "{}{}",
        "<w:sdt>".repeat(200_000),
        "</w:sdt>".repeat(200_000)
    );
    assert!(parse(&deep).is_err(), "past libxml2's 256 levels");
}

#[test]
fn a_central_directory_that_lies_is_bounded() {
    let mut bytes = docx_with_body("<w:p><w:r><w:t>hello</w:t></w:r></w:p>");
    // Claim a tiny uncompressed size for every member in the central directory.
    let mut i = 0;
    while let Some(at) = bytes[i..].windows(4).position(|w| w == b"PK\x01\x02") {
        let base = i + at;
        if let Some(field) = bytes.get_mut(base + 24..base + 28) {
            field.copy_from_slice(&3u32.to_le_bytes());
        }
        i = base + 4;
    }
    let started = std::time::Instant::now();
    let outcome = paragraphs(&bytes, &Limits::default());
    assert!(outcome.is_err(), "sizes and CRCs no longer match");
    assert!(started.elapsed().as_secs() < 2);
}

#[test]
fn huge_tables_cost_linear_time_and_bounded_memory() {
    let rows = 2_000;
    let mut body = String::from("<w:tbl>");
    body.push_str("<w:tr>");
    for c in 0..20 {
        body.push_str(&format!(
            "<w:tc><w:p><w:r><w:t>c{c}</w:t></w:r></w:p></w:tc>"
        ));
    }
    body.push_str("</w:tr>");
    let merged = "<w:tc><w:tcPr><w:vMerge/></w:tcPr><w:p/></w:tc>".repeat(20);
    for _ in 1..rows {
        body.push_str(&format!("<w:tr>{merged}</w:tr>"));
    }
    body.push_str("</w:tbl>");
    let started = std::time::Instant::now();
    let err = parse(&body).expect_err("python-docx recurses once per merged row");
    assert!(err.message.contains("recursion"), "{}", err.message);
    let rows = 988;
    let body = body.replacen(&format!("<w:tr>{merged}</w:tr>"), "", 2_000 - rows);
    let out = parse(&body).expect("parses");
    assert_eq!(out.len(), rows);
    assert!(out[rows - 1].ends_with("c18 | c19"));
    assert!(started.elapsed().as_secs() < 60, "{:?}", started.elapsed());
    // A blank cell spanning a trillion columns costs nothing; a non-blank one is refused.
    let blank = r#"<w:tbl><w:tr><w:tc><w:tcPr><w:gridSpan w:val="1000000000000"/></w:tcPr><w:p/></w:tc></w:tr></w:tbl>"#;
    assert_eq!(parse(blank).expect("parses"), Vec::<String>::new());
    let wide = blank.replace("<w:p/>", "<w:p><w:r><w:t>x</w:t></w:r></w:p>");
    let err = parse(&wide).expect_err("refused");
    assert!(
        err.message.contains("too large to preview"),
        "{}",
        err.message
    );
}

/// A random body: paragraphs (some blank, some long, some multi-byte) and
/// tables of a few rows, interleaved.
fn random_body(seed: &mut u64) -> String {
    let mut next = || {
        *seed ^= *seed << 13;
        *seed ^= *seed >> 7;
        *seed ^= *seed << 17;
        *seed
    };
    let p = |text: &str| format!("<w:p><w:r><w:t>{text}</w:t></w:r></w:p>");
    let mut body = String::new();
    let mut scale = 1 + next() % 30;
    for i in 0..next() % 80 {
        if next() % 20 == 0 {
            scale = 1 + next() % 300;
        }
        let word = if next() % 4 == 0 { "é中 " } else { "word " };
        let text = format!("{i} {}", word.repeat((next() % (2 * scale)) as usize));
        if next() % 4 == 0 {
            body.push_str("<w:tbl>");
            for r in 0..1 + next() % 4 {
                body.push_str(&format!(
                    "<w:tr><w:tc>{}</w:tc><w:tc>{}</w:tc></w:tr>",
                    p(&format!("r{r}")),
                    p(&text)
                ));
            }
            body.push_str("</w:tbl>");
        } else if next() % 7 == 0 {
            body.push_str(&p("  "));
        } else {
            body.push_str(&p(&text));
        }
    }
    body
}

#[test]
fn the_streamed_cut_is_the_whole_list_cut() {
    let mut seed = 0x51_7cc1_b727_220a_u64;
    for round in 0..150 {
        let doc = docx_with_body(&random_body(&mut seed));
        let limits = Limits::default();
        let list = paragraphs(&doc, &limits).expect("parses");
        for max in [0, -7, 1, 120, 260, 700, 2_500, 40_000] {
            let max = max + (round % 5) as i64;
            assert_eq!(
                text(&doc, &limits, max).map_err(|e| e.message),
                crate::truncate::units(crate::truncate::Unit::Paragraph, &list, max)
                    .map_err(|e| format!("Failed to parse Word document: {e}")),
                "round {round}, max {max}"
            );
        }
    }
}
