//! The stream hook: [`use_status_stream`] owns the session's `EventSource`
//! and drives the toolbar state machine from it (through [`LiveToolbar`], so
//! every change is saved and observed).
//!
//! Cycle: fetch `/context` (the server's truth) → open the stream from that
//! event id (`?last_event_id=`, since a new `EventSource` cannot set
//! `Last-Event-ID`) → feed every event to the state machine. When the stream
//! drops, the browser's own retry is cancelled and the cycle restarts after a
//! capped exponential backoff with jitter, so every reconnect resynchronises
//! from `/context`. Going offline / online is followed too. A read token goes
//! as `?token=` on every request ([`Endpoints`]). Everything is released in
//! `on_cleanup`.
//!
//! Toolbars of one page that follow the same server share one connection
//! where the server has the shared stream (its `/context` says
//! `"shared_stream": true`, as the relay's does): the package's entry script
//! registers a stream registry on the page ([`SHARED_STREAMS`]) that joins
//! their sessions on one `GET /api/events?session=…` stream and hands each
//! toolbar an `EventSource` look-alike; each toolbar's cycle above is
//! unchanged. A server that does not say so (a hand-written backend serving
//! only the per-session routes) gets the session's own
//! `GET /api/sessions/{id}/events`, on every cycle.

use crate::backoff::Backoff;
use crate::browser::live::LiveToolbar;
use crate::config::Endpoints;
use crate::machine::state::Toolbar;
use ctxguard_core::protocol::ContextState;
use ctxguard_core::protocol::EVENT_NAME;
use leptos::prelude::*;
use send_wrapper::SendWrapper;
use std::cell::{Cell, RefCell};
use std::rc::{Rc, Weak};
use std::time::Duration;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;
use web_sys::{EventSource, MessageEvent};

enum ContextReply {
    Snapshot(Box<ContextState>),
    NotFound,
}

type Listener = Closure<dyn FnMut(web_sys::Event)>;

struct OpenStream {
    source: EventSource,
    _listeners: Vec<Listener>,
}

impl Drop for OpenStream {
    fn drop(&mut self) {
        self.source.close();
    }
}

struct Driver {
    endpoints: Endpoints,
    toolbar: LiveToolbar,
    stream: RefCell<Option<OpenStream>>,
    retry: Cell<Option<TimeoutHandle>>,
    backoff: Cell<Backoff>,
    /// The latest `/context` said the server has the shared stream.
    shared_stream: Cell<bool>,
    /// Bumped on every new cycle, so a late `/context` reply of an old one is dropped.
    generation: Cell<u64>,
    stopped: Cell<bool>,
    window_listeners: RefCell<Vec<WindowListenerHandle>>,
}

fn now_ms() -> f64 {
    js_sys::Date::now()
}

impl Driver {
    fn start(self: &Rc<Self>) {
        let online = web_sys::window().is_none_or(|w| w.navigator().on_line());
        if !online {
            self.toolbar.update(|t| t.set_browser_offline(true));
        }
        let weak = Rc::downgrade(self);
        let on_online = window_event_listener_untyped("online", move |_| {
            if let Some(d) = weak.upgrade() {
                d.toolbar.update(|t| t.set_browser_offline(false));
                d.backoff.set(Backoff::default());
                d.cycle();
            }
        });
        let weak = Rc::downgrade(self);
        let on_offline = window_event_listener_untyped("offline", move |_| {
            if let Some(d) = weak.upgrade() {
                d.toolbar.update(|t| t.set_browser_offline(true));
            }
        });
        self.window_listeners
            .borrow_mut()
            .extend([on_online, on_offline]);
        self.cycle();
    }

    fn stop(&self) {
        self.stopped.set(true);
        self.generation.set(self.generation.get() + 1);
        if let Some(h) = self.retry.take() {
            h.clear();
        }
        self.stream.borrow_mut().take();
        for h in self.window_listeners.borrow_mut().drain(..) {
            h.remove();
        }
    }

    /// Starts a new cycle: `/context`, then the stream.
    fn cycle(self: &Rc<Self>) {
        if self.stopped.get() {
            return;
        }
        if let Some(h) = self.retry.take() {
            h.clear();
        }
        self.stream.borrow_mut().take();
        let generation = self.generation.get() + 1;
        self.generation.set(generation);
        let weak = Rc::downgrade(self);
        leptos::task::spawn_local(async move {
            let url = match weak.upgrade() {
                Some(d) => d.endpoints.context_url(),
                None => return,
            };
            let reply = fetch_context(&url).await;
            let Some(d) = weak.upgrade() else { return };
            if d.stopped.get() || d.generation.get() != generation {
                return;
            }
            match reply {
                Ok(ContextReply::Snapshot(snapshot)) => {
                    d.shared_stream.set(snapshot.shared_stream);
                    d.toolbar.update(|t| t.apply_context(*snapshot, now_ms()));
                    d.open_stream();
                }
                Ok(ContextReply::NotFound) => {
                    d.toolbar.update(Toolbar::session_not_found);
                    d.schedule_retry();
                }
                Err(()) => {
                    d.toolbar.update(Toolbar::connection_lost);
                    d.schedule_retry();
                }
            }
        });
    }

