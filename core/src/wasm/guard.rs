//! The guard pipeline for JS hosts: a `ContextGuard` class whose
//! `beforeModelCall` proceeds or hands back a `SummaryRequest`, the host's
//! summariser call answered with `onSummary` / `onError`, and
//! `isContextTooLongError` (the history helpers are in `checkpoint.rs`).
//!
//! Time comes from the host as milliseconds since the Unix epoch
//! (`Date.now()`), converted to the guard's microseconds; core never reads a
//! clock. Lifecycle events come out as complete `summary_compact` status
//! events (SPEC §4), ready to send or to feed a toolbar. A `SummaryRequest`
//! answers once: `onSummary`, `onError` and `fallBack` spend it (a retry hands
//! back a fresh one).

use super::args::{
    describe, fail, int_arg, is_array, is_nullish, js_number, json_arg, messages_arg,
    model_config_arg, non_negative, object_arg, string_arg, to_js, typed, JsResult, Thrown,
};
use crate::budget::{context_limits, ContextLimits};
use crate::cut::TruncationPolicy;
use crate::guard::{
    self, AfterError, CompactionEvent, Decision, Guard, GuardConfig, Ready, SummaryError,
};
use crate::message::{Content, Message};
use crate::metrics::ContextMetricsSnapshot;
use crate::protocol::{failure_reason, CompactionStatus, ContextCompaction, StatusEvent};
use crate::tokens::{TokenCounter, Tokens};
use crate::traces::ProtectionTrace;
use crate::Error;
use js_sys::{Object, Reflect};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use wasm_bindgen::prelude::*;

/// Latest time accepted, in milliseconds (the range of a JS `Date`).
const MAX_TIME_MS: f64 = 8.64e15;

/// A host time in milliseconds since the Unix epoch as the guard's microseconds.
fn now_arg(v: &JsValue, arg: &str) -> JsResult<i64> {
    let Some(ms) = v.as_f64() else {
        return Err(fail(
            arg,
            format!(
                "expected a time in milliseconds since the Unix epoch (e.g. Date.now()), got {}",
                describe(v)
            ),
        ));
    };
    if !(0.0..=MAX_TIME_MS).contains(&ms) {
        return Err(fail(
            arg,
            format!(
                "expected a time in milliseconds between 0 and 8.64e15, got {}",
                js_number(ms)
            ),
        ));
    }
    Ok((ms * 1000.0).round() as i64)
}

/// A guard error as a JS `Error`; a knowledge-base payload that cannot fit carries
/// `code: "bypassed_payload_too_large"`, `used_tokens` and `trigger_limit`.
fn guard_error(error: Error) -> Thrown {
    let js = Thrown::new(&format!("history: {error}"));
    if let Error::BypassedPayloadTooLarge {
        used_tokens,
        trigger_limit,
    } = error
    {
        return js
            .with_field("code", "bypassed_payload_too_large".into())
            .with_field("used_tokens", (used_tokens as f64).into())
            .with_field("trigger_limit", (trigger_limit as f64).into());
    }
    js
}

/// `{kind, request}` for a pending request.
fn with_request(kind: &str, request: SummaryRequest) -> JsResult<JsValue> {
    let out = Object::new();
    Reflect::set(&out, &"kind".into(), &kind.into())?;
    Reflect::set(&out, &"request".into(), &JsValue::from(request))?;
    Ok(out.into())
}

#[derive(Serialize)]
struct ReplacementView<'a> {
    summary_text: &'a str,
    summary_message_id: &'a str,
    removed_history_items: usize,
    record: &'a ContextCompaction,
}

#[derive(Serialize)]
struct ReadyView<'a> {
    kind: &'static str,
    messages: &'a [Message],
    used_tokens: Tokens,
    metrics: &'a ContextMetricsSnapshot,
    changed: bool,
    replacement: Option<ReplacementView<'a>>,
    events: Vec<StatusEvent>,
    traces: &'a [ProtectionTrace],
}

