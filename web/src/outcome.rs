//! What became of each event a toolbar was given, and the counts of the ones
//! it did not apply.

/// What became of one event.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
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
