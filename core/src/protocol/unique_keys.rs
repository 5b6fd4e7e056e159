//! The one rule for a key named twice in a status event's JSON: the text is
//! refused (`duplicate field "phase"`), at any depth, wherever it is read —
//! the relay's publish body, the toolbar's SSE `data:`, the JS API's
//! `parseStatusEvent`. A JSON parser that kept the last (or the first) value
//! would let two readers of one text see two different events.

use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value};
use std::fmt;

/// A JSON value read from text in which no object names a key twice.
#[derive(Debug, Clone, PartialEq)]
pub struct UniqueKeys(pub Value);

impl UniqueKeys {
    /// Parses `text` as one JSON value (trailing whitespace only), refusing a repeated key.
    pub fn parse_slice(text: &[u8]) -> serde_json::Result<Value> {
        serde_json::from_slice::<UniqueKeys>(text).map(|v| v.0)
    }
}

impl<'de> Deserialize<'de> for UniqueKeys {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer
            .deserialize_any(UniqueKeysVisitor)
            .map(UniqueKeys)
    }
}

struct UniqueKeysVisitor;

impl<'de> Visitor<'de> for UniqueKeysVisitor {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_bool<E>(self, b: bool) -> Result<Value, E> {
        Ok(Value::Bool(b))
    }

    fn visit_i64<E>(self, n: i64) -> Result<Value, E> {
        Ok(Value::from(n))
    }

    fn visit_u64<E>(self, n: u64) -> Result<Value, E> {
        Ok(Value::from(n))
    }

    fn visit_f64<E>(self, n: f64) -> Result<Value, E> {
        // serde_json never yields a non-finite number; Null as serde_json's own Value does.
        Ok(serde_json::Number::from_f64(n).map_or(Value::Null, Value::Number))
    }

    fn visit_str<E>(self, s: &str) -> Result<Value, E> {
        Ok(Value::String(s.to_string()))
    }

    fn visit_string<E>(self, s: String) -> Result<Value, E> {
        Ok(Value::String(s))
    }

    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        UniqueKeys::deserialize(d).map(|v| v.0)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::new();
        while let Some(UniqueKeys(item)) = seq.next_element()? {
            items.push(item);
        }
        Ok(Value::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut object = Map::new();
        while let Some(key) = map.next_key::<String>()? {
            if object.contains_key(&key) {
                return Err(de::Error::custom(format_args!(
                    "duplicate field `{key}` (a key may appear once per object)"
                )));
            }
            let UniqueKeys(value) = map.next_value()?;
            object.insert(key, value);
        }
        Ok(Value::Object(object))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn reads_what_serde_json_reads_when_no_key_repeats() {
        let text = r#"{"a": [1, -2, 3.5, "x", null, true, {"b": {}}], "c": {"a": 1}}"#;
        assert_eq!(
            UniqueKeys::parse_slice(text.as_bytes()).expect("unique"),
            serde_json::from_str::<Value>(text).expect("json")
        );
        assert_eq!(UniqueKeys::parse_slice(b"[]").expect("empty"), json!([]));
    }

    /// A repeated key is refused at any depth, never resolved to one of its values (readers that
    /// keep the first and readers that keep the last would disagree on the same text).
    #[test]
    fn a_repeated_key_is_refused_at_any_depth() {
        for text in [
            r#"{"phase": "a", "phase": "b"}"#,
            r#"{"x": {"used": 1, "used": 1}}"#,
            r#"[{"ok": 1}, {"unknown": 1, "unknown": 2}]"#,
        ] {
            let e = UniqueKeys::parse_slice(text.as_bytes()).expect_err(text);
            assert!(
                e.to_string().starts_with("duplicate field `"),
                "{text}: {e}"
            );
        }
        assert!(
            UniqueKeys::parse_slice(br#"{"a": 1} x"#).is_err(),
            "trailing text"
        );
    }
}
