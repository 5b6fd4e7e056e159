//! When a running compaction began, in the browser's clock.
//!
//! A compaction record's `created_at` is the server's clock. Taken at its
//! word, a server clock ten minutes behind the browser shows "compacting
//! 10m 00s" the moment a compaction starts, and one ahead shows 0 s for
//! minutes. So the start is anchored in local time:
//!
//! - first seen as `started`: it began now (a `started` event is sent as the
//!   summary call begins); the difference to `created_at` is remembered as
//!   the server's clock offset;
//! - first seen as `in_progress` (a reload or reconnect mid-way): `created_at`
//!   shifted by the known offset (none known: taken as is), but only when that
//!   lies between [`MAX_PLAUSIBLE_RUN_MS`] ago and [`CLOCK_SKEW_TOLERANCE_MS`]
//!   ahead; otherwise it began when first seen.
//!
//! Elapsed times and the history's durations are measured from this anchor,
//! in the browser's clock, so they never go negative or jump.

use ctxguard_core::protocol::{parse_created_at, CompactionStatus};
use serde::{Deserialize, Serialize};

/// A `created_at` this far ahead of the local clock is still taken as the start.
pub const CLOCK_SKEW_TOLERANCE_MS: f64 = 5_000.0;

/// A compaction first seen running that began longer ago than this is taken to begin when first seen.
pub const MAX_PLAUSIBLE_RUN_MS: f64 = 5.0 * 60_000.0;

/// The local start of the compaction run created at `created_at`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunAnchor {
    /// The run's `created_at` (server clock).
    pub created_at: String,
    /// Local Unix milliseconds it began.
    pub start_ms: f64,
}

impl RunAnchor {
    /// Whether this is the run of the record created at `created_at`.
    pub fn is_run(&self, created_at: &str) -> bool {
        self.created_at == created_at
    }
}

/// Unix milliseconds of a `created_at`.
pub fn created_at_ms(created_at: &str) -> Option<f64> {
    parse_created_at(created_at).map(|micros| micros as f64 / 1000.0)
}

/// The local start of a compaction run first seen at `now_ms` with `status`,
/// given the server's clock offset (local − server) when one is known.
pub fn run_start_ms(
    status: CompactionStatus,
    created_at: &str,
    now_ms: f64,
    offset_ms: Option<f64>,
) -> f64 {
    if status == CompactionStatus::Started {
        return now_ms;
    }
    created_at_ms(created_at)
        .map(|t| t + offset_ms.unwrap_or(0.0))
        .filter(|t| *t >= now_ms - MAX_PLAUSIBLE_RUN_MS && *t <= now_ms + CLOCK_SKEW_TOLERANCE_MS)
        .map_or(now_ms, |t| t.min(now_ms))
}

/// The server's clock offset (local − server) a `started` record seen at `now_ms` shows.
pub fn offset_from_start(created_at: &str, now_ms: f64) -> Option<f64> {
    created_at_ms(created_at).map(|t| now_ms - t)
}

/// Whole seconds from `start_ms` to `now_ms` (0 when the clock went back).
pub fn elapsed_secs(start_ms: f64, now_ms: f64) -> u64 {
    ((now_ms - start_ms).max(0.0) / 1000.0) as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    const T0: f64 = 1_782_226_534_000.0; // 2026-06-23T14:55:34Z
    const AT_T0: &str = "2026-06-23T14:55:34.000000+00:00";

    #[test]
    fn started_begins_now_whatever_the_server_clock_says() {
        for skew_ms in [-600_000.0, -3_000.0, 0.0, 4_000.0, 600_000.0] {
            assert_eq!(
                run_start_ms(CompactionStatus::Started, AT_T0, T0 + skew_ms, None),
                T0 + skew_ms
            );
        }
        assert_eq!(offset_from_start(AT_T0, T0 + 600_000.0), Some(600_000.0));
    }

    #[test]
    fn in_progress_uses_created_at_when_plausible() {
        let s = run_start_ms(CompactionStatus::InProgress, AT_T0, T0 + 45_000.0, None);
        assert_eq!(s, T0);
        // Slightly ahead (clock jitter): starts now, never in the future.
        let s = run_start_ms(CompactionStatus::InProgress, AT_T0, T0 - 2_000.0, None);
        assert_eq!(s, T0 - 2_000.0);
    }

    #[test]
    fn in_progress_far_off_begins_when_seen() {
        // Server clock 10 minutes behind, nothing known about it yet.
        let now = T0 + 600_000.0 + 20_000.0;
        assert_eq!(
            run_start_ms(CompactionStatus::InProgress, AT_T0, now, None),
            now
        );
        // Far in the future.
        assert_eq!(
            run_start_ms(
                CompactionStatus::InProgress,
                "2030-01-01T00:00:00Z",
                T0,
                None
            ),
            T0
        );
        // With the offset known from an earlier `started`, the true start is recovered.
        assert_eq!(
            run_start_ms(CompactionStatus::InProgress, AT_T0, now, Some(600_000.0)),
            T0 + 600_000.0
        );
        assert_eq!(elapsed_secs(T0 + 600_000.0, now), 20);
        assert_eq!(elapsed_secs(T0, T0 - 5_000.0), 0);
    }
}
