//! The model and per-block token budget the attachment preview runs under:
//! the session's (`model` and `attachment_limit` of its `/context`) when
//! known, else gpt-4o and core's default for the model's window.

use serde::{Deserialize, Serialize};

/// The model the preview assumes when the session does not name one.
pub const DEFAULT_MODEL: &str = "gpt-4o";

/// Model and per-block token budget of the attachment preview.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AttachmentBudget {
    /// Model whose encoding counts the tokens.
    pub model: String,
    /// Tokens one `<attachment>` block may take.
    pub limit_tokens: i64,
}

impl AttachmentBudget {
    /// The budget for `model` (default [`DEFAULT_MODEL`]) in a window of
    /// `context_window` tokens (default: the model's), with `limit_tokens` when given.
    pub fn resolve(
        model: Option<&str>,
        context_window: Option<i64>,
        limit_tokens: Option<i64>,
    ) -> Self {
        let model = model
            .map(str::trim)
            .filter(|m| !m.is_empty())
            .unwrap_or(DEFAULT_MODEL)
            .to_string();
        let limit_tokens = limit_tokens.unwrap_or_else(|| {
            let window = context_window.filter(|w| *w > 0).unwrap_or_else(|| {
                ctxguard_core::budget::context_limits(&model, None, None).context_window
            });
            ctxguard_core::attachment::default_limit(window)
        });
        AttachmentBudget {
            model,
            limit_tokens,
        }
    }
}

impl AttachmentBudget {
    /// The preview element's budget: its own `model` and `limit` when set, else the
    /// linked toolbar's (`for`), else the defaults for the model.
    pub fn for_preview(
        model: Option<&str>,
        limit_tokens: Option<i64>,
        linked: Option<&AttachmentBudget>,
    ) -> Self {
        AttachmentBudget::resolve(
            model.or(linked.map(|l| l.model.as_str())),
            None,
            limit_tokens.or(linked.map(|l| l.limit_tokens)),
        )
    }
}

impl Default for AttachmentBudget {
    fn default() -> Self {
        AttachmentBudget::resolve(None, None, None)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_and_overrides() {
        assert_eq!(
            AttachmentBudget::default(),
            AttachmentBudget {
                model: "gpt-4o".into(),
                limit_tokens: 15_000
            }
        );
        assert_eq!(
            AttachmentBudget::resolve(Some("gpt-4"), Some(8_000), None).limit_tokens,
            4_000
        );
        assert_eq!(
            AttachmentBudget::resolve(Some("gpt-4"), None, None).limit_tokens,
            4_096
        );
        assert_eq!(
            AttachmentBudget::resolve(Some(" "), None, Some(900)),
            AttachmentBudget {
                model: "gpt-4o".into(),
                limit_tokens: 900
            }
        );
    }

    #[test]
    fn the_preview_prefers_its_own_attributes_then_the_toolbar() {
        let linked = AttachmentBudget {
            model: "gpt-4".into(),
            limit_tokens: 3_000,
        };
        assert_eq!(
            AttachmentBudget::for_preview(None, None, Some(&linked)),
            linked
        );
        assert_eq!(
            AttachmentBudget::for_preview(Some("gpt-4o"), None, Some(&linked)),
            AttachmentBudget {
                model: "gpt-4o".into(),
                limit_tokens: 3_000
            }
        );
        assert_eq!(
            AttachmentBudget::for_preview(None, Some(500), Some(&linked)).limit_tokens,
            500
        );
        assert_eq!(
            AttachmentBudget::for_preview(None, None, None),
            AttachmentBudget::default()
        );
    }
}
