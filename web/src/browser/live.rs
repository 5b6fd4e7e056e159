//! [`LiveToolbar`]: one session's toolbar as the browser holds it. The state
//! sits in a signal the views read; every change goes through
//! [`LiveToolbar::update`], which saves the new state to `localStorage` when
//! its saved form changed and then tells the listener (the custom element
//! turns that into DOM events), synchronously, with the state before and
//! after.

use crate::browser::storage;
use crate::machine::state::Toolbar;
use leptos::prelude::*;
use std::cell::RefCell;
use std::rc::Rc;

type Listener = Rc<dyn Fn(&Toolbar, &Toolbar)>;

/// A session's toolbar state, saved and observed. Cloning shares it.
#[derive(Clone)]
pub struct LiveToolbar {
    inner: Rc<Inner>,
}

struct Inner {
    state: RwSignal<Toolbar>,
    session: RefCell<String>,
    listener: RefCell<Option<Listener>>,
}

impl LiveToolbar {
    /// The toolbar of `session`, restored from what this browser saved for it.
    pub fn restore(session: &str) -> Self {
        LiveToolbar {
            inner: Rc::new(Inner {
                state: RwSignal::new(Toolbar::restored_from(
                    storage::load(session),
                    js_sys::Date::now(),
                )),
                session: RefCell::new(session.to_string()),
                listener: RefCell::new(None),
            }),
        }
    }

    /// The state, for views.
    pub fn state(&self) -> RwSignal<Toolbar> {
        self.inner.state
    }

    /// The session shown.
    pub fn session(&self) -> String {
        self.inner.session.borrow().clone()
    }

    /// Calls `listener(before, after)` after every change (replacing any earlier listener).
    pub fn set_listener(&self, listener: impl Fn(&Toolbar, &Toolbar) + 'static) {
        *self.inner.listener.borrow_mut() = Some(Rc::new(listener));
    }

    /// Changes the state with `f`, saves it if its saved form changed, then tells the listener.
    pub fn update<R>(&self, f: impl FnOnce(&mut Toolbar) -> R) -> R {
        let before = self.inner.state.get_untracked();
        let mut after = before.clone();
        let out = f(&mut after);
        if after == before {
            return out;
        }
        let saved = after.saved();
        if saved != before.saved() {
            if let Some(saved) = &saved {
                storage::save(&self.session(), saved);
            }
        }
        self.inner.state.set(after.clone());
        let listener = self.inner.listener.borrow().clone();
        if let Some(listener) = listener {
            listener(&before, &after);
        }
        out
    }

    /// Shows `session` instead, restored from what this browser saved for it (its feed
    /// is then started over by the caller).
    pub fn switch_to(&self, session: &str) {
        *self.inner.session.borrow_mut() = session.to_string();
        let restored = Toolbar::restored_from(storage::load(session), js_sys::Date::now());
        self.update(|t| *t = restored);
    }

    /// Forgets the saved state and the history of the session and starts it afresh.
    pub fn clear(&self) {
        storage::clear(&self.session());
        self.update(|t| *t = t.cleared());
    }
}
