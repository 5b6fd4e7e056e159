//! Arguments in, results out: how the facade turns JS values into core's
//! types and back, and the one error type every export throws.
//!
//! Every conversion names the argument's path in its error
//! (`messages[2].content[0]: …`), and none lets a JS exception through: a
//! getter or a proxy that throws while an argument is read becomes an `Error`
//! at that path, so a class whose method was running is never left borrowed.

use super::growth::WasmMemory;
use crate::budget::ModelConfig;
use crate::growth::Growth;
use crate::message::Message;
use crate::tokens::TokenCounter;
use js_sys::{Array, Number, Reflect};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::fmt::Display;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

/// A JS `Error` to throw: what every export returns on failure, so that JS
/// always catches an `Error` whose message starts with the argument's path.
#[derive(Debug)]
pub struct Thrown(js_sys::Error);

impl Thrown {
    /// An `Error` with `message`.
    pub fn new(message: &str) -> Self {
        Thrown(js_sys::Error::new(message))
    }

    /// Adds a data property to the error (the guard's typed errors carry fields).
    pub fn with_field(self, key: &str, value: JsValue) -> Self {
        // Defining a property on a fresh Error cannot fail.
        let _ = Reflect::set(&self.0, &key.into(), &value);
        self
    }
}

impl From<Thrown> for JsValue {
    fn from(thrown: Thrown) -> JsValue {
        thrown.0.into()
    }
}

/// A value some JS code threw, kept when it is an `Error` and wrapped in one otherwise.
impl From<JsValue> for Thrown {
    fn from(value: JsValue) -> Self {
        match value.dyn_into::<js_sys::Error>() {
            Ok(error) => Thrown(error),
            Err(other) => Thrown::new(&format!("threw {}", describe(&other))),
        }
    }
}

/// What every export returns: its value, or the `Error` it throws.
pub type JsResult<T> = Result<T, Thrown>;

#[wasm_bindgen]
extern "C" {
    /// `Array.isArray`, which throws on a revoked proxy.
    #[wasm_bindgen(catch, js_namespace = Array, js_name = isArray)]
    fn is_array_or_throw(value: &JsValue) -> Result<bool, JsValue>;

    /// `Object.keys`, which runs proxy traps (they may throw anything).
    #[wasm_bindgen(catch, js_namespace = Object, js_name = keys)]
    fn keys_or_throw(value: &JsValue) -> Result<Array, JsValue>;
}

/// Nesting limit of JSON arguments (as serde_json's parser has).
const MAX_DEPTH: usize = 128;

/// `arg: problem` as a JS `Error`.
pub fn fail(arg: &str, problem: impl Display) -> Thrown {
    Thrown::new(&format!("{arg}: {problem}"))
}

/// Whether `v` is an array (a revoked proxy is not).
pub fn is_array(v: &JsValue) -> bool {
    is_array_or_throw(v).unwrap_or(false)
}

/// What a getter or proxy threw, for an error message.
fn describe_thrown(thrown: &JsValue) -> String {
    match thrown.dyn_ref::<js_sys::Error>() {
        Some(error) => format!("reading it threw {}", String::from(error.to_string())),
        None => format!("reading it threw {}", describe(thrown)),
    }
}

/// A short description of a JS value for error messages.
pub fn describe(v: &JsValue) -> String {
    if v.is_null() {
        "null".into()
    } else if v.is_undefined() {
        "undefined".into()
    } else if is_array(v) {
        "an array".into()
    } else if let Some(s) = v.as_string() {
        let short: String = s.chars().take(40).collect();
        format!("the string {short:?}")
    } else if let Some(n) = v.as_f64() {
        format!("the number {}", js_number(n))
    } else if let Some(b) = v.as_bool() {
        format!("{b}")
    } else {
        v.js_typeof()
            .as_string()
            .map_or_else(|| "a value".into(), |t| format!("a value of type {t}"))
    }
}

/// A number as JS prints it (`1e300`, not 301 digits).
pub fn js_number(n: f64) -> String {
    Number::from(n)
        .to_string_with_radix(10)
        .map_or_else(|_| n.to_string(), String::from)
}

/// Whether `v` is `null` or `undefined` (an absent optional argument).
pub fn is_nullish(v: &JsValue) -> bool {
    v.is_null() || v.is_undefined()
}

