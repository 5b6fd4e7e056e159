//! A status update as a client receives it (the toolbar reads every event
//! through this): the two shapes [`StatusEvent::from_payload`] reads, lenient
//! where the sender may be newer or sloppier than SPEC §4 and strict where the
//! data would mean nothing:
//! - a `phase` this version does not know is kept as sent ([`ReceivedPhase::Other`]);
//! - counts below 0 read as 0 and percentages above 100 as 100 (a Wegent backend
//!   over its window sends negative remainders);
//! - a missing or mistyped required field, a `type` other than
//!   `response.status.updated`, or a `created_at` that is not an ISO 8601 UTC time
//!   is refused, naming the field.
//!
//! The failing field is found by walking the fields once after a failure
//! ([`locate`]), not by `serde_path_to_error`, which costs a WebAssembly module
//! about 45 KB.

use super::event::{check_compaction, EventError};
use super::snapshot::ContextMetricsSnapshot;
use super::{ContextCompaction, ReceivedPhase, StatusEvent, UniqueKeys, EVENT_NAME};
use serde::Deserialize;
use serde_json::{Map, Value};

/// One status update as received, numbers clamped into range.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReceivedStatus {
    /// Id of the response (a Wegent payload's subtask id, else its task id).
    pub response_id: String,
    /// The phase, known or not.
    pub phase: ReceivedPhase,
    /// The snapshot, counts at least 0 and percentages at most 100.
    pub context_metrics: ContextMetricsSnapshot,
    /// The compaction record, when the update carries one (its token counts at least 0).
    pub context_compaction: Option<ContextCompaction>,
}

/// Why a received update was not applied.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ReceiveError {
    /// Another event type (`type` is not `response.status.updated`): not a status update.
    #[error("type {0} is not \"response.status.updated\"")]
    OtherType(String),
    /// A required field is missing or mistyped, or the text is not a JSON object.
    #[error(transparent)]
    Invalid(#[from] EventError),
}

#[derive(Deserialize)]
struct Wire {
    #[serde(rename = "type", default)]
    kind: Option<String>,
    #[serde(default)]
    response_id: Option<String>,
    #[serde(default)]
    task_id: Option<Value>,
    #[serde(default)]
    subtask_id: Option<Value>,
    phase: ReceivedPhase,
    context_metrics: ContextMetricsSnapshot,
    #[serde(default)]
    context_compaction: Option<ContextCompaction>,
}

/// At most 40 characters of `s`, quoted (error messages never carry a sender's megabytes).
fn quoted(s: &str) -> String {
    match s.char_indices().nth(40) {
        Some((end, _)) => format!("\"{}…\"", &s[..end]),
        None => format!("\"{s}\""),
    }
}

impl ReceivedStatus {
    /// Reads the JSON text of one update (an SSE `data:` field, or a payload as text);
    /// a key named twice in one object refuses it, as everywhere ([`UniqueKeys`]).
    pub fn from_text(data: &str) -> Result<Self, ReceiveError> {
        match serde_json::from_str::<UniqueKeys>(data) {
            // Taken apart, not copied; parsed again only to explain an error.
            Ok(UniqueKeys(value)) => Self::from_value(value, || {
                serde_json::from_str::<UniqueKeys>(data).map_or(Value::Null, |v| v.0)
            }),
            // A repeated key is a data error of valid JSON; anything else is not JSON.
            Err(e) if e.is_data() => Err(EventError::new(None, e.to_string()).into()),
            Err(e) => Err(EventError::new(None, format!("not JSON: {e}")).into()),
        }
    }

    /// Reads one update given as a JSON value.
    pub fn from_payload(payload: &Value) -> Result<Self, ReceiveError> {
        match Wire::deserialize(payload) {
            Ok(wire) => wire.into_received(),
            Err(error) => Err(explain(payload, &error.to_string())),
        }
    }

    /// [`ReceivedStatus::from_payload`] for a value it may take apart, so that no string is
    /// copied (an event may carry megabytes in one); `again` gives the value once more for
    /// the error message when a field is missing or mistyped.
    pub fn from_value(payload: Value, again: impl FnOnce() -> Value) -> Result<Self, ReceiveError> {
        match Wire::deserialize(payload) {
            Ok(wire) => wire.into_received(),
            Err(error) => Err(explain(&again(), &error.to_string())),
        }
    }

    /// The strict event of this update, when its phase is one of the five.
    pub fn to_event(&self) -> Option<StatusEvent> {
        Some(StatusEvent {
            kind: EVENT_NAME.into(),
            response_id: self.response_id.clone(),
            phase: self.phase.known()?,
            context_metrics: self.context_metrics.clone(),
            context_compaction: self.context_compaction.clone(),
        })
    }
}

