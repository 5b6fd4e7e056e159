//! When a connection has waited too long, as a sans-IO state machine told
//! the time: a connection starts waiting for a request head; from its first
//! byte a head has `header_read_timeout` to arrive whole; a connection with
//! no request in flight is closed after `idle_timeout`; one with a request in
//! flight (a stream, a response being written) is never timed out here.

use std::time::{Duration, Instant};

/// Which wait ran out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Timeout {
    /// A request head did not arrive in time.
    Header,
    /// The connection sat with nothing to do.
    Idle,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    /// Reading a request head (or waiting for the first one) since then.
    Head(Instant),
    /// Requests in flight.
    Busy,
    /// Between requests since then, no byte of the next one read yet.
    Idle(Instant),
}

/// The deadlines of one connection.
#[derive(Debug, Clone)]
pub struct ConnClock {
    header: Duration,
    idle: Duration,
    phase: Phase,
    in_flight: usize,
}

impl ConnClock {
    /// A connection accepted at `now`.
    pub fn new(now: Instant, header_read_timeout: Duration, idle_timeout: Duration) -> Self {
        ConnClock {
            header: header_read_timeout,
            idle: idle_timeout,
            phase: Phase::Head(now),
            in_flight: 0,
        }
    }

    /// Bytes arrived at `now`; returns whether the deadline moved.
    pub fn on_read(&mut self, now: Instant) -> bool {
        if let Phase::Idle(_) = self.phase {
            self.phase = Phase::Head(now);
            return true;
        }
        false
    }

    /// A request head arrived whole and its handler runs.
    pub fn on_request_start(&mut self) {
        self.in_flight += 1;
        self.phase = Phase::Busy;
    }

    /// A response finished (or its connection went away) at `now`.
    pub fn on_request_end(&mut self, now: Instant) {
        self.in_flight = self.in_flight.saturating_sub(1);
        if self.in_flight == 0 {
            self.phase = Phase::Idle(now);
        }
    }

    /// When the connection is to be closed, if nothing happens before.
    pub fn deadline(&self) -> Option<Instant> {
        match self.phase {
            Phase::Head(since) => Some(since + self.header),
            Phase::Idle(since) => Some(since + self.idle),
            Phase::Busy => None,
        }
    }

    /// The wait that ran out by `now`, if one did.
    pub fn expired(&self, now: Instant) -> Option<Timeout> {
        let deadline = self.deadline()?;
        if now < deadline {
            return None;
        }
        Some(match self.phase {
            Phase::Idle(_) => Timeout::Idle,
            _ => Timeout::Header,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn secs(s: u64) -> Duration {
        Duration::from_secs(s)
    }

    #[test]
    fn a_silent_connection_gets_the_header_timeout_from_its_start() {
        let t0 = Instant::now();
        let clock = ConnClock::new(t0, secs(10), secs(60));
        assert_eq!(clock.deadline(), Some(t0 + secs(10)));
        assert_eq!(clock.expired(t0 + secs(9)), None);
        assert_eq!(clock.expired(t0 + secs(10)), Some(Timeout::Header));
    }

    #[test]
    fn bytes_of_a_head_do_not_extend_it() {
        let t0 = Instant::now();
        let mut clock = ConnClock::new(t0, secs(10), secs(60));
        for s in 1..9 {
            assert!(
                !clock.on_read(t0 + secs(s)),
                "a slow head keeps its deadline"
            );
        }
        assert_eq!(clock.expired(t0 + secs(10)), Some(Timeout::Header));
    }

    #[test]
    fn requests_in_flight_never_time_out_and_idle_follows_them() {
        let t0 = Instant::now();
        let mut clock = ConnClock::new(t0, secs(10), secs(60));
        clock.on_request_start();
        assert_eq!(clock.deadline(), None);
        assert_eq!(clock.expired(t0 + secs(3600)), None, "a stream stays open");
        clock.on_request_start();
        clock.on_request_end(t0 + secs(100));
        assert_eq!(clock.deadline(), None, "one still in flight");
        clock.on_request_end(t0 + secs(200));
        assert_eq!(clock.deadline(), Some(t0 + secs(260)));
        assert_eq!(clock.expired(t0 + secs(260)), Some(Timeout::Idle));
        // The next request's first byte: the header timeout from then.
        assert!(clock.on_read(t0 + secs(230)));
        assert_eq!(clock.deadline(), Some(t0 + secs(240)));
        assert_eq!(clock.expired(t0 + secs(240)), Some(Timeout::Header));
    }
}