/// The argument as a string.
pub fn string_arg(v: &JsValue, arg: &str) -> JsResult<String> {
    v.as_string()
        .ok_or_else(|| fail(arg, format!("expected a string, got {}", describe(v))))
}

/// The argument as a `Uint8Array`, copied into wasm memory (a copy that cannot be had is an `Error`, not a trap).
pub fn bytes_arg(v: &JsValue, arg: &str) -> JsResult<Vec<u8>> {
    let Some(array) = v.dyn_ref::<js_sys::Uint8Array>() else {
        return Err(fail(
            arg,
            format!("expected a Uint8Array, got {}", describe(v)),
        ));
    };
    let len = array.length() as usize;
    let mut out = Vec::new();
    out.try_reserve_exact(len).map_err(|_| {
        fail(
            arg,
            format!("{len} bytes do not fit in this module's memory; pass a smaller slice"),
        )
    })?;
    out.resize(len, 0);
    array.copy_to(&mut out);
    Ok(out)
}

/// The argument as a boolean.
pub fn bool_arg(v: &JsValue, arg: &str) -> JsResult<bool> {
    v.as_bool()
        .ok_or_else(|| fail(arg, format!("expected a boolean, got {}", describe(v))))
}

/// The argument as a safe integer (|n| ≤ 2^53 − 1).
pub fn int_arg(v: &JsValue, arg: &str) -> JsResult<i64> {
    let Some(n) = v.as_f64() else {
        return Err(fail(
            arg,
            format!("expected an integer, got {}", describe(v)),
        ));
    };
    if !n.is_finite() || n.fract() != 0.0 {
        return Err(fail(
            arg,
            format!("expected an integer, got {}", js_number(n)),
        ));
    }
    if !Number::is_safe_integer(v) {
        let n = js_number(n);
        return Err(fail(
            arg,
            format!("expected a safe integer (at most 2^53 - 1 in size), got {n}"),
        ));
    }
    Ok(n as i64)
}

/// `n` when it is not negative.
pub fn non_negative(n: i64, arg: &str) -> JsResult<i64> {
    if n < 0 {
        return Err(fail(arg, format!("must be ≥ 0, got {n}")));
    }
    Ok(n)
}

/// A non-negative count as a `usize`, saturating where it does not fit (wasm32's `usize` is 32 bits).
pub fn saturating_usize(n: i64) -> usize {
    usize::try_from(n).unwrap_or(usize::MAX)
}

/// The argument as a non-negative safe integer.
pub fn non_negative_int_arg(v: &JsValue, arg: &str) -> JsResult<i64> {
    non_negative(int_arg(v, arg)?, arg)
}

/// An optional boolean argument (`null` and `undefined` are absent).
pub fn opt_bool_arg(v: &JsValue, arg: &str) -> JsResult<Option<bool>> {
    if is_nullish(v) {
        return Ok(None);
    }
    v.as_bool()
        .map(Some)
        .ok_or_else(|| fail(arg, format!("expected a boolean, got {}", describe(v))))
}

/// The most elements an array argument (or keys an object argument) may have: 2^23 = 8 388 608.
/// Every element becomes a value in wasm memory (16 bytes at least, a message several times
/// that), and wasm32 has 4 GiB; a longer array is refused before anything is allocated for it.
pub const MAX_ARRAY_LENGTH: u32 = 1 << 23;

/// An array's `length`, refused past [`MAX_ARRAY_LENGTH`] (a missing or odd `length` is 0).
fn array_length(v: &JsValue) -> Result<u32, NotJson> {
    let length =
        Reflect::get(v, &"length".into()).map_err(|e| NotJson::new(describe_thrown(&e)))?;
    let n = length.as_f64().unwrap_or(0.0);
    if n > f64::from(MAX_ARRAY_LENGTH) {
        return Err(NotJson::new(format!(
            "{} elements is over the limit of {MAX_ARRAY_LENGTH}",
            js_number(n)
        )));
    }
    // NaN and negative lengths are 0.
    Ok(n.max(0.0) as u32)
}

/// Room for `n` results, or an `Error` when wasm memory cannot hold them (never a trap).
fn vec_for<T>(n: u32) -> Result<Vec<T>, NotJson> {
    let mut out = Vec::new();
    out.try_reserve_exact(n as usize).map_err(|_| {
        NotJson::new(format!(
            "{n} elements do not fit in the WebAssembly memory left"
        ))
    })?;
    Ok(out)
}