/// The error of a payload serde refused: its other type, or its first bad field.
fn explain(payload: &Value, serde_message: &str) -> ReceiveError {
    let Some(object) = payload.as_object() else {
        return EventError::new(None, "expected a JSON object").into();
    };
    if let Some(kind) = object.get("type").and_then(Value::as_str) {
        if kind != EVENT_NAME {
            return ReceiveError::OtherType(quoted(kind));
        }
    }
    locate(object)
        .unwrap_or_else(|| EventError::new(None, serde_message.to_string()))
        .into()
}

impl Wire {
    fn into_received(self) -> Result<ReceivedStatus, ReceiveError> {
        let response_id = match self.kind {
            Some(kind) if kind != EVENT_NAME => return Err(ReceiveError::OtherType(quoted(&kind))),
            Some(_) => self.response_id.ok_or_else(|| {
                EventError::new(Some("response_id"), "missing field `response_id`")
            })?,
            None => match self.subtask_id.filter(|v| !v.is_null()).or(self.task_id) {
                Some(Value::String(s)) => s,
                Some(other) => other.to_string(),
                None => {
                    return Err(EventError::new(
                        Some("type"),
                        "needs \"type\" (an SSE payload) or \"task_id\"/\"subtask_id\" (a chat:status_updated payload)",
                    )
                    .into())
                }
            },
        };
        let mut compaction = self.context_compaction;
        if let Some(c) = &mut compaction {
            check_compaction(c)?;
            c.before_tokens = c.before_tokens.max(0);
            c.trigger_limit = c.trigger_limit.max(0);
            c.target_limit = c.target_limit.max(0);
            c.after_tokens = c.after_tokens.map(|a| a.max(0));
        }
        Ok(ReceivedStatus {
            response_id,
            phase: self.phase,
            context_metrics: clamped(self.context_metrics),
            context_compaction: compaction,
        })
    }
}

/// `m` with every count at least 0 and both percentages at most 100.
fn clamped(mut m: ContextMetricsSnapshot) -> ContextMetricsSnapshot {
    for count in [
        &mut m.context_window,
        &mut m.reserved_output_tokens,
        &mut m.available_input_tokens,
        &mut m.used_input_tokens,
        &mut m.remaining_input_tokens,
        &mut m.display_remaining_tokens,
        &mut m.trigger_limit,
        &mut m.target_limit,
    ] {
        *count = (*count).max(0);
    }
    m.remaining_percent = m.remaining_percent.clamp(0, 100);
    m.display_remaining_percent = m.display_remaining_percent.clamp(0, 100);
    m
}

#[derive(Clone, Copy)]
enum Kind {
    Int,
    Bool,
    Str,
    Object,
}

impl Kind {
    fn holds(self, v: &Value) -> bool {
        match self {
            Kind::Int => v.as_i64().is_some(),
            Kind::Bool => v.is_boolean(),
            Kind::Str => v.is_string(),
            Kind::Object => v.is_object(),
        }
    }

    fn name(self) -> &'static str {
        match self {
            Kind::Int => "an integer",
            Kind::Bool => "true or false",
            Kind::Str => "a string",
            Kind::Object => "an object",
        }
    }
}

const METRICS: &[(&str, Kind)] = &[
    ("context_window", Kind::Int),
    ("reserved_output_tokens", Kind::Int),
    ("available_input_tokens", Kind::Int),
    ("used_input_tokens", Kind::Int),
    ("remaining_input_tokens", Kind::Int),
    ("remaining_percent", Kind::Int),
    ("display_remaining_tokens", Kind::Int),
    ("display_remaining_percent", Kind::Int),
    ("trigger_limit", Kind::Int),
    ("target_limit", Kind::Int),
    ("is_over_trigger", Kind::Bool),
];

const BREAKDOWN: &[(&str, Kind)] = &[
    ("system", Kind::Int),
    ("user", Kind::Int),
    ("assistant", Kind::Int),
    ("tool_outputs", Kind::Int),
    ("attachments", Kind::Int),
    ("overhead", Kind::Int),
];

const COMPACTION: &[(&str, Kind)] = &[
    ("type", Kind::Str),
    ("status", Kind::Str),
    ("before_tokens", Kind::Int),
    ("trigger_limit", Kind::Int),
    ("target_limit", Kind::Int),
    ("used_legacy_fallback", Kind::Bool),
    ("created_at", Kind::Str),
];

const COMPACTION_OPTIONAL: &[(&str, Kind)] = &[
    ("after_tokens", Kind::Int),
    ("summary_message_id", Kind::Str),
    ("failure_reason", Kind::Str),
];

