//! The phases of a turn at which status updates are sent.

use serde::{Deserialize, Deserializer, Serialize};

/// When in a turn a status update is sent.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Phase {
    /// Messages were assembled for a new turn.
    BuildMessages,
    /// A tool finished and its output joined the history.
    AfterToolEnd,
    /// A compaction replaced the history.
    AfterCompaction,
    /// A summary compaction is in progress (carries `context_compaction`).
    SummaryCompact,
    /// The turn ended.
    Final,
}

impl Phase {
    /// Every phase, in lifecycle order.
    pub const ALL: [Phase; 5] = [
        Phase::BuildMessages,
        Phase::AfterToolEnd,
        Phase::AfterCompaction,
        Phase::SummaryCompact,
        Phase::Final,
    ];

    /// The wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            Phase::BuildMessages => "build_messages",
            Phase::AfterToolEnd => "after_tool_end",
            Phase::AfterCompaction => "after_compaction",
            Phase::SummaryCompact => "summary_compact",
            Phase::Final => "final",
        }
    }

    /// The phase of a wire name.
    pub fn from_name(name: &str) -> Option<Phase> {
        Phase::ALL.into_iter().find(|p| p.as_str() == name)
    }

    /// Whether updates of this phase are sent regardless of throttling (turn
    /// boundaries and the history after a compaction).
    pub fn always_emits(self) -> bool {
        matches!(
            self,
            Phase::BuildMessages | Phase::Final | Phase::AfterCompaction
        )
    }
}

/// A phase as a client receives it: one of the five, or a name this version does not
/// know (Wegent's frontend makes up `persisted`; a newer backend may add phases), kept as
/// sent so that a host reading the toolbar's state sees it.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum ReceivedPhase {
    /// One of the five phases of SPEC §4.
    Known(Phase),
    /// Any other name.
    Other(String),
}

impl ReceivedPhase {
    /// The phase of a wire name, known or not.
    pub fn from_name(name: &str) -> Self {
        Phase::from_name(name).map_or_else(
            || ReceivedPhase::Other(name.to_string()),
            ReceivedPhase::Known,
        )
    }

    /// The known phase, if it is one.
    pub fn known(&self) -> Option<Phase> {
        match self {
            ReceivedPhase::Known(p) => Some(*p),
            ReceivedPhase::Other(_) => None,
        }
    }

    /// The wire name, as sent.
    pub fn as_str(&self) -> &str {
        match self {
            ReceivedPhase::Known(p) => p.as_str(),
            ReceivedPhase::Other(name) => name,
        }
    }
}

impl From<Phase> for ReceivedPhase {
    fn from(phase: Phase) -> Self {
        ReceivedPhase::Known(phase)
    }
}

impl Serialize for ReceivedPhase {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for ReceivedPhase {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let name = std::borrow::Cow::<str>::deserialize(deserializer)?;
        Ok(ReceivedPhase::from_name(&name))
    }
}

impl std::fmt::Display for Phase {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for Phase {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let name = std::borrow::Cow::<str>::deserialize(deserializer)?;
        Phase::from_name(&name).ok_or_else(|| {
            let known: Vec<&str> = Phase::ALL.iter().map(|p| p.as_str()).collect();
            serde::de::Error::custom(format!(
                "unknown phase {name:?} (expected one of {})",
                known.join(", ")
            ))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_unknown_ones_are_named() {
        for phase in Phase::ALL {
            let json = serde_json::to_string(&phase).expect("serialises");
            assert_eq!(json, format!("\"{phase}\""));
            assert_eq!(serde_json::from_str::<Phase>(&json).expect("parses"), phase);
        }
        let later: ReceivedPhase = serde_json::from_str("\"later\"").expect("any name");
        assert_eq!(later, ReceivedPhase::Other("later".into()));
        assert_eq!(
            serde_json::to_string(&later).expect("serialises"),
            "\"later\""
        );
        assert_eq!(
            serde_json::from_str::<ReceivedPhase>("\"final\"").expect("a name"),
            ReceivedPhase::Known(Phase::Final)
        );
        assert!(serde_json::from_str::<ReceivedPhase>("3").is_err());
        let err = serde_json::from_str::<Phase>("\"later\"").expect_err("unknown");
        assert!(
            err.to_string()
                .starts_with("unknown phase \"later\" (expected one of build_messages, "),
            "{err}"
        );
    }
}
