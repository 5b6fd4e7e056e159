//! The toolbar's rules for a provider's usage and the send being written.

use super::*;
use crate::projection::DraftCount;
use crate::testing::*;
use ctxguard_core::usage::ProviderUsage;
use serde_json::json;

fn usage(value: serde_json::Value) -> (String, ContextMetricsSnapshot) {
    ProviderUsage::from_json(&value)
        .expect("a usage shape")
        .snapshot(None, None)
        .expect("a model")
}

#[test]
fn a_usage_applies_like_a_status_event_and_names_the_model() {
    let mut t = Toolbar::new();
    let (model, m) = usage(json!({"model": "gpt-4o", "prompt_tokens": 32_000}));
    assert_eq!(t.apply_usage(model, m, T0), EventOutcome::Applied);
    let v = t.view(T0);
    let shown = v.metrics.expect("metrics from the usage");
    assert_eq!((shown.used_tokens, shown.remaining_percent), (32_000, 75));
    assert_eq!(v.phase, Some(ReceivedPhase::Known(Phase::Final)));
    assert_eq!(t.model(), Some("gpt-4o"));
    assert_eq!(t.attachment_budget().model, "gpt-4o");
    // Numbered one past the last applied event: a later stream event still applies.
    assert_eq!(t.last_event_id(), Some(1));
    assert_eq!(apply(&mut t, 2, &event(40_000)), EventOutcome::Applied);
}

#[test]
fn typing_and_attaching_move_the_projection() {
    let mut t = Toolbar::new();
    assert_eq!(apply(&mut t, 1, &event(64_000)), EventOutcome::Applied);
    assert!(t.view(T0).projection.is_none(), "nothing is being written");
    t.update_send(|s| {
        s.draft = Some(DraftCount {
            message_tokens: 6,
            kept_tokens: 154,
        })
    });
    let typed = t.view(T0).projection.expect("a draft");
    assert_eq!(typed.projection.added_tokens, 6);
    assert_eq!(typed.outcome_name(), "fits");
    t.update_send(|s| s.block_tokens = 37_000);
    let attached = t.view(T0).projection.expect("a draft and a block");
    assert!(attached.ghost_width_percent > typed.ghost_width_percent);
    // 64000 + 37006 = 101006 ≥ the trigger 100800: compaction before the reply.
    assert_eq!(attached.outcome_name(), "compacts");
    assert_eq!(attached.remaining_percent, 21);
    // A new session keeps what is being written; the metrics go, and so does the projection.
    let cleared = t.cleared();
    assert_eq!(cleared.send(), t.send());
    assert!(cleared.projection().is_none());
}
