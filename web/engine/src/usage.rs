//! `usageEvent` for the toolbar's `setUsage`: a provider's usage object (in any
//! of the shapes of [`ctxguard_core::usage`]) read and turned into the status
//! event the toolbar applies, with core's limits for its model. It runs in the
//! toolbar's worker, beside the model tables and the JSON reading it needs, so
//! the toolbar's own module stays small; the toolbar applies the event it gets
//! back as it applies a host's.

use ctxguard_core::protocol::{Phase, StatusEvent};
use ctxguard_core::tokens::Tokens;
use ctxguard_core::usage::{ProviderUsage, UsageError};

/// A usage made into a status event of phase `final`.
#[derive(Debug, Clone, PartialEq)]
pub struct UsageEvent {
    /// The model the limits are for (the usage's own, else the host's).
    pub model: String,
    /// The status event, as its JSON text.
    pub event_json: String,
}

/// Reads `usage_json` (a usage object's JSON text) with the host's `model` and
/// `context_window` attributes for what the object does not name.
pub fn usage_event(
    usage_json: &str,
    model: Option<&str>,
    context_window: Option<&str>,
) -> Result<UsageEvent, UsageError> {
    let value: serde_json::Value =
        serde_json::from_str(usage_json).map_err(|_| UsageError::NotAnObject)?;
    let window = context_window
        .and_then(|w| w.trim().parse::<Tokens>().ok())
        .filter(|w| *w > 0);
    let (model, metrics) = ProviderUsage::from_json(&value)?.snapshot(model, window)?;
    let event = StatusEvent::new("", Phase::Final, metrics);
    let event_json = serde_json::to_string(&event).map_err(|_| UsageError::NotAnObject)?;
    Ok(UsageEvent { model, event_json })
}

#[cfg(target_arch = "wasm32")]
mod wasm {
    use wasm_bindgen::prelude::*;

    /// `[model, eventJson]` for `usageJson`; throws the reason a usage cannot be read.
    #[wasm_bindgen(js_name = usageEvent)]
    pub fn usage_event(
        usage_json: &str,
        model: Option<String>,
        context_window: Option<String>,
    ) -> Result<Vec<String>, JsError> {
        super::usage_event(usage_json, model.as_deref(), context_window.as_deref())
            .map(|u| vec![u.model, u.event_json])
            .map_err(|e| JsError::new(&e.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ctxguard_core::protocol::ReceivedStatus;

    fn metrics(u: &UsageEvent) -> ctxguard_core::metrics::ContextMetricsSnapshot {
        ReceivedStatus::from_text(&u.event_json)
            .expect("an event the toolbar reads")
            .context_metrics
    }

    #[test]
    fn a_usage_becomes_a_final_status_event_for_its_model() {
        let u = usage_event(
            r#"{"model":"gpt-4o","usage":{"prompt_tokens":32000}}"#,
            None,
            None,
        )
        .expect("an OpenAI usage");
        assert_eq!(u.model, "gpt-4o");
        let event = ReceivedStatus::from_text(&u.event_json).expect("an event");
        assert_eq!(event.phase.known(), Some(Phase::Final));
        let m = event.context_metrics;
        assert_eq!((m.used_input_tokens, m.trigger_limit), (32_000, 100_800));
        assert_eq!(m.display_remaining_percent, 75);
    }

    #[test]
    fn the_host_attributes_name_what_the_usage_does_not() {
        let u = usage_event(
            r#"{"inputTokens":16000}"#,
            Some("my-model"),
            Some(" 32000 "),
        )
        .expect("an AI SDK usage");
        assert_eq!(u.model, "my-model");
        let m = metrics(&u);
        assert_eq!(
            (m.context_window, m.available_input_tokens),
            (32_000, 16_000)
        );
        // A window that is not a positive whole number is no window.
        let u = usage_event(r#"{"inputTokens":16000}"#, Some("gpt-4o"), Some("-5"))
            .expect("an AI SDK usage");
        assert_eq!(metrics(&u).context_window, 128_000);
    }

    #[test]
    fn an_unreadable_usage_says_what_to_give() {
        let no_input = usage_event(r#"{"outputTokens":5}"#, Some("gpt-4o"), None);
        assert_eq!(no_input, Err(UsageError::NoInputTokens));
        assert!(no_input
            .expect_err("no input")
            .to_string()
            .contains("inputTokens (AI SDK)"));
        assert_eq!(
            usage_event("null", None, None),
            Err(UsageError::NotAnObject)
        );
        assert_eq!(
            usage_event("not json", None, None),
            Err(UsageError::NotAnObject)
        );
        assert_eq!(
            usage_event(r#"{"input_tokens":1}"#, None, None),
            Err(UsageError::NoModel)
        );
    }
}
