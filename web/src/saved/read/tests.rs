//! The hand-written reader against the derived `Deserialize`: the same record
//! from a saved record's JSON, and the same verdict on every field of it
//! deleted, nulled or replaced by a value of each other JSON type.

use super::super::{encode, SavedRecord, SavedToolbar};
use super::record;
use crate::machine::forecast::TurnForecast;
use crate::machine::history::HistoryEntry;
use crate::machine::run_clock::RunAnchor;
use crate::machine::turn_end::{Interruption, TurnEnd};
use ctxguard_core::protocol::{CompactionStatus, ContextState};
use ctxguard_core::value_fields::edits::{edited, paths};
use serde_json::{json, Value};

/// A record with every optional part present somewhere.
fn rich_record() -> Value {
    let state = ContextState::parse(
        r#"{"event_id":3,"phase":"final","context_metrics":{
      "context_window":100,"reserved_output_tokens":10,"available_input_tokens":90,"used_input_tokens":50,
      "remaining_input_tokens":40,"remaining_percent":44,"display_remaining_tokens":50,"display_remaining_percent":50,
      "trigger_limit":81,"target_limit":63,"is_over_trigger":false}}"#,
    )
    .expect("valid state");
    let mut forecast = TurnForecast::default();
    forecast.turn_started(10);
    forecast.turn_started(30);
    forecast.turn_started(45);
    let toolbar = SavedToolbar {
        state,
        history: vec![
            HistoryEntry {
                created_at: "2026-12-01T10:00:00Z".into(),
                status: CompactionStatus::Completed,
                before_tokens: 90,
                after_tokens: Some(40),
                saved_tokens: Some(50),
                reason: None,
                ended_ms: Some(1.5e12),
                duration_ms: Some(2500.5),
            },
            HistoryEntry {
                created_at: "2026-12-01T11:00:00Z".into(),
                status: CompactionStatus::Fallback,
                before_tokens: 95,
                after_tokens: None,
                saved_tokens: None,
                reason: Some("summary_compact_failed".into()),
                ended_ms: None,
                duration_ms: None,
            },
        ],
        forecast,
        run: Some(RunAnchor {
            created_at: "2026-12-01T12:00:00Z".into(),
            start_ms: 1.6e12,
        }),
        interrupted: Some(Interruption {
            created_at: "2026-12-01T12:00:00Z".into(),
            reason: Some(TurnEnd::Cancelled),
        }),
    };
    serde_json::from_str(&encode("demo", &toolbar, 1234.5)).expect("JSON")
}

fn derived(value: &Value) -> Option<SavedRecord> {
    serde_json::from_value(value.clone()).ok()
}

#[test]
fn a_saved_record_reads_back_as_the_derive_reads_it() {
    let value = rich_record();
    let read = record(&value).expect("a saved record");
    assert_eq!(Some(&read), derived(&value).as_ref());
    assert_eq!(read.toolbar.history.len(), 2);
    assert!(read.toolbar.run.is_some() && read.toolbar.interrupted.is_some());
}

#[test]
fn every_field_deleted_nulled_or_retyped_reads_as_the_derive_reads_it() {
    let value = rich_record();
    let all = paths(&value);
    assert!(all.len() >= 50, "{} paths", all.len());
    let replacements = [
        json!(null),
        json!(true),
        json!(0),
        json!(-1),
        json!(2.5),
        json!(u64::MAX),
        json!(""),
        json!("completed"),
        json!("done"),
        json!({"fallback": null}),
        json!({"error": null}),
        json!({"done": 1}),
        json!([]),
        json!([1, 2]),
        json!({}),
    ];
    let (mut read, mut refused) = (0, 0);
    for path in &all {
        let original = path.iter().fold(&value, |at, step| match step {
            Value::String(key) => &at[key.as_str()],
            index => &at[index.as_u64().expect("an index") as usize],
        });
        for new in replacements.iter().map(Some).chain([None]) {
            // The derive also reads a struct from an array of its fields in order (all of
            // the forecast's fields have defaults, so `[]` is one); no writer makes one, and
            // `Fields` refuses it (pinned below).
            if original.is_object() && new.is_some_and(Value::is_array) {
                continue;
            }
            let v = edited(&value, path, new);
            let expected = derived(&v);
            assert_eq!(record(&v), expected, "{path:?} set to {new:?}");
            if expected.is_some() {
                read += 1;
            } else {
                refused += 1;
            }
        }
    }
    // Both verdicts are exercised, many times over.
    assert!(
        read > 100 && refused > 500,
        "{read} read, {refused} refused"
    );
}

#[test]
fn a_struct_written_as_an_array_is_refused() {
    let mut value = rich_record();
    value["toolbar"]["forecast"] = json!([]);
    assert!(derived(&value).is_some(), "the derive takes it");
    assert_eq!(record(&value), None);
}
