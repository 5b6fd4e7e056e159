//! What the guard kinds run: each calls the guard step of its name, the one
//! [`Guard`] is built from, and shapes its output like the case's `expected`.

use super::case::Case;
use super::CaseError;
use crate::budget::{context_limits, ModelConfig};
use crate::cut::TruncationPolicy;
use crate::guard::{
    checkpoint_reload, emergency_pass, is_context_too_long, recent_user_messages,
    sanitize_tool_pairs, summary_replacement, summary_request, summary_shed, summary_trim,
    CountedHistory, Guard, GuardConfig, GuardCounter, SummaryError, Turn, TurnStatus,
    MAX_SUMMARY_OVERFLOW_RETRIES,
};
use crate::message::Content;
use crate::tokens::Tokens;
use serde::Serialize;
use serde_json::{json, Value};

fn to_json(value: impl Serialize) -> Result<Value, CaseError> {
    serde_json::to_value(value).map_err(|e| CaseError::Mismatch(format!("output: {e}")))
}

fn not_applicable() -> Value {
    json!({"not_applicable": true})
}

/// The reference's guard counter for the case's model.
fn counter(case: &Case) -> Result<GuardCounter, CaseError> {
    Ok(GuardCounter::reference(case.counter()?))
}

pub(super) fn sanitize(case: &Case) -> Result<Value, CaseError> {
    let messages = sanitize_tool_pairs(case.messages("messages")?);
    Ok(json!({ "messages": to_json(messages)? }))
}

pub(super) fn recent_users(case: &Case) -> Result<Value, CaseError> {
    let limit: Tokens = case.field("limit")?;
    let retained = recent_user_messages(&case.messages("messages")?, limit, &counter(case)?);
    Ok(json!({ "messages": to_json(retained)? }))
}

pub(super) fn trim(case: &Case) -> Result<Value, CaseError> {
    let budget: Tokens = case.field("budget")?;
    match summary_trim(case.messages("messages")?, budget, &counter(case)?) {
        Some(trimmed) => {
            Ok(json!({"messages": to_json(trimmed.messages)?, "removed": trimmed.removed}))
        }
        None => Ok(not_applicable()),
    }
}

pub(super) fn request(case: &Case) -> Result<Value, CaseError> {
    let budget: Option<Tokens> = case.opt_field("budget")?;
    match summary_request(case.messages("messages")?, budget, &counter(case)?) {
        Some(input) => Ok(json!({"messages": to_json(input.request)?, "removed": input.removed})),
        None => Ok(not_applicable()),
    }
}

pub(super) fn too_long(case: &Case) -> Result<Value, CaseError> {
    let mut error = SummaryError::new(case.opt_field::<String>("message")?.unwrap_or_default());
    // Only an integer status can be 413 (the reference checks `isinstance(status, int)`).
    error.status = case
        .raw("status_code")
        .as_i64()
        .and_then(|s| u16::try_from(s).ok());
    Ok(json!({"context_too_long": is_context_too_long(&error)}))
}

/// The summariser fails `failures` times in a row with a context-length error.
pub(super) fn shed(case: &Case) -> Result<Value, CaseError> {
    let failures: u32 = case.field("failures")?;
    let mut working = sanitize_tool_pairs(case.messages("messages")?);
    let mut removed = Vec::new();
    let mut outcome = "summarised";
    for _ in 0..failures {
        let retries = u32::try_from(removed.len()).unwrap_or(u32::MAX);
        match summary_shed(&mut working, retries, MAX_SUMMARY_OVERFLOW_RETRIES) {
            Some(dropped) => removed.push(dropped),
            None => {
                outcome = "gave_up";
                break;
            }
        }
    }
    Ok(json!({"removed": removed, "messages": to_json(working)?, "outcome": outcome}))
}

pub(super) fn replacement(case: &Case) -> Result<Value, CaseError> {
    let reply: Content = case.field("reply")?;
    let limit: Tokens = case.field("limit")?;
    let working = case.messages("messages")?;
    match summary_replacement(&working, &reply, limit, &counter(case)?) {
        Some(built) => {
            Ok(json!({"summary_text": built.summary_text, "messages": to_json(built.messages)?}))
        }
        None => Ok(not_applicable()),
    }
}

/// The guard without summary compaction: the source pass, then the emergency pass.
pub(super) fn emergency(case: &Case) -> Result<Value, CaseError> {
    let config: Option<ModelConfig> = case.opt_field("model_config")?;
    let auto: Option<Tokens> = case.opt_field("auto_compact_token_limit")?;
    let limits = context_limits(&case.model()?, config.as_ref(), auto);
    let policy: TruncationPolicy = case.field("policy")?;
    let guard = Guard::with_config(
        case.counter()?,
        GuardConfig {
            tool_output_policy: policy,
            summary_enabled: false,
            ..GuardConfig::default()
        },
    );
    let mut messages = case.messages("messages")?;
    guard.source_pass(&mut messages);
    let mut history = CountedHistory::new(messages, guard.guard_counter());
    let outcome = emergency_pass(
        &mut history,
        limits.trigger_limit,
        |m| guard.policy_for(m),
        guard.guard_counter(),
    );
    let rewritten: Vec<Value> = outcome
        .rewritten
        .iter()
        .map(|&i| history.messages()[i].id().map_or(Value::Null, Value::from))
        .collect();
    Ok(json!({
        "trigger_limit": limits.trigger_limit,
        "messages": to_json(history.messages())?,
        "rewritten": rewritten,
        "used_tokens": history.used_tokens(),
        "error": outcome.error.map(|e| e.to_string()),
    }))
}

pub(super) fn reload(case: &Case) -> Result<Value, CaseError> {
    let turns: Vec<Turn> = case.field("turns")?;
    let limit: Option<i64> = case.opt_field("limit")?;
    let from_latest: bool = case.opt_field("from_latest_compaction")?.unwrap_or(false);
    let statuses: Option<Vec<TurnStatus>> = case.opt_field("statuses")?;
    let indices = checkpoint_reload(&turns, limit, from_latest, statuses.as_deref());
    Ok(json!({ "turns": indices }))
}

#[cfg(test)]
mod tests {
    use crate::conformance::{run_line, Verdict};

    /// A kind's output naming the first difference: the runner compares guard cases like any other.
    #[test]
    fn guard_kinds_run_through_the_runner() {
        let pass = r#"{"id":"g1","kind":"context_too_long","message":"Prompt is too long","status_code":400,"expected":{"context_too_long":true}}"#;
        assert_eq!(run_line(pass, 1), Verdict::Pass);
        let float_status = r#"{"id":"g0","kind":"context_too_long","message":"x","status_code":413.0,"expected":{"context_too_long":false}}"#;
        assert_eq!(
            run_line(float_status, 1),
            Verdict::Pass,
            "only an integer 413 counts"
        );
        let reload = r#"{"id":"g2","kind":"checkpoint_reload","turns":[{"role":"USER","status":"COMPLETED","result":null},{"role":"ASSISTANT","status":"PENDING","result":null}],"limit":0,"from_latest_compaction":true,"statuses":null,"expected":{"turns":[0]}}"#;
        assert_eq!(run_line(reload, 2), Verdict::Pass);
        let wrong = r#"{"id":"g3","kind":"summary_trim","model":"gpt-4o","messages":[{"role":"user","content":"q"}],"budget":0,"expected":{"messages":[],"removed":0}}"#;
        let Verdict::Fail { error, .. } = run_line(wrong, 3) else {
            panic!("the floor is over a budget of 0");
        };
        assert_eq!(error.to_string(), "$.messages: expected [] got nothing");
    }
}
