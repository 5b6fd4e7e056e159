use super::*;
use crate::package::testing::zip_of;

const CT: &str = r#"<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/ppt/presentation.xml" ContentType="application/vnd.openxmlformats-officedocument.presentationml.presentation.main+xml"/><Override PartName="/ppt/slides/slide1.xml" ContentType="application/vnd.openxmlformats-officedocument.presentationml.slide+xml"/><Override PartName="/ppt/slides/slide2.xml" ContentType="application/vnd.openxmlformats-officedocument.presentationml.slide+xml"/></Types>"#;
const RELS: &str = r#"<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="ppt/presentation.xml"/></Relationships>"#;
const PRS: &str = r#"<p:presentation xmlns:p="http://schemas.openxmlformats.org/presentationml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><p:sldIdLst><p:sldId id="256" r:id="rId2"/><p:sldId id="257" r:id="rId3"/></p:sldIdLst></p:presentation>"#;
const PRS_RELS: &str = r#"<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId2" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/slide" Target="slides/slide1.xml"/><Relationship Id="rId3" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/slide" Target="slides/slide2.xml"/></Relationships>"#;

/// A two-slide package around each slide's `p:spTree` content.
pub(crate) fn pptx_with_trees(first: &str, second: &str) -> Vec<u8> {
    let slide = |tree: &str| {
        format!(
            r#"<p:sld xmlns:p="http://schemas.openxmlformats.org/presentationml/2006/main" xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main"><p:cSld><p:spTree>{tree}</p:spTree></p:cSld></p:sld>"#
        )
    };
    let (one, two) = (slide(first), slide(second));
    zip_of(&[
        ("[Content_Types].xml", CT.as_bytes()),
        ("_rels/.rels", RELS.as_bytes()),
        ("ppt/presentation.xml", PRS.as_bytes()),
        ("ppt/_rels/presentation.xml.rels", PRS_RELS.as_bytes()),
        ("ppt/slides/slide1.xml", one.as_bytes()),
        ("ppt/slides/slide2.xml", two.as_bytes()),
    ])
}

fn sp(paragraphs: &str) -> String {
    format!("<p:sp><p:nvSpPr/><p:spPr/><p:txBody><a:bodyPr/>{paragraphs}</p:txBody></p:sp>")
}

#[test]
fn slides_are_numbered_by_position_and_empty_ones_dropped() {
    let deck = pptx_with_trees(
        "",
        &sp("<a:p><a:r><a:t>one</a:t></a:r><a:br/><a:fld><a:t>2</a:t></a:fld></a:p><a:p/>"),
    );
    assert_eq!(
        slides(&deck, &Limits::default()).expect("parses"),
        ["--- Slide 2 ---\none\u{b}2\n"]
    );
}

#[test]
fn tables_and_group_members() {
    let table = r#"<p:graphicFrame><a:graphic><a:graphicData uri="http://schemas.openxmlformats.org/drawingml/2006/table"><a:tbl><a:tr><a:tc><a:txBody><a:p><a:r><a:t> x </a:t></a:r></a:p></a:txBody></a:tc><a:tc/><a:tc><a:txBody><a:p><a:r><a:t>y</a:t></a:r></a:p></a:txBody></a:tc></a:tr></a:tbl></a:graphicData></a:graphic></p:graphicFrame>"#;
    let group = format!(
        "<p:grpSp>{}</p:grpSp>",
        sp("<a:p><a:r><a:t>hidden</a:t></a:r></a:p>")
    );
    let deck = pptx_with_trees(&(table.to_string() + &group), "");
    assert_eq!(
        slides(&deck, &Limits::default()).expect("parses"),
        ["--- Slide 1 ---\nx | y"]
    );
}

#[test]
fn what_python_pptx_refuses_is_refused() {
    let limits = Limits::default();
    assert!(slides(&pptx_with_trees("<p:contentPart/>", ""), &limits).is_err());
    assert!(slides(&pptx_with_trees(&sp("<a:p><a:r/></a:p>"), ""), &limits).is_err());
    assert!(slides(&pptx_with_trees("<p:graphicFrame/>", ""), &limits).is_err());
    let bad_ph = r#"<p:sp><p:nvSpPr><p:cNvPr/><p:cNvSpPr/><p:nvPr><p:ph type="bogus"/></p:nvPr></p:nvSpPr></p:sp>"#;
    assert!(slides(&pptx_with_trees(bad_ph, ""), &limits).is_err());
    let err = slides(&&b"PK"[..], &limits).expect_err("not a zip");
    assert!(err.message.starts_with("Failed to parse PowerPoint: "));
}

#[test]
fn a_bomb_slide_is_too_large_and_deep_shapes_do_not_recurse() {
    let limits = Limits {
        max_inflated_bytes: 1_000_000,
        ..Limits::default()
    };
    let bomb = pptx_with_trees(&"<p:cxnSp/>".repeat(300_000), "");
    assert!(bomb.len() < 100_000);
    let err = slides(&bomb, &limits).expect_err("over the budget");
    assert!(
        err.message.contains("too large to preview"),
        "{}",
        err.message
    );
    let deep = format!(
        "{}{}",
        "<p:grpSp>".repeat(100_000),
        "</p:grpSp>".repeat(100_000)
    );
    assert!(slides(&pptx_with_trees(&deep, ""), &Limits::default()).is_err());
}

#[test]
fn a_big_table_is_read_in_linear_time() {
    let row = format!(
        "<a:tr>{}</a:tr>",
        "<a:tc><a:txBody><a:bodyPr/><a:p><a:r><a:t>v</a:t></a:r></a:p></a:txBody></a:tc>"
            .repeat(20)
    );
    let table = format!(
        r#"<p:graphicFrame><a:graphic><a:graphicData uri="http://schemas.openxmlformats.org/drawingml/2006/table"><a:tbl>{}</a:tbl></a:graphicData></a:graphic></p:graphicFrame>"#,
        row.repeat(500)
    );
    let started = std::time::Instant::now();
    let out = slides(&pptx_with_trees(&table, ""), &Limits::default()).expect("parses");
    assert_eq!(out[0].lines().count(), 501);
    assert!(started.elapsed().as_secs() < 60, "{:?}", started.elapsed());
}
