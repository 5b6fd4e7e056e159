//! What the Redis store reads back: a session's state hash, its log entries,
//! and the fan-out messages (`{"s": id, "e": [[id, prev, data], …]}` for
//! published events, `{"s": id, "forget": true}` for a forgotten session).

use crate::server::event::StoredEvent;
use crate::server::hub::HubState;
use redis::Value;
use serde::Deserialize;
use std::collections::HashMap;
use std::sync::Arc;

/// A fan-out message.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct FanOut {
    /// The session.
    pub s: String,
    /// Published events: id, previous id, data (ids as decimal strings).
    #[serde(default)]
    pub e: Vec<(String, String, String)>,
    /// The session was forgotten.
    #[serde(default)]
    pub forget: bool,
}

impl FanOut {
    /// Parses a message; `None` for one that is not ours.
    pub fn parse(payload: &[u8]) -> Option<Self> {
        serde_json::from_slice(payload).ok()
    }

    /// The published events, in order (unparsable entries dropped).
    pub fn events(&self) -> Vec<Arc<StoredEvent>> {
        self.e
            .iter()
            .filter_map(|(id, prev, data)| {
                Some(Arc::new(StoredEvent::from_data(
                    id.parse().ok()?,
                    prev.parse().ok()?,
                    data.clone(),
                )))
            })
            .collect()
    }
}

fn text(value: &Value) -> Option<String> {
    match value {
        Value::BulkString(b) => String::from_utf8(b.clone()).ok(),
        Value::SimpleString(s) => Some(s.clone()),
        Value::Int(i) => Some(i.to_string()),
        _ => None,
    }
}

/// A hash reply (RESP2 flat array or RESP3 map) as field → value.
fn hash(value: &Value) -> HashMap<String, String> {
    let pairs: Vec<(String, String)> = match value {
        Value::Array(items) => items
            .chunks(2)
            .filter_map(|kv| Some((text(kv.first()?)?, text(kv.get(1)?)?)))
            .collect(),
        Value::Map(items) => items
            .iter()
            .filter_map(|(k, v)| Some((text(k)?, text(v)?)))
            .collect(),
        _ => Vec::new(),
    };
    pairs.into_iter().collect()
}

/// A session's state hash as the hub state it describes.
pub fn state(value: &Value) -> HubState {
    let fields = hash(value);
    let event = |id_field: &str, data_field: &str| -> Option<Arc<StoredEvent>> {
        let id = fields.get(id_field)?.parse().ok()?;
        Some(Arc::new(StoredEvent::from_data(
            id,
            0,
            fields.get(data_field)?.clone(),
        )))
    };
    HubState {
        last_id: fields.get("last").and_then(|v| v.parse().ok()).unwrap_or(0),
        latest: event("latest_id", "latest").filter(|e| e.event.is_some()),
        latest_compaction: event("comp_id", "comp").filter(|e| e.event.is_some()),
    }
}

/// Log entries (`XRANGE` reply) as events, oldest first.
pub fn entries(value: &Value) -> Vec<Arc<StoredEvent>> {
    let Value::Array(items) = value else {
        return Vec::new();
    };
    items
        .iter()
        .filter_map(|item| {
            let Value::Array(pair) = item else {
                return None;
            };
            let id = text(pair.first()?)?;
            let id: u64 = id.split('-').next()?.parse().ok()?;
            let fields = hash(pair.get(1)?);
            let prev = fields.get("p")?.parse().ok()?;
            Some(Arc::new(StoredEvent::from_data(
                id,
                prev,
                fields.get("d")?.clone(),
            )))
        })
        .collect()
}

/// The reply of `open.lua`: `None` for an unknown session, else its state and log entries.
pub fn opened(value: &Value) -> Option<(HubState, Vec<Arc<StoredEvent>>)> {
    let Value::Array(parts) = value else {
        return None;
    };
    Some((
        state(parts.first()?),
        parts.get(1).map(entries).unwrap_or_default(),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::server::testing::event;

    fn bulk(s: &str) -> Value {
        Value::BulkString(s.as_bytes().to_vec())
    }

    #[test]
    fn reads_state_entries_and_messages() {
        let data = serde_json::to_string(&event(7)).expect("json");
        let reply = Value::Array(vec![
            Value::Array(vec![
                bulk("last"),
                bulk("12"),
                bulk("latest_id"),
                bulk("11"),
                bulk("latest"),
                bulk(&data),
            ]),
            Value::Array(vec![
                Value::Array(vec![
                    bulk("11-0"),
                    Value::Array(vec![bulk("p"), bulk("3"), bulk("d"), bulk(&data)]),
                ]),
                Value::Array(vec![
                    bulk("12-0"),
                    Value::Array(vec![bulk("p"), bulk("11"), bulk("d"), bulk("{oops")]),
                ]),
            ]),
        ]);
        let (state, log) = opened(&reply).expect("a session");
        assert_eq!(state.last_id, 12);
        assert_eq!(state.latest.as_ref().map(|e| e.id), Some(11));
        assert!(state.latest_compaction.is_none());
        assert_eq!(
            log.iter().map(|e| (e.id, e.prev)).collect::<Vec<_>>(),
            [(11, 3), (12, 11)]
        );
        assert!(log[0].event.is_some() && log[1].event.is_none());
        assert!(opened(&Value::Nil).is_none());

        let message = format!(
            "{{\"s\":\"a:b\",\"e\":[[\"5\",\"4\",{}]]}}",
            serde_json::to_string(&data).expect("json")
        );
        let fan = FanOut::parse(message.as_bytes()).expect("ours");
        assert_eq!((fan.s.as_str(), fan.forget), ("a:b", false));
        assert_eq!(fan.events()[0].id, 5);
        assert_eq!(fan.events()[0].data, data);
        assert!(
            FanOut::parse(b"{\"s\":\"x\",\"forget\":true}")
                .expect("ours")
                .forget
        );
        assert!(FanOut::parse(b"hello").is_none());
    }
}
