//! `ctxguard serve` as a status relay, tested from outside: the binary on
//! loopback ports, real `redis-server`s with persistence off, and the
//! publishing examples. Load loops are bounded in count and time; every
//! process started here is stopped.

mod examples;
mod interface;
mod multiplex;
mod operations;
mod redis_store;
mod robustness;
mod support;
