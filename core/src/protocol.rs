//! Wire types of the status stream (SPEC §4): the `response.status.updated`
//! event and the `summary_compact` lifecycle record, with exact field names
//! and order; unknown fields are ignored and optional ones omitted.

use crate::metrics::{phase, ContextMetricsSnapshot};
use serde::{Deserialize, Serialize};

/// SSE event name of every status update.
pub const EVENT_NAME: &str = "response.status.updated";

/// State of a summary compaction.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CompactionStatus {
    /// The summary call began.
    Started,
    /// Heartbeat while the summary runs (every 15 s, same `created_at`).
    InProgress,
    /// The history was replaced; carries `after_tokens` and `summary_message_id`.
    Completed,
    /// Compaction did not apply or failed; carries `failure_reason`.
    Fallback,
}

impl CompactionStatus {
    /// Whether a compaction is running (`started` and `in_progress` alike, so a reconnect mid-way still shows it).
    pub fn is_compacting(self) -> bool {
        matches!(
            self,
            CompactionStatus::Started | CompactionStatus::InProgress
        )
    }
}

/// Why a compaction fell back.
pub mod failure_reason {
    /// Nothing could be trimmed to fit the target.
    pub const NOT_APPLICABLE: &str = "summary_compact_not_applicable";
    /// The summary call failed.
    pub const FAILED: &str = "summary_compact_failed";
}

/// The `context_compaction` object of a `summary_compact` event.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ContextCompaction {
    /// Always `summary_compact`.
    #[serde(rename = "type")]
    pub kind: String,
    /// Lifecycle state.
    pub status: CompactionStatus,
    /// Tokens before compaction.
    pub before_tokens: i64,
    /// Trigger limit in force.
    pub trigger_limit: i64,
    /// Target limit in force.
    pub target_limit: i64,
    /// Whether the legacy compaction path was used.
    pub used_legacy_fallback: bool,
    /// ISO 8601 UTC start time, e.g. `2026-06-23T14:55:34.512345+00:00`.
    pub created_at: String,
    /// Tokens after compaction (`completed`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub after_tokens: Option<i64>,
    /// Id of the summary message (`completed`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub summary_message_id: Option<String>,
    /// Why it fell back (`fallback`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failure_reason: Option<String>,
}

impl ContextCompaction {
    /// Tokens the compaction saved, when it completed.
    pub fn tokens_saved(&self) -> Option<i64> {
        self.after_tokens
            .map(|after| (self.before_tokens - after).max(0))
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
    /// One of [`phase::ALL`].
    pub phase: String,
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
        phase: &str,
        metrics: ContextMetricsSnapshot,
    ) -> Self {
        StatusEvent {
            kind: EVENT_NAME.into(),
            response_id: response_id.into(),
            phase: phase.into(),
            context_metrics: metrics,
            context_compaction: None,
        }
    }

    /// Parses and validates the JSON text of one `data:` field.
    pub fn parse(data: &str) -> crate::Result<Self> {
        let event: StatusEvent =
            serde_json::from_str(data).map_err(|e| crate::Error::invalid("status event", e))?;
        event.validate()?;
        Ok(event)
    }

    /// Checks the invariants the wire promises.
    pub fn validate(&self) -> crate::Result<()> {
        if self.kind != EVENT_NAME {
            return Err(crate::Error::invalid(
                "status event",
                format!("type must be \"{EVENT_NAME}\", got \"{}\"", self.kind),
            ));
        }
        if !phase::ALL.contains(&self.phase.as_str()) {
            return Err(crate::Error::invalid(
                "status event",
                format!(
                    "unknown phase \"{}\" (expected one of {})",
                    self.phase,
                    phase::ALL.join(", ")
                ),
            ));
        }
        if let Some(c) = &self.context_compaction {
            if !is_iso8601_utc(&c.created_at) {
                return Err(crate::Error::invalid(
                    "status event",
                    format!(
                        "created_at \"{}\" is not an ISO 8601 UTC time",
                        c.created_at
                    ),
                ));
            }
        }
        Ok(())
    }
}

/// Whether `s` looks like `YYYY-MM-DDTHH:MM:SS[.frac](+00:00|Z)`.
pub fn is_iso8601_utc(s: &str) -> bool {
    let body = s
        .strip_suffix("+00:00")
        .or_else(|| s.strip_suffix('Z'))
        .or_else(|| s.strip_suffix("-00:00"));
    let Some(body) = body else { return false };
    let (main, frac) = body.split_once('.').unwrap_or((body, ""));
    let b = main.as_bytes();
    let digits =
        |r: std::ops::Range<usize>| b.get(r).is_some_and(|x| x.iter().all(u8::is_ascii_digit));
    b.len() == 19
        && digits(0..4)
        && b[4] == b'-'
        && digits(5..7)
        && b[7] == b'-'
        && digits(8..10)
        && b[10] == b'T'
        && digits(11..13)
        && b[13] == b':'
        && digits(14..16)
        && b[16] == b':'
        && digits(17..19)
        && frac.bytes().all(|c| c.is_ascii_digit())
}

/// Formats a Unix time in microseconds as the reference's `created_at` (`…+00:00`).
pub fn format_created_at(unix_micros: i64) -> String {
    let secs = unix_micros.div_euclid(1_000_000);
    let micros = unix_micros.rem_euclid(1_000_000);
    let days = secs.div_euclid(86_400);
    let rem = secs.rem_euclid(86_400);
    let (y, m, d) = civil_from_days(days);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}.{micros:06}+00:00",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

/// Days since 1970-01-01 to (year, month, day), proleptic Gregorian (H. Hinnant's algorithm).
fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (if m <= 2 { y + 1 } else { y }, m, d)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn created_at_round_trip() {
        assert_eq!(
            format_created_at(1_782_226_534_512_345),
            "2026-06-23T14:55:34.512345+00:00"
        );
        assert!(is_iso8601_utc("2026-06-23T14:55:34.512345+00:00"));
        assert!(is_iso8601_utc("2026-06-23T14:55:34Z"));
        assert!(!is_iso8601_utc("2026-06-23 14:55:34"));
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
    }
}
