//! Big uploads parse in bounded memory: the process's peak resident memory
//! (Linux's `VmHWM`, reset through `/proc/self/clear_refs` before each parse)
//! must grow far less than the document's inflated size while one large
//! generated document is parsed from a slice. The text must be the one the
//! whole-part parser produced (its digest, recorded from that parser on the
//! same generated document). One binary of its own, so no other test's
//! memory is counted; the measurements run one at a time.
#![cfg(target_os = "linux")]

use ctxguard_extract::{parse, Options};
use std::io::Write;
use std::sync::Mutex;

/// One test at a time, its input built and parsed alone (the peak is the process's).
static SERIAL: Mutex<()> = Mutex::new(());

/// A `/proc/self/status` figure in bytes.
fn status_bytes(key: &str) -> usize {
    let status = std::fs::read_to_string("/proc/self/status").expect("Linux has /proc");
    let kib: usize = status
        .lines()
        .find_map(|l| l.strip_prefix(key))
        .and_then(|rest| rest.split_whitespace().next()?.parse().ok())
        .expect("the field is there");
    kib * 1024
}

/// The text's digest, its length in bytes, and how far the resident peak rose.
fn measure(bytes: &[u8], extension: &str) -> (u64, usize, usize) {
    std::fs::write("/proc/self/clear_refs", "5").expect("the peak can be reset");
    let before = status_bytes("VmRSS:");
    let parsed = parse(&bytes, extension, &Options::default()).expect("the document parses");
    let peak = status_bytes("VmHWM:").saturating_sub(before);
    (fnv1a(parsed.text.as_bytes()), parsed.text.len(), peak)
}

fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// A deflated zip of `(name, bytes)` members.
fn zip_of(members: &[(&str, &[u8])]) -> Vec<u8> {
    let mut out = std::io::Cursor::new(Vec::new());
    let mut w = zip::ZipWriter::new(&mut out);
    let options = zip::write::SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Deflated);
    for (name, data) in members {
        w.start_file(*name, options).expect("an in-memory zip");
        w.write_all(data).expect("memory");
    }
    w.finish().expect("an in-memory zip");
    out.into_inner()
}

const NS: &str = "http://schemas.openxmlformats.org/spreadsheetml/2006/main";
const RNS: &str = "http://schemas.openxmlformats.org/officeDocument/2006/relationships";

