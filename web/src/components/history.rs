//! The compaction history: one item per compaction that ended, newest first,
//! with before → after and saved (completed) or the reason (fallback), when,
//! and how long it ran. Reasons are text, never HTML.

use crate::i18n::{Lang, Text};
use crate::machine::history::HistoryEntry;
use crate::machine::state::Toolbar;
use ctxguard_core::protocol::CompactionStatus;
use leptos::prelude::*;

/// `HH:MM` of Unix milliseconds in the browser's time zone.
fn local_clock(ms: f64) -> (u32, u32) {
    let date = js_sys::Date::new(&ms.into());
    (date.get_hours(), date.get_minutes())
}

/// The list for `state`.
#[component]
pub fn HistoryList(#[prop(into)] state: Signal<Toolbar>, lang: Lang) -> impl IntoView {
    let entries = Memo::new(move |_| {
        state.with(|t| {
            t.history()
                .newest_first()
                .cloned()
                .collect::<Vec<HistoryEntry>>()
        })
    });
    view! {
        <ol class="history" part="history" id="ctxguard-history" data-testid="ctxguard-history" aria-label=Text(lang).history_title()>
            {move || entries.get().into_iter().map(|e| view! { <HistoryItem entry=e lang=lang /> }).collect_view()}
        </ol>
    }
}

#[component]
fn HistoryItem(entry: HistoryEntry, lang: Lang) -> impl IntoView {
    let t = Text(lang);
    let status = match entry.status {
        CompactionStatus::Fallback => "fallback",
        _ => "completed",
    };
    let what = t.history_outcome(&entry);
    let when = entry.when_ms().map(|ms| {
        let (h, m) = local_clock(ms);
        format!("{h:02}:{m:02}")
    });
    let ran = entry
        .duration_ms
        .map(|ms| t.ran_for((ms / 1000.0).round() as u64));
    view! {
        <li class=format!("history-item is-{status}") part="history-item" data-testid="ctxguard-history-item" data-status=status data-created-at=entry.created_at.clone()>
            <span class="hi-mark" aria-hidden="true"></span>
            <span class="hi-what">{what}</span>
            <span class="hi-meta">
                {when.map(|w| view! { <time class="hi-when">{w}</time> })}
                {ran.map(|r| view! { <span class="hi-ran">{r}</span> })}
            </span>
        </li>
    }
}
