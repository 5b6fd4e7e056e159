//! The compaction history: one entry per compaction that ended (`completed`
//! or `fallback`), keyed by its `created_at`, so a replayed or repeated event,
//! or a `/context` snapshot repeating the latest record, never adds a second
//! entry. At most [`MAX_HISTORY_ENTRIES`] are kept (the newest); they are
//! saved and restored with the rest of the toolbar's state.

use crate::machine::run_clock::created_at_ms;
use crate::text_bound;
use ctxguard_core::protocol::{is_iso8601_utc, CompactionStatus, ContextCompaction};
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;

/// Entries kept.
pub const MAX_HISTORY_ENTRIES: usize = 50;

/// One compaction that ended.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HistoryEntry {
    /// The compaction's `created_at` (server clock): its key.
    pub created_at: String,
    /// `completed` or `fallback`.
    pub status: CompactionStatus,
    /// Tokens before it.
    pub before_tokens: i64,
    /// Tokens after it (`completed`, when reported).
    #[serde(default)]
    pub after_tokens: Option<i64>,
    /// before − after, at least 0 (`completed`, when after is known).
    #[serde(default)]
    pub saved_tokens: Option<i64>,
    /// Why it fell back (`fallback`; may be empty), as shown: at most
    /// [`text_bound::MAX_SHOWN_CHARS`] characters and an ellipsis.
    #[serde(default)]
    pub reason: Option<String>,
    /// Local Unix milliseconds its end was seen live; `None` when a snapshot reported it.
    #[serde(default)]
    pub ended_ms: Option<f64>,
    /// How long it ran, from the first `started` or `in_progress` seen to the end; `None` when either was not seen.
    #[serde(default)]
    pub duration_ms: Option<f64>,
}

impl HistoryEntry {
    /// An entry for the ended compaction `c`.
    fn of(c: &ContextCompaction, ended_ms: Option<f64>, duration_ms: Option<f64>) -> Self {
        let completed = c.status == CompactionStatus::Completed;
        HistoryEntry {
            created_at: c.created_at.clone(),
            status: c.status,
            before_tokens: c.before_tokens,
            after_tokens: c.after_tokens.filter(|_| completed),
            saved_tokens: c.tokens_saved().filter(|_| completed),
            // Bounded as shown: the whole text stays in the compaction record.
            reason: (!completed).then(|| {
                text_bound::shown(c.failure_reason.as_deref().unwrap_or_default()).into_owned()
            }),
            ended_ms,
            duration_ms: duration_ms.map(|d| d.max(0.0)),
        }
    }

    /// When it happened, in Unix milliseconds: its end when seen live, else its start (server clock).
    pub fn when_ms(&self) -> Option<f64> {
        self.ended_ms.or_else(|| created_at_ms(&self.created_at))
    }

    fn is_valid(&self) -> bool {
        !self.status.is_compacting()
            && is_iso8601_utc(&self.created_at)
            && self.before_tokens >= 0
            && self.ended_ms.is_none_or(f64::is_finite)
            && self.duration_ms.is_none_or(|d| d.is_finite() && d >= 0.0)
    }
}

/// The ended compactions of one session, oldest first.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CompactionHistory {
    entries: VecDeque<HistoryEntry>,
    /// Key of the latest ended compaction folded in; survives [`CompactionHistory::clear`] so
    /// the server repeating that record does not bring it back.
    latest_key: Option<String>,
}

impl CompactionHistory {
    /// A history holding `entries` (as saved: invalid or repeated ones dropped, the newest kept).
    pub fn restored(entries: Vec<HistoryEntry>) -> Self {
        let mut history = CompactionHistory::default();
        for entry in entries.into_iter().filter(HistoryEntry::is_valid) {
            history.push(entry);
        }
        history
    }

    /// Records `c` if it ended and is not in the history yet; `true` when an entry was added. O(n).
    pub fn record(
        &mut self,
        c: &ContextCompaction,
        ended_ms: Option<f64>,
        duration_ms: Option<f64>,
    ) -> bool {
        if c.status.is_compacting() || self.contains(&c.created_at) {
            return false;
        }
        self.push(HistoryEntry::of(c, ended_ms, duration_ms));
        true
    }

    fn push(&mut self, entry: HistoryEntry) {
        if self.contains(&entry.created_at) {
            return;
        }
        self.latest_key = Some(entry.created_at.clone());
        self.entries.push_back(entry);
        while self.entries.len() > MAX_HISTORY_ENTRIES {
            self.entries.pop_front();
        }
    }

