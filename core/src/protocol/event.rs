//! The `response.status.updated` event: the JSON of one SSE `data:` field.

use super::snapshot::ContextMetricsSnapshot;
use super::{is_iso8601_utc, ContextCompaction, Phase, UniqueKeys, EVENT_NAME};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Why a status update was refused, and the field it failed on when one is to blame.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{detail}")]
pub struct EventError {
    /// The dotted path of the failing field (`phase`, `context_metrics.used_input_tokens`, …).
    pub field: Option<String>,
    /// What was wrong.
    pub detail: String,
}

impl EventError {
    pub(super) fn new(field: Option<&str>, detail: impl Into<String>) -> Self {
        EventError {
            field: field.map(str::to_string),
            detail: detail.into(),
        }
    }

    /// A deserialisation failure, with the path where it stopped (a missing
    /// field is named by its own path, not its parent's).
    fn from_serde<E: std::fmt::Display>(error: serde_path_to_error::Error<E>) -> Self {
        let path = error.path().to_string();
        let detail = error.inner().to_string();
        let missing = detail
            .strip_prefix("missing field `")
            .and_then(|rest| rest.split('`').next());
        let field = match (path.as_str(), missing) {
            (".", Some(m)) => Some(m.to_string()),
            (p, Some(m)) => Some(format!("{p}.{m}")),
            (".", None) => None,
            (p, None) => Some(p.to_string()),
        };
        EventError { field, detail }
    }
}

impl From<EventError> for crate::Error {
    fn from(e: EventError) -> Self {
        crate::Error::invalid("status event", e.detail)
    }
}

/// The JSON of one `data:` field.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StatusEvent {
    /// Always `response.status.updated`.
    #[serde(rename = "type")]
    pub kind: String,
    /// Id of the response being generated.
    pub response_id: String,
    /// When in the turn it was sent.
    pub phase: Phase,
    /// The snapshot.
    pub context_metrics: ContextMetricsSnapshot,
    /// Present on phase `summary_compact`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context_compaction: Option<ContextCompaction>,
}

impl StatusEvent {
    /// An event for `phase` carrying `metrics`.
    pub fn new(
        response_id: impl Into<String>,
        phase: Phase,
        metrics: ContextMetricsSnapshot,
    ) -> Self {
        StatusEvent {
            kind: EVENT_NAME.into(),
            response_id: response_id.into(),
            phase,
            context_metrics: metrics,
            context_compaction: None,
        }
    }

    /// Parses and validates the JSON text of one `data:` field.
    pub fn parse(data: &str) -> crate::Result<Self> {
        Ok(Self::check_text(data)?)
    }

    /// [`StatusEvent::parse`] with the failing field named.
    /// A key named twice in one object refuses the text (see [`UniqueKeys`]).
    pub fn check_text(data: &str) -> Result<Self, EventError> {
        let mut json = serde_json::Deserializer::from_str(data);
        let UniqueKeys(value) =
            serde_path_to_error::deserialize(&mut json).map_err(EventError::from_serde)?;
        json.end()
            .map_err(|e| EventError::new(None, e.to_string()))?;
        let event: StatusEvent =
            serde_path_to_error::deserialize(value).map_err(EventError::from_serde)?;
        event.check()?;
        Ok(event)
    }

    /// Parses one status update in either shape a host receives it in: the SSE
    /// payload above, or Wegent's Socket.IO `chat:status_updated` payload
    /// (`task_id`, `subtask_id`, `phase`, `context_metrics`,
    /// `context_compaction?`), whose `response_id` becomes its subtask id (its
    /// task id when it has none). Validated either way.
    pub fn from_payload(payload: &Value) -> crate::Result<Self> {
        Ok(Self::check_payload(payload)?)
    }

    /// [`StatusEvent::from_payload`] with the failing field named.
    pub fn check_payload(payload: &Value) -> Result<Self, EventError> {
        let object = payload
            .as_object()
            .ok_or_else(|| EventError::new(None, "expected a JSON object"))?;
        let event = if object.contains_key("type") {
            serde_path_to_error::deserialize::<_, StatusEvent>(payload)
                .map_err(EventError::from_serde)?
        } else {
            serde_path_to_error::deserialize::<_, WegentStatus>(payload)
                .map_err(EventError::from_serde)?
                .into_event()?
        };
        event.check()?;
        Ok(event)
    }

    /// [`StatusEvent::parse`] for a client that only needs to know whether to
    /// apply an event: the same checks, without naming the failing field (the
    /// path tracking costs a WebAssembly module about 45 KB, which the
    /// toolbar's size budget cannot pay).
    pub fn accept_text(data: &str) -> Option<Self> {
        let UniqueKeys(value) = serde_json::from_str(data).ok()?;
        let event = StatusEvent::deserialize(value).ok()?;
        event.check().ok()?;
        Some(event)
    }