fn status_events(events: &[CompactionEvent], response_id: &str) -> Vec<StatusEvent> {
    events
        .iter()
        .map(|e| e.to_status_event(response_id))
        .collect()
}

/// A `Ready` as `GuardProceed` or, when its events end with a fallback, `GuardFallback`.
fn ready_to_js(ready: &Ready, response_id: &str) -> JsResult<JsValue> {
    let fell_back = ready
        .events
        .last()
        .is_some_and(|e| e.compaction.status == CompactionStatus::Fallback);
    let view = ReadyView {
        kind: if fell_back { "fallback" } else { "proceed" },
        messages: &ready.messages,
        used_tokens: ready.used_tokens,
        metrics: &ready.metrics,
        changed: ready.changed,
        replacement: ready.replacement.as_ref().map(|r| ReplacementView {
            summary_text: &r.summary_text,
            summary_message_id: &r.summary_message_id,
            removed_history_items: r.removed_history_items,
            record: &r.record,
        }),
        events: status_events(&ready.events, response_id),
        traces: &ready.traces,
    };
    to_js(&view)
}

/// The `options` of the constructor, as given (unknown fields are refused).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct GuardOptions {
    auto_compact_token_limit: Option<i64>,
    tool_output_policy: Option<TruncationPolicy>,
    tool_policy_overrides: Option<BTreeMap<String, TruncationPolicy>>,
    summary_enabled: Option<bool>,
    recent_user_token_limit: Option<i64>,
    max_overflow_retries: Option<i64>,
    heartbeat_interval_ms: Option<i64>,
    strict_counting: Option<bool>,
}

fn policy_checked(policy: TruncationPolicy, arg: &str) -> JsResult<TruncationPolicy> {
    non_negative(policy.limit, &format!("{arg}.limit"))?;
    Ok(policy)
}

/// The guard configuration and the auto-compact limit of `options`.
fn options_arg(v: &JsValue) -> JsResult<(GuardConfig, Option<i64>)> {
    let mut config = GuardConfig::default();
    if is_nullish(v) {
        return Ok((config, None));
    }
    let given: GuardOptions = typed(object_arg(v, "options", "of GuardOptions", &[])?, "options")?;
    if let Some(policy) = given.tool_output_policy {
        config.tool_output_policy = policy_checked(policy, "options.tool_output_policy")?;
    }
    if let Some(overrides) = given.tool_policy_overrides {
        for (name, policy) in overrides {
            let arg = format!("options.tool_policy_overrides[{name:?}]");
            let policy = policy_checked(policy, &arg)?;
            config.tool_policy_overrides.insert(name, policy);
        }
    }
    if let Some(enabled) = given.summary_enabled {
        config.summary_enabled = enabled;
    }
    if let Some(limit) = given.recent_user_token_limit {
        config.recent_user_token_limit = non_negative(limit, "options.recent_user_token_limit")?;
    }
    if let Some(retries) = given.max_overflow_retries {
        let arg = "options.max_overflow_retries";
        config.max_overflow_retries = u32::try_from(non_negative(retries, arg)?)
            .map_err(|_| fail(arg, format!("must be at most {}, got {retries}", u32::MAX)))?;
    }
    if let Some(ms) = given.heartbeat_interval_ms {
        let ms = non_negative(ms, "options.heartbeat_interval_ms")?;
        config.heartbeat_interval_micros = ms.saturating_mul(1000);
    }
    if let Some(strict) = given.strict_counting {
        config.strict_counting = strict;
    }
    Ok((config, given.auto_compact_token_limit))
}

/// The pre-model-call guard of one model (SPEC §8): the source pass over tool
/// outputs, summary compaction when usage reaches the trigger, and the
/// emergency pass. `new ContextGuard(model, modelConfig?, options?)`.
#[wasm_bindgen]
#[derive(Debug)]
pub struct ContextGuard {
    guard: Guard,
    limits: ContextLimits,
}