/// A workbook of one sheet of `rows` rows (numbers, a shared string, an
/// inline string, a formula with its cached value) and `strings` shared strings.
fn workbook(rows: usize, strings: usize) -> (Vec<u8>, usize) {
    let ct = r#"<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/><Override PartName="/xl/sharedStrings.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sharedStrings+xml"/></Types>"#;
    let wb = format!(
        r#"<workbook xmlns="{NS}" xmlns:r="{RNS}"><sheets><sheet name="Big" sheetId="1" r:id="rId1"/></sheets></workbook>"#
    );
    let rels = format!(
        r#"<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="{RNS}/worksheet" Target="worksheets/sheet1.xml"/></Relationships>"#
    );
    let mut sheet = format!(r#"<worksheet xmlns="{NS}"><sheetData>"#);
    for i in 1..=rows {
        sheet.push_str(&format!(
            r#"<row r="{i}"><c r="A{i}"><v>{i}</v></c><c r="B{i}" t="s"><v>{}</v></c><c r="C{i}"><v>{}.25</v></c><c r="D{i}" t="inlineStr"><is><t>note {}</t></is></c><c r="E{i}"><f>A{i}*2</f><v>{}</v></c></row>"#,
            i % strings,
            i * 3,
            i % 1000,
            i * 2
        ));
    }
    sheet.push_str("</sheetData></worksheet>");
    let mut sst = format!(r#"<sst xmlns="{NS}">"#);
    for i in 0..strings {
        sst.push_str(&format!("<si><t>customer {i}</t></si>"));
    }
    sst.push_str("</sst>");
    let inflated = sheet.len() + sst.len();
    let zip = zip_of(&[
        ("[Content_Types].xml", ct.as_bytes()),
        ("xl/workbook.xml", wb.as_bytes()),
        ("xl/_rels/workbook.xml.rels", rels.as_bytes()),
        ("xl/worksheets/sheet1.xml", sheet.as_bytes()),
        ("xl/sharedStrings.xml", sst.as_bytes()),
    ]);
    (zip, inflated)
}

#[test]
fn a_big_workbook_parses_in_bounded_memory_to_the_same_text() {
    let _alone = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let (bytes, inflated) = workbook(110_000, 5_000);
    assert!(inflated > 20_000_000, "{inflated} bytes inflated");
    let (digest, text_bytes, peak) = measure(&bytes, ".xlsx");
    eprintln!("xlsx: {inflated} bytes inflated, text {text_bytes} bytes, peak {peak} bytes, digest {digest:016x}");
    assert_eq!(
        digest, XLSX_DIGEST,
        "the text differs from the whole-part parser's"
    );
    assert!(peak < 12 * 1024 * 1024, "peak {peak} bytes");
}

/// The whole-part parser's text of `workbook(110_000, 5_000)` (recorded before the sheets were streamed, when the parse peaked 222 MB above its start).
const XLSX_DIGEST: u64 = 0xe52c_c280_94f1_26b3;

#[test]
fn a_big_zip_is_listed_from_its_directory_alone() {
    let _alone = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let mut seed = 0x2545_f491_4f6c_dd1d_u64;
    let filler: Vec<u8> = (0..20_000_000)
        .map(|_| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed as u8
        })
        .collect();
    let names: Vec<String> = (0..2_000).map(|i| format!("dir/file{i}.txt")).collect();
    let mut members: Vec<(&str, &[u8])> = names.iter().map(|n| (n.as_str(), &b"x"[..])).collect();
    members.push(("big.bin", &filler));
    let bytes = zip_of(&members);
    let (_, text_bytes, peak) = measure(&bytes, ".zip");
    eprintln!(
        "zip: {} bytes, text {text_bytes} bytes, peak {peak} bytes",
        bytes.len()
    );
    assert!(peak < 1024 * 1024, "peak {peak} bytes");
}

/// A deck of `slides` slides, each a title of its own and bulky shapes
/// without text (so the XML is far larger than the text); the deck, its
/// inflated size and the slides' texts as python-pptx reads them.
fn deck(slides: usize) -> (Vec<u8>, usize, Vec<String>) {
    const P: &str = "http://schemas.openxmlformats.org/presentationml/2006/main";
    const A: &str = "http://schemas.openxmlformats.org/drawingml/2006/main";
    let ct_slide = "application/vnd.openxmlformats-officedocument.presentationml.slide+xml";
    let mut ct = String::from(
        r#"<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Override PartName="/ppt/presentation.xml" ContentType="application/vnd.openxmlformats-officedocument.presentationml.presentation.main+xml"/>"#,
    );
    let mut ids = String::new();
    let mut rels = String::from(
        r#"<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">"#,
    );
    let bulk = r#"<p:sp><p:nvSpPr><p:cNvPr id="9" name="Decoration"/><p:cNvSpPr/><p:nvPr/></p:nvSpPr><p:spPr><a:xfrm><a:off x="457200" y="274638"/><a:ext cx="8229600" cy="1143000"/></a:xfrm><a:prstGeom prst="rect"><a:avLst/></a:prstGeom></p:spPr></p:sp>"#.repeat(30);
    let mut xml = Vec::new();
    let mut texts = Vec::new();
    for n in 1..=slides {
        let title = format!("Slide {n} of the quarterly review, region {}", n % 7);
        ct.push_str(&format!(
            r#"<Override PartName="/ppt/slides/slide{n}.xml" ContentType="{ct_slide}"/>"#
        ));
        ids.push_str(&format!(r#"<p:sldId id="{}" r:id="rId{n}"/>"#, 255 + n));
        rels.push_str(&format!(
            r#"<Relationship Id="rId{n}" Type="{RNS}/slide" Target="slides/slide{n}.xml"/>"#
        ));
        xml.push((
            format!("ppt/slides/slide{n}.xml"),
            format!(
                r#"<p:sld xmlns:p="{P}" xmlns:a="{A}"><p:cSld><p:spTree>{bulk}<p:sp><p:nvSpPr/><p:spPr/><p:txBody><a:bodyPr/><a:p><a:r><a:t>{title}</a:t></a:r></a:p></p:txBody></p:sp></p:spTree></p:cSld></p:sld>"#
            ),
        ));
        texts.push(format!("--- Slide {n} ---\n{title}"));
    }
    ct.push_str("</Types>");
    rels.push_str("</Relationships>");
    let prs = format!(
        r#"<p:presentation xmlns:p="{P}" xmlns:r="{RNS}"><p:sldIdLst>{ids}</p:sldIdLst></p:presentation>"#
    );
    let package_rels = format!(
        r#"<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="{RNS}/officeDocument" Target="ppt/presentation.xml"/></Relationships>"#
    );
    let inflated = xml.iter().map(|(_, x)| x.len()).sum();
    let mut members: Vec<(&str, &[u8])> = vec![
        ("[Content_Types].xml", ct.as_bytes()),
        ("_rels/.rels", package_rels.as_bytes()),
        ("ppt/presentation.xml", prs.as_bytes()),
        ("ppt/_rels/presentation.xml.rels", rels.as_bytes()),
    ];
    members.extend(xml.iter().map(|(n, x)| (n.as_str(), x.as_bytes())));
    (zip_of(&members), inflated, texts)
}

#[test]
fn a_big_deck_is_read_one_slide_at_a_time() {
    let _alone = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let (bytes, inflated, texts) = deck(6_000);
    assert!(inflated > 40_000_000, "{inflated} bytes inflated");
    // No limit: the text is every slide's, which the generator knows.
    std::fs::write("/proc/self/clear_refs", "5").expect("the peak can be reset");
    let before = status_bytes("VmRSS:");
    let options = Options {
        max_text_length: i64::MAX,
        ..Options::default()
    };
    let parsed = parse(&bytes, ".pptx", &options).expect("the deck parses");
    let peak = status_bytes("VmHWM:").saturating_sub(before);
    eprintln!(
        "pptx: {inflated} bytes inflated, text {} bytes, peak {peak} bytes",
        parsed.text.len()
    );
    assert_eq!(parsed.text, texts.join("\n\n"));
    assert!(peak < 16 * 1024 * 1024, "peak {peak} bytes");
}

/// A Word document of `paragraphs` body paragraphs of about 300 characters
/// and a table of `rows` rows; the package and its inflated size.
fn word(paragraphs: usize, rows: usize) -> (Vec<u8>, usize) {
    const W: &str = "http://schemas.openxmlformats.org/wordprocessingml/2006/main";
    let ct = r#"<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>"#;
    let rels = format!(
        r#"<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="{RNS}/officeDocument" Target="word/document.xml"/></Relationships>"#
    );
    let mut doc = format!(r#"<w:document xmlns:w="{W}"><w:body>"#);
    for i in 0..paragraphs {
        doc.push_str(&format!(
            r#"<w:p><w:r><w:t>Paragraph {i}: {}</w:t></w:r></w:p>"#,
            "the quarterly ledger of the region and its notes. ".repeat(1 + i % 11)
        ));
    }
    doc.push_str("<w:tbl>");
    for i in 0..rows {
        doc.push_str(&format!(
            "<w:tr><w:tc><w:p><w:r><w:t>{i}</w:t></w:r></w:p></w:tc><w:tc><w:p><w:r><w:t>row {i} of the ledger</w:t></w:r></w:p></w:tc></w:tr>"
        ));
    }
    doc.push_str("</w:tbl></w:body></w:document>");
    let inflated = doc.len();
    let zip = zip_of(&[
        ("[Content_Types].xml", ct.as_bytes()),
        ("_rels/.rels", rels.as_bytes()),
        ("word/document.xml", doc.as_bytes()),
    ]);
    (zip, inflated)
}

#[test]
fn a_big_word_document_keeps_no_list_of_its_paragraphs() {
    let _alone = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let (bytes, inflated) = word(200_000, 20_000);
    assert!(inflated > 50_000_000, "{inflated} bytes inflated");
    let (digest, text_bytes, peak) = measure(&bytes, ".docx");
    eprintln!("docx: {inflated} bytes inflated, text {text_bytes} bytes, peak {peak} bytes, digest {digest:016x}");
    assert_eq!(
        digest, DOCX_DIGEST,
        "the text differs from the whole-list parser's"
    );
    // word/document.xml is read in a window as it inflates (73 MB peaked at
    // 73 MB while it was inflated whole, 6 MB streamed); the texts (nine
    // tenths of it) are neither listed nor joined.
    assert!(peak < 12 * 1024 * 1024, "peak {peak} bytes");
}

/// The whole-list parser's text of `word(200_000, 20_000)` (recorded before
/// the paragraphs were streamed, when the parse peaked 148 MB above its start).
const DOCX_DIGEST: u64 = 0x0696_73b9_1348_221d;

#[test]
fn a_big_text_that_is_not_utf8_is_decoded_by_chunks() {
    let _alone = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let log: String = (0..150_000)
        .map(|i| format!("2026-12-01 信息 第{i}号请求已处理，用户数据文件报告\n"))
        .collect();
    let (gbk, _, _) = encoding_rs::GBK.encode(&log);
    let gbk = gbk.into_owned();
    drop(log);
    assert!(gbk.len() > 7_000_000, "{} bytes", gbk.len());
    let (digest, text_bytes, peak) = measure(&gbk, ".txt");
    eprintln!(
        "gbk text: {} bytes, text {text_bytes} bytes, peak {peak} bytes",
        gbk.len()
    );
    // the same text, decoded at once and read as UTF-8, is the expected one
    let decoded = ctxguard_extract::decode::decode(&gbk);
    let expected = parse(&decoded.as_bytes(), ".txt", &Options::default()).expect("UTF-8 text");
    assert_eq!(digest, fnv1a(expected.text.as_bytes()), "the text differs");
    // held whole, the upload (some 8 MB) and its decoded text (UTF-8, half as
    // long again: some 12 MB) would exceed the bound by half
    assert!(peak < 12 * 1024 * 1024, "peak {peak} bytes");
}

#[test]
fn a_big_log_of_no_known_kind_is_named_and_read_as_a_stream() {
    let _alone = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let log: Vec<u8> = (0..250_000)
        .flat_map(|i| {
            format!(
                "2026-12-07 12:{:02}:{:02} GET /api/items/{i} 200 {}ms\n",
                i / 60 % 60,
                i % 60,
                i % 997
            )
            .into_bytes()
        })
        .collect();
    assert!(log.len() > 12_000_000, "{} bytes", log.len());
    let (digest, text_bytes, peak) = measure(&log, ".log");
    eprintln!(
        "log: {} bytes, text {text_bytes} bytes, peak {peak} bytes",
        log.len()
    );
    // sniffed as text, it is read by the text parser the known text extensions use
    let (expected, _, text_peak) = measure(&log, ".txt");
    eprintln!("the same as .txt: peak {text_peak} bytes");
    assert_eq!(digest, expected, "the text differs");
    // held whole, the upload alone would be half as much again as the bound
    assert!(peak < 8 * 1024 * 1024, "peak {peak} bytes");
}
