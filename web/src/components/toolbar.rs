//! The status toolbar: one line (remaining, usage, over-trigger, compaction,
//! forecast, the compaction count, connection) above the usage bar and the
//! per-source legend; the count opens the compaction history. `compact`
//! keeps the line alone, with a thin bar under it. While a compaction runs,
//! its chip is the one signal of it: the over-trigger chip and the forecast
//! step aside. Event strings are laid out cut to
//! [`crate::text_bound::MAX_SHOWN_CHARS`] characters (the whole text in `title`).

use super::{Breakdown, HistoryList, SendProjection, UsageBar};
use crate::browser::js_text;
use crate::i18n::{Lang, Text};
use crate::machine::state::Toolbar;
use crate::view::{CompactionView, ToolbarView};
use leptos::ev::KeyboardEvent;
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
    let history_open = RwSignal::new(false);
    let text = Text(lang);

    let running = Memo::new(move |_| compaction.with(CompactionView::is_running));
    // The chip's title may be megabytes (a failure reason): it is set through js_text, which
    // hands back the string the page sent instead of copying the text once more.
    let compaction_chip: NodeRef<leptos::html::Span> = NodeRef::new();
    Effect::new(move |_| {
        let title = compaction.with(|c| match c {
            CompactionView::Fallback { reason } => js_text::reason_to_js(reason.record()),
            other => Text(lang).compaction_title(other).as_ref().into(),
        });
        if let Some(chip) = compaction_chip.get() {
            let _ = js_sys::Reflect::set(&chip, &"title".into(), &title);
        }
    });
    let exceeded = move || metrics.with(|m| m.as_ref().is_some_and(|m| m.exceeded));
    let remaining = move || match exceeded() {
        true => Text(lang).exceeded().to_string(),
        false => Text(lang).remaining(metrics.with(|m| m.as_ref().map(|m| m.remaining_percent))),
    };
    let usage = move || {
        metrics.with(|m| match m {
            Some(m) => Text(lang).usage(m.used_tokens, m.window_tokens),
            None => Text(lang).usage_unknown().to_string(),
        })
    };
    let over_trigger = move || {
        metrics.with(|m| {
            m.as_ref().filter(|m| m.over_trigger && !running.get()).map(|m| {
                let t = Text(lang);
                view! {
                    <span class="chip chip-over" part="over-trigger" data-testid="ctxguard-over-trigger" title=t.over_trigger_title(m.trigger_tokens)>
                        {t.over_trigger()}
                    </span>
                }
            })
        })
    };
    let forecast = move || {
        // Over the trigger, the over-trigger chip already says compaction is due.
        let over = metrics.with(|m| m.as_ref().is_some_and(|m| m.over_trigger));
        view_model.with(|v| v.forecast).filter(|_| !running.get() && !over).map(|f| {
            let t = Text(lang);
            view! {
                <span
                    class="chip chip-forecast"
                    class:is-due=f.turns == 0
                    part="forecast"
                    data-testid="ctxguard-forecast"
                    data-turns=f.turns.to_string()
                    data-short=t.forecast_short(f.turns)
                    title=t.forecast_title(f.tokens_per_turn)
                >
                    {move || {
                        let (main, detail) = Text(lang).forecast_parts(f.turns);
                        view! { <span class="label"><span class="label-main">{main}</span><span class="label-detail">{detail}</span></span> }
                    }}
                </span>
            }
        })
    };
    let toggle_history = move || history_open.update(|open| *open = !*open);
    let history_count = move || {
        let n = view_model.with(|v| v.history_count);
        (n > 0).then(|| {
            let t = Text(lang);
            view! {
                <span
                    class="chip chip-count"
                    part="history-count"
                    role="button"
                    tabindex="0"
                    data-testid="ctxguard-compaction-count"
                    data-count=n.to_string()
                    aria-expanded=move || history_open.get().to_string()
                    aria-controls="ctxguard-history"
                    title=t.compaction_count(n)
                    aria-label=t.compaction_count(n)
                    on:click=move |_| toggle_history()
                    on:keydown=move |ev: KeyboardEvent| {
                        if ev.key() == "Enter" || ev.key() == " " {
                            ev.prevent_default();
                            toggle_history();
                        }
                    }
                >
                    <span class="label">{n}<span class="label-detail">{t.compaction_count_noun(n)}</span></span>
                </span>
            }
        })
    };
    let compaction_state = move || compaction.with(CompactionView::state);
    let connection_state = move || view_model.with(|v| v.connection.as_str());
    let restored = move || view_model.with(|v| v.restored);
    let connection_label =
        move || view_model.with(|v| Text(lang).connection(v.connection, v.offline_reason));
    let ignored = move || {
        view_model.with(|v| {
            let n = v.ignored.rejected();
            (n > 0).then(|| {
                view! {
                    <span class="tb-ignored" part="ignored" data-testid="ctxguard-ignored" data-count=n.to_string()>
                        {Text(lang).ignored(n)}
                    </span>
                }
            })
        })
    };
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
            data-compaction=compaction_state
            data-over-trigger=move || metrics.with(|m| m.as_ref().is_some_and(|m| m.over_trigger)).to_string()
            data-connection=connection_state
            data-exceeded=move || exceeded().then_some("true")
            data-last-event-id=move || view_model.with(|v| v.last_event_id.map(|id| id.to_string()))
        >
            <div class="tb-line" part="line">
                <span class="tb-brand" part="brand" title=session.clone().map(|s| format!("{}: {s}", text.session()))>
                    <span class="tb-logo" aria-hidden="true"></span>
                    <span class="tb-name">"ctxguard"</span>
                    {session.clone().map(|s| view! { <span class="tb-session" part="session">{s}</span> })}
                </span>
                <span
                    class="tb-remaining"
                    part="remaining"
                    data-testid="ctxguard-remaining"
                    data-short=move || match exceeded() {
                        true => Text(lang).exceeded_short().to_string(),
                        false => Text(lang).remaining_short(metrics.with(|m| m.as_ref().map(|m| m.remaining_percent))),
                    }
                >
                    <span class="label">{remaining}</span>
                </span>
                <span class="tb-usage" part="usage" data-testid="ctxguard-usage">{usage}</span>
                {over_trigger}
                <span
                    class=move || format!("chip chip-compaction is-{}", compaction_state())
                    part="compaction"
                    data-testid="ctxguard-compaction"
                    data-state=compaction_state
                    data-short=move || compaction.with(|c| Text(lang).compaction_short(c))
                    node_ref=compaction_chip
                    aria-live="polite"
                >
                    {move || {
                        let (main, detail) = compaction.with(|c| Text(lang).compaction_parts(c));
                        view! { <span class="label"><span class="label-main">{main}</span><span class="label-detail">{detail}</span></span> }
                    }}
                </span>
                {forecast}
                {history_count}
                <span class="tb-spacer"></span>
                {ignored}
                <span
                    class=move || format!("chip chip-connection is-{}", connection_state())
                    part="connection"
                    data-testid="ctxguard-connection"
                    data-state=connection_state
                    data-restored=move || restored().then_some("true")
                    title=connection_label
                    aria-live="polite"
                >
                    <span class="dot" aria-hidden="true"></span>
                    <span class="connection-label">{connection_label}</span>
                    {move || restored().then(|| view! {
                        <span class="restored" title=Text(lang).restored_title()>{Text(lang).restored()}</span>
                    })}
                </span>
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