    /// [`StatusEvent::from_payload`] likewise: either shape, the same mapping
    /// and checks, no field named.
    pub fn accept_payload(payload: &Value) -> Option<Self> {
        let object = payload.as_object()?;
        let event = if object.contains_key("type") {
            StatusEvent::deserialize(payload).ok()?
        } else {
            WegentStatus::deserialize(payload).ok()?.into_event().ok()?
        };
        event.check().ok()?;
        Some(event)
    }

    /// Checks the invariants the wire promises.
    pub fn validate(&self) -> crate::Result<()> {
        Ok(self.check()?)
    }

    /// [`StatusEvent::validate`] with the failing field named.
    pub fn check(&self) -> Result<(), EventError> {
        if self.kind != EVENT_NAME {
            return Err(EventError::new(
                Some("type"),
                format!("type must be \"{EVENT_NAME}\", got \"{}\"", self.kind),
            ));
        }
        check_metrics(&self.context_metrics)?;
        if let Some(compaction) = &self.context_compaction {
            check_compaction(compaction)?;
        }
        Ok(())
    }
}

/// Wegent's Socket.IO `chat:status_updated` payload.
#[derive(Deserialize)]
struct WegentStatus {
    #[serde(default)]
    task_id: Option<serde_json::Value>,
    #[serde(default)]
    subtask_id: Option<serde_json::Value>,
    phase: Phase,
    context_metrics: ContextMetricsSnapshot,
    #[serde(default)]
    context_compaction: Option<ContextCompaction>,
}

impl WegentStatus {
    /// The SSE event of this payload: its `response_id` is the subtask id (the task id when
    /// there is none).
    fn into_event(self) -> Result<StatusEvent, EventError> {
        let id = self
            .subtask_id
            .filter(|v| !v.is_null())
            .or(self.task_id)
            .ok_or_else(|| {
                EventError::new(
                    Some("type"),
                    "needs \"type\" (an SSE payload) or \"task_id\"/\"subtask_id\" (a chat:status_updated payload)",
                )
            })?;
        Ok(StatusEvent {
            kind: EVENT_NAME.into(),
            response_id: match id {
                Value::String(s) => s,
                other => other.to_string(),
            },
            phase: self.phase,
            context_metrics: self.context_metrics,
            context_compaction: self.context_compaction,
        })
    }
}

/// Every count of a snapshot is non-negative, as core computes them.
pub(super) fn check_metrics(metrics: &ContextMetricsSnapshot) -> Result<(), EventError> {
    let counts = [
        ("context_window", metrics.context_window),
        ("reserved_output_tokens", metrics.reserved_output_tokens),
        ("available_input_tokens", metrics.available_input_tokens),
        ("used_input_tokens", metrics.used_input_tokens),
        ("remaining_input_tokens", metrics.remaining_input_tokens),
        ("remaining_percent", metrics.remaining_percent),
        ("display_remaining_tokens", metrics.display_remaining_tokens),
        (
            "display_remaining_percent",
            metrics.display_remaining_percent,
        ),
        ("trigger_limit", metrics.trigger_limit),
        ("target_limit", metrics.target_limit),
    ];
    match counts.iter().find(|(_, v)| *v < 0) {
        Some((name, value)) => {
            let field = format!("context_metrics.{name}");
            let detail = format!("{field} must be ≥ 0, got {value}");
            Err(EventError::new(Some(&field), detail))
        }
        None => Ok(()),
    }
}

