//! The line under the usage bar while a message is being written: "after
//! sending: N% left" and what the guard will do with it.

use crate::i18n::{Lang, Text};
use crate::view::MetricsView;
use leptos::prelude::*;

/// The projection's line (nothing while nothing is being written).
#[component]
pub fn SendProjection(
    #[prop(into)] metrics: Signal<Option<MetricsView>>,
    lang: Lang,
) -> impl IntoView {
    move || {
        metrics.get().and_then(|m| m.projection).map(|p| {
            let t = Text(lang);
            view! {
                <div
                    class="tb-projection"
                    part="projection"
                    data-testid="projection-summary"
                    data-outcome=p.outcome_name()
                    aria-live="polite"
                >
                    <span class="projection-left" data-testid="projection-left">{t.after_sending(p.remaining_percent)}</span>
                    <span class="projection-consequence" data-testid="projection-consequence">
                        {t.send_consequence(&p.outcome)}
                    </span>
                </div>
            }
        })
    }
}
