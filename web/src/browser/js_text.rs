//! Long strings across the JavaScript boundary, each crossed at most once.
//!
//! An event may carry megabytes in one string (a `failure_reason`); copying it
//! between the page's JavaScript and this module costs about 1.5 ms a megabyte
//! each way, and it would cross five times per event (in, the chip's `title`,
//! `ctxguard-compaction`, `ctxguard-change`, `state`), through JSON text every
//! time. So the element's JavaScript takes strings of at least [`LONG_CHARS`]
//! out of an event before it is made JSON text, leaving placeholders
//! (`ctxguard-toolbar.js`, `pushEvent`); [`fill_placeholders`] puts them back
//! as Rust strings. The compaction record shown is shared (an `Arc`) by the
//! state and the view, and keeps the JavaScript string its failure reason
//! arrived as ([`adopt_reason`]): [`reason_to_js`] and [`record_to_js`] hand
//! that string back out, found by the record's identity, so no output copies
//! or compares the text.

use ctxguard_core::protocol::ContextCompaction;
use js_sys::{Array, JsString, Reflect};
use serde::Serialize;
use serde_json::Value;
use std::cell::RefCell;
use std::sync::Arc;
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
    /// Writes straight into this module's memory: wasm-bindgen hands a `&mut [u8]` to an
    /// import as a view of that memory, not a copy.
    #[wasm_bindgen(method, js_name = encodeInto)]
    fn encode_into(this: &TextEncoder, text: &JsString, into: &mut [u8]) -> EncodeResult;
    type EncodeResult;
    #[wasm_bindgen(method, getter)]
    fn read(this: &EncodeResult) -> u32;
    #[wasm_bindgen(method, getter)]
    fn written(this: &EncodeResult) -> u32;
}

/// Strings from this many characters (UTF-16 units in JavaScript) cross as themselves, not
/// inside JSON text. Keep in step with `LONG_STRING` in `ctxguard-toolbar.js`.
pub const LONG_CHARS: usize = 4_096;

/// Starts every placeholder, and every string the JavaScript side sent aside because it
/// starts so (a private-use character no event text has reason to open with).
pub const PLACEHOLDER_PREFIX: &str = "\u{F8FF}ctxguard-long:";

/// Where a status event carries the failure reason, as a JSON pointer.
pub const REASON_POINTER: &str = "/context_compaction/failure_reason";

/// Records whose reason's JavaScript string is kept (the one shown, and a few before it).
const KEPT: usize = 4;

thread_local! {
    static REASONS: RefCell<Vec<(Arc<ContextCompaction>, JsString)>> = const { RefCell::new(Vec::new()) };
}

/// Records that `js` is the JavaScript string of `record`'s failure reason (the one it
/// arrived as), so the outputs hand it back.
pub fn adopt_reason(record: &Arc<ContextCompaction>, js: JsString) {
    REASONS.with_borrow_mut(|kept| {
        kept.retain(|(r, _)| !Arc::ptr_eq(r, record));
        kept.truncate(KEPT - 1);
        kept.insert(0, (Arc::clone(record), js));
    });
}

/// `record`'s failure reason as a JavaScript string (empty without one): the string
/// it was adopted with, else one made now and kept with the record. Found by identity:
/// the record is shared and never changed, and held here while its string is.
pub fn reason_to_js(record: &Arc<ContextCompaction>) -> JsValue {
    let reason = record.failure_reason.as_deref().unwrap_or_default();
    if reason.len() < LONG_CHARS {
        return JsValue::from_str(reason);
    }
    let kept = REASONS.with_borrow(|kept| {
        kept.iter()
            .find(|(r, _)| Arc::ptr_eq(r, record))
            .map(|(_, js)| js.clone())
    });
    let js = kept.unwrap_or_else(|| {
        let js = JsString::from(reason);
        adopt_reason(record, js.clone());
        js
    });
    js.into()
}

/// `record` as the JavaScript object of its JSON, its failure reason through
/// [`reason_to_js`] (nothing else in a record is long).
pub fn record_to_js(record: &Arc<ContextCompaction>) -> JsValue {
    // Every field named, so that a field added to the record is not forgotten here.
    let ContextCompaction {
        kind,
        status,
        before_tokens,
        trigger_limit,
        target_limit,
        used_legacy_fallback,
        created_at,
        after_tokens,
        summary_message_id,
        failure_reason,
    } = &**record;
    let without_reason = ContextCompaction {
        kind: kind.clone(),
        status: *status,
        before_tokens: *before_tokens,
        trigger_limit: *trigger_limit,
        target_limit: *target_limit,
        used_legacy_fallback: *used_legacy_fallback,
        created_at: created_at.clone(),
        after_tokens: *after_tokens,
        summary_message_id: summary_message_id.clone(),
        failure_reason: None,
    };
    let object = serialize_to_js(&without_reason);
    if failure_reason.is_some() {
        // The record's last field: set last, it keeps its place in the JSON's order.
        let _ = Reflect::set(&object, &"failure_reason".into(), &reason_to_js(record));
    }
    object
}

/// The UTF-8 text of a long JavaScript string, encoded by the browser straight into this
/// module's memory (one native pass for ASCII text: a buffer of one byte a UTF-16 unit, grown
/// for what is left when wider characters fill it). A lone surrogate reads as U+FFFD, as
/// `TextEncoder` makes it.
fn long_to_string(js: &JsString) -> String {
    let units = js.length();
    let encoder = TextEncoder::new();
    let mut bytes = vec![0u8; units as usize];
    let (mut read, mut written) = (0u32, 0usize);
    loop {
        let rest = if read == 0 {
            js.clone()
        } else {
            js.slice(read, units)
        };
        let done = encoder.encode_into(&rest, &mut bytes[written..]);
        read += done.read();
        written += done.written() as usize;
        if read >= units {
            break;
        }
        // At most 3 bytes a UTF-16 unit still to read (and room for a 4-byte pair).
        let need = written + (units - read) as usize * 3 + 4;
        bytes.resize(need, 0);
    }
    bytes.truncate(written);
    // TextEncoder writes UTF-8 only.
    String::from_utf8(bytes).unwrap_or_default()
}

/// Why [`fill_placeholders`] refused an event's parts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BadPlaceholder(pub String);

/// Replaces every string of `value` that is a placeholder with the string it stands for in
/// `long` (each converted once).
pub fn fill_placeholders(value: &mut Value, long: &Array) -> Result<(), BadPlaceholder> {
    match value {
        Value::String(s) => {
            if let Some(js) = placeholder_of(s, long)? {
                *s = long_to_string(&js);
            }
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

/// The string sent aside that `text` stands for, when it is a placeholder.
pub fn placeholder_of(text: &str, long: &Array) -> Result<Option<JsString>, BadPlaceholder> {
    let Some(index) = text.strip_prefix(PLACEHOLDER_PREFIX) else {
        return Ok(None);
    };
    index
        .parse::<u32>()
        .ok()
        .filter(|i| *i < long.length())
        .and_then(|i| long.get(i).dyn_into::<JsString>().ok())
        .map(Some)
        .ok_or_else(|| BadPlaceholder(format!("no string {index} was sent aside")))
}

/// `value` as the JavaScript value of its JSON (`null` when it has none): made as text and
/// parsed, for values without long strings ([`record_to_js`] and the toolbar's state take
/// the one long string an event carries out first).
pub fn serialize_to_js<T: Serialize + ?Sized>(value: &T) -> JsValue {
    js_sys::JSON::parse(&crate::json::to_text(value)).unwrap_or(JsValue::NULL)
}
