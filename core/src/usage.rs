//! A provider's usage report as a context-metrics snapshot: what a chat host
//! that knows only a model id and its provider's `usage` object needs to feed
//! the toolbar. The snapshot is the one [`crate::metrics::snapshot`] makes
//! with a provider baseline whose messages are all there is (used = the
//! provider's input tokens), under the model's limits (SPEC §2; a given
//! context window or max output acts as the model's configuration).
//!
//! Usage shapes read as they are:
//! - ctxguard's own `{model, input_tokens, context_window?, max_output_tokens?}`;
//! - Anthropic's `{input_tokens, cache_creation_input_tokens, cache_read_input_tokens}`:
//!   its `input_tokens` leaves out cached input, so the context is the sum;
//! - OpenAI's `{prompt_tokens, …}` (Chat Completions);
//! - the Vercel AI SDK's `{inputTokens, …}` (and its earlier `{promptTokens, …}`);
//! - any of these under `usage` of an object that may carry `model` (an OpenAI
//!   stream's last chunk, an Anthropic message, a host's own metadata).

use crate::budget::{context_limits, ModelConfig};
use crate::protocol::ContextMetricsSnapshot;
use crate::tokens::Tokens;
use serde_json::{Map, Value};

/// Why a usage object could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum UsageError {
    /// Not an object.
    #[error("usage must be an object such as {{model, input_tokens}}, {{prompt_tokens}} or {{inputTokens}}")]
    NotAnObject,
    /// No input-token count in any known shape.
    #[error("usage has no input tokens: give input_tokens (Anthropic: with cache_creation_input_tokens and cache_read_input_tokens), prompt_tokens (OpenAI) or inputTokens (AI SDK)")]
    NoInputTokens,
    /// A field is present but is not a whole number of at least 0.
    #[error("usage.{0} must be a whole number of at least 0")]
    BadNumber(&'static str),
    /// No model given, in the usage or by the host.
    #[error("usage has no model: give model in the object or the model attribute")]
    NoModel,
}

/// A provider's usage, read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProviderUsage {
    /// The model id, when the object names one.
    pub model: Option<String>,
    /// Tokens of the context the provider saw.
    pub input_tokens: Tokens,
    /// The model's context window, when given.
    pub context_window: Option<Tokens>,
    /// The model's max output, when given.
    pub max_output_tokens: Option<Tokens>,
}

/// A whole number of at least 0 under `key`; absent or null is `None`.
fn count(object: &Map<String, Value>, key: &'static str) -> Result<Option<Tokens>, UsageError> {
    match object.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(v) => {
            let n = v
                .as_i64()
                .or_else(|| v.as_f64().filter(|f| f.fract() == 0.0).map(|f| f as i64))
                .filter(|n| *n >= 0)
                .ok_or(UsageError::BadNumber(key))?;
            Ok(Some(n))
        }
    }
}

