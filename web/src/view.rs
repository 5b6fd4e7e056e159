//! The view model: what the toolbar renders for one state at one time, as
//! plain data ([`crate::machine::state::Toolbar::view`] builds it). No Leptos types, so
//! the components only format it.

use crate::machine::connection::{Connection, OfflineReason};
use crate::machine::forecast::Forecast;
use crate::machine::outcome::IgnoredEvents;
use crate::machine::projection::ProjectionShown;
use crate::machine::turn_end::TurnEnd;
use ctxguard_core::metrics::{ContextMetricsSnapshot, UsageBreakdown};
use ctxguard_core::protocol::{ContextCompaction, ReceivedPhase};
use std::sync::Arc;

/// Everything the toolbar renders.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolbarView {
    /// The numbers, once any are known.
    pub metrics: Option<MetricsView>,
    /// The compaction chip.
    pub compaction: CompactionView,
    /// The connection chip.
    pub connection: Connection,
    /// Why it is offline, when it is.
    pub offline_reason: Option<OfflineReason>,
    /// Whether the state shown is restored and not yet confirmed.
    pub restored: bool,
    /// Events not applied.
    pub ignored: IgnoredEvents,
    /// Id of the latest applied event.
    pub last_event_id: Option<u64>,
    /// Phase of the latest applied event.
    pub phase: Option<ReceivedPhase>,
    /// Compactions in the history.
    pub history_count: usize,
    /// Turns left before compaction, when they can be told.
    pub forecast: Option<Forecast>,
}

/// The numbers of the context window.
#[derive(Debug, Clone, PartialEq)]
pub struct MetricsView {
    /// display_remaining_percent clamped to 0–100.
    pub remaining_percent: i64,
    /// Tokens the history uses.
    pub used_tokens: i64,
    /// The context window.
    pub window_tokens: i64,
    /// Usage at which compaction triggers.
    pub trigger_tokens: i64,
    /// Usage compaction aims for.
    pub target_tokens: i64,
    /// Whether usage is at or over the trigger.
    pub over_trigger: bool,
    /// Whether usage is over the whole window (the bar is full).
    pub exceeded: bool,
    /// Used part of the window, 0–100 (for the bar).
    pub used_percent: f64,
    /// Trigger as a share of the window, 0–100.
    pub trigger_percent: f64,
    /// Target as a share of the window, 0–100.
    pub target_percent: f64,
    /// The per-source split, when the event carried one.
    pub breakdown: Option<Vec<BreakdownPart>>,
    /// What sending the message being written will do, when one is being written (the
    /// ghost segment and the line under the bar are drawn from the metrics they extend).
    pub projection: Option<ProjectionShown>,
}

impl MetricsView {
    /// The numbers of `m`.
    pub fn of(m: &ContextMetricsSnapshot) -> Self {
        let share = |tokens: i64| {
            if m.context_window <= 0 {
                0.0
            } else {
                (tokens as f64 / m.context_window as f64 * 100.0).clamp(0.0, 100.0)
            }
        };
        MetricsView {
            remaining_percent: m.display_remaining_percent.clamp(0, 100),
            used_tokens: m.used_input_tokens,
            window_tokens: m.context_window,
            trigger_tokens: m.trigger_limit,
            target_tokens: m.target_limit,
            over_trigger: m.is_over_trigger,
            exceeded: m.used_input_tokens > m.context_window,
            used_percent: share(m.used_input_tokens),
            trigger_percent: share(m.trigger_limit),
            target_percent: share(m.target_limit),
            breakdown: m.breakdown.as_ref().map(|b| BreakdownPart::split(b, share)),
            projection: None,
        }
    }
}

/// Where used tokens come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    /// System prompts.
    System,
    /// User turns.
    User,
    /// Assistant turns and tool calls.
    Assistant,
    /// Tool results.
    ToolOutputs,
    /// Attachment blocks.
    Attachments,
    /// Message overhead and anything unattributed.
    Overhead,
}

impl Source {
    /// Every source, in display order.
    pub const ALL: [Source; 6] = [
        Source::System,
        Source::User,
        Source::Assistant,
        Source::ToolOutputs,
        Source::Attachments,
        Source::Overhead,
    ];