/// The first required field of `object` that is missing or of the wrong type (optional
/// ones may be absent or null), with what was wrong. O(fields).
fn locate(object: &Map<String, Value>) -> Option<EventError> {
    let top: &[(&str, Kind)] = if object.contains_key("type") {
        &[
            ("type", Kind::Str),
            ("response_id", Kind::Str),
            ("phase", Kind::Str),
            ("context_metrics", Kind::Object),
        ]
    } else {
        &[("phase", Kind::Str), ("context_metrics", Kind::Object)]
    };
    if let Some(e) = first_bad("", object, top, true) {
        return Some(e);
    }
    let metrics = object.get("context_metrics").and_then(Value::as_object)?;
    if let Some(e) = first_bad("context_metrics.", metrics, METRICS, true) {
        return Some(e);
    }
    if let Some(b) = metrics.get("breakdown").filter(|v| !v.is_null()) {
        let Some(b) = b.as_object() else {
            return Some(wrong("context_metrics.breakdown", Kind::Object));
        };
        if let Some(e) = first_bad("context_metrics.breakdown.", b, BREAKDOWN, true) {
            return Some(e);
        }
    }
    let c = object.get("context_compaction").filter(|v| !v.is_null())?;
    let Some(c) = c.as_object() else {
        return Some(wrong("context_compaction", Kind::Object));
    };
    if let Some(e) = first_bad("context_compaction.", c, COMPACTION, true)
        .or_else(|| first_bad("context_compaction.", c, COMPACTION_OPTIONAL, false))
    {
        return Some(e);
    }
    let status = c.get("status").and_then(Value::as_str).unwrap_or_default();
    if serde_json::from_value::<super::CompactionStatus>(Value::from(status)).is_err() {
        return Some(EventError::new(
            Some("context_compaction.status"),
            format!(
                "context_compaction.status {} is not started, in_progress, completed or fallback",
                quoted(status)
            ),
        ));
    }
    None
}

fn wrong(field: &str, kind: Kind) -> EventError {
    EventError::new(Some(field), format!("{field} must be {}", kind.name()))
}

