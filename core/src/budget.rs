//! Model context limits and the reserved-output budget: how many input tokens
//! a model may take, and where compaction triggers and aims.

use crate::tokens::Tokens;
use serde::{Deserialize, Serialize};

const RESERVED_RATIO: f64 = 0.1;
const RESERVED_MIN_TOKENS: Tokens = 16_000;
const RESERVED_MAX_TOKENS: Tokens = 48_000;
const UNKNOWN_WINDOW: Tokens = 128_000;
const DEFAULT_OUTPUT_TOKENS: Tokens = 4096;

/// Built-in limits `(id prefix, context window, max output)`, matched exactly, then by prefix in this order.
// Keep in sync with the reference's MODEL_CONTEXT_LIMITS (chat_shell/compression/config.py).
pub const MODEL_TABLE: &[(&str, Tokens, Tokens)] = &[
    ("claude-3-5-sonnet", 200_000, 8192),
    ("claude-3-5-haiku", 200_000, 8192),
    ("claude-3-opus", 200_000, 4096),
    ("claude-3-sonnet", 200_000, 4096),
    ("claude-3-haiku", 200_000, 4096),
    ("claude-sonnet-4", 200_000, 64000),
    ("claude-opus-4", 200_000, 32000),
    ("gpt-4o", 128_000, 16384),
    ("gpt-4o-mini", 128_000, 16384),
    ("gpt-4-turbo", 128_000, 4096),
    ("gpt-4", 8192, 4096),
    ("gpt-3.5-turbo", 16385, 4096),
    ("o1", 200_000, 100_000),
    ("o1-mini", 128_000, 65536),
    ("o1-preview", 128_000, 32768),
    ("o3", 200_000, 100_000),
    ("o3-mini", 200_000, 100_000),
    ("gemini-1.5-pro", 2_097_152, 8192),
    ("gemini-1.5-flash", 1_048_576, 8192),
    ("gemini-2.0-flash", 1_048_576, 8192),
];

/// Per-model overrides, as a model's configuration carries them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ModelConfig {
    /// The model's context window; when present it replaces the built-in table.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context_window: Option<Tokens>,
    /// The model's maximum output; when present it caps the reserved output.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_output_tokens: Option<Tokens>,
}

/// A model's context configuration before the derived limits are computed.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ModelContext {
    /// Context window in tokens.
    pub context_window: Tokens,
    /// The model's max output capability.
    pub output_tokens: Tokens,
    /// Whether `output_tokens` caps the reserved output buffer.
    pub output_cap_enabled: bool,
    /// Fraction of the available input at which compaction triggers.
    pub trigger_ratio: f64,
    /// Fraction of the available input compaction aims for.
    pub target_ratio: f64,
    /// Absolute trigger override (`AUTO_COMPACT_TOKEN_LIMIT`).
    pub auto_compact_token_limit: Option<Tokens>,
}

/// The derived budget figures of one model, the `context_config` record.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct ContextLimits {
    /// Context window in tokens.
    pub context_window: Tokens,
    /// Tokens kept free for the model's answer.
    pub reserved_output_tokens: Tokens,
    /// Tokens the input may use: window minus reserved.
    pub available_tokens: Tokens,
    /// Usage at or above which compaction runs.
    pub trigger_limit: Tokens,
    /// Usage compaction aims to get under.
    pub target_limit: Tokens,
}

