//! Capped exponential backoff with jitter for stream reconnects; the caller
//! supplies the random number, so the schedule is tested natively.

/// Retry delays: base × 2^attempt, capped, with "equal jitter" (half fixed, half random).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Backoff {
    base_ms: u32,
    cap_ms: u32,
    attempt: u32,
}

impl Default for Backoff {
    fn default() -> Self {
        Backoff::new(500, 10_000)
    }
}

impl Backoff {
    /// A schedule starting at `base_ms` and never above `cap_ms`.
    pub fn new(base_ms: u32, cap_ms: u32) -> Self {
        Backoff {
            base_ms: base_ms.max(1),
            cap_ms: cap_ms.max(base_ms.max(1)),
            attempt: 0,
        }
    }

    /// The next delay; `unit_random` in [0, 1) picks the jitter. O(1).
    pub fn next_delay_ms(&mut self, unit_random: f64) -> u32 {
        let exp = u64::from(self.base_ms)
            .saturating_mul(1u64 << self.attempt.min(20))
            .min(u64::from(self.cap_ms));
        self.attempt = self.attempt.saturating_add(1);
        let half = exp / 2;
        let jitter = (unit_random.clamp(0.0, 1.0) * (exp - half) as f64) as u64;
        (half + jitter).min(u64::from(self.cap_ms)) as u32
    }

    /// Back to the first delay (after a successful connect).
    pub fn reset(&mut self) {
        self.attempt = 0;
    }

    /// Retries scheduled since the last reset.
    pub fn attempts(&self) -> u32 {
        self.attempt
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grows_caps_and_resets() {
        let mut b = Backoff::new(500, 10_000);
        let highs: Vec<u32> = (0..8).map(|_| b.next_delay_ms(1.0)).collect();
        assert_eq!(
            highs,
            [500, 1_000, 2_000, 4_000, 8_000, 10_000, 10_000, 10_000]
        );
        b.reset();
        assert_eq!(b.attempts(), 0);
        let lows: Vec<u32> = (0..3).map(|_| b.next_delay_ms(0.0)).collect();
        assert_eq!(lows, [250, 500, 1_000]);
    }

    #[test]
    fn jitter_stays_within_bounds() {
        let mut b = Backoff::default();
        for i in 0..100 {
            let r = (i as f64 * 0.618_033_988_7).fract();
            let d = b.next_delay_ms(r);
            assert!(d <= 10_000, "{d}");
            assert!(d >= 250, "{d}");
        }
        // Nonsense randomness is clamped, never a panic or an overflow.
        assert!(Backoff::default().next_delay_ms(f64::NAN) <= 500);
        assert!(Backoff::default().next_delay_ms(7.0) <= 500);
    }
}
