//! The JavaScript API of ctxguard-core (feature `wasm`), as the npm package in
//! `pkg/` exports it: a thin facade over the Rust API with JS-cased names.
//!
//! Every function validates its arguments and throws a JS `Error` whose
//! message starts with the argument's name (`policy.limit: must be ≥ 0, got -1`);
//! nothing panics. Data objects cross the boundary as plain JS objects and
//! arrays with the wire's snake_case field names. The TypeScript declarations
//! of every type sit in the custom section below, next to the functions whose
//! signatures name them, so the two cannot drift apart.
//!
//! Encodings are built on the first call that needs them: a page that only
//! counts for o200k models never parses cl100k.
//!
//! The guard pipeline (the `ContextGuard` and `SummaryRequest` classes) lives
//! in `wasm/guard.rs`, its history helpers (tool pairs, checkpoint reload) in
//! `wasm/checkpoint.rs`, the incremental `TokenLedger` in `wasm/ledger.rs`.

use crate::attachment::{
    allocate_budget, build_header, is_text_readable_mime, preview_messages, HeaderArgs,
};
use crate::budget::{context_limits, ModelConfig};
use crate::ledger::Ledger;
use crate::message::Message;
use crate::metrics::{should_emit, snapshot, EmitState, ProviderBaseline};
use crate::protocol::{Phase, StatusEvent};
use crate::read_attachment::{read_page, Document};
use crate::tokens::TokenCounter;
use crate::tool_output::{render, RawToolOutput, ToolOutputInput, TruncationPolicy};
use js_sys::{Array, Number, Object};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::fmt::Display;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

mod checkpoint;
mod guard;
mod ledger;
pub use checkpoint::{
    latest_checkpoint_js, reload_messages_js, sanitize_tool_pairs_js,
    select_recent_user_messages_js,
};
pub use guard::{is_context_too_long_error_js, ContextGuard, SummaryRequest};
pub use ledger::TokenLedger;

#[wasm_bindgen(typescript_custom_section)]
const TS_TYPES: &'static str = r#"
/** Any JSON value; `undefined` object properties count as absent. */
export type JsonValue = null | boolean | number | string | JsonValue[] | JsonObject;
/** A JSON object. */
export type JsonObject = { [key: string]: JsonValue | undefined };

/** A `{type: "text"}` part of a multimodal message. */
export type TextPart = { type: "text"; text: string; [key: string]: JsonValue | undefined };
/** An image part, counted as 170 tokens. */
export type ImagePart = { type: "image_url"; image_url?: JsonValue; [key: string]: JsonValue | undefined };
/** One element of a content list: a text part, an image part, a bare string, or some other object (counted as nothing). */
export type ContentPart = TextPart | ImagePart | string | JsonObject;
/** The `function` of an OpenAI-shaped tool call; `arguments` is a JSON string or an object. */
export type FunctionCall = { name: string; arguments: string | JsonObject; [key: string]: JsonValue | undefined };
/** A tool call: OpenAI's `{id, type, function}` or LangChain's `{name, args, id}`. */
export type ToolCall =
  | { id?: string; type?: string; function: FunctionCall; [key: string]: JsonValue | undefined }
  | { id?: string; name: string; args?: JsonObject | string; [key: string]: JsonValue | undefined };
/** A chat message (OpenAI or LangChain shape); unknown fields are kept as they are. */
export type Message = {
  role: string;
  content?: string | ContentPart[] | null;
  name?: string | null;
  tool_calls?: ToolCall[] | null;
  tool_call_id?: string | null;
  additional_kwargs?: JsonObject | null;
  [key: string]: JsonValue | undefined;
};