impl ModelContext {
    /// Looks up `model`: the config's window when present, else the built-in table, else the conservative default.
    pub fn lookup(model: &str, config: Option<&ModelConfig>) -> Self {
        if let Some(window) = config.and_then(|c| c.context_window) {
            let max_output = config.and_then(|c| c.max_output_tokens);
            return ModelContext {
                context_window: window,
                output_tokens: max_output.unwrap_or(DEFAULT_OUTPUT_TOKENS),
                output_cap_enabled: max_output.is_some(),
                trigger_ratio: 0.90,
                target_ratio: 0.70,
                auto_compact_token_limit: None,
            };
        }
        let lower = model.to_lowercase();
        let hit = MODEL_TABLE
            .iter()
            .find(|(id, _, _)| *id == lower)
            .or_else(|| MODEL_TABLE.iter().find(|(id, _, _)| lower.starts_with(id)));
        match hit {
            Some(&(_, window, output)) => ModelContext {
                context_window: window,
                output_tokens: output,
                output_cap_enabled: true,
                trigger_ratio: 0.90,
                target_ratio: 0.70,
                auto_compact_token_limit: None,
            },
            None => ModelContext {
                context_window: UNKNOWN_WINDOW,
                output_tokens: DEFAULT_OUTPUT_TOKENS,
                output_cap_enabled: false,
                trigger_ratio: 0.85,
                target_ratio: 0.65,
                auto_compact_token_limit: None,
            },
        }
    }

    /// The same configuration with an absolute trigger override.
    pub fn with_auto_compact_limit(mut self, limit: Option<Tokens>) -> Self {
        self.auto_compact_token_limit = limit;
        self
    }

    /// The flat reserved-output buffer: clamp(10% of window, 16k, 48k), capped by output and by half the window.
    pub fn reserved_output_tokens(&self) -> Tokens {
        let ratio_based = trunc_mul(self.context_window, RESERVED_RATIO);
        let mut reserved = ratio_based.clamp(RESERVED_MIN_TOKENS, RESERVED_MAX_TOKENS);
        if self.output_cap_enabled {
            reserved = reserved.min(self.output_tokens);
        }
        reserved.min(self.context_window.div_euclid(2))
    }

    /// Every derived figure.
    pub fn limits(&self) -> ContextLimits {
        let reserved = self.reserved_output_tokens();
        let available = (self.context_window - reserved).max(0);
        let (trigger, target) = match self.auto_compact_token_limit {
            None => (
                trunc_mul(available, self.trigger_ratio),
                trunc_mul(available, self.target_ratio),
            ),
            Some(limit) => {
                let trigger = limit.max(0).min(available);
                let target = if trigger <= 0 {
                    0
                } else {
                    trunc_mul(available, self.target_ratio).min(trigger - 1)
                };
                (trigger, target)
            }
        };
        ContextLimits {
            context_window: self.context_window,
            reserved_output_tokens: reserved,
            available_tokens: available,
            trigger_limit: trigger,
            target_limit: target,
        }
    }
}

/// `int(value * ratio)` as Python computes it: an f64 product truncated toward zero.
fn trunc_mul(value: Tokens, ratio: f64) -> Tokens {
    (value as f64 * ratio) as Tokens
}

/// The limits of `model` under an optional config and trigger override.
pub fn context_limits(
    model: &str,
    config: Option<&ModelConfig>,
    auto_compact_token_limit: Option<Tokens>,
) -> ContextLimits {
    ModelContext::lookup(model, config)
        .with_auto_compact_limit(auto_compact_token_limit)
        .limits()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn float_truncation_matches_python() {
        let l = context_limits("o3-mini", None, None);
        assert_eq!(l.target_limit, 125_999);
    }

    #[test]
    fn auto_compact_limit_bounds_target_below_trigger() {
        let cfg = ModelConfig {
            context_window: Some(200_000),
            max_output_tokens: None,
        };
        let l = context_limits("my-model", Some(&cfg), Some(90_000));
        assert_eq!((l.trigger_limit, l.target_limit), (90_000, 89_999));
        let l = context_limits("my-model", Some(&cfg), Some(-5));
        assert_eq!((l.trigger_limit, l.target_limit), (0, 0));
    }

    #[test]
    fn unknown_models_are_conservative() {
        let l = context_limits("qwen-max", None, None);
        assert_eq!(l.trigger_limit, 95_200);
        assert_eq!(l.target_limit, 72_800);
    }
}
