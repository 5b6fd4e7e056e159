//! A ticking clock signal for elapsed times.

use leptos::prelude::*;
use std::time::Duration;

/// `Date.now()` in a signal, refreshed every `period_ms` until the owner is cleaned up.
pub fn use_now_ms(period_ms: u64) -> RwSignal<f64> {
    let now = RwSignal::new(js_sys::Date::now());
    if let Ok(handle) = set_interval_with_handle(
        move || now.set(js_sys::Date::now()),
        Duration::from_millis(period_ms),
    ) {
        on_cleanup(move || handle.clear());
    }
    now
}
