//! What both elements need from the DOM: their shadow root's contents, the
//! languages around them, JSON across the boundary, and bubbling, composed
//! custom events.

use wasm_bindgen::{JsCast, JsValue};
use web_sys::{CustomEvent, CustomEventInit, HtmlElement, ShadowRoot};

/// Fills `root` with a `<style>` holding `css` and an empty mount point, which it returns.
pub fn prepare_shadow(root: &ShadowRoot, css: &str) -> Result<HtmlElement, JsValue> {
    let document = web_sys::window()
        .and_then(|w| w.document())
        .ok_or_else(|| JsValue::from_str("no document"))?;
    root.set_inner_html("");
    let style = document.create_element("style")?;
    style.set_text_content(Some(css));
    root.append_child(&style)?;
    let mount = document.create_element("div")?;
    mount.set_class_name("root");
    mount.set_attribute("part", "root")?;
    root.append_child(&mount)?;
    Ok(mount.unchecked_into())
}

/// The value of `name` on `host`, `Some("")` when present and empty.
pub fn attribute(host: &HtmlElement, name: &str) -> Option<String> {
    host.get_attribute(name)
}

/// The `lang` of the nearest element up from `host`'s parent that has one.
pub fn inherited_lang(host: &HtmlElement) -> Option<String> {
    host.parent_element()?
        .closest("[lang]")
        .ok()??
        .get_attribute("lang")
}

/// The browser's languages, preferred first.
pub fn browser_langs() -> Vec<String> {
    let Some(nav) = web_sys::window().map(|w| w.navigator()) else {
        return Vec::new();
    };
    let mut langs: Vec<String> = nav
        .languages()
        .iter()
        .filter_map(|v| v.as_string())
        .collect();
    langs.extend(nav.language());
    langs
}

/// JSON text of a JavaScript value given as an object or as a string (`None` when it is
/// neither, or cannot be serialised: a cycle, a BigInt).
pub fn json_text(value: &JsValue) -> Option<String> {
    if let Some(text) = value.as_string() {
        return Some(text);
    }
    if !value.is_object() {
        return None;
    }
    js_sys::JSON::stringify(value)
        .ok()
        .and_then(|s| s.as_string())
}

/// A JavaScript value of JSON text (`null` when it does not parse).
pub fn json_value(text: &str) -> JsValue {
    js_sys::JSON::parse(text).unwrap_or(JsValue::NULL)
}

/// Dispatches `name` from `host`, bubbling and composed, with `detail`.
pub fn dispatch(host: &HtmlElement, name: &str, detail: &JsValue) {
    let init = CustomEventInit::new();
    init.set_bubbles(true);
    init.set_composed(true);
    init.set_detail(detail);
    if let Ok(event) = CustomEvent::new_with_event_init_dict(name, &init) {
        let _ = host.dispatch_event(&event);
    }
}