/// A compaction record's `created_at` is an ISO 8601 UTC time.
pub(super) fn check_compaction(compaction: &ContextCompaction) -> Result<(), EventError> {
    if is_iso8601_utc(&compaction.created_at) {
        return Ok(());
    }
    Err(EventError::new(
        Some("context_compaction.created_at"),
        format!(
            "context_compaction.created_at \"{}\" is not an ISO 8601 UTC time",
            compaction.created_at
        ),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every reader of an event's text refuses a key named twice, a known field's or an unknown
    /// one's, at the top or nested, so no two readers resolve it to different values (one rule;
    /// the relay's is in batch.rs).
    #[test]
    fn status_event_text_with_a_repeated_key_is_refused() {
        let data = r#"{"type":"response.status.updated","response_id":"r","phase":"after_tool_end",
          "context_metrics":{"context_window":100,"reserved_output_tokens":10,"available_input_tokens":90,"used_input_tokens":5,
          "remaining_input_tokens":85,"remaining_percent":94,"display_remaining_tokens":95,"display_remaining_percent":95,
          "trigger_limit":81,"target_limit":63,"is_over_trigger":false}}"#;
        assert!(StatusEvent::parse(data).is_ok() && StatusEvent::accept_text(data).is_some());
        for repeated in [
            data.replace(
                r#""phase":"after_tool_end","#,
                r#""phase":"after_tool_end","phase":"turn_end","#,
            ),
            data.replace(r#""phase":"#, r#""extra":1,"extra":2,"phase":"#),
            data.replace(
                r#""used_input_tokens":5,"#,
                r#""used_input_tokens":5,"used_input_tokens":5,"#,
            ),
        ] {
            let e = StatusEvent::check_text(&repeated).expect_err(&repeated);
            assert!(e.detail.starts_with("duplicate field `"), "{e}");
            assert_eq!(StatusEvent::accept_text(&repeated), None, "{repeated}");
        }
    }

    #[test]
    fn parses_events_ignoring_unknown_fields() {
        let data = r#"{"type":"response.status.updated","response_id":"resp_1","phase":"summary_compact","extra":1,
          "context_metrics":{"context_window":100,"reserved_output_tokens":10,"available_input_tokens":90,"used_input_tokens":95,
          "remaining_input_tokens":0,"remaining_percent":0,"display_remaining_tokens":5,"display_remaining_percent":5,
          "trigger_limit":81,"target_limit":63,"is_over_trigger":true},
          "context_compaction":{"type":"summary_compact","status":"in_progress","before_tokens":95,"trigger_limit":81,
          "target_limit":63,"used_legacy_fallback":false,"created_at":"2026-06-23T14:55:34Z"}}"#;
        let e = StatusEvent::parse(data).expect("valid event");
        assert!(e
            .context_compaction
            .expect("present")
            .status
            .is_compacting());
        assert!(
            StatusEvent::parse(&data.replace("summary_compact\",\"extra", "nope\",\"extra"))
                .is_err()
        );
        let sse: serde_json::Value = serde_json::from_str(data).expect("json");
        assert_eq!(
            StatusEvent::from_payload(&sse).expect("an SSE payload"),
            StatusEvent::parse(data).expect("valid")
        );
        let mut wegent = sse.clone();
        let map = wegent.as_object_mut().expect("object");
        map.remove("type");
        map.remove("response_id");
        map.insert("task_id".into(), 7.into());
        map.insert("subtask_id".into(), 42.into());
        let event = StatusEvent::from_payload(&wegent).expect("a chat:status_updated payload");
        assert_eq!(event.response_id, "42");
        assert_eq!(event.kind, EVENT_NAME);
        map_remove(&mut wegent, "subtask_id");
        assert_eq!(
            StatusEvent::from_payload(&wegent)
                .expect("task id only")
                .response_id,
            "7"
        );
        map_remove(&mut wegent, "task_id");
        assert!(StatusEvent::from_payload(&wegent).is_err());
        assert!(StatusEvent::from_payload(&serde_json::json!([1])).is_err());
    }

    fn map_remove(value: &mut serde_json::Value, key: &str) {
        value.as_object_mut().expect("object").remove(key);
    }

    #[test]
    fn accept_agrees_with_parse_and_from_payload() {
        let good = serde_json::json!({"type": "response.status.updated", "response_id": "r", "phase": "final",
            "context_metrics": {"context_window": 100, "reserved_output_tokens": 10, "available_input_tokens": 90,
            "used_input_tokens": 5, "remaining_input_tokens": 85, "remaining_percent": 94,
            "display_remaining_tokens": 95, "display_remaining_percent": 95, "trigger_limit": 81,
            "target_limit": 63, "is_over_trigger": false}});
        let mut variants = vec![good.clone()];
        let mut wegent = good.clone();
        map_remove(&mut wegent, "type");
        map_remove(&mut wegent, "response_id");
        wegent["subtask_id"] = serde_json::Value::Null;
        wegent["task_id"] = "t-9".into();
        variants.push(wegent.clone());
        map_remove(&mut wegent, "task_id");
        variants.push(wegent);
        for (path, bad) in [
            ("/phase", serde_json::json!("nope")),
            ("/type", serde_json::json!("other")),
            ("/context_metrics/used_input_tokens", serde_json::json!(-1)),
            ("/context_metrics/used_input_tokens", serde_json::json!(1.5)),
            ("/context_metrics", serde_json::json!(null)),
        ] {
            let mut v = good.clone();
            *v.pointer_mut(path).expect("a field of the event") = bad;
            variants.push(v);
        }
        variants.extend([
            serde_json::json!([1]),
            serde_json::json!("x"),
            serde_json::json!({}),
        ]);
        for v in &variants {
            assert_eq!(
                StatusEvent::accept_payload(v),
                StatusEvent::from_payload(v).ok(),
                "{v}"
            );
            let text = v.to_string();
            assert_eq!(
                StatusEvent::accept_text(&text),
                StatusEvent::parse(&text).ok(),
                "{text}"
            );
        }
        assert!(StatusEvent::accept_payload(&variants[1]).is_some());
        assert_eq!(StatusEvent::accept_text("{} trailing"), None);
    }
}