#[wasm_bindgen]
impl ContextGuard {
    /// A guard for `model` (its encoding and context limits), with optional per-model overrides
    /// (`modelConfig`, as `contextConfig` takes) and guard tunables (`options`).
    #[wasm_bindgen(constructor)]
    pub fn new(
        #[wasm_bindgen(unchecked_param_type = "string")] model: JsValue,
        #[wasm_bindgen(js_name = modelConfig, unchecked_optional_param_type = "ModelConfig | null")]
        model_config: JsValue,
        #[wasm_bindgen(unchecked_optional_param_type = "GuardOptions | null")] options: JsValue,
    ) -> JsResult<ContextGuard> {
        let model = string_arg(&model, "model")?;
        let model_config = model_config_arg(&model_config)?;
        let (config, auto_compact) = options_arg(&options)?;
        Ok(ContextGuard {
            guard: Guard::with_config(TokenCounter::for_model(&model), config),
            limits: context_limits(&model, model_config.as_ref(), auto_compact),
        })
    }

    /// The limits the guard works to (trigger and target included).
    #[wasm_bindgen(unchecked_return_type = "ContextLimits")]
    pub fn limits(&self) -> JsResult<JsValue> {
        to_js(&self.limits)
    }

    /// Runs the guard on `history` before a model call at `nowMs` (ms since the Unix epoch, e.g.
    /// `Date.now()`): `proceed` (or `fallback`) with the governed messages, or `need_summary` with the
    /// request to answer. Events carry `responseId` as their `response_id` (default `""`). Throws when
    /// a knowledge-base payload that must not be cut keeps the history over the trigger.
    #[wasm_bindgen(js_name = beforeModelCall, unchecked_return_type = "GuardDecision")]
    pub fn before_model_call(
        &self,
        #[wasm_bindgen(unchecked_param_type = "Message[]")] history: JsValue,
        #[wasm_bindgen(js_name = nowMs, unchecked_param_type = "number")] now_ms: JsValue,
        #[wasm_bindgen(js_name = responseId, unchecked_optional_param_type = "string | null")]
        response_id: JsValue,
    ) -> JsResult<JsValue> {
        let history = messages_arg(&history, "history")?;
        let now = now_arg(&now_ms, "nowMs")?;
        let response_id = if is_nullish(&response_id) {
            String::new()
        } else {
            string_arg(&response_id, "responseId")?
        };
        match self
            .guard
            .before_model_call(history, &self.limits, now)
            .map_err(guard_error)?
        {
            Decision::Proceed(ready) => ready_to_js(&ready, &response_id),
            Decision::NeedSummary(request) => with_request(
                "need_summary",
                SummaryRequest {
                    inner: Some(request),
                    response_id,
                },
            ),
        }
    }
}

/// A pending summary compaction: the exact summariser input, and the state to finish it.
/// Answer it once with `onSummary`, `onError` or `fallBack`; meanwhile poll `heartbeat`.
#[wasm_bindgen]
#[derive(Debug)]
pub struct SummaryRequest {
    inner: Option<guard::SummaryRequest>,
    response_id: String,
}

const SPENT: &str = "this summary request was already answered (onSummary, onError or fallBack); \
                     after a retry, use the request it returned";

impl SummaryRequest {
    fn pending(&self) -> JsResult<&guard::SummaryRequest> {
        self.inner.as_ref().ok_or_else(|| fail("request", SPENT))
    }

    fn take(&mut self) -> JsResult<guard::SummaryRequest> {
        self.inner.take().ok_or_else(|| fail("request", SPENT))
    }

    fn event(&self, event: &CompactionEvent) -> JsResult<JsValue> {
        to_js(&event.to_status_event(self.response_id.as_str()))
    }
}

#[wasm_bindgen]
impl SummaryRequest {
    /// The exact messages to send to the summariser: the kept history, tool pairs sanitised, then
    /// the final instruction turn.
    #[wasm_bindgen(unchecked_return_type = "Message[]")]
    pub fn messages(&self) -> JsResult<JsValue> {
        to_js(self.pending()?.messages())
    }

