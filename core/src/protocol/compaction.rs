//! The `summary_compact` lifecycle record carried by status events.

use crate::tokens::Tokens;
use serde::{Deserialize, Serialize};

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

/// The `type` of every `context_compaction` object.
pub const COMPACTION_TYPE: &str = "summary_compact";

/// The `context_compaction` object of a `summary_compact` event.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ContextCompaction {
    /// Always [`COMPACTION_TYPE`].
    #[serde(rename = "type")]
    pub kind: String,
    /// Lifecycle state.
    pub status: CompactionStatus,
    /// Tokens before compaction.
    pub before_tokens: Tokens,
    /// Trigger limit in force.
    pub trigger_limit: Tokens,
    /// Target limit in force.
    pub target_limit: Tokens,
    /// Whether the legacy compaction path was used.
    pub used_legacy_fallback: bool,
    /// ISO 8601 UTC start time, e.g. `2026-06-23T14:55:34.512345+00:00`.
    pub created_at: String,
    /// Tokens after compaction (`completed`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub after_tokens: Option<Tokens>,
    /// Id of the summary message (`completed`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub summary_message_id: Option<String>,
    /// Why it fell back (`fallback`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failure_reason: Option<String>,
}

impl ContextCompaction {
    /// Tokens the compaction saved, when it completed.
    pub fn tokens_saved(&self) -> Option<Tokens> {
        self.after_tokens
            .map(|after| (self.before_tokens - after).max(0))
    }
}
