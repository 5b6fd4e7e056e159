//! The context window as a bar: the used part (split by source when known)
//! and marks at the compaction target and trigger; an ARIA progressbar.

use crate::i18n::{group_thousands, Lang, Text};
use crate::view::MetricsView;
use leptos::prelude::*;

/// A CSS percentage with three decimals. Written out by hand: core's float
/// formatting would add 14 KB to the toolbar's module for this one use.
fn pct(v: f64) -> String {
    let thousandths = (v.clamp(0.0, 100.0) * 1000.0).round() as u32;
    format!("{}.{:03}%", thousandths / 1000, thousandths % 1000)
}

/// The bar for `metrics` (empty until metrics are known); `compact`: thin, with no scale;
/// the send being written (the metrics' projection) as a ghost segment after the used part.
#[component]
pub fn UsageBar(
    #[prop(into)] metrics: Signal<Option<MetricsView>>,
    lang: Lang,
    #[prop(optional)] compact: bool,
) -> impl IntoView {
    let ghost = move || {
        metrics.get().and_then(|m| m.projection).map(|p| {
            view! {
                <span
                    class="bar-ghost"
                    part="projection-ghost"
                    data-testid="projection-ghost"
                    data-outcome=p.outcome_name()
                    data-tokens=p.added_tokens.to_string()
                    style:left=pct(p.ghost_start_percent)
                    style:width=pct(p.ghost_width_percent)
                    title=Text(lang).send_adds(p.added_tokens)
                ></span>
            }
        })
    };
    let text = Text(lang);
    let m = move || metrics.get();
    let value_text = move || {
        let t = Text(lang);
        m().map_or_else(String::new, |m| {
            format!(
                "{} · {}",
                t.remaining(Some(m.remaining_percent)),
                t.usage(m.used_tokens, m.window_tokens)
            )
        })
    };
    let level = move || match m() {
        Some(m) if m.over_trigger => "over-trigger",
        Some(m) if m.used_tokens >= m.target_tokens => "over-target",
        Some(_) => "ok",
        None => "unknown",
    };
    let segments = move || {
        m().and_then(|m| {
            let used = m.used_tokens.max(1) as f64;
            m.breakdown.map(|parts| {
                parts
                    .into_iter()
                    .filter(|p| p.tokens > 0)
                    .map(|p| {
                        let share = p.tokens as f64 / used * 100.0;
                        view! {
                            <span
                                class=format!("bar-seg src-{}", p.source.as_str())
                                data-source=p.source.as_str()
                                style:width=pct(share)
                            ></span>
                        }
                    })
                    .collect_view()
            })
        })
    };
    view! {
        <div
            class="bar"
            part="bar"
            data-testid="ctxguard-bar"
            data-level=level
            role="progressbar"
            aria-label=text.bar_label()
            aria-valuemin="0"
            aria-valuemax=move || m().map_or(0, |m| m.window_tokens).to_string()
            aria-valuenow=move || m().map_or(0, |m| m.used_tokens).to_string()
            aria-valuetext=value_text
        >
            <div class="bar-used" data-testid="ctxguard-bar-used" style:width=move || pct(m().map_or(0.0, |m| m.used_percent))>
                {segments}
            </div>
            {ghost}
            {move || {
                m().map(|m| {
                    let t = Text(lang);
                    view! {
                        <span
                            class="bar-mark bar-mark-target"
                            data-testid="ctxguard-target-mark"
                            data-tokens=m.target_tokens.to_string()
                            style:left=pct(m.target_percent)
                            title=t.target_mark(m.target_tokens)
                        ></span>
                        <span
                            class="bar-mark bar-mark-trigger"
                            data-testid="ctxguard-trigger-mark"
                            data-tokens=m.trigger_tokens.to_string()
                            style:left=pct(m.trigger_percent)
                            title=t.trigger_mark(m.trigger_tokens)
                        ></span>
                    }
                })
            }}
        </div>
        {(!compact).then(|| view! {
            <div class="bar-scale" part="scale" aria-hidden="true">
                <span>"0"</span>
                {move || m().map(|m| view! {
                    <span class="scale-mark" style:left=pct(m.target_percent)>{group_thousands(m.target_tokens)}</span>
                    <span class="scale-mark scale-trigger" style:left=pct(m.trigger_percent)>{group_thousands(m.trigger_tokens)}</span>
                    <span class="scale-end">{group_thousands(m.window_tokens)}</span>
                })}
            </div>
        })}
    }
}
