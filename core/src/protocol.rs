//! Wire types of the status stream (SPEC §4), each defined once for every
//! host: the `response.status.updated` event, its phases, the metrics snapshot, the
//! `summary_compact` lifecycle record, the `created_at` time format, the
//! `/context` body a client restores from, the body a backend publishes, the
//! multi-session stream's tagged events and cursor, and an
//! update as a client receives it (lenient about phases and ranges). Field names and order are exact;
//! unknown fields are ignored and optional ones omitted; a key named twice in one
//! object refuses the text wherever it is read ([`UniqueKeys`]).

mod batch;
mod compaction;
mod context;
mod event;
mod multiplex;
mod phase;
mod received;
mod snapshot;
mod time;
mod unique_keys;

pub use batch::{parse_event_batch, BatchError, MAX_EVENTS_PER_BATCH};
pub use compaction::{failure_reason, CompactionStatus, ContextCompaction, COMPACTION_TYPE};
pub use context::ContextState;
pub use event::{EventError, StatusEvent};
pub use multiplex::{
    tag_with_session, untag, StreamCursor, CURSOR_ID_SEPARATOR, CURSOR_PAIRS_SEPARATOR,
    MAX_STREAM_SESSIONS, SESSION_KEY, TAG_PREFIX,
};
pub use phase::{Phase, ReceivedPhase};
pub use received::{ReceiveError, ReceivedStatus};
pub use snapshot::{ContextMetricsSnapshot, UsageBreakdown};
pub use time::{format_created_at, is_iso8601_utc, parse_created_at};
pub use unique_keys::UniqueKeys;

/// SSE event name of every status update.
pub const EVENT_NAME: &str = "response.status.updated";
