//! The body a chat backend publishes to the relay: one status event, or an
//! array of at most [`MAX_EVENTS_PER_BATCH`], all checked before any is kept.

use super::{EventError, StatusEvent, UniqueKeys};
use serde_json::Value;

/// Most events one publish request may carry.
pub const MAX_EVENTS_PER_BATCH: usize = 100;

/// Why a publish body was refused: the first bad event's index and field, when one is to blame.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct BatchError {
    /// Index of the first invalid event.
    pub index: Option<usize>,
    /// Its failing field (`phase`, `context_metrics.used_input_tokens`, …).
    pub field: Option<String>,
    /// What was wrong, naming the index and the field.
    pub message: String,
}

impl BatchError {
    fn whole(message: impl Into<String>) -> Self {
        BatchError {
            index: None,
            field: None,
            message: message.into(),
        }
    }

    fn event(index: usize, error: EventError) -> Self {
        let at = error
            .field
            .as_deref()
            .map(|f| format!(" (field {f})"))
            .unwrap_or_default();
        BatchError {
            index: Some(index),
            message: format!("event {index}{at}: {}", error.detail),
            field: error.field,
        }
    }
}

/// The events of a publish body (SSE or Wegent `chat:status_updated`
/// payloads), in order; all or nothing; a key named twice in one object
/// refuses the body, as every reader of status events does. O(body).
pub fn parse_event_batch(body: &[u8]) -> Result<Vec<StatusEvent>, BatchError> {
    let value = UniqueKeys::parse_slice(body)
        .map_err(|e| BatchError::whole(format!("invalid JSON: {e}")))?;
    let items = match value {
        Value::Array(items) if items.len() > MAX_EVENTS_PER_BATCH => {
            return Err(BatchError::whole(format!(
                "at most {MAX_EVENTS_PER_BATCH} events per request, got {}",
                items.len()
            )))
        }
        Value::Array(items) => items,
        object @ Value::Object(_) => vec![object],
        _ => {
            return Err(BatchError::whole(
                "the body must be one status event (a JSON object) or an array of them",
            ))
        }
    };
    items
        .iter()
        .enumerate()
        .map(|(index, item)| {
            StatusEvent::check_payload(item).map_err(|e| BatchError::event(index, e))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::budget::context_limits;
    use crate::protocol::{ContextMetricsSnapshot, Phase};
    use serde_json::json;

    fn payload() -> Value {
        let limits = context_limits("gpt-4o", None, None);
        let event = StatusEvent::new(
            "resp_1",
            Phase::AfterToolEnd,
            ContextMetricsSnapshot::from_used(5, &limits),
        );
        serde_json::to_value(event).expect("serialises")
    }

    fn refused(body: &Value) -> (Option<usize>, Option<String>, String) {
        let e = parse_event_batch(body.to_string().as_bytes()).expect_err("refused");
        (e.index, e.field, e.message)
    }

    #[test]
    fn one_event_an_array_and_the_wegent_shape() {
        let one = payload();
        assert_eq!(
            parse_event_batch(one.to_string().as_bytes())
                .expect("one")
                .len(),
            1
        );
        let mut wegent = one.clone();
        let map = wegent.as_object_mut().expect("object");
        map.remove("type");
        map.remove("response_id");
        map.insert("task_id".into(), json!(7));
        map.insert("subtask_id".into(), json!(42));
        let out = parse_event_batch(json!([one, wegent]).to_string().as_bytes()).expect("both");
        assert_eq!(out[1].response_id, "42");
        assert!(parse_event_batch(b"[]").expect("empty").is_empty());
        let exactly = Value::Array(vec![payload(); MAX_EVENTS_PER_BATCH]);
        assert_eq!(
            parse_event_batch(exactly.to_string().as_bytes())
                .expect("100")
                .len(),
            100
        );
    }

    #[test]
    fn names_the_index_and_the_field() {
        let good = payload();
        let mut negative = good.clone();
        negative["context_metrics"]["used_input_tokens"] = json!(-1);
        let (index, field, message) = refused(&json!([good, negative]));
        assert_eq!(
            (index, field.as_deref()),
            (Some(1), Some("context_metrics.used_input_tokens"))
        );
        assert!(
            message.starts_with("event 1 (field context_metrics.used_input_tokens): "),
            "{message}"
        );
        type Breakage = Box<dyn Fn(&mut Value)>;
        let cases: [(&str, Breakage); 6] = [
            ("phase", Box::new(|v| v["phase"] = json!("nope"))),
            (
                "context_metrics.target_limit",
                Box::new(|v| {
                    v["context_metrics"]
                        .as_object_mut()
                        .expect("o")
                        .remove("target_limit");
                }),
            ),
            (
                "context_metrics.context_window",
                Box::new(|v| v["context_metrics"]["context_window"] = json!("big")),
            ),
            ("type", Box::new(|v| v["type"] = json!("other"))),
            (
                "phase",
                Box::new(|v| {
                    v.as_object_mut().expect("o").remove("phase");
                }),
            ),
            (
                "context_compaction.created_at",
                Box::new(|v| {
                    v["phase"] = json!("summary_compact");
                    v["context_compaction"] = json!({"type": "summary_compact", "status": "started", "before_tokens": 1,
                    "trigger_limit": 1, "target_limit": 1, "used_legacy_fallback": false, "created_at": "yesterday"});
                }),
            ),
        ];
        for (field, break_it) in cases {
            let mut bad = payload();
            break_it(&mut bad);
            assert_eq!(refused(&bad).1.as_deref(), Some(field), "{bad}");
        }
    }

    /// A publish body naming a key twice is refused (it used to be read last-wins, so the relay
    /// stored what a reader would see differently), as `StatusEvent::parse` and the toolbar refuse
    /// the same text.
    #[test]
    fn a_publish_body_with_a_repeated_key_is_refused() {
        let text = payload().to_string();
        let repeated = text.replacen("\"phase\":", "\"phase\":\"turn_end\",\"phase\":", 1);
        assert_ne!(text, repeated);
        for body in [repeated.clone(), format!("[{text},{repeated}]")] {
            let e = parse_event_batch(body.as_bytes()).expect_err(&body);
            assert!(
                e.message.contains("duplicate field `phase`"),
                "{}",
                e.message
            );
            let data = StatusEvent::check_text(&repeated).expect_err("the same rule");
            assert!(data.detail.starts_with("duplicate field `phase`"), "{data}");
        }
    }

    #[test]
    fn refuses_bad_json_other_values_and_long_arrays() {
        for body in ["{", "", "42", "\"x\"", "null"] {
            let e = parse_event_batch(body.as_bytes()).expect_err(body);
            assert_eq!(e.index, None, "{body}");
        }
        let many = Value::Array(vec![payload(); MAX_EVENTS_PER_BATCH + 1]);
        let e = parse_event_batch(many.to_string().as_bytes()).expect_err("too many");
        assert!(e.message.contains("at most 100"), "{}", e.message);
    }
}