impl ProviderUsage {
    /// Reads a usage object in any of the module's shapes.
    pub fn from_json(value: &Value) -> Result<Self, UsageError> {
        let outer = value.as_object().ok_or(UsageError::NotAnObject)?;
        let usage = match outer.get("usage") {
            Some(Value::Object(inner)) => inner,
            _ => outer,
        };
        let model = [outer, usage]
            .iter()
            .find_map(|o| o.get("model").and_then(Value::as_str))
            .map(str::trim)
            .filter(|m| !m.is_empty())
            .map(str::to_string);
        let input_tokens = if let Some(input) = count(usage, "input_tokens")? {
            let created = count(usage, "cache_creation_input_tokens")?.unwrap_or(0);
            let read = count(usage, "cache_read_input_tokens")?.unwrap_or(0);
            input.saturating_add(created).saturating_add(read)
        } else if let Some(n) = count(usage, "prompt_tokens")? {
            n
        } else if let Some(n) = count(usage, "inputTokens")? {
            n
        } else {
            count(usage, "promptTokens")?.ok_or(UsageError::NoInputTokens)?
        };
        let either = |key: &'static str| -> Result<Option<Tokens>, UsageError> {
            Ok(count(outer, key)?.or(count(usage, key)?))
        };
        Ok(ProviderUsage {
            model,
            input_tokens,
            context_window: either("context_window")?.filter(|w| *w > 0),
            max_output_tokens: either("max_output_tokens")?.filter(|m| *m > 0),
        })
    }

    /// The snapshot of this usage: the object's model and limits first, then the host's
    /// (`model`, `context_window`); a context window or max output makes a model config.
    pub fn snapshot(
        &self,
        model: Option<&str>,
        context_window: Option<Tokens>,
    ) -> Result<(String, ContextMetricsSnapshot), UsageError> {
        let model = self
            .model
            .as_deref()
            .or(model.filter(|m| !m.trim().is_empty()))
            .ok_or(UsageError::NoModel)?
            .to_string();
        let window = self.context_window.or(context_window.filter(|w| *w > 0));
        let config = ModelConfig {
            context_window: window,
            max_output_tokens: self.max_output_tokens,
        };
        // A max output alone is no model config: the reference reads the window first.
        let config = window.is_some().then_some(config);
        let limits = context_limits(&model, config.as_ref(), None);
        Ok((
            model,
            ContextMetricsSnapshot::from_used(self.input_tokens, &limits),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::message::Message;
    use crate::metrics::{snapshot, ProviderBaseline};
    use crate::tokens::TokenCounter;
    use serde_json::json;

    fn read(v: Value) -> ProviderUsage {
        ProviderUsage::from_json(&v).expect("a usage shape")
    }

    #[test]
    fn the_snapshot_is_the_one_a_provider_baseline_gives() {
        let history = vec![Message::user("hello"), Message::assistant("hi")];
        let counter = TokenCounter::for_model("gpt-4o");
        let limits = context_limits("gpt-4o", None, None);
        let baseline = ProviderBaseline {
            input_tokens: 51_234,
            messages: history.clone(),
        };
        let expected = snapshot(&counter, &history, &limits, Some(&baseline));
        let (model, got) = read(json!({"model": "gpt-4o", "input_tokens": 51_234}))
            .snapshot(None, None)
            .expect("a model");
        assert_eq!(model, "gpt-4o");
        assert_eq!(got, expected);
        assert_eq!(got.trigger_limit, 100_800);
    }

    #[test]
    fn the_three_provider_shapes_read_as_they_are() {
        let openai =
            read(json!({"prompt_tokens": 1200, "completion_tokens": 30, "total_tokens": 1230}));
        assert_eq!(openai.input_tokens, 1200);
        // Anthropic's input_tokens leaves out the cached input.
        let anthropic = read(
            json!({"input_tokens": 12, "cache_creation_input_tokens": 3000,
            "cache_read_input_tokens": 40000, "output_tokens": 90}),
        );
        assert_eq!(anthropic.input_tokens, 43_012);
        let anthropic_nulls =
            read(json!({"input_tokens": 12, "cache_creation_input_tokens": null}));
        assert_eq!(anthropic_nulls.input_tokens, 12);
        let ai_sdk = read(json!({"inputTokens": 800, "outputTokens": 20, "totalTokens": 820}));
        assert_eq!(ai_sdk.input_tokens, 800);
        let chunk = read(
            json!({"model": "gpt-4o-2024-08-06", "choices": [], "usage": {"prompt_tokens": 7}}),
        );
        assert_eq!(
            (chunk.model.as_deref(), chunk.input_tokens),
            (Some("gpt-4o-2024-08-06"), 7)
        );
    }

    #[test]
    fn a_given_window_and_output_act_as_the_model_config() {
        let u = read(
            json!({"input_tokens": 10_000, "context_window": 32_000, "max_output_tokens": 8000}),
        );
        let (_, s) = u
            .snapshot(Some("my-model"), None)
            .expect("the host's model");
        // reserved = min(clamp(3200, 16000, 48000), 8000, 16000) = 8000; ratios 0.90/0.70.
        assert_eq!(
            (
                s.context_window,
                s.reserved_output_tokens,
                s.trigger_limit,
                s.target_limit
            ),
            (32_000, 8000, 21_600, 16_800)
        );
        // The host's window (the context-window attribute) when the usage has none.
        let (_, s) = read(json!({"inputTokens": 5}))
            .snapshot(Some("my-model"), Some(64_000))
            .expect("a model");
        assert_eq!(
            (s.context_window, s.reserved_output_tokens),
            (64_000, 16_000)
        );
        // An unknown model without a window: the conservative default (0.85/0.65).
        let (_, s) = read(json!({"inputTokens": 5}))
            .snapshot(Some("my-model"), None)
            .expect("a model");
        assert_eq!((s.context_window, s.trigger_limit), (128_000, 95_200));
    }

    #[test]
    fn what_cannot_be_read_says_what_to_give() {
        let e = |v: Value| ProviderUsage::from_json(&v).expect_err("refused");
        assert_eq!(e(json!(5)), UsageError::NotAnObject);
        assert_eq!(e(json!({"output_tokens": 5})), UsageError::NoInputTokens);
        assert_eq!(
            e(json!({"prompt_tokens": -1})),
            UsageError::BadNumber("prompt_tokens")
        );
        assert_eq!(
            e(json!({"inputTokens": 1.5})),
            UsageError::BadNumber("inputTokens")
        );
        assert_eq!(
            read(json!({"inputTokens": 3})).snapshot(None, None),
            Err(UsageError::NoModel)
        );
        assert!(UsageError::NoInputTokens
            .to_string()
            .contains("prompt_tokens (OpenAI)"));
    }
}
