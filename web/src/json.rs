//! JSON text to and from Rust values, always through a [`serde_json::Value`]:
//! the WebAssembly module then carries one serializer's and one
//! deserializer's code for every type (the `Value` ones, which the events and
//! `state` need anyway, see `js_text`), not one per kind of reader and writer.
//! Every record read or written this way is small (the saved state, a
//! `/context` body, a preview request).

use ctxguard_core::attachment::PreviewReport;
use ctxguard_core::protocol::{ContextState, UniqueKeys};
use serde::de::DeserializeOwned;
use serde::Serialize;

/// The JSON text of `value` (`null` when it has none).
pub fn to_text<T: Serialize + ?Sized>(value: &T) -> String {
    serde_json::to_value(value).unwrap_or_default().to_string()
}

/// `text` read as a `T`, `None` when it is not JSON, names a key twice in one object (the
/// one rule, [`UniqueKeys`]), or is not a `T`.
pub fn from_text<T: DeserializeOwned>(text: &str) -> Option<T> {
    let UniqueKeys(value) = serde_json::from_str(text).ok()?;
    serde_json::from_value(value).ok()
}

/// A `/context` body, read and checked as `ContextState::parse` does.
pub fn context_state(text: &str) -> Option<ContextState> {
    from_text::<ContextState>(text).filter(|s| s.validate().is_ok())
}

/// `text` read by `read`, a reader written by hand over its [`serde_json::Value`] (where a
/// type's derived `Deserialize` is too big for this module), under the one rule of
/// [`from_text`].
pub fn read_text<T>(text: &str, read: impl FnOnce(&serde_json::Value) -> Option<T>) -> Option<T> {
    let UniqueKeys(value) = serde_json::from_str(text).ok()?;
    read(&value)
}

/// A preview report as the worker writes it, read by core's hand-written
/// [`PreviewReport::from_value`] (the report's derived `Deserialize` would add its nine
/// types' visitors to this module).
pub fn preview_report(text: &str) -> Option<PreviewReport> {
    read_text(text, PreviewReport::from_value)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;

    #[test]
    fn context_bodies_read_as_core_reads_them() {
        let good = r#"{"event_id":3,"phase":"final","context_metrics":null,"extra":1}"#;
        let bad_time = r#"{"event_id":3,"phase":null,"context_metrics":null,"context_compaction":{"type":"summary_compact","status":"completed","before_tokens":1,"trigger_limit":1,"target_limit":1,"used_legacy_fallback":false,"created_at":"yesterday"}}"#;
        let twice = r#"{"event_id":3,"event_id":4,"phase":"final","context_metrics":null}"#;
        for text in [
            good,
            bad_time,
            twice,
            "[]",
            "{",
            r#"{"error":"unknown session"}"#,
        ] {
            assert_eq!(
                context_state(text),
                ContextState::parse(text).ok(),
                "{text}"
            );
        }
        assert!(context_state(good).is_some());
        assert_eq!(
            from_text::<Value>(r#"{"a":{"b":1,"b":2}}"#),
            None,
            "a key named twice"
        );
        assert_eq!(to_text(&Some(1)), "1");
        assert_eq!(from_text::<Vec<u8>>("[1,2]"), Some(vec![1, 2]));
    }
}
