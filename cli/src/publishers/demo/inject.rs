//! Failure injection (`--fail-every N`): which summary attempts of which
//! compactions fail, and how. The N/2-th compaction of every N (N ≥ 2) has its
//! first attempt rejected as too long, so the guard retries and completes;
//! every N-th has that rejection and then a non-context error (HTTP 503), so
//! it falls back.

use ctxguard_core::guard::SummaryError;

/// Text of the injected context-too-long error.
pub const INJECTED_TOO_LONG: &str = "This model's maximum context length is 16384 tokens; \
     please reduce the length of the messages (context_length_exceeded, injected by --fail-every)";
/// Text of the injected non-context error.
pub const INJECTED_FAILURE: &str = "summariser unavailable (injected by --fail-every)";

/// What failure injection does to one compaction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Injection {
    /// Summaries run as they come.
    None,
    /// Attempt 1 is rejected as too long; the retry runs as it comes.
    TooLongOnce,
    /// Attempt 1 is rejected as too long, attempt 2 with a non-context error.
    TooLongThenFail,
}

impl Injection {
    /// The injection of compaction `number` (1-based) under `--fail-every every`.
    pub(super) fn for_compaction(number: u32, every: u32) -> Self {
        if every == 0 {
            Injection::None
        } else if number.is_multiple_of(every) {
            Injection::TooLongThenFail
        } else if every >= 2 && number % every == every / 2 {
            Injection::TooLongOnce
        } else {
            Injection::None
        }
    }
    /// The error injected into attempt `attempt` (1-based), if any.
    pub(super) fn error(self, attempt: u32) -> Option<SummaryError> {
        match (self, attempt) {
            (Injection::TooLongOnce | Injection::TooLongThenFail, 1) => {
                Some(SummaryError::new(INJECTED_TOO_LONG).with_status(400))
            }
            (Injection::TooLongThenFail, 2) => {
                Some(SummaryError::new(INJECTED_FAILURE).with_status(503))
            }
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_nth_fails_and_its_half_retries() {
        let of = |every| {
            (1..=8)
                .map(|n| Injection::for_compaction(n, every))
                .collect::<Vec<_>>()
        };
        use Injection::{None as Off, TooLongOnce as Once, TooLongThenFail as Fail};
        assert_eq!(of(4), [Off, Once, Off, Fail, Off, Once, Off, Fail]);
        assert_eq!(of(1), [Fail; 8]);
        assert_eq!(of(0), [Off; 8]);
        assert!(Fail.error(1).is_some_and(|e| e.is_context_too_long()));
        assert!(Fail
            .error(2)
            .is_some_and(|e| !e.is_context_too_long() && e.status == Some(503)));
        assert!(Once.error(2).is_none() && Off.error(1).is_none());
    }
}
