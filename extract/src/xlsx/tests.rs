//! Workbooks built in memory: values and layouts end to end, and hostile
//! inputs that must stay within the limits.

use super::sheets;
use crate::limits::Limits;
use crate::package::testing::zip_of;

const NS: &str = "http://schemas.openxmlformats.org/spreadsheetml/2006/main";
const RNS: &str = "http://schemas.openxmlformats.org/officeDocument/2006/relationships";

fn content_types(with_strings: bool) -> String {
    let strings = if with_strings {
        r#"<Override PartName="/xl/sharedStrings.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sharedStrings+xml"/>"#
    } else {
        ""
    };
    format!(
        r#"<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/>{strings}</Types>"#
    )
}

/// A one-sheet workbook named `Data` with this sheetData content, shared strings and styles.
fn book(rows: &str, strings: Option<&str>, styles: Option<&str>) -> Vec<u8> {
    let ct = content_types(strings.is_some());
    let wb = format!(
        r#"<workbook xmlns="{NS}" xmlns:r="{RNS}"><sheets><sheet name="Data" sheetId="1" r:id="rId1"/></sheets></workbook>"#
    );
    let rels = format!(
        r#"<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="{RNS}/worksheet" Target="worksheets/sheet1.xml"/></Relationships>"#
    );
    let sheet = format!(r#"<worksheet xmlns="{NS}"><sheetData>{rows}</sheetData></worksheet>"#);
    let mut members: Vec<(&str, Vec<u8>)> = vec![
        ("[Content_Types].xml", ct.into_bytes()),
        ("xl/workbook.xml", wb.into_bytes()),
        ("xl/_rels/workbook.xml.rels", rels.into_bytes()),
        ("xl/worksheets/sheet1.xml", sheet.into_bytes()),
    ];
    if let Some(s) = strings {
        members.push((
            "xl/sharedStrings.xml",
            format!(r#"<sst xmlns="{NS}">{s}</sst>"#).into_bytes(),
        ));
    }
    if let Some(s) = styles {
        members.push((
            "xl/styles.xml",
            format!(r#"<styleSheet xmlns="{NS}">{s}</styleSheet>"#).into_bytes(),
        ));
    }
    let refs: Vec<(&str, &[u8])> = members.iter().map(|(n, d)| (*n, d.as_slice())).collect();
    zip_of(&refs)
}

fn text_of(bytes: &[u8], limits: &Limits) -> Result<String, String> {
    let mut sink = crate::truncate::SheetsStream::new(i64::MAX);
    sheets(&bytes, limits, &mut sink).map_err(|e| e.message)?;
    Ok(sink.finish().0)
}

const STYLES: &str = r#"<numFmts count="1"><numFmt numFmtId="164" formatCode="[h]:mm"/></numFmts><cellXfs count="3"><xf numFmtId="0"/><xf numFmtId="14"/><xf numFmtId="164"/></cellXfs>"#;

#[test]
fn values_render_as_the_reference_writes_them() {
    let rows = r#"<row r="1"><c r="A1" t="s"><v>0</v></c><c r="C1"><v>1.50</v></c><c r="D1" t="b"><v>1</v></c><c r="E1" s="1"><v>45000</v></c><c r="F1" s="2"><v>1.5</v></c></row><row r="3"><c r="B3"><f>A1*2</f><v>4</v></c><c r="C3" t="e"><v>#N/A</v></c><c r="D3"><v>1e20</v></c></row>"#;
    let bytes = book(rows, Some("<si><t>x \"y\"</t></si>"), Some(STYLES));
    assert_eq!(
        text_of(&bytes, &Limits::default()).as_deref(),
        Ok(concat!(
            "--- Sheet: Data ---\n",
            r#"R1: "x \"y\"" | [3]=1.5 | true | "2023-03-15T00:00:00" | "1 day, 12:00:00""#,
            "\n",
            r##"R3: [2]={"formula":"=A1*2","value":4} | "#N/A" | 100000000000000000000"##
        ))
    );
}

#[test]
fn rows_and_cells_follow_the_read_only_walk() {
    let rows = r#"<row r="5"><c r="A5"><v>5</v></c></row><row r="3"><c r="A3"><v>3</v></c></row><row><c><v>4</v></c></row><row r="6"><c><v>6</v></c><c r="C6"><v>7</v></c><c><v>8</v></c></row><row r="9"><c r="C9"><v>1</v></c><c r="A9"><v>2</v></c></row>"#;
    let bytes = book(rows, None, None);
    assert_eq!(
        text_of(&bytes, &Limits::default()).as_deref(),
        Ok("--- Sheet: Data ---\nR5: 5\nR6: 6 | [3]=7 | 8\nR9: 2")
    );
}

#[test]
fn a_missing_shared_string_part_is_refused() {
    let mut bytes = book(
        r#"<row r="1"><c r="A1"><v>1</v></c></row>"#,
        Some("<si><t>a</t></si>"),
        None,
    );
    // Drop the part but keep the manifest naming it.
    let ct = content_types(true);
    let wb = format!(
        r#"<workbook xmlns="{NS}" xmlns:r="{RNS}"><sheets><sheet name="S" sheetId="1" r:id="rId1"/></sheets></workbook>"#
    );
    bytes.clear();
    bytes.extend(zip_of(&[
        ("[Content_Types].xml", ct.as_bytes()),
        ("xl/workbook.xml", wb.as_bytes()),
    ]));
    let err = text_of(&bytes, &Limits::default()).expect_err("refused");
    assert!(err.starts_with("Failed to parse Excel: "), "{err}");
    assert!(err.contains("sharedStrings.xml"), "{err}");
}

#[test]
fn a_damaged_stylesheet_is_repaired_as_wegent_does() {
    let styles = r#"<fills><fill/></fills><cellXfs count="2"><xf numFmtId="0"/><xf numFmtId="14"/></cellXfs>"#;
    let bytes = book(
        r#"<row r="1"><c r="A1" s="1"><v>45000</v></c></row>"#,
        None,
        Some(styles),
    );
    // The repaired stylesheet has no date formats: the serial stays a number.
    assert_eq!(
        text_of(&bytes, &Limits::default()).as_deref(),
        Ok("--- Sheet: Data ---\nR1: 45000")
    );
}

#[test]
fn inflation_past_the_budget_is_refused() {
    let filler = " ".repeat(4 << 20);
    let rows = format!(r#"<row r="1"><c r="A1"><v>1</v></c></row>{filler}"#);
    let bytes = book(&rows, None, None);
    let limits = Limits {
        max_inflated_bytes: 1 << 20,
        ..Limits::default()
    };
    let err = text_of(&bytes, &limits).expect_err("over budget");
    assert!(err.contains("too large to preview"), "{err}");
}

#[test]
fn many_empty_styled_rows_cost_no_output_and_no_loop_over_gaps() {
    let mut rows = String::new();
    for i in 1..=200_000 {
        rows.push_str(&format!(r#"<row r="{i}" s="1" customFormat="1"/>"#));
    }
    rows.push_str(
        r#"<row r="1048576"><c r="XFD1048576" t="inlineStr"><is><t>corner</t></is></c></row>"#,
    );
    let bytes = book(&rows, None, None);
    assert_eq!(
        text_of(&bytes, &Limits::default()).as_deref(),
        Ok("--- Sheet: Data ---\nR1048576: [16384]=\"corner\"")
    );
}

#[test]
fn a_huge_shared_string_table_is_streamed() {
    let mut strings = String::new();
    for i in 0..100_000 {
        strings.push_str(&format!("<si><t>s{i}</t></si>"));
    }
    let bytes = book(
        r#"<row r="1"><c r="A1" t="s"><v>99999</v></c><c r="B1" t="s"><v>-1</v></c></row>"#,
        Some(&strings),
        None,
    );
    assert_eq!(
        text_of(&bytes, &Limits::default()).as_deref(),
        Ok("--- Sheet: Data ---\nR1: \"s99999\" | \"s99999\"")
    );
}

#[test]
fn entity_declarations_and_deep_nesting_are_refused() {
    let ct = content_types(false);
    let evil = format!(
        r#"<?xml version="1.0"?><!DOCTYPE workbook [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">]><workbook xmlns="{NS}"><sheets/></workbook>"#
    );
    let bytes = zip_of(&[
        ("[Content_Types].xml", ct.as_bytes()),
        ("xl/workbook.xml", evil.as_bytes()),
    ]);
    let err = text_of(&bytes, &Limits::default()).expect_err("entities");
    assert!(err.contains("declares entities"), "{err}");

    let deep = format!(
        r#"<row r="1"><c r="A1">{}{}</c></row>"#,
        "<x>".repeat(100_000),
        "</x>".repeat(100_000)
    );
    let err = text_of(&book(&deep, None, None), &Limits::default()).expect_err("deep");
    assert!(err.contains("nested deeper"), "{err}");
}

#[test]
fn row_numbers_past_machine_integers_are_kept() {
    let rows = r#"<row r="99999999999999999999"><c><v>1</v></c></row><row r="1"><c r="A123456789012345678901"><v>2</v></c></row>"#;
    assert_eq!(
        text_of(&book(rows, None, None), &Limits::default()).as_deref(),
        Ok("--- Sheet: Data ---\nR99999999999999999999: 1")
    );
}

#[test]
fn not_a_workbook_is_refused_with_the_prefix() {
    for bytes in [b"%PDF-1.4".to_vec(), Vec::new(), zip_of(&[("a.txt", b"x")])] {
        let err = text_of(&bytes, &Limits::default()).expect_err("refused");
        assert!(err.starts_with("Failed to parse Excel: "), "{err}");
    }
}