    /// The `started` event: emit it before calling the summariser.
    #[wasm_bindgen(unchecked_return_type = "CompactionStatusEvent")]
    pub fn started(&self) -> JsResult<JsValue> {
        self.event(self.pending()?.started())
    }

    /// An `in_progress` event when a heartbeat is due at `nowMs` (every 15 s by default, same
    /// `created_at`), else null.
    #[wasm_bindgen(unchecked_return_type = "CompactionStatusEvent | null")]
    pub fn heartbeat(
        &mut self,
        #[wasm_bindgen(js_name = nowMs, unchecked_param_type = "number")] now_ms: JsValue,
    ) -> JsResult<JsValue> {
        let now = now_arg(&now_ms, "nowMs")?;
        let inner = self.inner.as_mut().ok_or_else(|| fail("request", SPENT))?;
        match inner.heartbeat(now) {
            Some(event) => self.event(&event),
            None => Ok(JsValue::NULL),
        }
    }

    /// When the next heartbeat is due, in ms since the Unix epoch (for the host's timer).
    #[wasm_bindgen(js_name = nextHeartbeatAtMs)]
    pub fn next_heartbeat_at_ms(&self) -> JsResult<f64> {
        Ok(self.pending()?.next_heartbeat_at() as f64 / 1000.0)
    }

    /// 1 for the first summary call, then one more per retry.
    pub fn attempt(&self) -> JsResult<u32> {
        Ok(self.pending()?.attempt())
    }

    /// Tokens of `messages()` (at most the target limit on the first attempt).
    #[wasm_bindgen(js_name = inputTokens)]
    pub fn input_tokens(&self) -> JsResult<f64> {
        Ok(self.pending()?.input_tokens() as f64)
    }

    /// Tokens of the history when the compaction started.
    #[wasm_bindgen(js_name = beforeTokens)]
    pub fn before_tokens(&self) -> JsResult<f64> {
        Ok(self.pending()?.before_tokens() as f64)
    }

    /// Messages trimmed or shed from the summariser's input so far.
    #[wasm_bindgen(js_name = removedHistoryItems)]
    pub fn removed_history_items(&self) -> JsResult<f64> {
        Ok(self.pending()?.removed_history_items() as f64)
    }