/** Per-model overrides; a `context_window` replaces the built-in model table. */
export interface ModelConfig { context_window?: number | null; max_output_tokens?: number | null }
/** A model's derived budget (SPEC §2). */
export interface ContextLimits {
  context_window: number;
  reserved_output_tokens: number;
  available_tokens: number;
  trigger_limit: number;
  target_limit: number;
}
/** Where the used tokens come from; the parts sum to `used_input_tokens`. */
export interface UsageBreakdown {
  system: number;
  user: number;
  assistant: number;
  tool_outputs: number;
  attachments: number;
  overhead: number;
}
/** One context usage snapshot: the 11 wire fields (SPEC §3) and, for a full recount, the breakdown. */
export interface ContextMetricsSnapshot {
  context_window: number;
  reserved_output_tokens: number;
  available_input_tokens: number;
  used_input_tokens: number;
  remaining_input_tokens: number;
  remaining_percent: number;
  display_remaining_tokens: number;
  display_remaining_percent: number;
  trigger_limit: number;
  target_limit: number;
  is_over_trigger: boolean;
  breakdown?: UsageBreakdown;
}
/** The input tokens a provider reported for the messages of its last call. */
export interface ProviderBaseline { input_tokens: number; messages: Message[] }
/** What throttling needs of a snapshot (a whole `ContextMetricsSnapshot` fits). */
export interface EmitState { remaining_percent: number; is_over_trigger: boolean }
/** Phase of a status update. */
export type Phase = "build_messages" | "after_tool_end" | "after_compaction" | "summary_compact" | "final";

/** How much of a tool output survives a cut. */
export interface TruncationPolicy { kind: "tokens" | "bytes"; limit: number }
/** A structured tool result before rendering. */
export interface RawToolOutput {
  text: string;
  tool_name?: string | null;
  exit_code?: number | null;
  wall_time?: number | null;
}

/** A protection trace record, `context_protection.<operation>`. */
export interface ProtectionTrace {
  name: string;
  attributes: {
    operation: string;
    status: string;
    before_tokens?: number;
    after_tokens?: number;
    tokens_saved?: number;
    [key: string]: JsonValue | undefined;
  };
}
/** What the preview did to one attachment. */
export interface SegmentReport {
  message_index: number;
  attachment_id: string;
  name: string;
  mime_type: string | null;
  chars: number;
  tokens: number;
  allocation: number;
  truncated: boolean;
}
/** The result of `previewAttachments`. */
export interface AttachmentPreview { messages: Message[]; traces: ProtectionTrace[]; segments: SegmentReport[] }
/** Inputs of `buildAttachmentHeader`. */
export interface HeaderArgs {
  attachment_id: number;
  filename: string;
  mime_type?: string | null;
  file_size: number;
  sandbox_path?: string | null;
  is_image?: boolean | null;
}

/** An attachment's extracted text, as the host fetched it. */
export interface AttachmentDocument { text: string; name: string; mime_type: string; source_truncated?: boolean | null }
/** A page of text (SPEC §7). */
export interface ReadSuccess {
  status: "success";
  attachment_id: number;
  name: string;
  mime_type: string;
  offset: number;
  chars_read: number;
  total_chars: number;
  next_offset: number | null;
  has_more: boolean;
  source_truncated: boolean;
  content: string;
  warning?: string;
}
/** The attachment has no text. */
export interface ReadEmpty { status: "empty"; attachment_id: number; message: string }
/** The attachment could not be read. */
export interface ReadError { status: "error"; message: string }
/** Too many calls this turn. */
export interface ReadRejected { status: "rejected"; message: string }
/** The `read_attachment` tool result. */
export type ReadResult = ReadSuccess | ReadEmpty | ReadError | ReadRejected;

/** State of a summary compaction; `started` and `in_progress` both mean compacting. */
export type CompactionStatus = "started" | "in_progress" | "completed" | "fallback";
/** The `context_compaction` object of a `summary_compact` event. */
export interface ContextCompaction {
  type: string;
  status: CompactionStatus;
  before_tokens: number;
  trigger_limit: number;
  target_limit: number;
  used_legacy_fallback: boolean;
  created_at: string;
  after_tokens?: number;
  summary_message_id?: string;
  failure_reason?: string;
}
/** The JSON of one `response.status.updated` SSE `data:` field (SPEC §4). */
export interface StatusEvent {
  type: "response.status.updated";
  response_id: string;
  phase: Phase;
  context_metrics: ContextMetricsSnapshot;
  context_compaction?: ContextCompaction;
}
"#;

/// Errors thrown to JS.
type JsResult<T> = Result<T, JsError>;

/// Nesting limit of JSON arguments (as serde_json's parser has).
const MAX_DEPTH: usize = 128;

/// `arg: problem` as a JS `Error`.
fn fail(arg: &str, problem: impl Display) -> JsError {
    JsError::new(&format!("{arg}: {problem}"))
}

