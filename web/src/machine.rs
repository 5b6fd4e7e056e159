//! The toolbar's state machine and its pieces, plain Rust tested natively:
//! [`state`] (events in, the toolbar's state out) with [`ids`] (event ids and
//! their order), [`run_clock`] (a compaction's elapsed time and stall),
//! [`history`] (the compactions so far), [`forecast`] (turns left before the
//! next), [`turn_end`] (the end of a reply), [`outcome`] (what an applied
//! event did), [`connection`] (the stream's state as shown) and [`projection`]
//! (what the toolbar shows of the send being written).

pub mod connection;
pub mod forecast;
pub mod history;
pub mod ids;
pub mod outcome;
pub mod projection;
pub mod run_clock;
pub mod state;
pub mod turn_end;
