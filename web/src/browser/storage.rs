//! `localStorage` access for the saved state. Every failure (no storage,
//! storage that throws, a full quota, a corrupt record) reads as "nothing
//! saved" or a skipped save; the page never breaks over it.

use crate::saved::{self, SavedToolbar};

fn local_storage() -> Option<web_sys::Storage> {
    web_sys::window()?.local_storage().ok().flatten()
}

/// What was saved for `session`, if a readable record exists.
pub fn load(session: &str) -> Option<SavedToolbar> {
    let text = local_storage()?
        .get_item(&saved::storage_key(session))
        .ok()??;
    saved::decode(session, &text)
}

/// Saves `toolbar` for `session`; returns whether it was stored.
pub fn save(session: &str, toolbar: &SavedToolbar) -> bool {
    let Some(storage) = local_storage() else {
        return false;
    };
    let text = saved::encode(session, toolbar, js_sys::Date::now());
    storage
        .set_item(&saved::storage_key(session), &text)
        .is_ok()
}

/// Forgets what was saved for `session`.
pub fn clear(session: &str) {
    if let Some(storage) = local_storage() {
        let _ = storage.remove_item(&saved::storage_key(session));
    }
}
