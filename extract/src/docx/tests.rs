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
    let err = paragraphs(b"not a zip", &Limits::default()).expect_err("refused");
    assert!(err.message.starts_with("Failed to parse Word document: "));
    let no_ct = zip_of(&[("word/document.xml", b"<x/>")]);
    assert!(paragraphs(&no_ct, &Limits::default()).is_err());
}