/// A short description of a JS value for error messages.
fn describe(v: &JsValue) -> String {
    if v.is_null() {
        "null".into()
    } else if v.is_undefined() {
        "undefined".into()
    } else if Array::is_array(v) {
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
fn js_number(n: f64) -> String {
    Number::from(n)
        .to_string_with_radix(10)
        .map_or_else(|_| n.to_string(), String::from)
}

fn is_nullish(v: &JsValue) -> bool {
    v.is_null() || v.is_undefined()
}

fn string_arg(v: &JsValue, arg: &str) -> JsResult<String> {
    v.as_string()
        .ok_or_else(|| fail(arg, format!("expected a string, got {}", describe(v))))
}

fn int_arg(v: &JsValue, arg: &str) -> JsResult<i64> {
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

fn non_negative(n: i64, arg: &str) -> JsResult<i64> {
    if n < 0 {
        return Err(fail(arg, format!("must be ≥ 0, got {n}")));
    }
    Ok(n)
}

fn non_negative_int_arg(v: &JsValue, arg: &str) -> JsResult<i64> {
    non_negative(int_arg(v, arg)?, arg)
}

fn opt_bool_arg(v: &JsValue, arg: &str) -> JsResult<Option<bool>> {
    if is_nullish(v) {
        return Ok(None);
    }
    v.as_bool()
        .map(Some)
        .ok_or_else(|| fail(arg, format!("expected a boolean, got {}", describe(v))))
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

    fn at(self, arg: &str) -> JsError {
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
    if Array::is_array(v) {
        let items: &Array = v.unchecked_ref();
        return items
            .iter()
            .enumerate()
            .map(|(i, item)| js_to_json(&item, depth + 1).map_err(|e| e.within(format!("[{i}]"))))
            .collect::<Result<Vec<_>, _>>()
            .map(Value::Array);
    }
    if v.is_instance_of::<js_sys::Map>() || v.is_instance_of::<js_sys::Set>() {
        return Err(NotJson::new(
            "expected a plain object or array, got a Map or Set",
        ));
    }
    if v.is_object() && !v.is_function() {
        let mut map = Map::new();
        for entry in Object::entries(v.unchecked_ref()).iter() {
            let pair: &Array = entry.unchecked_ref();
            let key = pair.get(0).as_string().unwrap_or_default();
            let value = pair.get(1);
            if value.is_undefined() {
                continue;
            }
            let json = js_to_json(&value, depth + 1).map_err(|e| e.within(format!(".{key}")))?;
            map.insert(key, json);
        }
        return Ok(Value::Object(map));
    }
    Err(NotJson::new(format!("{} is not a JSON value", describe(v))))
}

fn json_arg(v: &JsValue, arg: &str) -> JsResult<Value> {
    js_to_json(v, 0).map_err(|e| e.at(arg))
}

/// The argument as an object holding every one of `required` (non-null).
fn object_arg(v: &JsValue, arg: &str, shape: &str, required: &[&str]) -> JsResult<Value> {
    if !v.is_object() || Array::is_array(v) || v.is_function() {
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

fn typed<T: DeserializeOwned>(value: Value, arg: &str) -> JsResult<T> {
    serde_json::from_value(value).map_err(|e| fail(arg, e))
}

fn messages_from_json(value: &Value, arg: &str) -> JsResult<Vec<Message>> {
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

fn messages_arg(v: &JsValue, arg: &str) -> JsResult<Vec<Message>> {
    if !Array::is_array(v) {
        return Err(fail(
            arg,
            format!("expected an array of message objects, got {}", describe(v)),
        ));
    }
    messages_from_json(&json_arg(v, arg)?, arg)
}

fn counter_arg(model: &JsValue) -> JsResult<TokenCounter> {
    Ok(TokenCounter::for_model(&string_arg(model, "model")?))
}

/// A Rust result as a plain JS value (objects, not `Map`s).
fn to_js<T: Serialize + ?Sized>(value: &T) -> JsResult<JsValue> {
    value
        .serialize(&serde_wasm_bindgen::Serializer::json_compatible())
        .map_err(|e| JsError::new(&format!("result could not be converted to JS: {e}")))
}

#[cfg(feature = "panic-hook")]
#[wasm_bindgen(start)]
fn start() {
    console_error_panic_hook::set_once();
}

/// Number of tokens of `text` under `model`'s encoding (ordinary encoding: special-token text is plain text).
#[wasm_bindgen(js_name = countTokens)]
pub fn count_tokens(
    #[wasm_bindgen(unchecked_param_type = "string")] text: JsValue,
    #[wasm_bindgen(unchecked_param_type = "string")] model: JsValue,
) -> JsResult<f64> {
    let text = string_arg(&text, "text")?;
    Ok(counter_arg(&model)?.count_text(&text) as f64)
}

/// Tokens of a chat message list, with the per-message and reply-priming overhead (`[]` counts 3).
#[wasm_bindgen(js_name = countMessages)]
pub fn count_messages(
    #[wasm_bindgen(unchecked_param_type = "Message[]")] messages: JsValue,
    #[wasm_bindgen(unchecked_param_type = "string")] model: JsValue,
) -> JsResult<f64> {
    let messages = messages_arg(&messages, "messages")?;
    Ok(counter_arg(&model)?.count_messages(&messages) as f64)
}

fn model_config_arg(v: &JsValue) -> JsResult<Option<ModelConfig>> {
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

/// The context budget of `model`: window, reserved output, available input, trigger and target limits.
#[wasm_bindgen(js_name = contextConfig, unchecked_return_type = "ContextLimits")]
pub fn context_config(
    #[wasm_bindgen(unchecked_param_type = "string")] model: JsValue,
    #[wasm_bindgen(js_name = modelConfig, unchecked_optional_param_type = "ModelConfig | null")]
    model_config: JsValue,
    #[wasm_bindgen(js_name = autoCompactTokenLimit, unchecked_optional_param_type = "number | null")]
    auto_compact_token_limit: JsValue,
) -> JsResult<JsValue> {
    let model = string_arg(&model, "model")?;
    let config = model_config_arg(&model_config)?;
    let auto = if is_nullish(&auto_compact_token_limit) {
        None
    } else {
        Some(int_arg(&auto_compact_token_limit, "autoCompactTokenLimit")?)
    };
    to_js(&context_limits(&model, config.as_ref(), auto))
}

/// The context-metrics snapshot of `messages`; with a provider `baseline` whose messages are still a
/// prefix, used = its input tokens + the new suffix. Without a baseline the snapshot carries a breakdown.
#[wasm_bindgen(js_name = contextMetrics, unchecked_return_type = "ContextMetricsSnapshot")]
pub fn context_metrics(
    #[wasm_bindgen(unchecked_param_type = "Message[]")] messages: JsValue,
    #[wasm_bindgen(unchecked_param_type = "string")] model: JsValue,
    #[wasm_bindgen(js_name = modelConfig, unchecked_optional_param_type = "ModelConfig | null")]
    model_config: JsValue,
    #[wasm_bindgen(unchecked_optional_param_type = "ProviderBaseline | null")] baseline: JsValue,
) -> JsResult<JsValue> {
    let messages = messages_arg(&messages, "messages")?;
    let model_name = string_arg(&model, "model")?;
    let counter = TokenCounter::for_model(&model_name);
    let config = model_config_arg(&model_config)?;
    let baseline = if is_nullish(&baseline) {
        None
    } else {
        let value = object_arg(
            &baseline,
            "baseline",
            "{input_tokens, messages}",
            &["input_tokens", "messages"],
        )?;
        let input_tokens = value
            .get("input_tokens")
            .and_then(Value::as_i64)
            .ok_or_else(|| fail("baseline.input_tokens", "expected an integer"))?;
        non_negative(input_tokens, "baseline.input_tokens")?;
        let prior = messages_from_json(
            value.get("messages").unwrap_or(&Value::Null),
            "baseline.messages",
        )?;
        Some(ProviderBaseline {
            input_tokens,
            messages: prior,
        })
    };
    let limits = context_limits(&model_name, config.as_ref(), None);
    let snap = match &baseline {
        Some(base) => snapshot(&counter, &messages, &limits, Some(base)),
        None => Ledger::from_messages(counter, &messages).snapshot(&limits),
    };
    to_js(&snap)
}

/// Splits `budget` tokens over bodies of `sizes` tokens, smallest first (water-filling).
#[wasm_bindgen(js_name = allocateBudget, unchecked_return_type = "number[]")]
pub fn allocate_budget_js(
    #[wasm_bindgen(unchecked_param_type = "number[]")] sizes: JsValue,
    #[wasm_bindgen(unchecked_param_type = "number")] budget: JsValue,
) -> JsResult<JsValue> {
    if !Array::is_array(&sizes) {
        return Err(fail(
            "sizes",
            format!("expected an array of integers, got {}", describe(&sizes)),
        ));
    }
    let items: &Array = sizes.unchecked_ref();
    let sizes = items
        .iter()
        .enumerate()
        .map(|(i, v)| non_negative_int_arg(&v, &format!("sizes[{i}]")))
        .collect::<JsResult<Vec<i64>>>()?;
    let budget = non_negative_int_arg(&budget, "budget")?;
    to_js(&allocate_budget(&sizes, budget))
}

fn tool_output_arg(v: &JsValue) -> JsResult<ToolOutputInput> {
    if let Some(text) = v.as_string() {
        return Ok(ToolOutputInput::Text(text));
    }
    let shape = "{text, tool_name?, exit_code?, wall_time?}";
    if !v.is_object() || Array::is_array(v) {
        return Err(fail(
            "raw",
            format!(
                "expected a string or an object {shape}, got {}",
                describe(v)
            ),
        ));
    }
    let raw: RawToolOutput = typed(object_arg(v, "raw", shape, &["text"])?, "raw")?;
    Ok(ToolOutputInput::Raw(raw))
}

/// The compact model-visible rendering of a tool output under `policy` (the emergency policy when
/// `emergency` is true); re-rendering a rendering is idempotent.
#[wasm_bindgen(js_name = renderToolOutput)]
pub fn render_tool_output(
    #[wasm_bindgen(unchecked_param_type = "string | RawToolOutput")] raw: JsValue,
    #[wasm_bindgen(unchecked_param_type = "TruncationPolicy")] policy: JsValue,
    #[wasm_bindgen(unchecked_param_type = "string")] model: JsValue,
    #[wasm_bindgen(unchecked_optional_param_type = "boolean | null")] emergency: JsValue,
) -> JsResult<String> {
    let raw = tool_output_arg(&raw)?;
    let mut policy: TruncationPolicy = typed(
        object_arg(&policy, "policy", "{kind, limit}", &["kind", "limit"])?,
        "policy",
    )?;
    non_negative(policy.limit, "policy.limit")?;
    if opt_bool_arg(&emergency, "emergency")?.unwrap_or(false) {
        policy = policy.emergency();
    }
    Ok(render(&raw, policy, &counter_arg(&model)?))
}

/// Bounds every `<attachment>` block of `messages` to `limit` tokens (0 turns the pass off);
/// returns the new messages, the trace records and a report per attachment.
#[wasm_bindgen(js_name = previewAttachments, unchecked_return_type = "AttachmentPreview")]
pub fn preview_attachments(
    #[wasm_bindgen(unchecked_param_type = "Message[]")] messages: JsValue,
    #[wasm_bindgen(unchecked_param_type = "string")] model: JsValue,
    #[wasm_bindgen(unchecked_param_type = "number")] limit: JsValue,
) -> JsResult<JsValue> {
    let messages = messages_arg(&messages, "messages")?;
    let counter = counter_arg(&model)?;
    let limit = non_negative_int_arg(&limit, "limit")?;
    to_js(&preview_messages(&messages, &counter, limit))
}

/// The header line a client writes before an attachment body.
#[wasm_bindgen(js_name = buildAttachmentHeader)]
pub fn build_attachment_header(
    #[wasm_bindgen(unchecked_param_type = "HeaderArgs")] args: JsValue,
) -> JsResult<String> {
    let shape = "{attachment_id, filename, mime_type?, file_size, sandbox_path?, is_image?}";
    let mut value = object_arg(
        &args,
        "args",
        shape,
        &["attachment_id", "filename", "file_size"],
    )?;
    if let Some(obj) = value.as_object_mut() {
        // `is_image: null` means not an image, as an absent field does.
        if obj.get("is_image").is_some_and(Value::is_null) {
            obj.shift_remove("is_image");
        }
    }
    let header: HeaderArgs = typed(value, "args")?;
    non_negative(header.file_size, "args.file_size")?;
    Ok(build_header(&header))
}

/// Whether a file of this MIME type is readable text (`text/*`, `+json`, `+xml`, and known application types).
#[wasm_bindgen(js_name = isTextReadableMime)]
pub fn is_text_readable_mime_js(
    #[wasm_bindgen(unchecked_param_type = "string")] mime: JsValue,
) -> JsResult<bool> {
    Ok(is_text_readable_mime(&string_arg(&mime, "mime")?))
}

/// One `read_attachment` call: the page of `doc` from `offset` (negative reads from 0), at most `limit`
/// characters (0 = default) and `pageTokenLimit` tokens (0 = 15000); `doc` is null when it cannot be read.
#[wasm_bindgen(js_name = readAttachmentPage, unchecked_return_type = "ReadResult")]
pub fn read_attachment_page(
    #[wasm_bindgen(unchecked_param_type = "AttachmentDocument | null")] doc: JsValue,
    #[wasm_bindgen(js_name = attachmentId, unchecked_param_type = "number")] attachment_id: JsValue,
    #[wasm_bindgen(unchecked_param_type = "number")] offset: JsValue,
    #[wasm_bindgen(unchecked_param_type = "number")] limit: JsValue,
    #[wasm_bindgen(js_name = pageTokenLimit, unchecked_param_type = "number")]
    page_token_limit: JsValue,
    #[wasm_bindgen(unchecked_param_type = "string")] model: JsValue,
) -> JsResult<JsValue> {
    let doc: Option<Document> = if is_nullish(&doc) {
        None
    } else {
        let shape = "{text, name, mime_type, source_truncated?}";
        let mut value = object_arg(&doc, "doc", shape, &["text", "name", "mime_type"])?;
        if let Some(obj) = value.as_object_mut() {
            if obj.get("source_truncated").is_some_and(Value::is_null) {
                obj.shift_remove("source_truncated");
            }
        }
        Some(typed(value, "doc")?)
    };
    let attachment_id = int_arg(&attachment_id, "attachmentId")?;
    let offset = int_arg(&offset, "offset")?;
    let limit = non_negative_int_arg(&limit, "limit")?;
    let page_token_limit = non_negative_int_arg(&page_token_limit, "pageTokenLimit")?;
    let counter = counter_arg(&model)?;
    to_js(&read_page(
        doc.as_ref(),
        attachment_id,
        offset,
        limit,
        page_token_limit,
        &counter,
    ))
}

fn emit_state_arg(v: &JsValue, arg: &str) -> JsResult<EmitState> {
    let shape = "{remaining_percent, is_over_trigger}";
    typed(
        object_arg(v, arg, shape, &["remaining_percent", "is_over_trigger"])?,
        arg,
    )
}

/// Whether a status update is sent: always at turn boundaries and compactions, with no previous
/// snapshot, on a trigger crossing, or when remaining falls into a lower 5% bucket.
#[wasm_bindgen(js_name = shouldEmitStatusUpdate)]
pub fn should_emit_status_update(
    #[wasm_bindgen(unchecked_param_type = "EmitState | null")] previous: JsValue,
    #[wasm_bindgen(unchecked_param_type = "EmitState")] current: JsValue,
    #[wasm_bindgen(unchecked_param_type = "Phase")] phase: JsValue,
) -> JsResult<bool> {
    let previous = if is_nullish(&previous) {
        None
    } else {
        Some(emit_state_arg(&previous, "previous")?)
    };
    let current = emit_state_arg(&current, "current")?;
    let name = string_arg(&phase, "phase")?;
    let Some(phase) = Phase::from_name(&name) else {
        let known: Vec<&str> = Phase::ALL.iter().map(|p| p.as_str()).collect();
        return Err(fail(
            "phase",
            format!(
                "unknown phase {name:?} (expected one of {})",
                known.join(", ")
            ),
        ));
    };
    Ok(should_emit(previous, current, phase))
}

/// Parses and validates the JSON text of one `response.status.updated` SSE `data:` field.
#[wasm_bindgen(js_name = parseStatusEvent, unchecked_return_type = "StatusEvent")]
pub fn parse_status_event(
    #[wasm_bindgen(unchecked_param_type = "string")] data: JsValue,
) -> JsResult<JsValue> {
    let data = string_arg(&data, "data")?;
    let event = StatusEvent::parse(&data).map_err(|e| fail("data", e))?;
    to_js(&event)
}
