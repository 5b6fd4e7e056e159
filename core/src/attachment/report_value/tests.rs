//! The hand-written reader against the derived `Deserialize`: the same report
//! from a report's JSON, and the same verdict on every field of it deleted,
//! nulled or replaced by a value of each other JSON type.

use super::super::admission::{MessageRef, RefusalMessage};
use super::super::block::Inlined;
use super::super::files::{FileError, PreviewReport, PreviewRow, RowState, UploadTruncation};
use crate::value_fields::edits::{edited, paths};
use serde_json::{json, Value};

fn row(attachment_id: i64, state: RowState, inlined: Inlined) -> PreviewRow {
    PreviewRow {
        attachment_id,
        name: format!("file-{attachment_id}.txt"),
        mime_type: Some("text/plain".into()),
        size_bytes: 1234,
        state,
        error: None,
        upload_truncation: None,
        inlined,
        stored_chars: 1000,
        injected_chars: 900,
        capped: true,
        tokens: 250,
        allocation: 240,
        truncated: true,
    }
}

/// A report with every optional part present somewhere (an admission refusal with values
/// and a description, a backend refusal without one, an upload truncation) and every row state.
fn rich_report() -> PreviewReport {
    let admission = RefusalMessage {
        title: MessageRef {
            key: "chat:generate.attachment_limit_reached".into(),
            params: Default::default(),
        },
        description: Some(MessageRef {
            key: "chat:generate.max_attachments".into(),
            params: [("count", "3"), ("max", "2")].into_iter().collect(),
        }),
    };
    let mut refused = row(2, RowState::Rejected, Inlined::Nothing);
    refused.mime_type = None;
    refused.error = Some(FileError {
        code: "file_too_large".into(),
        message: "Material limit reached".into(),
        admission: Some(admission),
    });
    let mut legacy = row(3, RowState::Rejected, Inlined::Header);
    legacy.error = Some(FileError {
        code: "legacy_doc".into(),
        message: "Legacy .doc format is not fully supported. Please convert to .docx".into(),
        admission: None,
    });
    let mut kept_part = row(4, RowState::TruncatedOnUpload, Inlined::Text);
    kept_part.upload_truncation = Some(UploadTruncation {
        summary_message: "pages 1-3 and 9-10 kept".into(),
        original_length: 900_000,
        truncated_length: 500_000,
    });
    PreviewReport {
        model: "gpt-4o".into(),
        limit_tokens: 50_000,
        block_tokens_before: 1_200,
        block_tokens_after: 1_100,
        attachments: vec![
            row(1, RowState::Fits, Inlined::Text),
            refused,
            legacy,
            kept_part,
            row(5, RowState::Cut, Inlined::Text),
            row(6, RowState::Image, Inlined::Image),
            row(7, RowState::Binary, Inlined::Header),
            row(8, RowState::Scanned, Inlined::Text),
        ],
        rendered: "<attachment>\n...\n</attachment>".into(),
    }
}

fn derived(value: &Value) -> Option<PreviewReport> {
    serde_json::from_value(value.clone()).ok()
}

#[test]
fn a_report_reads_back_as_the_derive_reads_it() {
    let report = rich_report();
    let value = serde_json::to_value(&report).expect("a report serialises");
    assert_eq!(PreviewReport::from_value(&value), Some(report.clone()));
    assert_eq!(derived(&value), Some(report));
}

#[test]
fn every_field_deleted_nulled_or_retyped_reads_as_the_derive_reads_it() {
    let value = serde_json::to_value(rich_report()).expect("a report serialises");
    let all = paths(&value);
    assert!(all.len() > 130, "{} paths", all.len());
    let replacements = [
        json!(null),
        json!(true),
        json!(0),
        json!(-1),
        json!(1.5),
        json!(u64::MAX),
        json!(""),
        json!("fits"),
        json!("text"),
        json!({"fits": null}),
        json!({"image": null}),
        json!({"text": 1}),
        json!([]),
        json!({}),
        json!({"key": "k"}),
        json!({"key": "k", "params": {"count": 1}}),
    ];
    let (mut read, mut refused) = (0, 0);
    for path in &all {
        for new in replacements.iter().map(Some).chain([None]) {
            let v = edited(&value, path, new);
            let expected = derived(&v);
            assert_eq!(
                PreviewReport::from_value(&v),
                expected,
                "{path:?} set to {new:?}"
            );
            if expected.is_some() {
                read += 1;
            } else {
                refused += 1;
            }
        }
    }
    // Both verdicts are exercised, many times over.
    assert!(
        read > 250 && refused > 1000,
        "{read} read, {refused} refused"
    );
}

#[test]
fn unknown_fields_are_ignored_and_a_struct_as_an_array_is_refused() {
    let report = rich_report();
    let mut value = serde_json::to_value(&report).expect("a report serialises");
    value["extra"] = json!({"anything": [1, 2]});
    value["attachments"][0]["extra"] = json!(1);
    assert_eq!(PreviewReport::from_value(&value), Some(report.clone()));
    assert_eq!(derived(&value), Some(report));
    // The derive also reads a struct from an array of its fields in order; no writer of
    // reports makes one, and this reader refuses it.
    let mut as_array = serde_json::to_value(rich_report()).expect("a report serialises");
    as_array["attachments"][3]["upload_truncation"] = json!(["pages 1-3 kept", 9, 5]);
    assert!(derived(&as_array).is_some());
    assert_eq!(PreviewReport::from_value(&as_array), None);
}
