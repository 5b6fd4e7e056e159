//! What each kind of case runs: one core entry point per kind, its output
//! shaped like the case's `expected` (the guard kinds are in `guard.rs`).

use super::case::Case;
use super::guard;
use super::CaseError;
use crate::attachment::{
    allocate_budget, build_header, compose_message, is_text_readable_mime, preview_messages,
    Attachment, ComposeOptions, HeaderArgs,
};
use crate::budget::{context_limits, ModelConfig};
use crate::cut::TruncationPolicy;
use crate::metrics::{should_emit, snapshot, EmitState, ProviderBaseline};
use crate::protocol::Phase;
use crate::read_attachment::{read_page, Document, DEFAULT_PAGE_TOKEN_LIMIT};
use crate::tool_output::{render, ToolOutputInput};
use serde::Serialize;
use serde_json::{json, Value};

type Evaluate = fn(&Case) -> Result<Value, CaseError>;

/// Every kind the runner knows, with what it runs.
const TABLE: &[(&str, Evaluate)] = &[
    ("count_text", count_text),
    ("count_messages", count_messages),
    ("context_config", context_config),
    ("allocate", allocate),
    ("tool_output", tool_output),
    ("attachment_preview", attachment_preview),
    ("metrics", metrics),
    ("metrics_baseline", metrics),
    ("read_attachment", read_attachment),
    ("attachment_header", attachment_header),
    ("attachment_block", attachment_block),
    ("mime", mime),
    ("should_emit", emit),
    ("sanitize_tool_pairs", guard::sanitize),
    ("recent_user_messages", guard::recent_users),
    ("summary_trim", guard::trim),
    ("summary_request", guard::request),
    ("context_too_long", guard::too_long),
    ("summary_shed", guard::shed),
    ("summary_replacement", guard::replacement),
    ("emergency_pass", guard::emergency),
    ("checkpoint_reload", guard::reload),
];

/// Every kind of case the runner knows, in the order they were introduced.
pub fn kinds() -> impl Iterator<Item = &'static str> {
    TABLE.iter().map(|(name, _)| *name)
}

/// Computes a case's output in the shape of its `expected`.
pub fn evaluate(case: &Value) -> Result<Value, CaseError> {
    let kind = case
        .get("kind")
        .and_then(Value::as_str)
        .ok_or(CaseError::NoKind)?;
    let (_, run) = TABLE
        .iter()
        .find(|(name, _)| *name == kind)
        .ok_or_else(|| CaseError::UnknownKind {
            kind: kind.to_string(),
            known: kinds().collect::<Vec<_>>().join(", "),
        })?;
    run(&Case::new(case))
}

fn to_json(value: impl Serialize) -> Result<Value, CaseError> {
    serde_json::to_value(value).map_err(|e| CaseError::Mismatch(format!("output: {e}")))
}

fn count_text(case: &Case) -> Result<Value, CaseError> {
    let text: String = case.field("text")?;
    Ok(json!({"tokens": case.counter()?.count_text(&text)}))
}

fn count_messages(case: &Case) -> Result<Value, CaseError> {
    let messages = case.messages("messages")?;
    Ok(json!({"tokens": case.counter()?.count_messages(&messages)}))
}

fn context_config(case: &Case) -> Result<Value, CaseError> {
    let config: Option<ModelConfig> = case.opt_field("model_config")?;
    let auto: Option<i64> = case.opt_field("auto_compact_token_limit")?;
    to_json(context_limits(&case.model()?, config.as_ref(), auto))
}

fn allocate(case: &Case) -> Result<Value, CaseError> {
    let sizes: Vec<i64> = case.field("sizes")?;
    let budget: i64 = case.field("budget")?;
    Ok(json!({"allocations": allocate_budget(&sizes, budget)}))
}

fn tool_output(case: &Case) -> Result<Value, CaseError> {
    let raw: ToolOutputInput = case.field("raw")?;
    let mut policy: TruncationPolicy = case.field("policy")?;
    if case.opt_field::<bool>("emergency")?.unwrap_or(false) {
        policy = policy.emergency();
    }
    Ok(json!({"rendered": render(&raw, policy, &case.counter()?)}))
}

fn attachment_preview(case: &Case) -> Result<Value, CaseError> {
    let limit: i64 = case.field("limit")?;
    let out = preview_messages(&case.messages("messages")?, &case.counter()?, limit);
    let traces: Vec<Value> = out
        .traces
        .iter()
        .map(|t| {
            let mut attrs = t.attributes.clone();
            attrs.shift_remove("duration_ms");
            json!([t.name, attrs])
        })
        .collect();
    Ok(json!({"messages": out.messages, "traces": traces}))
}

fn metrics(case: &Case) -> Result<Value, CaseError> {
    let config: Option<ModelConfig> = case.opt_field("model_config")?;
    let baseline: Option<ProviderBaseline> = case.opt_field("baseline")?;
    let limits = context_limits(&case.model()?, config.as_ref(), None);
    let messages = case.messages("messages")?;
    to_json(snapshot(
        &case.counter()?,
        &messages,
        &limits,
        baseline.as_ref(),
    ))
}

fn read_attachment(case: &Case) -> Result<Value, CaseError> {
    let doc: Option<Document> = case.opt_field("doc")?;
    let result = read_page(
        doc.as_ref(),
        case.field("attachment_id")?,
        case.opt_field("offset")?.unwrap_or(0),
        case.opt_field("limit")?.unwrap_or(0),
        case.opt_field("page_token_limit")?
            .unwrap_or(DEFAULT_PAGE_TOKEN_LIMIT),
        &case.counter()?,
    );
    Ok(json!({"result": result}))
}

fn attachment_header(case: &Case) -> Result<Value, CaseError> {
    let args: HeaderArgs = case.field("args")?;
    Ok(json!({"header": build_header(&args)}))
}

/// The message text the recorded cases compose with.
const CASE_MESSAGE: &str = "MSG";

fn attachment_block(case: &Case) -> Result<Value, CaseError> {
    let attachments: Vec<Attachment> = case.field("attachments")?;
    let defaults = ComposeOptions::default();
    let options = ComposeOptions {
        inline_attachment_content: case
            .opt_field("inline_attachment_content")?
            .unwrap_or(defaults.inline_attachment_content),
        inject_max_chars: case
            .opt_field("inject_max_chars")?
            .unwrap_or(defaults.inject_max_chars),
    };
    let message: Option<String> = case.opt_field("message")?;
    let composed = compose_message(
        &attachments,
        message.as_deref().unwrap_or(CASE_MESSAGE),
        options,
    );
    Ok(json!({ "blocks": to_json(composed)? }))
}

fn mime(case: &Case) -> Result<Value, CaseError> {
    let mime: Option<String> = case.opt_field("mime")?;
    Ok(json!({"text_readable": is_text_readable_mime(mime.as_deref().unwrap_or(""))}))
}

fn emit(case: &Case) -> Result<Value, CaseError> {
    let previous: Option<EmitState> = case.opt_field("previous")?;
    let current: EmitState = case.field("current")?;
    let phase: Phase = case.field("phase")?;
    Ok(json!({"emit": should_emit(previous, current, phase)}))
}
