//! The status toolbar: one compact line (remaining, usage, over-trigger,
//! compaction, connection) above the usage bar and the per-source legend.

use super::{Breakdown, UsageBar};
use crate::i18n::{Lang, Text};
use crate::state::{CompactionView, Toolbar, ToolbarView};
use leptos::prelude::*;

/// The toolbar for `state` at the time in `now_ms`.
#[component]
pub fn StatusToolbar(
    #[prop(into)] state: Signal<Toolbar>,
    #[prop(into)] now_ms: Signal<f64>,
    lang: Lang,
    #[prop(optional, into)] session: Option<String>,
) -> impl IntoView {
    let view_model: Memo<ToolbarView> = Memo::new(move |_| state.with(|t| t.view(now_ms.get())));
    let metrics = Memo::new(move |_| view_model.with(|v| v.metrics.clone()));
    let compaction = Memo::new(move |_| view_model.with(|v| v.compaction.clone()));
    let text = Text(lang);

    let remaining =
        move || Text(lang).remaining(metrics.with(|m| m.as_ref().map(|m| m.remaining_percent)));
    let usage = move || {
        metrics.with(|m| match m {
            Some(m) => Text(lang).usage(m.used_tokens, m.window_tokens),
            None => Text(lang).usage_unknown().to_string(),
        })
    };
    let over_trigger = move || {
        metrics.with(|m| {
            m.as_ref().filter(|m| m.over_trigger).map(|m| {
                let t = Text(lang);
                view! {
                    <span class="chip chip-over" data-testid="ctxguard-over-trigger" title=t.over_trigger_title(m.trigger_tokens)>
                        {t.over_trigger()}
                    </span>
                }
            })
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
                    <span class="tb-ignored" data-testid="ctxguard-ignored" data-count=n.to_string()>
                        {Text(lang).ignored(n)}
                    </span>
                }
            })
        })
    };

    view! {
        <header
            class="toolbar"
            data-testid="ctxguard-toolbar"
            data-compaction=compaction_state
            data-over-trigger=move || metrics.with(|m| m.as_ref().is_some_and(|m| m.over_trigger)).to_string()
            data-connection=connection_state
            data-last-event-id=move || view_model.with(|v| v.last_event_id.map(|id| id.to_string()))
        >
            <div class="tb-line">
                <span class="tb-brand" title=session.clone().map(|s| format!("{}: {s}", text.session()))>
                    <span class="tb-logo" aria-hidden="true"></span>
                    "ctxguard"
                    {session.clone().map(|s| view! { <span class="tb-session">{s}</span> })}
                </span>
                <span class="tb-remaining" data-testid="ctxguard-remaining">{remaining}</span>
                <span class="tb-usage" data-testid="ctxguard-usage">{usage}</span>
                {over_trigger}
                <span
                    class=move || format!("chip chip-compaction is-{}", compaction_state())
                    data-testid="ctxguard-compaction"
                    data-state=compaction_state
                    title=move || compaction.with(|c| Text(lang).compaction_title(c))
                    aria-live="polite"
                >
                    {move || compaction.with(|c| Text(lang).compaction(c))}
                </span>
                <span class="tb-spacer"></span>
                {ignored}
                <span
                    class=move || format!("chip chip-connection is-{}", connection_state())
                    data-testid="ctxguard-connection"
                    data-state=connection_state
                    data-restored=move || restored().then_some("true")
                    aria-live="polite"
                >
                    <span class="dot" aria-hidden="true"></span>
                    {connection_label}
                    {move || restored().then(|| view! {
                        <span class="restored" title=Text(lang).restored_title()>{Text(lang).restored()}</span>
                    })}
                </span>
            </div>
            <UsageBar metrics=metrics lang=lang />
            <Breakdown parts=Signal::derive(move || metrics.with(|m| m.as_ref().and_then(|m| m.breakdown.clone()))) lang=lang />
        </header>
    }
}
