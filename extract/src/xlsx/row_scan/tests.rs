//! The scanner against the parser: generated sheets in every form the scanner
//! reads and every form it leaves to the parser, read both ways through
//! windows cut at every size, must give the same rows, cells and errors.

use super::super::dates::Epoch;
use super::super::pynum::PyInt;
use super::super::sheet::{self, Cell, Context, RowPath, MAIN};
use super::super::strings::{self, SharedStrings};
use super::super::styles::Formats;
use super::super::xml::{with_reader, XmlError};
use super::super::xml_stream::with_window_reader;
use proptest::prelude::*;

/// What reading a sheet gave: the rows handed out, then the outcome (the
/// cached-value pass's error, or the sheet's) and how many rows were scanned.
#[derive(Debug, PartialEq)]
struct Outcome {
    rows: Vec<(PyInt, Vec<Cell>)>,
    result: Result<Option<String>, String>,
}

fn strings() -> SharedStrings {
    let xml = format!(
        r#"<sst xmlns="{MAIN}"><si><t>zero</t></si><si><t>one &amp; "1"</t></si><si><r><t>tw</t></r><r><t>o</t></r></si></sst>"#
    );
    with_reader("s.xml", xml.as_bytes(), 64, |r| {
        strings::read(r).map_err(|e| XmlError(e.0))
    })
    .expect("a string table")
}

fn formats() -> Formats {
    let mut f = Formats::default();
    f.dates.extend([1, 2]);
    f.timedeltas.insert(2);
    f
}

/// Reads `xml` with `path`, through a `capacity`-byte window (`None`: as one slice).
fn read(xml: &str, path: RowPath, capacity: Option<usize>) -> (Outcome, u64) {
    let (strings, formats) = (strings(), formats());
    let ctx = Context {
        strings: &strings,
        formats: &formats,
        epoch: Epoch::Windows,
        rows: path,
    };
    let mut rows = Vec::new();
    let mut scanned = 0;
    let walk = |r: &mut super::super::xml::Reader<'_>| {
        let sheet = sheet::read("sheet1.xml", r, &ctx, &mut |n, cells| {
            rows.push((n.clone(), cells));
            Ok(())
        })
        .map_err(|e| XmlError(e.0))?;
        scanned = sheet.scanned_rows;
        Ok(sheet.cached_error)
    };
    let result = match capacity {
        Some(c) => with_window_reader("sheet1.xml", xml.as_bytes(), c, 24, walk),
        None => with_reader("sheet1.xml", xml.as_bytes(), 24, walk),
    };
    let outcome = Outcome {
        rows,
        result: result.map_err(|e| e.0),
    };
    (outcome, scanned)
}

/// Reads `xml` both ways at several window sizes and row bounds, asserting
/// they agree; the scanned row count with a large window and no row bound.
fn agree(xml: &str) -> u64 {
    let (reference, none) = read(xml, RowPath::Parsed, None);
    assert_eq!(none, 0);
    let mut scanned_whole = 0;
    for capacity in [
        Some(1),
        Some(2),
        Some(3),
        Some(5),
        Some(8),
        Some(13),
        Some(64),
        Some(4096),
        None,
    ] {
        for max_row_bytes in [16, 40, 1 << 20] {
            let (got, scanned) = read(xml, RowPath::Scanned { max_row_bytes }, capacity);
            assert_eq!(
                got, reference,
                "window {capacity:?}, rows up to {max_row_bytes} bytes, on\n{xml}"
            );
            if capacity == Some(4096) && max_row_bytes == 1 << 20 {
                scanned_whole = scanned;
            }
        }
    }
    scanned_whole
}

fn sheet(rows: &str) -> String {
    format!(
        r#"<?xml version="1.0" encoding="UTF-8"?>
<worksheet xmlns="{MAIN}" xmlns:x14ac="urn:x14ac"><dimension ref="A1:C3"/><sheetData>{rows}</sheetData><pageMargins left="0.7" right="0.7" top="0.75" bottom="0.75" header="0.3" footer="0.3"/></worksheet>"#
    )
}