/// Each item of an array read and turned into a `T` in turn, so that one JS value is held
/// at a time, however long the array: wasm-bindgen keeps every live JS value in a table that
/// grows 128 slots at a time (copying it) up to V8's 10 million, so holding them all made a
/// long array quadratic in time, and one of 9 million trap; the memory grows in geometric steps
/// meanwhile ([`Growth`]). `lift` makes the reader's own
/// errors (the length, a getter's throw at `[i]`) an `E`.
fn map_items<T, E>(
    v: &JsValue,
    lift: impl Fn(NotJson) -> E,
    mut each: impl FnMut(u32, JsValue) -> Result<T, E>,
) -> Result<Vec<T>, E> {
    let length = array_length(v).map_err(&lift)?;
    let mut out = vec_for(length).map_err(&lift)?;
    let mut growth = Growth::start(&WasmMemory);
    for i in 0..length {
        let item = Reflect::get_u32(v, i)
            .map_err(|e| lift(NotJson::new(describe_thrown(&e)).within(format!("[{i}]"))))?;
        out.push(each(i, item)?);
        growth.after(i + 1, &mut WasmMemory);
    }
    Ok(out)
}

/// The items of an array argument, each made a `T` by `each` (given its index and value) as it is
/// read, one JS value held at a time; at most [`MAX_ARRAY_LENGTH`] of them.
pub fn map_array<T>(
    v: &JsValue,
    arg: &str,
    mut each: impl FnMut(u32, &JsValue) -> JsResult<T>,
) -> JsResult<Vec<T>> {
    map_items(v, |e| e.at(arg), |i, item| each(i, &item))
}

/// The items of an array argument as JSON, each converted and handed to `each` (with its index)
/// as it is read, so only one item's JSON is held besides the results.
pub fn map_json_items<T>(
    v: &JsValue,
    arg: &str,
    mut each: impl FnMut(u32, Value) -> JsResult<T>,
) -> JsResult<Vec<T>> {
    map_array(v, arg, |i, item| {
        let json = js_to_json(item, 1).map_err(|e| e.within(format!("[{i}]")).at(arg))?;
        each(i, json)
    })
}

/// Why a JS value is not JSON, and where (path segments innermost first).
struct NotJson {
    rev_path: Vec<String>,
    problem: String,
}

impl NotJson {
    fn new(problem: impl Into<String>) -> Self {
        NotJson {
            rev_path: Vec::new(),
            problem: problem.into(),
        }
    }

    fn within(mut self, segment: String) -> Self {
        self.rev_path.push(segment);
        self
    }

    fn at(self, arg: &str) -> Thrown {
        let path: String = self.rev_path.iter().rev().map(String::as_str).collect();
        fail(&format!("{arg}{path}"), self.problem)
    }
}

/// Converts a JS value to JSON as `JSON.stringify` sees it, refusing what JSON cannot hold.
fn js_to_json(v: &JsValue, depth: usize) -> Result<Value, NotJson> {
    if is_nullish(v) {
        return Ok(Value::Null);
    }
    if let Some(b) = v.as_bool() {
        return Ok(Value::Bool(b));
    }
    if let Some(n) = v.as_f64() {
        if Number::is_safe_integer(v) {
            return Ok(Value::from(n as i64));
        }
        return serde_json::Number::from_f64(n)
            .map(Value::Number)
            .ok_or_else(|| NotJson::new(format!("{} is not a JSON number", js_number(n))));
    }
    if let Some(s) = v.as_string() {
        return Ok(Value::String(s));
    }
    if depth >= MAX_DEPTH {
        return Err(NotJson::new(format!(
            "nested more than {MAX_DEPTH} levels deep"
        )));
    }
    let array = is_array_or_throw(v).map_err(|e| NotJson::new(describe_thrown(&e)))?;
    if array {
        return map_items(
            v,
            |e| e,
            |i, item| js_to_json(&item, depth + 1).map_err(|e| e.within(format!("[{i}]"))),
        )
        .map(Value::Array);
    }
    if v.is_instance_of::<js_sys::Map>() || v.is_instance_of::<js_sys::Set>() {
        return Err(NotJson::new(
            "expected a plain object or array, got a Map or Set",
        ));
    }
    if v.is_object() && !v.is_function() {
        // The own enumerable string keys, as `Object.entries` has them; each value read on its
        // own, so that a getter's throw is reported at its key.
        let keys = keys_or_throw(v).map_err(|e| NotJson::new(describe_thrown(&e)))?;
        if keys.length() > MAX_ARRAY_LENGTH {
            return Err(NotJson::new(format!(
                "{} keys is over the limit of {MAX_ARRAY_LENGTH}",
                keys.length()
            )));
        }
        let mut map = Map::new();
        for key in keys.iter() {
            let name = key.as_string().unwrap_or_default();
            let value = Reflect::get(v, &key)
                .map_err(|e| NotJson::new(describe_thrown(&e)).within(format!(".{name}")))?;
            if value.is_undefined() {
                continue;
            }
            let json = js_to_json(&value, depth + 1).map_err(|e| e.within(format!(".{name}")))?;
            map.insert(name, json);
        }
        return Ok(Value::Object(map));
    }
    Err(NotJson::new(format!("{} is not a JSON value", describe(v))))
}

