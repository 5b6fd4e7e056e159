//! What became of each event a toolbar was given, why the ignored ones were
//! ignored, and the counts of the ones it did not apply.

use ctxguard_core::protocol::ReceiveError;
use serde::Serialize;

/// What became of one event.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum EventOutcome {
    /// It was newer and valid, and is now shown.
    Applied,
    /// Its id was at or below the last applied id.
    Stale,
    /// Its id or payload could not be read or failed validation.
    Malformed,
    /// It was not a `response.status.updated` event.
    Unknown,
}

impl EventOutcome {
    /// `"applied"`, `"stale"`, `"malformed"` or `"unknown"`.
    pub fn as_str(self) -> &'static str {
        match self {
            EventOutcome::Applied => "applied",
            EventOutcome::Stale => "stale",
            EventOutcome::Malformed => "malformed",
            EventOutcome::Unknown => "unknown",
        }
    }
}

/// Why one event was not applied: the `detail` of `ctxguard-ignored`,
/// `{outcome, field, reason}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Refusal {
    /// `stale`, `malformed` or `unknown`.
    pub outcome: EventOutcome,
    /// The dotted path of the field to blame (`id`, `phase`, `context_metrics.used_input_tokens`, …), when one is.
    pub field: Option<String>,
    /// What was wrong, for a person (never quoting more than 40 characters of the event).
    pub reason: String,
}

impl Refusal {
    /// A refusal of `outcome` blaming `field`.
    pub fn new(outcome: EventOutcome, field: Option<&str>, reason: String) -> Self {
        Refusal {
            outcome,
            field: field.map(str::to_string),
            reason,
        }
    }

    /// Core's refusal of a payload; another type is `other_type` (unknown for a host, malformed in a stream).
    pub fn of_error(error: ReceiveError, other_type: EventOutcome) -> Self {
        match error {
            ReceiveError::OtherType(_) => Refusal::new(other_type, Some("type"), error.to_string()),
            ReceiveError::Invalid(e) => Refusal {
                outcome: EventOutcome::Malformed,
                reason: e.to_string(),
                field: e.field,
            },
        }
    }

    /// An id that is missing or not an integer from 0 to 2^53 − 1.
    pub fn bad_id(id: Option<&str>) -> Self {
        let reason = match id {
            None => "the event has no id".to_string(),
            Some(id) => format!(
                "id {} is not an integer from 0 to 2^53 - 1",
                crate::text_bound::quoted(id)
            ),
        };
        Refusal::new(EventOutcome::Malformed, Some("id"), reason)
    }

    /// An id at or below the last applied one.
    pub fn stale_id(id: u64, last: Option<u64>) -> Self {
        let last = last.map_or_else(|| "?".to_string(), |l| l.to_string());
        let reason = format!("id {id} is at or below the last applied id {last}");
        Refusal::new(EventOutcome::Stale, Some("id"), reason)
    }
}

/// Counts of events that were not applied.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct IgnoredEvents {
    /// Unreadable or invalid events.
    pub malformed: u64,
    /// Events of another name.
    pub unknown: u64,
    /// Events older than what is shown.
    pub stale: u64,
}

impl IgnoredEvents {
    /// Malformed plus unknown (stale events are normal after a replay).
    pub fn rejected(&self) -> u64 {
        self.malformed + self.unknown
    }
}
