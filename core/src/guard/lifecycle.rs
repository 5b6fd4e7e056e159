//! Lifecycle events of a summary compaction for the toolbar: `started`,
//! `in_progress` heartbeats, then `completed` or `fallback`, each in the
//! exact `context_compaction` shape of SPEC §4 with the metrics to send
//! alongside.

use crate::budget::ContextLimits;
use crate::metrics::ContextMetricsSnapshot;
use crate::protocol::{CompactionStatus, ContextCompaction, Phase, StatusEvent, COMPACTION_TYPE};
use crate::tokens::Tokens;
use serde::{Deserialize, Serialize};

/// One `summary_compact` status update: the compaction record and the snapshot that goes with it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CompactionEvent {
    /// The `context_compaction` object.
    pub compaction: ContextCompaction,
    /// The `context_metrics` to send with it (before the compaction, or after it once `completed`).
    pub metrics: ContextMetricsSnapshot,
}

impl CompactionEvent {
    /// The wire event for `response_id` (phase `summary_compact`).
    pub fn to_status_event(&self, response_id: impl Into<String>) -> StatusEvent {
        let mut event = StatusEvent::new(response_id, Phase::SummaryCompact, self.metrics.clone());
        event.context_compaction = Some(self.compaction.clone());
        event
    }
}

/// The fixed part of every event of one compaction.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Lifecycle {
    pub before_tokens: Tokens,
    pub limits: ContextLimits,
    pub created_at: String,
    pub started_micros: i64,
}

impl Lifecycle {
    fn record(&self, status: CompactionStatus) -> ContextCompaction {
        ContextCompaction {
            kind: COMPACTION_TYPE.into(),
            status,
            before_tokens: self.before_tokens,
            trigger_limit: self.limits.trigger_limit,
            target_limit: self.limits.target_limit,
            used_legacy_fallback: false,
            created_at: self.created_at.clone(),
            after_tokens: None,
            summary_message_id: None,
            failure_reason: None,
        }
    }

    fn before_metrics(&self) -> ContextMetricsSnapshot {
        ContextMetricsSnapshot::from_used(self.before_tokens, &self.limits)
    }

    /// `started` or `in_progress`, with the metrics before compaction.
    pub fn running(&self, status: CompactionStatus) -> CompactionEvent {
        CompactionEvent {
            compaction: self.record(status),
            metrics: self.before_metrics(),
        }
    }

    /// `fallback` with its reason, with the metrics before compaction.
    pub fn fallback(&self, reason: &str) -> CompactionEvent {
        let mut compaction = self.record(CompactionStatus::Fallback);
        compaction.failure_reason = Some(reason.into());
        CompactionEvent {
            compaction,
            metrics: self.before_metrics(),
        }
    }

    /// `completed`, with the metrics of the replacement history.
    pub fn completed(&self, after_tokens: Tokens, summary_message_id: &str) -> CompactionEvent {
        let mut compaction = self.record(CompactionStatus::Completed);
        compaction.after_tokens = Some(after_tokens);
        compaction.summary_message_id = Some(summary_message_id.into());
        CompactionEvent {
            compaction,
            metrics: ContextMetricsSnapshot::from_used(after_tokens, &self.limits),
        }
    }

    /// Milliseconds since the start, for traces.
    pub fn elapsed_ms(&self, now_micros: i64) -> f64 {
        (now_micros - self.started_micros).max(0) as f64 / 1000.0
    }
}