/// The argument as JSON (`undefined` properties left out, as `JSON.stringify` does).
pub fn json_arg(v: &JsValue, arg: &str) -> JsResult<Value> {
    js_to_json(v, 0).map_err(|e| e.at(arg))
}

/// The argument as an object holding every one of `required` (non-null).
pub fn object_arg(v: &JsValue, arg: &str, shape: &str, required: &[&str]) -> JsResult<Value> {
    if !v.is_object() || is_array(v) || v.is_function() {
        return Err(fail(
            arg,
            format!("expected an object {shape}, got {}", describe(v)),
        ));
    }
    let value = json_arg(v, arg)?;
    for key in required {
        if value.get(key).is_none_or(Value::is_null) {
            return Err(fail(arg, format!("missing required field \"{key}\"")));
        }
    }
    Ok(value)
}

/// A JSON value as a core type, the deserialiser's complaint at `arg`.
pub fn typed<T: DeserializeOwned>(value: Value, arg: &str) -> JsResult<T> {
    serde_json::from_value(value).map_err(|e| fail(arg, e))
}

/// A JSON array of messages, each checked at `arg[i]`.
pub fn messages_from_json(value: &Value, arg: &str) -> JsResult<Vec<Message>> {
    let Some(items) = value.as_array() else {
        return Err(fail(arg, "expected an array of message objects"));
    };
    items
        .iter()
        .enumerate()
        .map(|(i, item)| {
            if !item.is_object() {
                return Err(fail(&format!("{arg}[{i}]"), "expected a message object"));
            }
            Message::deserialize(item).map_err(|e| fail(&format!("{arg}[{i}]"), e))
        })
        .collect()
}

/// The argument as a list of chat messages, each read and checked as it comes (one JS value and
/// one message's JSON held at a time besides the messages).
pub fn messages_arg(v: &JsValue, arg: &str) -> JsResult<Vec<Message>> {
    if !is_array(v) {
        return Err(fail(
            arg,
            format!("expected an array of message objects, got {}", describe(v)),
        ));
    }
    map_json_items(v, arg, |i, item| {
        if !item.is_object() {
            return Err(fail(&format!("{arg}[{i}]"), "expected a message object"));
        }
        Message::deserialize(item).map_err(|e| fail(&format!("{arg}[{i}]"), e))
    })
}

/// The token counter of the `model` argument (core lower-cases the id; no state between calls).
pub fn counter_arg(model: &JsValue) -> JsResult<TokenCounter> {
    Ok(TokenCounter::for_model(&string_arg(model, "model")?))
}

/// The optional `modelConfig` argument, its limits checked.
pub fn model_config_arg(v: &JsValue) -> JsResult<Option<ModelConfig>> {
    if is_nullish(v) {
        return Ok(None);
    }
    let shape = "{context_window?, max_output_tokens?}";
    let config: ModelConfig = typed(object_arg(v, "modelConfig", shape, &[])?, "modelConfig")?;
    if let Some(w) = config.context_window {
        non_negative(w, "modelConfig.context_window")?;
    }
    if let Some(o) = config.max_output_tokens {
        non_negative(o, "modelConfig.max_output_tokens")?;
    }
    Ok(Some(config))
}

/// A Rust result as a plain JS value (objects, not `Map`s).
pub fn to_js<T: Serialize + ?Sized>(value: &T) -> JsResult<JsValue> {
    value
        .serialize(&serde_wasm_bindgen::Serializer::json_compatible())
        .map_err(|e| Thrown::new(&format!("result could not be converted to JS: {e}")))
}
