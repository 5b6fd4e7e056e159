//! `<ctxguard-toolbar>`'s controller: reads the attributes into a
//! [`ToolbarConfig`], keeps one [`LiveToolbar`] (restored from
//! `localStorage`), runs its feed (the SSE hook, or nothing when the host
//! pushes events), mounts [`StatusToolbar`] into the shadow root while
//! connected, and reports every change as `ctxguard-change`, every new
//! compaction status as `ctxguard-compaction` and every event it did not apply
//! as `ctxguard-ignored` (`{outcome, field, reason}`). All three are dispatched
//! before the call that caused them returns, and the shadow DOM is updated in
//! the same task (Leptos runs its effects synchronously on a signal's change).

mod send;

use super::dom;
use crate::browser::js_text;
use crate::browser::live::LiveToolbar;
use crate::browser::sse::use_status_stream;
use crate::components::{use_now_ms, StatusToolbar};
use crate::config::{FeedSource, ToolbarConfig};
use crate::machine::connection::Connection;
use crate::machine::ids::{id_from_f64, id_from_str};
use crate::machine::state::{EventOutcome, Toolbar};
use crate::machine::turn_end::TurnEnd;
use crate::public_state::{compaction_key, PublicState};
use ctxguard_core::protocol::{ContextCompaction, UniqueKeys};
use leptos::prelude::*;
use std::any::Any;
use std::cell::RefCell;
use std::rc::{Rc, Weak};
use std::sync::Arc;
use wasm_bindgen::prelude::*;
use web_sys::{HtmlElement, ShadowRoot};

/// css/base.css and css/toolbar.css, minified by build.rs.
const CSS: &str = include_str!(concat!(env!("OUT_DIR"), "/toolbar.css"));

/// The Rust half of one `<ctxguard-toolbar>`.
#[wasm_bindgen]
pub struct ToolbarController {
    inner: Rc<Inner>,
}

struct Inner {
    host: HtmlElement,
    mount_point: HtmlElement,
    owner: Owner,
    config: RefCell<Option<ToolbarConfig>>,
    live: RefCell<Option<LiveToolbar>>,
    feed: RefCell<Option<Owner>>,
    view: RefCell<Option<Box<dyn Any>>>,
    last_state: RefCell<SharedState>,
}

#[wasm_bindgen]
impl ToolbarController {
    /// The controller of `host`, rendering into `root`.
    #[wasm_bindgen(constructor)]
    pub fn new(host: HtmlElement, root: ShadowRoot) -> Result<ToolbarController, JsValue> {
        let mount_point = dom::prepare_shadow(&root, CSS)?;
        Ok(ToolbarController {
            inner: Rc::new(Inner {
                host,
                mount_point,
                owner: Owner::new(),
                config: RefCell::new(None),
                live: RefCell::new(None),
                feed: RefCell::new(None),
                view: RefCell::new(None),
                last_state: RefCell::new(SharedState::default()),
            }),
        })
    }

    /// The element was inserted: render and start the feed.
    pub fn connected(&self) {
        self.inner.live();
        self.inner.start_feed();
        self.inner.mount_view();
    }

    /// The element was removed: stop the feed and unmount (the state is kept).
    pub fn disconnected(&self) {
        self.inner.stop_feed();
        self.inner.view.borrow_mut().take();
    }

    /// An observed attribute changed.
    #[wasm_bindgen(js_name = attributeChanged)]
    pub fn attribute_changed(&self) {
        self.inner.reconfigure();
    }

    /// Applies one status event (an object or JSON text, in the SSE or the Socket.IO
    /// shape), numbered `id` or, without one, one past the last applied.
    #[wasm_bindgen(js_name = pushEvent)]
    pub fn push_event(&self, event: JsValue, id: JsValue) -> String {
        let text = dom::json_text(&event);
        self.apply_pushed(id, |t, id, now| match text {
            Some(text) => t.apply_host_text(id, &text, now),
            None => t.reject_malformed(None, "the event is neither an object nor JSON text"),
        })
    }

    /// [`ToolbarController::push_event`] for an event the element's JavaScript made JSON
    /// text of with its long strings sent aside in `long` (see [`js_text`]): each crosses
    /// once, and the events and `state` that carry it hand the same string back.
    #[wasm_bindgen(js_name = pushEventParts)]
    pub fn push_event_parts(&self, text: String, long: js_sys::Array, id: JsValue) -> String {
        let read = || {
            let UniqueKeys(mut value) = serde_json::from_str(&text).ok()?;
            // The failure reason's own string, for the record it ends up in.
            let reason = value
                .pointer(js_text::REASON_POINTER)
                .and_then(serde_json::Value::as_str)
                .and_then(|s| js_text::placeholder_of(s, &long).ok().flatten());
            Some(js_text::fill_placeholders(&mut value, &long).map(|()| (value, reason)))
        };
        self.apply_pushed(id, |t, id, now| match read() {
            Some(Ok((value, reason))) => {
                let again = || {
                    read()
                        .and_then(Result::ok)
                        .map(|(v, _)| v)
                        .unwrap_or_default()
                };
                let before = t.compaction_shared().cloned();
                let outcome = t.apply_host_value(id, value, again, now);
                // The event's record is the one shown now: it keeps its reason's string.
                if let (Some(js), Some(shown)) = (reason, t.compaction_shared()) {
                    if !before.is_some_and(|b| Arc::ptr_eq(&b, shown)) {
                        js_text::adopt_reason(shown, js);
                    }
                }
                outcome
            }
            Some(Err(js_text::BadPlaceholder(reason))) => t.reject_malformed(None, &reason),
            // Not JSON, or a repeated key: the text path says which.
            None => t.apply_host_text(id, &text, now),
        })
    }

