//! The toolbar line's pieces, one component each: how much is left, the
//! over-trigger, compaction, forecast, history-count and connection chips,
//! and the note of ignored events. Each reads the toolbar's view model and
//! renders nothing when it has nothing to say.

use crate::browser::js_text;
use crate::i18n::{Lang, Text};
use crate::view::{CompactionView, MetricsView, ToolbarView};
use leptos::ev::KeyboardEvent;
use leptos::prelude::*;

/// The name of the brand and the session it follows.
#[component]
pub(super) fn Brand(session: Option<String>, lang: Lang) -> impl IntoView {
    let title = session
        .as_ref()
        .map(|s| format!("{}: {s}", Text(lang).session()));
    view! {
        <span class="tb-brand" part="brand" title=title>
            <span class="tb-logo" aria-hidden="true"></span>
            <span class="tb-name">"ctxguard"</span>
            {session.map(|s| view! { <span class="tb-session" part="session">{s}</span> })}
        </span>
    }
}

/// "N% left", or that the window is exceeded.
#[component]
pub(super) fn Remaining(metrics: Memo<Option<MetricsView>>, lang: Lang) -> impl IntoView {
    let exceeded = move || metrics.with(|m| m.as_ref().is_some_and(|m| m.exceeded));
    let percent = move || metrics.with(|m| m.as_ref().map(|m| m.remaining_percent));
    view! {
        <span
            class="tb-remaining"
            part="remaining"
            data-testid="ctxguard-remaining"
            data-short=move || match exceeded() {
                true => Text(lang).exceeded_short().to_string(),
                false => Text(lang).remaining_short(percent()),
            }
        >
            <span class="label">
                {move || match exceeded() {
                    true => Text(lang).exceeded().to_string(),
                    false => Text(lang).remaining(percent()),
                }}
            </span>
        </span>
    }
}

/// "used / window" tokens.
#[component]
pub(super) fn Usage(metrics: Memo<Option<MetricsView>>, lang: Lang) -> impl IntoView {
    let usage = move || {
        metrics.with(|m| match m {
            Some(m) => Text(lang).usage(m.used_tokens, m.window_tokens),
            None => Text(lang).usage_unknown().to_string(),
        })
    };
    view! { <span class="tb-usage" part="usage" data-testid="ctxguard-usage">{usage}</span> }
}

/// Over the compaction trigger (while no compaction runs).
#[component]
pub(super) fn OverTriggerChip(
    metrics: Memo<Option<MetricsView>>,
    running: Memo<bool>,
    lang: Lang,
) -> impl IntoView {
    move || {
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
    }
}

/// The compaction's state; its title may be megabytes (a failure reason),
/// set through `js_text`, which hands back the string the page sent.
#[component]
pub(super) fn CompactionChip(compaction: Memo<CompactionView>, lang: Lang) -> impl IntoView {
    let chip: NodeRef<leptos::html::Span> = NodeRef::new();
    Effect::new(move |_| {
        let title = compaction.with(|c| match c {
            CompactionView::Fallback { reason } => js_text::reason_to_js(reason.record()),
            other => Text(lang).compaction_title(other).as_ref().into(),
        });
        if let Some(chip) = chip.get() {
            let _ = js_sys::Reflect::set(&chip, &"title".into(), &title);
        }
    });
    let state = move || compaction.with(CompactionView::state);
    view! {
        <span
            class=move || format!("chip chip-compaction is-{}", state())
            part="compaction"
            data-testid="ctxguard-compaction"
            data-state=state
            data-short=move || compaction.with(|c| Text(lang).compaction_short(c))
            node_ref=chip
            aria-live="polite"
        >
            {move || {
                let (main, detail) = compaction.with(|c| Text(lang).compaction_parts(c));
                view! { <span class="label"><span class="label-main">{main}</span><span class="label-detail">{detail}</span></span> }
            }}
        </span>
    }
}

/// Turns left before compaction (not while one runs, nor over the trigger,
/// where the over-trigger chip already says it is due).
#[component]
pub(super) fn ForecastChip(
    view_model: Memo<ToolbarView>,
    metrics: Memo<Option<MetricsView>>,
    running: Memo<bool>,
    lang: Lang,
) -> impl IntoView {
    move || {
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
    }
}

/// How many compactions the history holds; opens and closes it.
#[component]
pub(super) fn HistoryCountChip(
    view_model: Memo<ToolbarView>,
    open: RwSignal<bool>,
    lang: Lang,
) -> impl IntoView {
    let toggle = move || open.update(|open| *open = !*open);
    move || {
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
                    aria-expanded=move || open.get().to_string()
                    aria-controls="ctxguard-history"
                    title=t.compaction_count(n)
                    aria-label=t.compaction_count(n)
                    on:click=move |_| toggle()
                    on:keydown=move |ev: KeyboardEvent| {
                        if ev.key() == "Enter" || ev.key() == " " {
                            ev.prevent_default();
                            toggle();
                        }
                    }
                >
                    <span class="label">{n}<span class="label-detail">{t.compaction_count_noun(n)}</span></span>
                </span>
            }
        })
    }
}

/// Events the toolbar did not apply, when there are any.
#[component]
pub(super) fn IgnoredNote(view_model: Memo<ToolbarView>, lang: Lang) -> impl IntoView {
    move || {
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
    }
}

/// The stream's state, and whether what is shown is restored, not yet confirmed.
#[component]
pub(super) fn ConnectionChip(view_model: Memo<ToolbarView>, lang: Lang) -> impl IntoView {
    let state = move || view_model.with(|v| v.connection.as_str());
    let restored = move || view_model.with(|v| v.restored);
    let label = move || view_model.with(|v| Text(lang).connection(v.connection, v.offline_reason));
    view! {
        <span
            class=move || format!("chip chip-connection is-{}", state())
            part="connection"
            data-testid="ctxguard-connection"
            data-state=state
            data-restored=move || restored().then_some("true")
            title=label
            aria-live="polite"
        >
            <span class="dot" aria-hidden="true"></span>
            <span class="connection-label">{label}</span>
            {move || restored().then(|| view! {
                <span class="restored" title=Text(lang).restored_title()>{Text(lang).restored()}</span>
            })}
        </span>
    }
}
