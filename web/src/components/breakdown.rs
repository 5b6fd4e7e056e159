//! The per-source legend of used tokens, shown when events carry a breakdown.

use crate::i18n::{group_thousands, Lang, Text};
use crate::view::BreakdownPart;
use leptos::prelude::*;

/// One chip per source with its tokens; nothing when there is no breakdown.
#[component]
pub fn Breakdown(
    #[prop(into)] parts: Signal<Option<Vec<BreakdownPart>>>,
    lang: Lang,
) -> impl IntoView {
    move || {
        parts.get().map(|parts| {
            let text = Text(lang);
            let items = parts
                .into_iter()
                .map(|p| {
                    view! {
                        <li class="legend-item" data-source=p.source.as_str() data-tokens=p.tokens.to_string()>
                            <span class=format!("swatch src-{}", p.source.as_str())></span>
                            <span class="legend-name">{text.source(p.source)}</span>
                            <span class="legend-tokens">{group_thousands(p.tokens)}</span>
                        </li>
                    }
                })
                .collect_view();
            view! { <ul class="legend" part="legend" data-testid="ctxguard-breakdown">{items}</ul> }
        })
    }
}
