//! A turn that ended while a compaction was still running. Wegent sends
//! nothing when a compaction is cancelled; its frontend clears "compacting"
//! on `chat:done`, `chat:error` and `chat:cancelled`. A host says the same with
//! `turnEnded(reason?)`, and the running compaction then shows as interrupted
//! (it is not added to the history: it neither completed nor fell back).

use serde::{Deserialize, Serialize};

/// How the turn ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TurnEnd {
    /// `chat:done`.
    Done,
    /// `chat:error`.
    Error,
    /// `chat:cancelled`.
    Cancelled,
}

impl TurnEnd {
    /// `done`, `error` or `cancelled` (anything else is `None`).
    pub fn parse(name: &str) -> Option<TurnEnd> {
        match name {
            "done" => Some(TurnEnd::Done),
            "error" => Some(TurnEnd::Error),
            "cancelled" => Some(TurnEnd::Cancelled),
            _ => None,
        }
    }
}

/// The compaction a turn's end interrupted.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Interruption {
    /// The interrupted compaction's `created_at`: late events of it are stale.
    pub created_at: String,
    /// How the turn ended, when the host said.
    #[serde(default)]
    pub reason: Option<TurnEnd>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names() {
        for (name, end) in [
            ("done", TurnEnd::Done),
            ("error", TurnEnd::Error),
            ("cancelled", TurnEnd::Cancelled),
        ] {
            assert_eq!(TurnEnd::parse(name), Some(end));
            assert_eq!(
                serde_json::to_string(&end).expect("serialises"),
                format!("\"{name}\"")
            );
        }
        assert_eq!(TurnEnd::parse("canceled"), None);
    }
}