    /// Reads `id` and applies the event with `apply`, or counts it malformed for its id.
    fn apply_pushed(
        &self,
        id: JsValue,
        apply: impl FnOnce(&mut Toolbar, Option<u64>, f64) -> EventOutcome,
    ) -> String {
        let live = self.inner.live();
        let id = if id.is_undefined() || id.is_null() {
            Ok(None)
        } else if let Some(n) = id.as_f64() {
            id_from_f64(n).map(Some).ok_or(())
        } else if let Some(s) = id.as_string() {
            id_from_str(&s).map(Some).ok_or(())
        } else {
            Err(())
        };
        let outcome = match id {
            Ok(id) => live.update(|t| apply(t, id, js_sys::Date::now())),
            Err(()) => live.update(|t| {
                t.reject_malformed(Some("id"), "the id is not an integer from 0 to 2^53 - 1")
            }),
        };
        outcome.as_str().to_string()
    }

    /// The turn ended (`reason`: `"done"`, `"error"` or `"cancelled"`, or nothing): a
    /// compaction still running shows as interrupted. `true` when one was.
    #[wasm_bindgen(js_name = turnEnded)]
    pub fn turn_ended(&self, reason: JsValue) -> Result<bool, JsValue> {
        let reason = if reason.is_undefined() || reason.is_null() {
            None
        } else {
            let name = reason.as_string().unwrap_or_default();
            Some(TurnEnd::parse(&name).ok_or_else(|| {
                js_sys::TypeError::new(
                    "turnEnded(reason): reason must be \"done\", \"error\", \"cancelled\" or omitted",
                )
            })?)
        };
        Ok(self.inner.live().update(|t| t.turn_ended(reason)))
    }

    /// The host's own connection (`"live"`, `"reconnecting"` or `"offline"`; `null` shows
    /// "fed by the page" again), for `source="host"`.
    #[wasm_bindgen(js_name = setConnection)]
    pub fn set_connection(&self, state: JsValue) -> Result<(), JsValue> {
        if self.inner.config().source != FeedSource::Host {
            return Err(js_sys::Error::new(
                "setConnection is for source=\"host\": this toolbar shows its own stream's state",
            )
            .into());
        }
        let connection = match state.as_string().as_deref() {
            Some("live") => Connection::Live,
            Some("reconnecting") => Connection::Reconnecting,
            Some("offline") => Connection::Offline,
            None if state.is_null() || state.is_undefined() => Connection::Host,
            _ => {
                return Err(js_sys::TypeError::new(
                    "setConnection(state): state must be \"live\", \"reconnecting\", \"offline\" or null",
                )
                .into())
            }
        };
        self.inner.live().update(|t| t.host_connection(connection));
        Ok(())
    }

    /// Applies a `/context` body (the server's word): `"applied"` or `"malformed"`.
    #[wasm_bindgen(js_name = applyContext)]
    pub fn apply_context(&self, state: JsValue) -> String {
        let live = self.inner.live();
        match dom::json_text(&state).and_then(|text| crate::json::context_state(&text)) {
            Some(snapshot) => {
                live.update(|t| t.apply_context(snapshot, js_sys::Date::now()));
                EventOutcome::Applied.as_str().to_string()
            }
            None => EventOutcome::Malformed.as_str().to_string(),
        }
    }

    /// Forgets the saved state and history of the session; an SSE feed starts over.
    pub fn clear(&self) {
        self.inner.live().clear();
        if self.inner.feed.borrow().is_some() {
            self.inner.start_feed();
        }
    }

    /// The JSON-safe state.
    pub fn state(&self) -> JsValue {
        let live = self.inner.live();
        let session = live.session();
        let state = live
            .state()
            .with_untracked(|t| SharedState::of(&session, t));
        state.to_js()
    }
}

impl Drop for ToolbarController {
    fn drop(&mut self) {
        self.inner.stop_feed();
        self.inner.view.borrow_mut().take();
        self.inner.owner.cleanup();
    }
}

impl Inner {
    fn read_config(&self) -> ToolbarConfig {
        let langs = dom::browser_langs();
        ToolbarConfig::from_attributes(
            |name| dom::attribute(&self.host, name),
            dom::inherited_lang(&self.host).as_deref(),
            langs.iter().map(String::as_str),
        )
    }

    fn config(&self) -> ToolbarConfig {
        if let Some(c) = self.config.borrow().as_ref() {
            return c.clone();
        }
        let c = self.read_config();
        *self.config.borrow_mut() = Some(c.clone());
        c
    }

