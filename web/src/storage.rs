//! `localStorage` access for the saved state. Every failure (no storage,
//! storage that throws, a full quota, a corrupt record) reads as "nothing
//! saved" or a skipped save; the page never breaks over it.

use crate::saved;
use ctxguard_core::protocol::ContextState;

fn local_storage() -> Option<web_sys::Storage> {
    web_sys::window()?.local_storage().ok().flatten()
}

/// The state saved for `session`, if a readable one exists.
pub fn load(session: &str) -> Option<ContextState> {
    let text = local_storage()?
        .get_item(&saved::storage_key(session))
        .ok()??;
    saved::decode(session, &text)
}

/// Saves `state` for `session`; returns whether it was stored.
pub fn save(session: &str, state: &ContextState) -> bool {
    let Some(storage) = local_storage() else {
        return false;
    };
    let text = saved::encode(session, state, js_sys::Date::now());
    storage
        .set_item(&saved::storage_key(session), &text)
        .is_ok()
}

/// Forgets what was saved for `session` (tests and the reset button use it).
pub fn clear(session: &str) {
    if let Some(storage) = local_storage() {
        let _ = storage.remove_item(&saved::storage_key(session));
    }
}
