//! Long strings across the JavaScript boundary, each crossed at most once.
//!
//! An event may carry megabytes in one string (a `failure_reason`); copying it
//! between the page's JavaScript and this module costs about 2 ms a megabyte
//! each way, and it would cross five times per event (in, the chip's `title`,
//! `ctxguard-compaction`, `ctxguard-change`, `state`), through JSON text every
//! time. So the element's JavaScript takes strings of at least [`LONG_CHARS`]
//! out of an event before it is made JSON text, leaving [`placeholder`]s
//! (`ctxguard-toolbar.js`, `pushEvent`); [`fill_placeholders`] puts them back
//! as Rust strings, and [`remember`]s each next to the JavaScript string it
//! came from, so that [`to_js`] and [`value_to_js`] hand that same string back
//! out instead of copying the text again (issue 24, point 5).

use js_sys::{Array, JsString, Object, Reflect};
use serde::Serialize;
use serde_json::Value;
use std::cell::RefCell;
use wasm_bindgen::prelude::wasm_bindgen;
use wasm_bindgen::{JsCast, JsValue};

#[wasm_bindgen]
extern "C" {
    /// The browser's `TextEncoder`: its `encodeInto` takes a JavaScript string as it is, ~1.3 ms
    /// a megabyte (wasm-bindgen's string glue walks an ASCII string one character at a time,
    /// ~3 ms a megabyte, and `encode` grows its result as it goes, as slow).
    type TextEncoder;
    #[wasm_bindgen(constructor)]
    fn new() -> TextEncoder;
    #[wasm_bindgen(method, js_name = encodeInto)]
    fn encode_into(this: &TextEncoder, text: &JsString, into: &js_sys::Uint8Array) -> EncodeResult;
    type EncodeResult;
    #[wasm_bindgen(method, getter)]
    fn written(this: &EncodeResult) -> u32;
}

/// Strings from this many characters (UTF-16 units in JavaScript, bytes here) cross as
/// themselves, not inside JSON text. Keep in step with `LONG_STRING` in `ctxguard-toolbar.js`.
pub const LONG_CHARS: usize = 4_096;

/// Starts every placeholder, and every string the JavaScript side sent aside because it
/// starts so (a private-use character no event text has reason to open with).
pub const PLACEHOLDER_PREFIX: &str = "\u{F8FF}ctxguard-long:";

/// Long strings remembered with their JavaScript twins.
const REMEMBERED: usize = 4;

thread_local! {
    static CACHE: RefCell<Vec<(String, JsString)>> = const { RefCell::new(Vec::new()) };
}

/// The placeholder of the `index`-th string sent aside.
pub fn placeholder(index: usize) -> String {
    format!("{PLACEHOLDER_PREFIX}{index}")
}

/// Remembers that `js` is the JavaScript string of `text`, so [`to_js`] returns it.
pub fn remember(text: &str, js: &JsString) {
    if text.len() < LONG_CHARS {
        return;
    }
    CACHE.with_borrow_mut(|cache| {
        if let Some(i) = cache.iter().position(|(t, _)| same_text(t, text)) {
            let entry = cache.remove(i);
            cache.insert(0, entry);
            return;
        }
        cache.truncate(REMEMBERED - 1);
        cache.insert(0, (text.to_string(), js.clone()));
    });
}

/// `text` as a JavaScript string: a remembered one when `text` is long and was seen
/// before (compared by content), else a new one (remembered when long).
pub fn to_js(text: &str) -> JsValue {
    if text.len() < LONG_CHARS {
        return JsValue::from_str(text);
    }
    let found = CACHE.with_borrow_mut(|cache| {
        let i = cache.iter().position(|(t, _)| same_text(t, text))?;
        let entry = cache.remove(i);
        let js = entry.1.clone();
        cache.insert(0, entry);
        Some(js)
    });
    let js = found.unwrap_or_else(|| {
        let js = JsString::from(text);
        remember(text, &js);
        js
    });
    js.into()
}

/// Why [`fill_placeholders`] refused an event's parts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BadPlaceholder(pub String);

