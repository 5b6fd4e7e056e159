//! The status toolbar: one line (remaining, usage, over-trigger, compaction,
//! forecast, the compaction count, connection) above the usage bar and the
//! per-source legend; the count opens the compaction history. `compact`
//! keeps the line alone, with a thin bar under it. While a compaction runs,
//! its chip is the one signal of it: the over-trigger chip and the forecast
//! step aside. Event strings are laid out cut to
//! [`crate::text_bound::MAX_SHOWN_CHARS`] characters (the whole text in `title`).

mod chips;

use super::{Breakdown, HistoryList, SendProjection, UsageBar};
use crate::i18n::Lang;
use crate::machine::state::Toolbar;
use crate::view::{CompactionView, ToolbarView};
use chips::{
    Brand, CompactionChip, ConnectionChip, ForecastChip, HistoryCountChip, IgnoredNote,
    OverTriggerChip, Remaining, Usage,
};
use leptos::prelude::*;

/// The toolbar for `state` at the time in `now_ms`.
#[component]
pub fn StatusToolbar(
    #[prop(into)] state: Signal<Toolbar>,
    #[prop(into)] now_ms: Signal<f64>,
    lang: Lang,
    #[prop(optional, into)] session: Option<String>,
    #[prop(optional)] compact: bool,
) -> impl IntoView {
    let view_model: Memo<ToolbarView> = Memo::new(move |_| state.with(|t| t.view(now_ms.get())));
    let metrics = Memo::new(move |_| view_model.with(|v| v.metrics.clone()));
    let compaction = Memo::new(move |_| view_model.with(|v| v.compaction.clone()));
    let running = Memo::new(move |_| compaction.with(CompactionView::is_running));
    let history_open = RwSignal::new(false);
    let history = move || {
        (history_open.get() && view_model.with(|v| v.history_count > 0))
            .then(|| view! { <HistoryList state=state lang=lang /> })
    };

    view! {
        <div
            class="toolbar"
            class:is-compact=compact
            part="toolbar"
            data-testid="ctxguard-toolbar"
            data-compaction=move || compaction.with(CompactionView::state)
            data-over-trigger=move || metrics.with(|m| m.as_ref().is_some_and(|m| m.over_trigger)).to_string()
            data-connection=move || view_model.with(|v| v.connection.as_str())
            data-exceeded=move || metrics.with(|m| m.as_ref().is_some_and(|m| m.exceeded)).then_some("true")
            data-last-event-id=move || view_model.with(|v| v.last_event_id.map(|id| id.to_string()))
        >
            <div class="tb-line" part="line">
                <Brand session=session lang=lang />
                <Remaining metrics=metrics lang=lang />
                <Usage metrics=metrics lang=lang />
                <OverTriggerChip metrics=metrics running=running lang=lang />
                <CompactionChip compaction=compaction lang=lang />
                <ForecastChip view_model=view_model metrics=metrics running=running lang=lang />
                <HistoryCountChip view_model=view_model open=history_open lang=lang />
                <span class="tb-spacer"></span>
                <IgnoredNote view_model=view_model lang=lang />
                <ConnectionChip view_model=view_model lang=lang />
            </div>
            <UsageBar metrics=metrics lang=lang compact=compact />
            <SendProjection metrics=metrics lang=lang />
            {(!compact).then(|| view! {
                <Breakdown parts=Signal::derive(move || metrics.with(|m| m.as_ref().and_then(|m| m.breakdown.clone()))) lang=lang />
            })}
            {history}
        </div>
    }
}