#[test]
fn writers_forms_are_scanned_and_read_as_the_parser_reads_them() {
    let rows = concat!(
        r#"<row r="1" spans="1:3" x14ac:dyDescent="0.25"><c r="A1" t="s"><v>1</v></c><c r="B1" s="1"><v>45000.5</v></c><c r="C1" s="2"><v>1.25</v></c></row>"#,
        "\n  ",
        r#"<row r="2"><c r="A2" t="inlineStr"><is><t xml:space="preserve"> a &amp; b&#10;&lt;c&gt; é中 </t></is></c><c r="B2" t="b"><v>0</v></c><c r="C2" t="e"><v>#N/A</v></c></row>"#,
        r#"<row r='3' ><c r='A3' t='str' ><f>CONCAT("a","b")</f><v>ab</v></c><c r="B3"><f t="shared" ref="B3:B4" si="0">A3*2</f><v>4</v></c><c r="C3"><f t="array" ref="C3:C4">SUM(A1:A2)</f><v>1</v></c></row>"#,
        r#"<row r="4"><c r="B4"><f t="shared" si="0"/><v>6</v></c><c r="C4" s="0"/><c r="D4" t="inlineStr"><is><r><t>x</t></r><r><t xml:space="preserve"> y</t></r></is></c></row>"#,
        r#"<row r="5"/><row><c><v>7</v></c><c><v>-1E3</v></c><c t="d"><v>2024-02-29T10:11:12</v></c></row>"#,
        "<row\n r=\"8\"\t><c\r\n r=\"A8\"\n/><c r=\"B8\" t=\"str\"><v>l1\r\nl2\rl3</v></c><c r=\"C8\"   ><v/></c></row>",
        r#"<row r="9"><c r="A9" t="s"><v>-1</v></c><c r="B9"><v>&#49;&#x32;</v></c><c r="C9" t="inlineStr"><is/></c></row>"#,
    );
    let xml = sheet(rows);
    assert_eq!(agree(&xml), 8, "every row is scanned");
    let (outcome, _) = read(&xml, RowPath::default(), Some(4096));
    assert_eq!(outcome.result, Ok(None));
    assert_eq!(outcome.rows.len(), 7, "{:?}", outcome.rows);
}

#[test]
fn rows_the_scanner_cannot_read_exactly_go_to_the_parser() {
    let triggers = [
        r#"<row r="2"><!-- a comment --><c r="A2"><v>1</v></c></row>"#,
        r#"<row r="2"><c r="A2"><v><![CDATA[5]]></v></c></row>"#,
        r#"<row r="2"><?pi x?><c r="A2"><v>1</v></c></row>"#,
        r#"<row r="2"><x14ac:c r="A2"><v>1</v></x14ac:c></row>"#,
        r#"<row r="2" xmlns:y="urn:y"><c r="A2" y:z="1"><v>1</v></c></row>"#,
        r#"<row r="2"><c r="A2"><foo/><v>1</v></c></row>"#,
        r#"<row r="2"><c r="A2"><f t="dataTable" ref="A2:B3" dt2D="1" r1="A1">x</f><v>1</v></c></row>"#,
        r#"<row r="2"><c r="A2" t="inlineStr"><is><r><rPr><b/><sz val="11"/></rPr><t>bold</t></r></is></c></row>"#,
        r#"<row r="2"><c r="A2" t="inlineStr"><is><t>a</t><rPh sb="0" eb="1"><t>x</t></rPh></is></c></row>"#,
        r#"<row r="2"><c r="A2"><v>1</v><v>2</v></c></row>"#,
        r#"<row r="2"><c r="A2" r="B2"><v>1</v></c></row>"#,
        r#"<row r="2"><c r="A2" q:z="1"><v>1</v></c></row>"#,
        r#"<row r="2"><c r="A2"><v>1&bogus;</v></c></row>"#,
        r#"<row r="2"><c r="A2"><v>1&#0;</v></c></row>"#,
        r#"<row r="2"><c r="A2"><v>]]></v></c></row>"#,
        r#"<row r="2"><c r="A2" s="1>"><v>1</v></c></row>"#,
        r#"<row r="2"><c r="A2" s = "1"><v>1</v></c></row>"#,
        r#"<row r="2"><c r="A2"s="1"><v>1</v></c></row>"#,
        r#"<row r="2">junk<c r="A2"><v>1</v></c></row>"#,
        r#"<row r="2"><c r="A2"><v>1</v></c></row >"#,
        r#"<row r="2"><c r="A2"><v>1</c></row>"#,
        r#"<row r="2"><c r="A2"><v>1</v></c>"#,
        r#"<row r="x"><c r="A2"><v>1</v></c></row>"#,
        r#"<row r="2"><c r="A2" t="inlineStr"><is foo="1"><t>a</t></is></c></row>"#,
        "<row r=\"2\"><c r=\"A2\"><v>\u{1}</v></c></row>",
    ];
    for trigger in triggers {
        let rows = format!(
            r#"<row r="1"><c r="A1"><v>1</v></c></row>{trigger}<row r="3"><c r="A3"><v>3</v></c></row><row r="4"><c r="A4"><v>4</v></c></row>"#
        );
        let scanned = agree(&sheet(&rows));
        let (outcome, _) = read(&sheet(&rows), RowPath::Parsed, None);
        if outcome.result.is_ok() {
            assert_eq!(scanned, 3, "the rows around {trigger} are scanned");
        }
    }
}

