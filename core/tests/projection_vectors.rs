//! The projection of a send, checked against what the reference recorded for
//! the turn that send starts (tests/conformance/vectors.jsonl, never edited):
//! - `metrics` and `metrics_baseline` cases ending with a user message: the
//!   snapshot of the history before it (the same provider baseline), projected with that message, is the recorded snapshot;
//! - `summary_trim` cases with a current user message: that message is the
//!   send, and the projection says the summary compaction works exactly when
//!   the recorded trim was applicable (and that it cannot fit exactly when the
//!   trim was not applicable).

use ctxguard_core::budget::{ContextLimits, ModelConfig};
use ctxguard_core::guard::{current_user_index, GuardCounter};
use ctxguard_core::metrics::{snapshot, ContextMetricsSnapshot, ProviderBaseline};
use ctxguard_core::projection::{project, summary_floor_tokens, Outcome, Send};
use ctxguard_core::tokens::{TokenCounter, Tokens};
use ctxguard_core::{budget, Message};
use serde_json::Value;

fn cases(kind: &str) -> Vec<Value> {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../tests/conformance/vectors.jsonl"
    );
    let text = std::fs::read_to_string(path).expect("tests/conformance/vectors.jsonl is present");
    text.lines()
        .map(|l| serde_json::from_str::<Value>(l).expect("each line is a JSON case"))
        .filter(|c| c["kind"] == kind)
        .collect()
}

fn messages(case: &Value) -> Vec<Message> {
    serde_json::from_value(case["messages"].clone()).expect("the case's messages read")
}

#[test]
fn a_send_projected_onto_the_history_before_it_is_the_recorded_snapshot() {
    let mut checked = 0;
    for case in cases("metrics")
        .into_iter()
        .chain(cases("metrics_baseline"))
    {
        let mut history = messages(&case);
        let baseline: Option<ProviderBaseline> = case
            .get("baseline")
            .map(|b| serde_json::from_value(b.clone()).expect("a recorded baseline"));
        // A baseline that saw the last message is not a usage before it.
        let before_send = baseline
            .as_ref()
            .is_none_or(|b| b.messages.len() < history.len());
        if !history.last().is_some_and(Message::is_user) || !before_send {
            continue;
        }
        let send = history.pop().expect("a last message");
        let model = case["model"].as_str().expect("a model");
        let config: Option<ModelConfig> =
            serde_json::from_value(case["model_config"].clone()).expect("a model config or null");
        let counter = TokenCounter::for_model(model);
        let limits = budget::context_limits(model, config.as_ref(), None);
        let before = snapshot(&counter, &history, &limits, baseline.as_ref());
        let projected = project(
            &before,
            &Send {
                message_tokens: counter.count_message(&send),
                block_tokens: 0,
                kept_tokens: 0,
            },
        );
        let expected: ContextMetricsSnapshot =
            serde_json::from_value(case["expected"].clone()).expect("a recorded snapshot");
        assert_eq!(projected.metrics, expected, "case {}", case["id"]);
        assert_eq!(
            projected.outcome == Outcome::Fits,
            !expected.is_over_trigger,
            "case {}",
            case["id"]
        );
        checked += 1;
    }
    assert!(
        checked >= 15,
        "only {checked} metrics cases end with a user message"
    );
}

#[test]
fn the_projection_says_compaction_works_exactly_when_the_recorded_trim_did() {
    let (mut compacts, mut too_large) = (0, 0);
    for case in cases("summary_trim") {
        let mut history = messages(&case);
        let Some(current) = current_user_index(&history) else {
            continue;
        };
        let send = history.remove(current);
        let model = case["model"].as_str().expect("a model");
        let budget_tokens: Tokens = case["budget"].as_i64().expect("a budget");
        let counter = TokenCounter::for_model(model);
        let guard = GuardCounter::reference(counter);
        let system: Vec<Message> = history.iter().filter(|m| m.is_system()).cloned().collect();
        // The guard ran the trim because the turn was over its trigger: the projection is
        // given that trigger (the usage with the send in), and the trim's budget as target.
        let used = guard.count(&history);
        let added = guard.cost(&send);
        let limits = ContextLimits {
            context_window: 10 * (used + added + budget_tokens) + 1,
            reserved_output_tokens: 0,
            available_tokens: 10 * (used + added + budget_tokens) + 1,
            trigger_limit: used + added,
            target_limit: budget_tokens,
        };
        let before = ContextMetricsSnapshot::from_used(used, &limits);
        let projected = project(
            &before,
            &Send {
                message_tokens: added,
                block_tokens: 0,
                kept_tokens: summary_floor_tokens(&counter, &system),
            },
        );
        let applicable = case["expected"].get("not_applicable") != Some(&Value::Bool(true));
        match projected.outcome {
            Outcome::Compacts {
                expected_after_tokens,
                ..
            } => {
                assert!(
                    applicable,
                    "case {}: the trim was not applicable",
                    case["id"]
                );
                assert_eq!(expected_after_tokens, budget_tokens);
                compacts += 1;
            }
            Outcome::TooLarge { .. } => {
                assert!(!applicable, "case {}: the trim was applicable", case["id"]);
                too_large += 1;
            }
            Outcome::Fits => panic!("case {}: the send is at the trigger", case["id"]),
        }
    }
    assert!(
        compacts >= 20 && too_large >= 4,
        "{compacts} applicable and {too_large} not applicable trims checked"
    );
}
