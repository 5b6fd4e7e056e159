//! The toolbar's rules for a provider's usage (as the worker's status event)
//! and for the projection of the send being written.

use super::*;
use crate::testing::*;
use ctxguard_core::projection::Outcome;

/// The status event the worker makes of `{"model":"gpt-4o","prompt_tokens":32000}`.
fn usage_event() -> String {
    let limits = ctxguard_core::budget::context_limits("gpt-4o", None, None);
    let metrics = ContextMetricsSnapshot::from_used(32_000, &limits);
    let event = ctxguard_core::protocol::StatusEvent::new("", Phase::Final, metrics);
    serde_json::to_string(&event).expect("an event's JSON")
}

fn shown(outcome: Outcome, width: f64) -> ProjectionShown {
    ProjectionShown {
        added_tokens: 6,
        remaining_percent: 49,
        outcome,
        ghost_start_percent: 50.0,
        ghost_width_percent: width,
    }
}

#[test]
fn a_usage_applies_like_a_status_event_and_names_the_model() {
    let mut t = Toolbar::new();
    assert_eq!(
        t.apply_usage("gpt-4o".into(), &usage_event(), T0),
        EventOutcome::Applied
    );
    let v = t.view(T0);
    let metrics = v.metrics.expect("metrics from the usage");
    assert_eq!(
        (metrics.used_tokens, metrics.remaining_percent),
        (32_000, 75)
    );
    assert_eq!(v.phase, Some(ReceivedPhase::Known(Phase::Final)));
    assert_eq!(t.model(), Some("gpt-4o"));
    assert_eq!(t.attachment_budget().model, "gpt-4o");
    // Numbered one past the last applied event: a later stream event still applies.
    assert_eq!(t.last_event_id(), Some(1));
    assert_eq!(apply(&mut t, 2, &event(40_000)), EventOutcome::Applied);
    // An event that cannot be read names no model.
    let mut t = Toolbar::new();
    assert_ne!(t.apply_usage("x".into(), "{}", T0), EventOutcome::Applied);
    assert_eq!(t.model(), None);
}

#[test]
fn the_projection_is_shown_only_beside_metrics() {
    let mut t = Toolbar::new();
    t.set_projection(Some(shown(Outcome::Fits, 1.0)));
    assert!(
        t.view(T0).metrics.and_then(|m| m.projection).is_none(),
        "no metrics, nothing to project onto"
    );
    assert_eq!(apply(&mut t, 1, &event(64_000)), EventOutcome::Applied);
    assert_eq!(
        t.view(T0)
            .metrics
            .and_then(|m| m.projection)
            .map(|p| p.outcome_name()),
        Some("fits")
    );
    let compacts = Outcome::Compacts {
        expected_after_tokens: 89_600,
        expected_after_percent: 30,
    };
    t.set_projection(Some(shown(compacts, 30.0)));
    let p = t
        .view(T0)
        .metrics
        .and_then(|m| m.projection)
        .expect("a projection");
    assert_eq!(
        (p.outcome_name(), p.ghost_width_percent),
        ("compacts", 30.0)
    );
    // A new session has no metrics: its ghost goes until the worker projects again.
    assert!(t.cleared().projection().is_none());
    t.set_projection(None);
    assert!(t.view(T0).metrics.and_then(|m| m.projection).is_none());
}