    /// Whether the compaction created at `created_at` is recorded (or was the latest before a clear).
    pub fn contains(&self, created_at: &str) -> bool {
        self.latest_key.as_deref() == Some(created_at)
            || self.entries.iter().any(|e| e.created_at == created_at)
    }

    /// Forgets every entry (the latest key is kept).
    pub fn clear(&mut self) {
        self.entries.clear();
    }

    /// Entries, newest first.
    pub fn newest_first(&self) -> impl Iterator<Item = &HistoryEntry> {
        self.entries.iter().rev()
    }

    /// Entries, oldest first (the saved order).
    pub fn entries(&self) -> Vec<HistoryEntry> {
        self.entries.iter().cloned().collect()
    }

    /// Number of entries.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn compaction(status: CompactionStatus, second: u32) -> ContextCompaction {
        ContextCompaction {
            kind: "summary_compact".into(),
            status,
            before_tokens: 30_000,
            trigger_limit: 25_000,
            target_limit: 19_000,
            used_legacy_fallback: false,
            created_at: format!("2026-06-23T14:55:{second:02}.000000+00:00"),
            after_tokens: (status == CompactionStatus::Completed).then_some(12_000),
            summary_message_id: None,
            failure_reason: (status == CompactionStatus::Fallback)
                .then(|| "summary_compact_failed".into()),
        }
    }

    #[test]
    fn one_entry_per_ended_compaction() {
        let mut h = CompactionHistory::default();
        assert!(!h.record(&compaction(CompactionStatus::Started, 1), Some(1.0), None));
        assert!(!h.record(
            &compaction(CompactionStatus::InProgress, 1),
            Some(1.0),
            None
        ));
        assert!(h.record(
            &compaction(CompactionStatus::Completed, 1),
            Some(5_000.0),
            Some(4_000.0)
        ));
        assert!(!h.record(&compaction(CompactionStatus::Completed, 1), Some(9.0), None));
        assert!(h.record(&compaction(CompactionStatus::Fallback, 2), None, None));
        assert_eq!(h.len(), 2);
        let newest: Vec<_> = h.newest_first().collect();
        assert_eq!(newest[0].status, CompactionStatus::Fallback);
        assert_eq!(newest[0].reason.as_deref(), Some("summary_compact_failed"));
        assert_eq!(newest[0].saved_tokens, None);
        assert_eq!(newest[1].after_tokens, Some(12_000));
        assert_eq!(newest[1].saved_tokens, Some(18_000));
        assert_eq!(newest[1].duration_ms, Some(4_000.0));
        assert_eq!(newest[1].when_ms(), Some(5_000.0));
        // Not seen live: "when" is its start.
        assert_eq!(newest[0].when_ms(), Some(1_782_226_502_000.0));
    }

    #[test]
    fn keeps_the_newest_fifty() {
        let mut h = CompactionHistory::default();
        for minute in 0..60u32 {
            let mut c = compaction(CompactionStatus::Completed, 0);
            c.created_at = format!("2026-06-23T{:02}:{:02}:00Z", 10 + minute / 60, minute % 60);
            assert!(h.record(&c, Some(f64::from(minute)), None));
        }
        assert_eq!(h.len(), MAX_HISTORY_ENTRIES);
        assert_eq!(
            h.newest_first().next().map(|e| e.ended_ms),
            Some(Some(59.0))
        );
        assert_eq!(h.entries()[0].ended_ms, Some(10.0));
    }

    #[test]
    fn clear_forgets_entries_but_not_the_latest_key() {
        let mut h = CompactionHistory::default();
        let c = compaction(CompactionStatus::Completed, 3);
        h.record(&c, None, None);
        h.clear();
        assert!(h.is_empty());
        assert!(!h.record(&c, None, None), "the server's repeat of it");
        assert!(h.record(&compaction(CompactionStatus::Completed, 4), None, None));
    }

    #[test]
    fn restore_drops_invalid_and_repeated_entries() {
        let mut h = CompactionHistory::default();
        h.record(&compaction(CompactionStatus::Completed, 1), None, None);
        let mut entries = h.entries();
        entries.push(entries[0].clone());
        let mut running = entries[0].clone();
        running.status = CompactionStatus::Started;
        running.created_at = "2026-06-23T14:56:00Z".into();
        let mut bad_time = entries[0].clone();
        bad_time.created_at = "yesterday".into();
        let mut negative = entries[0].clone();
        negative.created_at = "2026-06-23T14:57:00Z".into();
        negative.duration_ms = Some(-1.0);
        entries.extend([running, bad_time, negative]);
        let restored = CompactionHistory::restored(entries);
        assert_eq!(restored.len(), 1);
        assert!(restored.contains("2026-06-23T14:55:01.000000+00:00"));
    }
}
