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

/// Every slide text handed to the sink.
#[derive(Default)]
struct Collected(Vec<String>);

impl UnitSink for Collected {
    fn unit(&mut self, _segment: usize, text: &str) {
        self.0.push(text.to_string());
    }
}

/// The whole list the strategy cuts: one text per slide with content.
fn slides(
    source: &dyn crate::source::Source,
    limits: &Limits,
) -> Result<Vec<String>, DocumentError> {
    let fail = |reason: String| DocumentError::failed(Subject::PowerPoint, reason);
    let mut loaded = package::load(source, limits).map_err(fail)?;
    let ids = slide_ids(&loaded, limits).map_err(|e| fail(e.to_string()))?;
    let mut collected = Collected::default();
    read_slides(&mut loaded, &ids, limits, &mut collected).map_err(|e| fail(e.to_string()))?;
    Ok(collected.0)
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

/// A deck of one slide per `p:spTree` content.
fn deck(trees: &[String]) -> Vec<u8> {
    let ct_slide = "application/vnd.openxmlformats-officedocument.presentationml.slide+xml";
    let mut ct = String::from(
        r#"<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/ppt/presentation.xml" ContentType="application/vnd.openxmlformats-officedocument.presentationml.presentation.main+xml"/>"#,
    );
    let mut ids = String::new();
    let mut rels = String::from(
        r#"<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">"#,
    );
    let mut slides = Vec::new();
    for (i, tree) in trees.iter().enumerate() {
        let n = i + 1;
        ct.push_str(&format!(
            r#"<Override PartName="/ppt/slides/slide{n}.xml" ContentType="{ct_slide}"/>"#
        ));
        ids.push_str(&format!(r#"<p:sldId id="{}" r:id="rId{n}"/>"#, 255 + n));
        rels.push_str(&format!(r#"<Relationship Id="rId{n}" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/slide" Target="slides/slide{n}.xml"/>"#));
        slides.push((
            format!("ppt/slides/slide{n}.xml"),
            format!(
                r#"<p:sld xmlns:p="http://schemas.openxmlformats.org/presentationml/2006/main" xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main"><p:cSld><p:spTree>{tree}</p:spTree></p:cSld></p:sld>"#
            ),
        ));
    }
    ct.push_str("</Types>");
    rels.push_str("</Relationships>");
    let prs = format!(
        r#"<p:presentation xmlns:p="http://schemas.openxmlformats.org/presentationml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><p:sldIdLst>{ids}</p:sldIdLst></p:presentation>"#
    );
    let mut members: Vec<(&str, &[u8])> = vec![
        ("[Content_Types].xml", ct.as_bytes()),
        ("_rels/.rels", RELS.as_bytes()),
        ("ppt/presentation.xml", prs.as_bytes()),
        ("ppt/_rels/presentation.xml.rels", rels.as_bytes()),
    ];
    members.extend(slides.iter().map(|(n, x)| (n.as_str(), x.as_bytes())));
    zip_of(&members)
}

#[test]
fn the_streamed_cut_is_the_whole_list_cut() {
    let mut seed = 0x2f1d_88b3_0c4e_9a71_u64;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    for round in 0..60 {
        let mut scale = 1 + next() % 30;
        let trees: Vec<String> = (0..next() % 40)
            .map(|i| {
                if next() % 10 == 0 {
                    scale = 1 + next() % 400;
                }
                if next() % 6 == 0 {
                    return String::new();
                }
                let word = if next() % 4 == 0 { "é中 " } else { "word " };
                let text = format!("{i} {}", word.repeat((next() % (2 * scale)) as usize));
                sp(&format!("<a:p><a:r><a:t>{text}</a:t></a:r></a:p>"))
            })
            .collect();
        let doc = deck(&trees);
        let limits = Limits::default();
        let list = slides(&doc, &limits).expect("parses");
        for max in [0, -3, 1, 150, 300, 900, 4_000, 50_000] {
            let max = max + (round % 7) as i64;
            assert_eq!(
                text(&doc, &limits, max).map_err(|e| e.message),
                crate::truncate::units(crate::truncate::Unit::Slide, &list, max)
                    .map_err(|e| format!("Failed to parse PowerPoint: {e}")),
                "round {round}, max {max}"
            );
        }
    }
}