    fn open_stream(self: &Rc<Self>) {
        let last = self.toolbar.state().with_untracked(Toolbar::last_event_id);
        let url = self.endpoints.events_url(last);
        let Ok(source) = open_source(&url, self.shared_stream.get()) else {
            self.toolbar.update(Toolbar::connection_lost);
            self.schedule_retry();
            return;
        };
        let mut listeners = Vec::with_capacity(4);
        let mut listen = |name: &str, f: Box<dyn FnMut(web_sys::Event)>| {
            let closure = Closure::wrap(f);
            let _ = source.add_event_listener_with_callback(name, closure.as_ref().unchecked_ref());
            listeners.push(closure);
        };

        let weak = Rc::downgrade(self);
        listen(
            "open",
            Box::new(move |_| {
                if let Some(d) = weak.upgrade() {
                    let mut b = d.backoff.get();
                    b.reset();
                    d.backoff.set(b);
                    d.toolbar.update(Toolbar::stream_opened);
                }
            }),
        );
        for name in [EVENT_NAME, "message"] {
            let weak: Weak<Driver> = Rc::downgrade(self);
            listen(
                name,
                Box::new(move |ev| {
                    let Some(d) = weak.upgrade() else { return };
                    let Some(msg) = ev.dyn_ref::<MessageEvent>() else {
                        return;
                    };
                    let data = msg.data().as_string().unwrap_or_default();
                    let id = msg.last_event_id();
                    let id = (!id.is_empty()).then_some(id);
                    d.toolbar
                        .update(|t| _ = t.apply_event(id.as_deref(), name, &data, now_ms()));
                }),
            );
        }
        let weak = Rc::downgrade(self);
        listen(
            "error",
            Box::new(move |_| {
                if let Some(d) = weak.upgrade() {
                    // Close the stream (cancelling the browser's own retry) and resync ourselves; the
                    // listeners are dropped by the next cycle, not here, while one of them runs.
                    if let Some(open) = d.stream.borrow().as_ref() {
                        open.source.close();
                    }
                    d.toolbar.update(Toolbar::connection_lost);
                    d.schedule_retry();
                }
            }),
        );
        *self.stream.borrow_mut() = Some(OpenStream {
            source,
            _listeners: listeners,
        });
    }

    fn schedule_retry(self: &Rc<Self>) {
        if self.stopped.get() {
            return;
        }
        let mut backoff = self.backoff.get();
        let delay = backoff.next_delay_ms(js_sys::Math::random());
        self.backoff.set(backoff);
        let weak = Rc::downgrade(self);
        let handle = set_timeout_with_handle(
            move || {
                if let Some(d) = weak.upgrade() {
                    d.retry.set(None);
                    d.cycle();
                }
            },
            Duration::from_millis(u64::from(delay)),
        );
        if let Some(old) = self.retry.replace(handle.ok()) {
            old.clear();
        }
    }
}

/// The page's stream registry, set by the package's entry script: toolbars of one server share
/// one multi-session stream through it (the browser opens only six
/// HTTP/1.1 connections per origin).
const SHARED_STREAMS: &str = "__ctxguardToolbarStream";

/// Opens the stream at `url`: through the page's registry when the server has the shared stream
/// and the page a registry (an `EventSource` look-alike that dispatches this session's events
/// and the shared stream's `open` and `error`), else an `EventSource` of its own.
fn open_source(url: &str, server_shares: bool) -> Result<EventSource, JsValue> {
    let shared = web_sys::window()
        .filter(|_| server_shares)
        .and_then(|w| js_sys::Reflect::get(&w, &SHARED_STREAMS.into()).ok())
        .filter(JsValue::is_function);
    match shared {
        Some(open) => open
            .unchecked_into::<js_sys::Function>()
            .call1(&JsValue::NULL, &url.into())
            .map(JsCast::unchecked_into),
        None => EventSource::new(url),
    }
}

/// `GET url` with `fetch` (a plain `GET` with `Accept`, so no CORS preflight).
async fn fetch_context(url: &str) -> Result<ContextReply, ()> {
    let window = web_sys::window().ok_or(())?;
    let init = web_sys::RequestInit::new();
    init.set_method("GET");
    let request = web_sys::Request::new_with_str_and_init(url, &init).map_err(|_| ())?;
    request
        .headers()
        .set("Accept", "application/json")
        .map_err(|_| ())?;
    let response: web_sys::Response = JsFuture::from(window.fetch_with_request(&request))
        .await
        .map_err(|_| ())?
        .dyn_into()
        .map_err(|_| ())?;
    if response.status() == 404 {
        return Ok(ContextReply::NotFound);
    }
    if !response.ok() {
        return Err(());
    }
    let text = JsFuture::from(response.text().map_err(|_| ())?)
        .await
        .map_err(|_| ())?
        .as_string()
        .ok_or(())?;
    crate::json::context_state(&text)
        .map(|s| ContextReply::Snapshot(Box::new(s)))
        .ok_or(())
}

/// Keeps `toolbar` in step with the stream at `endpoints` until the calling owner is cleaned up.
pub fn use_status_stream(endpoints: Endpoints, toolbar: LiveToolbar) {
    // The cycle spawns tasks; a host may call this before mounting any view.
    let _ = any_spawner::Executor::init_wasm_bindgen();
    let driver = Rc::new(Driver {
        endpoints,
        toolbar,
        stream: RefCell::new(None),
        retry: Cell::new(None),
        backoff: Cell::new(Backoff::default()),
        shared_stream: Cell::new(false),
        generation: Cell::new(0),
        stopped: Cell::new(false),
        window_listeners: RefCell::new(Vec::new()),
    });
    driver.start();
    let driver = SendWrapper::new(driver);
    on_cleanup(move || driver.stop());
}