/// The UTF-8 text of a long JavaScript string, in two native copies (encoded into a scratch
/// buffer, then into this module's memory). A lone surrogate reads as U+FFFD, as
/// `TextEncoder` makes it.
fn long_to_string(js: &JsString) -> String {
    // At most 3 bytes a UTF-16 unit.
    let scratch = js_sys::Uint8Array::new_with_length(js.length().saturating_mul(3));
    let written = TextEncoder::new().encode_into(js, &scratch).written();
    let bytes = scratch.subarray(0, written).to_vec();
    // TextEncoder writes UTF-8 only.
    String::from_utf8(bytes).unwrap_or_default()
}

/// `a == b`, eight bytes at a time: the module's own `memcmp` compares one byte at a time
/// (~3 ms for a 10 MB string).
pub fn same_text(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let (wide_a, wide_b) = (a.chunks_exact(8), b.chunks_exact(8));
    let tails = wide_a.remainder() == wide_b.remainder();
    tails
        && wide_a.zip(wide_b).all(|(x, y)| {
            u64::from_ne_bytes(x.try_into().unwrap_or_default())
                == u64::from_ne_bytes(y.try_into().unwrap_or_default())
        })
}

/// `a == b` for JSON values, long strings compared by [`same_text`].
pub fn same_value(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::String(a), Value::String(b)) => same_text(a, b),
        (Value::Array(a), Value::Array(b)) => {
            a.len() == b.len() && a.iter().zip(b).all(|(a, b)| same_value(a, b))
        }
        (Value::Object(a), Value::Object(b)) => {
            a.len() == b.len()
                && a.iter()
                    .all(|(k, v)| b.get(k).is_some_and(|w| same_value(v, w)))
        }
        _ => a == b,
    }
}

/// Replaces every string of `value` that is a [`placeholder`] with the string it stands
/// for in `long` (each converted once and remembered).
pub fn fill_placeholders(value: &mut Value, long: &Array) -> Result<(), BadPlaceholder> {
    match value {
        Value::String(s) => {
            let Some(index) = s.strip_prefix(PLACEHOLDER_PREFIX) else {
                return Ok(());
            };
            let js = index
                .parse::<u32>()
                .ok()
                .filter(|i| *i < long.length())
                .and_then(|i| long.get(i).dyn_into::<JsString>().ok())
                .ok_or_else(|| BadPlaceholder(format!("no string {index} was sent aside")))?;
            let text = long_to_string(&js);
            remember(&text, &js);
            *s = text;
            Ok(())
        }
        Value::Array(items) => items
            .iter_mut()
            .try_for_each(|v| fill_placeholders(v, long)),
        Value::Object(map) => map
            .values_mut()
            .try_for_each(|v| fill_placeholders(v, long)),
        _ => Ok(()),
    }
}

/// `value` as the JavaScript value `JSON.parse` would make of its JSON text, built
/// directly (long strings through [`to_js`], so no text is made or parsed).
pub fn value_to_js(value: &Value) -> JsValue {
    match value {
        Value::Null => JsValue::NULL,
        Value::Bool(b) => JsValue::from_bool(*b),
        Value::Number(n) => JsValue::from_f64(n.as_f64().unwrap_or(f64::NAN)),
        Value::String(s) => to_js(s),
        Value::Array(items) => items.iter().map(value_to_js).collect::<Array>().into(),
        Value::Object(map) => {
            let object = Object::new();
            for (key, v) in map {
                let v = value_to_js(v);
                if key == "__proto__" {
                    // JSON.parse makes an own property of it; assigning would set the prototype.
                    let descriptor = Object::new();
                    for (name, flag) in [
                        ("value", v),
                        ("writable", JsValue::TRUE),
                        ("enumerable", JsValue::TRUE),
                        ("configurable", JsValue::TRUE),
                    ] {
                        let _ = Reflect::set(&descriptor, &JsValue::from_str(name), &flag);
                    }
                    Object::define_property(&object, &JsValue::from_str(key), &descriptor);
                } else {
                    let _ = Reflect::set(&object, &JsValue::from_str(key), &v);
                }
            }
            object.into()
        }
    }
}

/// `value` as a JavaScript value, through [`value_to_js`] (`null` when it cannot be JSON).
pub fn serialize_to_js<T: Serialize + ?Sized>(value: &T) -> JsValue {
    serde_json::to_value(value).map_or(JsValue::NULL, |v| value_to_js(&v))
}
