//! Where a toolbar's events come from and why it may be offline: the
//! connection states the state machine keeps and the view shows.

/// Consecutive failed attempts after which the toolbar says `offline` (it keeps retrying).
pub const OFFLINE_AFTER_FAILURES: u32 = 8;

/// Where the toolbar's events come from, as the toolbar shows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Connection {
    /// The first attempt is under way.
    Connecting,
    /// The stream is open.
    Live,
    /// The stream dropped (or never opened); a retry is scheduled.
    Reconnecting,
    /// The browser is offline, the session is unknown, or many retries failed.
    Offline,
    /// No stream: the host page pushes the events.
    Host,
}

impl Connection {
    /// The `data-state` value.
    pub fn as_str(self) -> &'static str {
        match self {
            Connection::Connecting => "connecting",
            Connection::Live => "live",
            Connection::Reconnecting => "reconnecting",
            Connection::Offline => "offline",
            Connection::Host => "host",
        }
    }
}

/// Why an offline toolbar is offline.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OfflineReason {
    /// The browser reports no network.
    BrowserOffline,
    /// The server does not know the session.
    UnknownSession,
    /// Too many consecutive attempts failed.
    Unreachable,
    /// The host page says its own connection is offline.
    HostSaid,
}