    /// The summariser answered with `reply` (its text, or its content parts) at `nowMs`: the history
    /// is replaced (system messages, recent user messages marked `checkpoint_retained`, one summary
    /// message, each with an id) and the `completed` event is in `events`; an empty reply falls back
    /// (`summary_compact_not_applicable`).
    #[wasm_bindgen(js_name = onSummary, unchecked_return_type = "GuardProceed | GuardFallback")]
    pub fn on_summary(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "SummaryReply")] reply: JsValue,
        #[wasm_bindgen(js_name = nowMs, unchecked_param_type = "number")] now_ms: JsValue,
    ) -> JsResult<JsValue> {
        let reply = reply_arg(&reply, "reply")?;
        let now = now_arg(&now_ms, "nowMs")?;
        let ready = self.take()?.on_summary(reply, now).map_err(guard_error)?;
        ready_to_js(&ready, &self.response_id)
    }

    /// The summariser call failed at `nowMs`: a context-too-long error (HTTP 413 or a known provider
    /// message; not a bare 400) retries with a shorter input, at most 3 times; anything else falls
    /// back (`summary_compact_failed`).
    #[wasm_bindgen(js_name = onError, unchecked_return_type = "AfterSummaryError")]
    pub fn on_error(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "SummaryFailure")] error: JsValue,
        #[wasm_bindgen(js_name = nowMs, unchecked_param_type = "number")] now_ms: JsValue,
    ) -> JsResult<JsValue> {
        let error = summary_failure_arg(&error, "error")?;
        let now = now_arg(&now_ms, "nowMs")?;
        match self.take()?.on_error(&error, now).map_err(guard_error)? {
            AfterError::Retry(next) => with_request(
                "retry",
                SummaryRequest {
                    inner: Some(next),
                    response_id: self.response_id.clone(),
                },
            ),
            AfterError::Fallback(ready) => ready_to_js(&ready, &self.response_id),
        }
    }

    /// Gives up on summarising at `nowMs` (the host timed out or cancelled): emits `fallback` with
    /// `reason` (default `summary_compact_failed`) and runs the emergency pass on the history.
    #[wasm_bindgen(js_name = fallBack, unchecked_return_type = "GuardFallback")]
    pub fn fall_back(
        &mut self,
        #[wasm_bindgen(js_name = nowMs, unchecked_param_type = "number")] now_ms: JsValue,
        #[wasm_bindgen(unchecked_optional_param_type = "FailureReason | null")] reason: JsValue,
    ) -> JsResult<JsValue> {
        let now = now_arg(&now_ms, "nowMs")?;
        let reason = if is_nullish(&reason) {
            failure_reason::FAILED
        } else {
            match string_arg(&reason, "reason")?.as_str() {
                failure_reason::FAILED => failure_reason::FAILED,
                failure_reason::NOT_APPLICABLE => failure_reason::NOT_APPLICABLE,
                other => {
                    return Err(fail(
                        "reason",
                        format!(
                            "unknown failure reason {other:?} (expected {} or {})",
                            failure_reason::FAILED,
                            failure_reason::NOT_APPLICABLE
                        ),
                    ))
                }
            }
        };
        let ready = self.take()?.fall_back(reason, now).map_err(guard_error)?;
        ready_to_js(&ready, &self.response_id)
    }
}

/// A `SummaryFailure`: a string, or an object (an `Error` included) with `message` and `status?`.
/// A `SummaryReply`: the reply's text, or its content parts.
fn reply_arg(v: &JsValue, arg: &str) -> JsResult<Content> {
    if let Some(text) = v.as_string() {
        return Ok(Content::Text(text));
    }
    if !is_array(v) {
        return Err(fail(
            arg,
            format!(
                "expected a string or an array of content parts, got {}",
                describe(v)
            ),
        ));
    }
    typed(json_arg(v, arg)?, arg)
}

fn summary_failure_arg(v: &JsValue, arg: &str) -> JsResult<SummaryError> {
    if let Some(message) = v.as_string() {
        return Ok(SummaryError::new(message));
    }
    if !v.is_object() || is_array(v) {
        return Err(fail(
            arg,
            format!(
                "expected a string or an object {{message, status?}}, got {}",
                describe(v)
            ),
        ));
    }
    // Read the properties directly: an Error's `message` is not enumerable.
    let get = |key: &str| Reflect::get(v, &key.into()).unwrap_or(JsValue::UNDEFINED);
    let message = string_arg(&get("message"), &format!("{arg}.message"))?;
    let mut error = SummaryError::new(message);
    let status = get("status");
    if !is_nullish(&status) {
        let arg = format!("{arg}.status");
        let code = int_arg(&status, &arg)?;
        let code = u16::try_from(code)
            .ok()
            .filter(|c| (100..=599).contains(c))
            .ok_or_else(|| {
                fail(
                    &arg,
                    format!("expected an HTTP status (100-599), got {code}"),
                )
            })?;
        error = error.with_status(code);
    }
    Ok(error)
}

/// Whether a failed model call was rejected for being too long (`{message, status?}`, an `Error`, or
/// its text): status 413, or a message that, lower-cased, holds one of the known provider phrasings
/// (English and Chinese); a bare 400 is not one.
#[wasm_bindgen(js_name = isContextTooLongError)]
pub fn is_context_too_long_error_js(
    #[wasm_bindgen(unchecked_param_type = "SummaryFailure")] error: JsValue,
) -> JsResult<bool> {
    Ok(guard::is_context_too_long(&summary_failure_arg(
        &error, "error",
    )?))
}