#[test]
fn sheets_the_scanner_stays_out_of_are_read_by_the_parser_alone() {
    let row = r#"<row r="1"><c r="A1"><v>1</v></c></row>"#;
    let other_default = format!(
        r#"<m:worksheet xmlns:m="{MAIN}" xmlns="urn:other"><m:sheetData>{row}</m:sheetData></m:worksheet>"#
    );
    let prefixed = format!(
        r#"<m:worksheet xmlns:m="{MAIN}"><m:sheetData><m:row r="1"><m:c r="A1"><m:v>1</m:v></m:c></m:row></m:sheetData></m:worksheet>"#
    );
    let deep = format!(
        r#"<worksheet xmlns="{MAIN}">{}<sheetData>{row}</sheetData>{}</worksheet>"#,
        "<a>".repeat(19),
        "</a>".repeat(19)
    );
    let redeclared = format!(
        r#"<worksheet xmlns="{MAIN}"><sheetData xmlns="urn:other">{row}</sheetData></worksheet>"#
    );
    for xml in [other_default, prefixed, deep, redeclared] {
        assert_eq!(agree(&xml), 0, "{xml}");
    }
    let empty = format!(r#"<worksheet xmlns="{MAIN}"><sheetData/>{row}</worksheet>"#);
    agree(&empty);
}

#[test]
fn rows_past_the_cell_and_run_bounds_go_to_the_parser() {
    let wide = "<c><v>1</v></c>".repeat(super::MAX_CELLS + 1);
    let runs = "<r><t>x</t></r>".repeat(super::MAX_RUNS + 1);
    let rows = format!(
        r#"<row r="1">{wide}</row><row r="2"><c r="A2" t="inlineStr"><is>{runs}</is></c></row><row r="3"><c r="A3"><v>3</v></c></row>"#
    );
    let xml = sheet(&rows);
    let (reference, _) = read(&xml, RowPath::Parsed, None);
    let (got, scanned) = read(&xml, RowPath::default(), Some(4096));
    assert_eq!(got, reference);
    assert_eq!(got.rows.len(), 3);
    assert_eq!(scanned, 1, "only the third row is scanned");
}

#[test]
fn rows_past_the_bound_go_to_the_parser() {
    let long = "x".repeat(200);
    let rows = format!(
        r#"<row r="1"><c r="A1" t="inlineStr"><is><t>{long}</t></is></c></row><row r="2"><c r="A2"><v>2</v></c></row>"#
    );
    let xml = sheet(&rows);
    let (reference, _) = read(&xml, RowPath::Parsed, None);
    let (got, scanned) = read(&xml, RowPath::Scanned { max_row_bytes: 100 }, Some(16));
    assert_eq!(got, reference);
    assert_eq!(scanned, 1);
}

/// Values by data type, each list valid for its type (so most generated
/// sheets read to their end), and some valid for none.
const TYPED_VALUES: [(&str, &[&str]); 8] = [
    (
        "",
        &[
            "1", "-2.5", "1e3", "007", " 12 ", "1_000", "45000", "1.5", "0", "&#49;",
        ],
    ),
    (" t=\"n\"", &["3", "-0", "2.25E-3"]),
    (" t=\"s\"", &["0", "1", "2", "-1"]),
    (" t=\"b\"", &["0", "1"]),
    (
        " t=\"str\"",
        &[
            "ab",
            "x\r\ny",
            "a&#13;b",
            "&amp;&lt;&gt;",
            "  ",
            "é中",
            "a&gt;b",
        ],
    ),
    (" t=\"e\"", &["#N/A", "#DIV/0!"]),
    (" t=\"d\"", &["2024-01-02", "2024-01-02T03:04:05"]),
    (" t=\"inlineStr\"", &["ignored"]),
];
const BAD_VALUES: [&str; 4] = ["abc", "", "9", "1&#0;"];

/// One generated cell: its form, type and value.
fn cell_xml() -> impl Strategy<Value = String> {
    let s = prop::sample::select(vec![
        "", " s=\"0\"", " s=\"1\"", " s=\"2\"", " s=\"x\"", " s=\"\"",
    ]);
    let value = (0..TYPED_VALUES.len(), any::<prop::sample::Index>(), 0..20u8);
    (value, s, 0..12u8, any::<bool>()).prop_map(|((kind, pick, bad), s, form, with_r)| {
        let (t, values) = TYPED_VALUES[kind];
        let value = if bad == 0 {
            BAD_VALUES[pick.index(BAD_VALUES.len())]
        } else {
            values[pick.index(values.len())]
        };
        let s = if bad == 1 { s } else { "" };
        let r = if with_r { " r=\"{R}\"" } else { "" };
        match form {
            0 => format!("<c{r}{t}{s}><v>{value}</v></c>"),
            1 => format!("<c{r}{t}{s}/>"),
            2 => format!("<c{r} t=\"inlineStr\"{s}><is><t>{value}</t></is></c>"),
            3 => format!("<c{r} t=\"inlineStr\"><is><r><t>{value}</t></r><t>p</t><r/></is></c>"),
            4 => format!("<c{r}{t}><f>A1+{value}</f><v>{value}</v></c>"),
            5 => format!(
                "<c{r}><f t=\"shared\" ref=\"A1:C9\" si=\"{}\">B1*2</f><v>1</v></c>",
                value.len() % 2
            ),
            6 => format!(
                "<c{r}><f t=\"shared\" si=\"{}\"/><v>{value}</v></c>",
                value.len() % 3
            ),
            7 => format!("<c{r}><f t=\"array\" ref=\"A1:A2\">{value}</f></c>"),
            8 => format!("<c{r}{t}{s}>\n <v>{value}</v>\n</c>"),
            9 => format!("<c{r}{t}><!--c--><v>{value}</v></c>"),
            10 => format!("<c{r}{t} x14ac:a='{value}'><v>{value}</v></c>"),
            _ => format!("<c{r}{t}><v>{value}</v><f/><v>9</v></c>"),
        }
    })
}

fn column(i: usize) -> String {
    let letters = ["A", "B", "C", "D", "E", "F", "AA", "XFD", "a"];
    letters[i % letters.len()].to_string()
}

fn sheet_xml() -> impl Strategy<Value = String> {
    let row = (
        prop::collection::vec((cell_xml(), 0..9usize), 0..5),
        prop::sample::select(vec![
            "",
            " r=\"{N}\"",
            " r=\"{N}.0\"",
            " r=\"0\"",
            " spans=\"1:2\" r=\"{N}\"",
        ]),
        0..8u8,
    );
    prop::collection::vec(row, 0..7).prop_map(|rows| {
        let mut out = String::new();
        for (n, (cells, r, form)) in rows.into_iter().enumerate() {
            let number = (n * 7 % 5 + 1).to_string();
            let r = r.replace("{N}", &number);
            if cells.is_empty() || form == 0 {
                out.push_str(&format!("<row{r}/>"));
                continue;
            }
            out.push_str(&format!("<row{r}>"));
            for (cell, col) in cells {
                let coordinate =
                    format!("{}{}", column(col), if form == 1 { "7" } else { &number });
                out.push_str(&cell.replace("{R}", &coordinate));
                if form == 2 {
                    out.push_str("\r\n\t");
                }
            }
            out.push_str(if form == 3 { "</row >" } else { "</row>" });
        }
        sheet(&out)
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn noncharacters_are_found_as_decoding_finds_them(
        chars in prop::collection::vec(prop::sample::select(vec![
            'a', 'é', '中', '\u{ef}', '\u{fffd}', '\u{fffe}', '\u{ffff}', '\u{10000}', '\u{feff}', '\u{10ffff}',
        ]), 0..12)
    ) {
        let text: String = chars.into_iter().collect();
        prop_assert_eq!(
            super::has_noncharacter(&text),
            !text.chars().all(super::super::xml::is_xml_char)
        );
    }

    #[test]
    fn generated_sheets_read_the_same_both_ways(xml in sheet_xml()) {
        agree(&xml);
    }
}
