//! What marks a message the guard made or kept: the `additional_kwargs`
//! flags of summaries and retained users, the summary format version, and the
//! fresh uuid4 id every message a compaction creates gets.

use crate::message::Message;

/// `additional_kwargs` flag of a summary message; summaries are recognised by it alone.
pub const SUMMARY_FLAG: &str = "summary_compacted";
/// `additional_kwargs` flag of a user message retained into a compaction checkpoint.
pub const CHECKPOINT_RETAINED_FLAG: &str = "checkpoint_retained";
/// `additional_kwargs` key holding the summary format version.
pub const SUMMARY_VERSION_KEY: &str = "summary_compact_version";
/// The summary format version this guard writes.
pub const SUMMARY_COMPACT_VERSION: i64 = 1;
/// A fresh random (version 4) uuid, as the reference gives new messages.
pub(crate) fn fresh_id() -> String {
    uuid::Uuid::new_v4().to_string()
}

/// Whether a message is a summary: `additional_kwargs.summary_compacted` is exactly `true`.
pub fn is_summary(m: &Message) -> bool {
    m.has_flag(SUMMARY_FLAG)
}
