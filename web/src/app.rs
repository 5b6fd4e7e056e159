//! The app: reads the page parameters, restores the saved state, starts the
//! stream hook, saves every applied state, and lays out the toolbar and the
//! attachment panel.

use crate::components::{use_now_ms, AttachmentPanel, StatusToolbar};
use crate::i18n::Lang;
use crate::sse::{use_status_stream, StreamConfig};
use crate::state::Toolbar;
use crate::storage;
use leptos::prelude::*;

/// The session a page shows when the URL names none.
pub const DEFAULT_SESSION: &str = "demo";

/// What the page URL asks for: `?session=`, `?lang=`, `?server=` (an origin; same origin by default).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PageParams {
    /// Session id.
    pub session: String,
    /// UI language.
    pub lang: Lang,
    /// Server origin, empty for the page's own.
    pub api_base: String,
}

impl PageParams {
    /// Reads the current location and the browser's languages.
    pub fn from_location() -> Self {
        let window = web_sys::window();
        let search = window
            .as_ref()
            .and_then(|w| w.location().search().ok())
            .unwrap_or_default();
        let query = web_sys::UrlSearchParams::new_with_str(&search).ok();
        let get = |key: &str| {
            query
                .as_ref()
                .and_then(|q| q.get(key))
                .map(|v| v.trim().to_string())
                .filter(|v| !v.is_empty())
        };
        let browser_langs: Vec<String> = window
            .as_ref()
            .map(|w| {
                let nav = w.navigator();
                let mut langs: Vec<String> = nav
                    .languages()
                    .iter()
                    .filter_map(|v| v.as_string())
                    .collect();
                langs.extend(nav.language());
                langs
            })
            .unwrap_or_default();
        PageParams {
            session: get("session").unwrap_or_else(|| DEFAULT_SESSION.to_string()),
            lang: Lang::pick(
                get("lang").as_deref(),
                browser_langs.iter().map(String::as_str),
            ),
            api_base: get("server").unwrap_or_default(),
        }
    }
}

/// The whole page.
#[component]
pub fn App() -> impl IntoView {
    let params = PageParams::from_location();
    if let Some(root) = web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.document_element())
    {
        let _ = root.set_attribute("lang", params.lang.tag());
    }
    let session = params.session.clone();
    let toolbar = RwSignal::new(Toolbar::restored_from(
        storage::load(&session),
        js_sys::Date::now(),
    ));

    // Every applied event (and every /context resync) is saved as it lands.
    let saved = Memo::new(move |_| toolbar.with(Toolbar::snapshot));
    let save_session = session.clone();
    Effect::new(move |_| {
        if let Some(state) = saved.get() {
            storage::save(&save_session, &state);
        }
    });

    use_status_stream(
        StreamConfig {
            api_base: params.api_base.clone(),
            session: session.clone(),
        },
        toolbar,
    );
    let now_ms = use_now_ms(1_000);
    // A memo, so the preview reruns only when the model or budget really changes, not on every event.
    let budget = Memo::new(move |_| toolbar.with(Toolbar::attachment_budget));
    let lang = params.lang;

    view! {
        <StatusToolbar state=toolbar now_ms=now_ms lang=lang session=session />
        <main class="page">
            <AttachmentPanel budget=budget lang=lang />
        </main>
    }
}
