//! The saved record read from its JSON by hand ([`record`]), with core's
//! [`Fields`]: the record's derived `Deserialize` (its six types' visitors and
//! `Option` readers, monomorphised for the `Value` deserializer) was one of the
//! biggest pieces of the toolbar's first load. The `/context` state inside it
//! is read by `ContextState`'s own derive, which the toolbar carries anyway for
//! `/context` bodies. The tests pin this reader to the derive: the same record
//! from the same JSON, refused where it refuses.

use super::{SavedRecord, SavedToolbar};
use crate::machine::forecast::TurnForecast;
use crate::machine::history::HistoryEntry;
use crate::machine::run_clock::RunAnchor;
use crate::machine::turn_end::{Interruption, TurnEnd};
use ctxguard_core::protocol::CompactionStatus;
use ctxguard_core::value_fields::{items, variant, Fields};
use serde_json::Value;

fn compaction_status(value: &Value) -> Option<CompactionStatus> {
    Some(match variant(value)? {
        "started" => CompactionStatus::Started,
        "in_progress" => CompactionStatus::InProgress,
        "completed" => CompactionStatus::Completed,
        "fallback" => CompactionStatus::Fallback,
        _ => return None,
    })
}

fn history_entry(value: &Value) -> Option<HistoryEntry> {
    let f = Fields::of(value)?;
    Some(HistoryEntry {
        created_at: f.string("created_at")?,
        status: compaction_status(f.get("status")?)?,
        before_tokens: f.integer("before_tokens")?,
        after_tokens: f.optional("after_tokens", Value::as_i64)?,
        saved_tokens: f.optional("saved_tokens", Value::as_i64)?,
        reason: f.optional("reason", |v| v.as_str().map(str::to_string))?,
        ended_ms: f.optional("ended_ms", Value::as_f64)?,
        duration_ms: f.optional("duration_ms", Value::as_f64)?,
    })
}

fn forecast(value: &Value) -> Option<TurnForecast> {
    let f = Fields::of(value)?;
    Some(TurnForecast::from_parts(
        f.optional("last_turn_tokens", Value::as_i64)?,
        f.defaulted("compaction_since", Value::as_bool)?,
        f.defaulted("differences", |v| items(v, Value::as_i64))?,
    ))
}

fn run_anchor(value: &Value) -> Option<RunAnchor> {
    let f = Fields::of(value)?;
    Some(RunAnchor {
        created_at: f.string("created_at")?,
        start_ms: f.float("start_ms")?,
    })
}

fn interruption(value: &Value) -> Option<Interruption> {
    let f = Fields::of(value)?;
    Some(Interruption {
        created_at: f.string("created_at")?,
        reason: f.optional("reason", |v| variant(v).and_then(TurnEnd::parse))?,
    })
}

fn toolbar(value: &Value) -> Option<SavedToolbar> {
    let f = Fields::of(value)?;
    Some(SavedToolbar {
        state: serde_json::from_value(f.get("state")?.clone()).ok()?,
        history: f.defaulted("history", |v| items(v, history_entry))?,
        forecast: f.defaulted("forecast", forecast)?,
        run: f.optional("run", run_anchor)?,
        interrupted: f.optional("interrupted", interruption)?,
    })
}

/// `value` read as a saved record, as its derived `Deserialize` reads it (`None` where that
/// refuses it).
pub(super) fn record(value: &Value) -> Option<SavedRecord> {
    let f = Fields::of(value)?;
    Some(SavedRecord {
        version: u32::try_from(f.get("version")?.as_u64()?).ok()?,
        session: f.string("session")?,
        saved_at_ms: f.float("saved_at_ms")?,
        toolbar: toolbar(f.get("toolbar")?)?,
    })
}

#[cfg(test)]
mod tests;