fn first_bad(
    prefix: &str,
    object: &Map<String, Value>,
    fields: &[(&str, Kind)],
    required: bool,
) -> Option<EventError> {
    fields.iter().find_map(|&(name, kind)| {
        let field = format!("{prefix}{name}");
        match object.get(name) {
            None if required => Some(EventError::new(Some(&field), format!("{field} is missing"))),
            None => None,
            Some(Value::Null) if !required => None,
            Some(v) if kind.holds(v) => None,
            Some(_) => Some(wrong(&field, kind)),
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn good() -> Value {
        json!({"type": "response.status.updated", "response_id": "r", "phase": "summary_compact",
            "context_metrics": {"context_window": 100, "reserved_output_tokens": 10, "available_input_tokens": 90,
            "used_input_tokens": 95, "remaining_input_tokens": 0, "remaining_percent": 0,
            "display_remaining_tokens": 5, "display_remaining_percent": 5, "trigger_limit": 81,
            "target_limit": 63, "is_over_trigger": true},
            "context_compaction": {"type": "summary_compact", "status": "in_progress", "before_tokens": 95,
            "trigger_limit": 81, "target_limit": 63, "used_legacy_fallback": false,
            "created_at": "2026-06-23T14:55:34Z", "after_tokens": null}})
    }

    fn wegent(mut v: Value) -> Value {
        let map = v.as_object_mut().expect("object");
        map.remove("type");
        map.remove("response_id");
        map.insert("task_id".into(), 7.into());
        map.insert("subtask_id".into(), 42.into());
        v
    }

    /// One rule for repeated keys, also for keys the reader ignores: a key named twice is refused.
    #[test]
    fn a_received_update_with_a_repeated_key_is_refused() {
        let text = good().to_string();
        for repeated in [
            text.replacen("\"phase\":", "\"phase\":\"turn_end\",\"phase\":", 1),
            text.replacen("{", "{\"extra\":1,\"extra\":2,", 1),
        ] {
            let error = ReceivedStatus::from_text(&repeated).expect_err(&repeated);
            assert!(error.to_string().contains("duplicate"), "{error}");
            assert!(StatusEvent::parse(&repeated).is_err());
        }
        let error = ReceivedStatus::from_text("{not json").expect_err("not JSON");
        assert!(error.to_string().contains("not JSON"), "{error}");
    }

    #[test]
    fn in_range_updates_read_as_the_strict_parser_reads_them() {
        for v in [good(), wegent(good())] {
            let strict = StatusEvent::from_payload(&v).expect("valid");
            let received = ReceivedStatus::from_payload(&v).expect("valid");
            assert_eq!(received.to_event(), Some(strict.clone()), "{v}");
            let text = ReceivedStatus::from_text(&v.to_string()).expect("valid");
            assert_eq!(text, received);
            let taken = ReceivedStatus::from_value(v.clone(), || unreachable!()).expect("valid");
            assert_eq!(taken, received);
        }
    }

    #[test]
    fn unknown_phases_are_kept_as_sent() {
        let mut v = wegent(good());
        v["phase"] = json!("persisted");
        map_remove(&mut v, "context_compaction");
        let r = ReceivedStatus::from_payload(&v).expect("an unknown phase is no error");
        assert_eq!(r.phase, ReceivedPhase::Other("persisted".into()));
        assert_eq!(r.to_event(), None);
        assert_eq!(r.response_id, "42");
    }

    fn map_remove(v: &mut Value, key: &str) {
        v.as_object_mut().expect("object").remove(key);
    }

    #[test]
    fn out_of_range_numbers_are_clamped() {
        let mut v = good();
        let m = &mut v["context_metrics"];
        m["used_input_tokens"] = json!(140);
        m["remaining_input_tokens"] = json!(-50);
        m["remaining_percent"] = json!(-55);
        m["display_remaining_tokens"] = json!(-40);
        m["display_remaining_percent"] = json!(-40);
        v["context_compaction"]["before_tokens"] = json!(-1);
        let r = ReceivedStatus::from_payload(&v).expect("clamped, not refused");
        let m = &r.context_metrics;
        assert_eq!(m.used_input_tokens, 140);
        assert_eq!((m.remaining_input_tokens, m.remaining_percent), (0, 0));
        assert_eq!(
            (m.display_remaining_tokens, m.display_remaining_percent),
            (0, 0)
        );
        assert_eq!(r.context_compaction.expect("kept").before_tokens, 0);
        let mut v = good();
        v["context_metrics"]["display_remaining_percent"] = json!(140);
        let r = ReceivedStatus::from_payload(&v).expect("clamped");
        assert_eq!(r.context_metrics.display_remaining_percent, 100);
    }

    #[test]
    fn bad_fields_are_named() {
        let cases: Vec<(&str, Value, &str)> = vec![
            ("/phase", json!(3), "phase"),
            (
                "/context_metrics/used_input_tokens",
                json!("many"),
                "context_metrics.used_input_tokens",
            ),
            (
                "/context_metrics/used_input_tokens",
                json!(1.5),
                "context_metrics.used_input_tokens",
            ),
            (
                "/context_metrics/is_over_trigger",
                json!(1),
                "context_metrics.is_over_trigger",
            ),
            ("/context_metrics", json!(null), "context_metrics"),
            (
                "/context_compaction/status",
                json!("paused"),
                "context_compaction.status",
            ),
            (
                "/context_compaction/created_at",
                json!("yesterday"),
                "context_compaction.created_at",
            ),
            (
                "/context_compaction/after_tokens",
                json!("x"),
                "context_compaction.after_tokens",
            ),
            ("/response_id", json!(null), "response_id"),
        ];
        for (path, bad, field) in cases {
            let mut v = good();
            *v.pointer_mut(path).expect("a field") = bad;
            for result in [
                ReceivedStatus::from_payload(&v),
                ReceivedStatus::from_text(&v.to_string()),
                ReceivedStatus::from_value(v.clone(), || v.clone()),
            ] {
                match result {
                    Err(ReceiveError::Invalid(e)) => {
                        assert_eq!(e.field.as_deref(), Some(field), "{path}: {e}")
                    }
                    other => panic!("{path}: {other:?}"),
                }
            }
        }
        let mut v = good();
        map_remove(&mut v["context_metrics"], "target_limit");
        let e = ReceivedStatus::from_payload(&v).expect_err("missing");
        assert_eq!(e.to_string(), "context_metrics.target_limit is missing");
        let mut v = good();
        v["type"] = json!("x".repeat(1_000));
        let e = ReceivedStatus::from_text(&v.to_string()).expect_err("another type");
        assert!(matches!(e, ReceiveError::OtherType(_)));
        assert!(e.to_string().len() < 100, "{e}");
        for text in ["{not json", "null", "[1]", "{}"] {
            assert!(
                matches!(
                    ReceivedStatus::from_text(text),
                    Err(ReceiveError::Invalid(_))
                ),
                "{text}"
            );
        }
        let mut v = good();
        map_remove(&mut v, "type");
        assert_eq!(
            ReceivedStatus::from_payload(&v).expect_err("no ids").to_string(),
            "needs \"type\" (an SSE payload) or \"task_id\"/\"subtask_id\" (a chat:status_updated payload)"
        );
    }
}