    /// The `data-source` value (and CSS class suffix).
    pub fn as_str(self) -> &'static str {
        match self {
            Source::System => "system",
            Source::User => "user",
            Source::Assistant => "assistant",
            Source::ToolOutputs => "tool_outputs",
            Source::Attachments => "attachments",
            Source::Overhead => "overhead",
        }
    }

    fn tokens(self, b: &UsageBreakdown) -> i64 {
        match self {
            Source::System => b.system,
            Source::User => b.user,
            Source::Assistant => b.assistant,
            Source::ToolOutputs => b.tool_outputs,
            Source::Attachments => b.attachments,
            Source::Overhead => b.overhead,
        }
    }
}

/// One source's share of the window.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BreakdownPart {
    /// The source.
    pub source: Source,
    /// Its tokens (negative values shown as 0).
    pub tokens: i64,
    /// Its share of the window, 0–100.
    pub percent: f64,
}

impl BreakdownPart {
    fn split(b: &UsageBreakdown, share: impl Fn(i64) -> f64) -> Vec<BreakdownPart> {
        Source::ALL
            .iter()
            .map(|&source| {
                let tokens = source.tokens(b).max(0);
                BreakdownPart {
                    source,
                    tokens,
                    percent: share(tokens),
                }
            })
            .collect()
    }
}

/// The compaction chip.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CompactionView {
    /// No compaction known; compaction starts at `trigger_tokens`.
    Idle {
        /// The trigger, once metrics are known.
        trigger_tokens: Option<i64>,
    },
    /// A summary compaction is running.
    Compacting {
        /// Seconds since it started.
        elapsed_secs: u64,
        /// Tokens before it.
        before_tokens: i64,
        /// Tokens it aims for.
        target_tokens: i64,
    },
    /// The latest compaction replaced the history.
    Completed {
        /// Tokens before it.
        before_tokens: i64,
        /// Tokens after it, when reported.
        after_tokens: Option<i64>,
        /// before − after (at least 0), when after is known.
        saved_tokens: Option<i64>,
    },
    /// The latest compaction fell back.
    Fallback {
        /// The failure reason as sent (may be empty).
        reason: FailureReason,
    },
    /// The turn ended while the compaction was running.
    Interrupted {
        /// How the turn ended, when the host said.
        reason: Option<TurnEnd>,
    },
    /// A compaction is running but nothing was heard of it for longer than the stall watch.
    Stalled {
        /// Seconds since it started.
        elapsed_secs: u64,
        /// Seconds since its latest event.
        quiet_secs: u64,
    },
}

impl CompactionView {
    /// The `data-state` value.
    pub fn state(&self) -> &'static str {
        match self {
            CompactionView::Idle { .. } => "idle",
            CompactionView::Compacting { .. } => "compacting",
            CompactionView::Completed { .. } => "completed",
            CompactionView::Fallback { .. } => "fallback",
            CompactionView::Interrupted { .. } => "interrupted",
            CompactionView::Stalled { .. } => "stalled",
        }
    }

    /// Whether a compaction is under way (running or stalled): its chip is then the one signal of it.
    pub fn is_running(&self) -> bool {
        matches!(
            self,
            CompactionView::Compacting { .. } | CompactionView::Stalled { .. }
        )
    }
}

/// A fallback's failure reason as sent, shared with the record it is part of, not copied: it
/// may be megabytes, and the view is rebuilt every second.
#[derive(Debug, Clone)]
pub struct FailureReason(Arc<ContextCompaction>);

impl FailureReason {
    /// The reason of `record` (empty when it has none).
    pub fn of(record: Arc<ContextCompaction>) -> Self {
        FailureReason(record)
    }

    /// The record it is part of.
    pub fn record(&self) -> &Arc<ContextCompaction> {
        &self.0
    }

    /// The text.
    pub fn as_str(&self) -> &str {
        self.0.failure_reason.as_deref().unwrap_or_default()
    }
}

impl std::ops::Deref for FailureReason {
    type Target = str;

    fn deref(&self) -> &str {
        self.as_str()
    }
}

/// Equal when the texts are (the same record's at once).
impl PartialEq for FailureReason {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0) || self.as_str() == other.as_str()
    }
}

impl Eq for FailureReason {}

/// A reason in a record of its own, for tests.
#[cfg(test)]
impl From<&str> for FailureReason {
    fn from(reason: &str) -> Self {
        let mut event = crate::testing::compaction_event("fallback", serde_json::json!({}));
        event["context_compaction"]["failure_reason"] = reason.into();
        let record = serde_json::from_value(event["context_compaction"].take()).expect("a record");
        FailureReason::of(Arc::new(record))
    }
}