    /// The session's state, created (restored) on first use.
    fn live(self: &Rc<Self>) -> LiveToolbar {
        if let Some(live) = self.live.borrow().as_ref() {
            return live.clone();
        }
        let config = self.config();
        let live = self
            .owner
            .with(|| LiveToolbar::restore(&config.endpoints.session));
        let weak: Weak<Inner> = Rc::downgrade(self);
        live.set_listener(move |before, after| {
            if let Some(inner) = weak.upgrade() {
                inner.notify(before, after);
            }
        });
        *self.live.borrow_mut() = Some(live.clone());
        if config.source == FeedSource::Host {
            live.update(Toolbar::fed_by_host);
        }
        live
    }

    fn notify(&self, before: &Toolbar, after: &Toolbar) {
        let Some(session) = self.live.borrow().as_ref().map(LiveToolbar::session) else {
            return;
        };
        let key = compaction_key(after);
        if key.is_some() && key != compaction_key(before) {
            let compaction = after
                .compaction_shared()
                .map_or(JsValue::NULL, js_text::record_to_js);
            dom::dispatch(&self.host, "ctxguard-compaction", &compaction);
        }
        if after.ignored() != before.ignored() {
            if let Some(refusal) = after.last_refusal() {
                dom::dispatch(
                    &self.host,
                    "ctxguard-ignored",
                    &js_text::serialize_to_js(refusal),
                );
            }
        }
        if PublicState::differs(before, after) {
            self.report_change(&session, after);
        }
    }

    fn report_change(&self, session: &str, after: &Toolbar) {
        let state = SharedState::of(session, after);
        let changed = {
            let mut last = self.last_state.borrow_mut();
            let changed = *last != state;
            if changed {
                *last = state.clone();
            }
            changed
        };
        if changed {
            dom::dispatch(&self.host, "ctxguard-change", &state.to_js());
        }
    }

    fn start_feed(self: &Rc<Self>) {
        self.stop_feed();
        let live = self.live();
        let config = self.config();
        live.update(|t| t.watch_stalls(config.stall_watch_ms()));
        match config.source {
            FeedSource::Host => live.update(Toolbar::fed_by_host),
            FeedSource::Sse => {
                if !self.host.is_connected() {
                    return;
                }
                live.update(Toolbar::connecting);
                let feed = self.owner.with(Owner::new);
                feed.with(|| use_status_stream(config.endpoints.clone(), live));
                *self.feed.borrow_mut() = Some(feed);
            }
        }
    }

    fn stop_feed(&self) {
        if let Some(feed) = self.feed.borrow_mut().take() {
            feed.cleanup();
        }
    }

    fn mount_view(self: &Rc<Self>) {
        if !self.host.is_connected() {
            return;
        }
        self.view.borrow_mut().take();
        let live = self.live();
        let config = self.config();
        let state = live.state();
        let session = live.session();
        let handle = self.owner.with(|| {
            leptos::mount::mount_to(self.mount_point.clone(), move || {
                let now_ms = use_now_ms(1_000);
                view! {
                    <StatusToolbar state=state now_ms=now_ms lang=config.lang session=session compact=config.compact />
                }
            })
        });
        *self.view.borrow_mut() = Some(Box::new(handle));
    }

    fn reconfigure(self: &Rc<Self>) {
        let Some(old) = self.config.borrow().clone() else {
            return;
        };
        let new = self.read_config();
        if new == old {
            return;
        }
        *self.config.borrow_mut() = Some(new.clone());
        let live = self.live.borrow().clone();
        if let Some(live) = live {
            if new.endpoints.session != old.endpoints.session {
                live.switch_to(&new.endpoints.session);
            }
        }
        if old.feed_changed(&new) && self.host.is_connected() {
            self.start_feed();
        } else if let Some(live) = self.live.borrow().clone() {
            live.update(|t| t.watch_stalls(new.stall_watch_ms()));
        }
        if self.view.borrow().is_some() {
            self.mount_view();
        }
    }
}

/// [`PublicState`] as the module hands it out: its JSON without the compaction record, and
/// the record as shared, put in as an object whose failure reason is the page's own string
/// ([`js_text::record_to_js`]). Compared by the record's identity first, so a state with a
/// 10 MB reason is compared, copied and handed out without touching the 10 MB.
#[derive(Debug, Clone, Default, PartialEq)]
struct SharedState {
    rest: serde_json::Value,
    record: Option<Arc<ContextCompaction>>,
}

impl SharedState {
    fn of(session: &str, toolbar: &Toolbar) -> Self {
        let mut state = PublicState::of(session, toolbar);
        state.compaction = None;
        SharedState {
            rest: serde_json::to_value(&state).unwrap_or_default(),
            record: toolbar.compaction_shared().cloned(),
        }
    }

    fn to_js(&self) -> JsValue {
        let object = js_text::serialize_to_js(&self.rest);
        if let Some(record) = &self.record {
            // `compaction` is already there (null): set in place, it keeps its order.
            let _ = js_sys::Reflect::set(
                &object,
                &"compaction".into(),
                &js_text::record_to_js(record),
            );
        }
        object
    }
}
