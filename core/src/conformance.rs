//! The conformance runner: one recorded reference case (a JSON line of
//! `shared/conformance/vectors.jsonl`'s format) in, its verdict out. The CLI,
//! the native tests and the browser tests all run cases through this one
//! function, so every path checks the same core entry points.

use crate::attachment::{
    allocate_budget, build_header, is_text_readable_mime, preview_messages, HeaderArgs,
};
use crate::budget::{context_limits, ModelConfig};
use crate::encoding::{Encoding, ReferenceEncodingCache};
use crate::message::parse_messages;
use crate::metrics::{should_emit, snapshot, EmitState, ProviderBaseline};
use crate::read_attachment::{read_page, Document};
use crate::tokens::TokenCounter;
use crate::tool_output::{render, ToolOutputInput, TruncationPolicy};
use serde::de::DeserializeOwned;
use serde_json::{json, Value};

/// Every kind of case the runner knows.
pub const KINDS: &[&str] = &[
    "count_text",
    "count_messages",
    "context_config",
    "allocate",
    "tool_output",
    "attachment_preview",
    "metrics",
    "metrics_baseline",
    "read_attachment",
    "attachment_header",
    "mime",
    "should_emit",
];

/// The verdict on one case.
#[derive(Debug, Clone, PartialEq)]
pub enum Verdict {
    /// Output equals `expected`.
    Pass,
    /// Output differs, or the case could not be run.
    Fail {
        /// Case id, or `line N` when it has none.
        id: String,
        /// What differed, as `path: expected … got …`, or why the case could not run.
        reason: String,
    },
}

/// Runs one JSONL line; `line_no` (1-based) names cases without an id.
///
/// `cache` carries the reference process's encoding cache from case to case,
/// because the recorded cases ran one after another in one process.
pub fn run_line(line: &str, line_no: usize, cache: &mut ReferenceEncodingCache) -> Verdict {
    let case: Value = match serde_json::from_str(line) {
        Ok(v) => v,
        Err(e) => {
            return Verdict::Fail {
                id: format!("line {line_no}"),
                reason: format!("malformed JSON: {e}"),
            }
        }
    };
    run_case(&case, line_no, cache)
}

/// Runs one parsed case.
pub fn run_case(case: &Value, line_no: usize, cache: &mut ReferenceEncodingCache) -> Verdict {
    let id = case
        .get("id")
        .and_then(Value::as_str)
        .map_or_else(|| format!("line {line_no}"), str::to_string);
    let Some(expected) = case.get("expected") else {
        return Verdict::Fail {
            id,
            reason: "case has no \"expected\" field".into(),
        };
    };
    match evaluate(case, cache) {
        Err(reason) => Verdict::Fail { id, reason },
        Ok(actual) => match first_difference(expected, &actual, "$") {
            None => Verdict::Pass,
            Some(reason) => Verdict::Fail { id, reason },
        },
    }
}

fn field<T: DeserializeOwned>(case: &Value, name: &str) -> Result<T, String> {
    let v = case.get(name).cloned().unwrap_or(Value::Null);
    serde_json::from_value(v).map_err(|e| format!("field \"{name}\": {e}"))
}

fn opt_field<T: DeserializeOwned>(case: &Value, name: &str) -> Result<Option<T>, String> {
    match case.get(name) {
        None | Some(Value::Null) => Ok(None),
        Some(v) => serde_json::from_value(v.clone())
            .map(Some)
            .map_err(|e| format!("field \"{name}\": {e}")),
    }
}

fn messages(case: &Value, name: &str) -> Result<Vec<crate::Message>, String> {
    parse_messages(case.get(name).unwrap_or(&Value::Null))
        .map_err(|e| format!("field \"{name}\": {e}"))
}

/// Whether the reference would have looked up the model's encoding for this case
/// (it does so lazily, on the first text it actually counts).
fn uses_encoding(kind: &str, case: &Value) -> bool {
    let non_empty = |v: Option<&Value>| v.and_then(Value::as_str).is_some_and(|s| !s.is_empty());
    match kind {
        "count_text" => non_empty(case.get("text")),
        "count_messages" | "metrics" | "metrics_baseline" => true,
        "tool_output" => match case.get("raw") {
            Some(Value::String(s)) => !s.is_empty(),
            Some(raw) => non_empty(raw.get("text")),
            None => false,
        },
        "attachment_preview" => {
            case.get("limit").and_then(Value::as_i64).unwrap_or(0) > 0
                && case
                    .get("messages")
                    .is_some_and(|m| m.to_string().contains("<attachment>"))
        }
        "read_attachment" => non_empty(case.get("doc").and_then(|d| d.get("text"))),
        _ => false,
    }
}

/// Computes a case's output in the shape of its `expected`.
pub fn evaluate(case: &Value, cache: &mut ReferenceEncodingCache) -> Result<Value, String> {
    let kind = case
        .get("kind")
        .and_then(Value::as_str)
        .ok_or("case has no string \"kind\"")?;
    let model: String = opt_field(case, "model")?.unwrap_or_else(|| "gpt-4".to_string());
    let encoding = if uses_encoding(kind, case) {
        cache.resolve(&model)
    } else {
        Encoding::for_model(&model)
    };
    let counter = || TokenCounter::for_encoding(encoding);
    Ok(match kind {
        "count_text" => {
            let text: String = field(case, "text")?;
            json!({"tokens": counter().count_text(&text)})
        }
        "count_messages" => {
            json!({"tokens": counter().count_messages(&messages(case, "messages")?)})
        }
        "context_config" => {
            let config: Option<ModelConfig> = opt_field(case, "model_config")?;
            let auto: Option<i64> = opt_field(case, "auto_compact_token_limit")?;
            serde_json::to_value(context_limits(&model, config.as_ref(), auto))
                .map_err(|e| e.to_string())?
        }
        "allocate" => {
            let sizes: Vec<i64> = field(case, "sizes")?;
            let budget: i64 = field(case, "budget")?;
            json!({"allocations": allocate_budget(&sizes, budget)})
        }
        "tool_output" => {
            let raw: ToolOutputInput = field(case, "raw")?;
            let mut policy: TruncationPolicy = field(case, "policy")?;
            if opt_field::<bool>(case, "emergency")?.unwrap_or(false) {
                policy = policy.emergency();
            }
            json!({"rendered": render(&raw, policy, &counter())})
        }
        "attachment_preview" => {
            let limit: i64 = field(case, "limit")?;
            let out = preview_messages(&messages(case, "messages")?, &counter(), limit);
            let traces: Vec<Value> = out
                .traces
                .iter()
                .map(|t| {
                    let mut attrs = t.attributes.clone();
                    attrs.shift_remove("duration_ms");
                    json!([t.name, attrs])
                })
                .collect();
            json!({"messages": out.messages, "traces": traces})
        }
        "metrics" | "metrics_baseline" => {
            let config: Option<ModelConfig> = opt_field(case, "model_config")?;
            let baseline: Option<ProviderBaseline> = opt_field(case, "baseline")?;
            let limits = context_limits(&model, config.as_ref(), None);
            let snap = snapshot(
                &counter(),
                &messages(case, "messages")?,
                &limits,
                baseline.as_ref(),
            );
            serde_json::to_value(snap).map_err(|e| e.to_string())?
        }
        "read_attachment" => {
            let doc: Option<Document> = opt_field(case, "doc")?;
            let result = read_page(
                doc.as_ref(),
                field(case, "attachment_id")?,
                opt_field(case, "offset")?.unwrap_or(0),
                opt_field(case, "limit")?.unwrap_or(0),
                opt_field(case, "page_token_limit")?
                    .unwrap_or(crate::read_attachment::DEFAULT_PAGE_TOKEN_LIMIT),
                &counter(),
            );
            json!({"result": result})
        }
        "attachment_header" => {
            let args: HeaderArgs = field(case, "args")?;
            json!({"header": build_header(&args)})
        }
        "mime" => {
            let mime: Option<String> = opt_field(case, "mime")?;
            json!({"text_readable": is_text_readable_mime(mime.as_deref().unwrap_or(""))})
        }
        "should_emit" => {
            let previous: Option<EmitState> = opt_field(case, "previous")?;
            let current: EmitState = field(case, "current")?;
            let phase: String = field(case, "phase")?;
            json!({"emit": should_emit(previous, current, &phase)})
        }
        other => {
            return Err(format!(
                "unknown kind \"{other}\" (known: {})",
                KINDS.join(", ")
            ))
        }
    })
}

/// The first place where `actual` differs from `expected`, as `path: expected … got …`.
pub fn first_difference(expected: &Value, actual: &Value, path: &str) -> Option<String> {
    match (expected, actual) {
        (Value::Object(e), Value::Object(a)) => {
            for (k, ev) in e {
                let p = format!("{path}.{k}");
                match a.get(k) {
                    None => return Some(format!("{p}: expected {} got nothing", brief(ev))),
                    Some(av) => {
                        if let Some(d) = first_difference(ev, av, &p) {
                            return Some(d);
                        }
                    }
                }
            }
            a.iter()
                .find(|(k, _)| !e.contains_key(*k))
                .map(|(k, av)| format!("{path}.{k}: expected nothing got {}", brief(av)))
        }
        (Value::Array(e), Value::Array(a)) => {
            for (i, (ev, av)) in e.iter().zip(a).enumerate() {
                if let Some(d) = first_difference(ev, av, &format!("{path}[{i}]")) {
                    return Some(d);
                }
            }
            (e.len() != a.len())
                .then(|| format!("{path}: expected {} items got {}", e.len(), a.len()))
        }
        (Value::String(e), Value::String(a)) if e != a => {
            let at = e.chars().zip(a.chars()).take_while(|(x, y)| x == y).count();
            let snippet = |s: &str| -> String {
                let from = at.saturating_sub(20);
                serde_json::to_string(&s.chars().skip(from).take(60).collect::<String>())
                    .unwrap_or_default()
            };
            Some(format!(
                "{path}: expected …{} got …{} (strings differ from char {at})",
                snippet(e),
                snippet(a)
            ))
        }
        (Value::Number(e), Value::Number(a)) if e.as_f64() == a.as_f64() => None,
        (e, a) if e == a => None,
        (e, a) => Some(format!("{path}: expected {} got {}", brief(e), brief(a))),
    }
}

fn brief(v: &Value) -> String {
    let s = v.to_string();
    if s.chars().count() > 120 {
        format!("{}…", s.chars().take(120).collect::<String>())
    } else {
        s
    }
}

/// Pass and fail counts with the failures, for a whole file.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Summary {
    /// Cases that matched.
    pub passed: usize,
    /// `(id, reason)` of every failing case.
    pub failures: Vec<(String, String)>,
}

/// Runs every non-blank line of a JSONL text.
pub fn run_jsonl(text: &str) -> Summary {
    let mut summary = Summary::default();
    let mut cache = ReferenceEncodingCache::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        match run_line(line, i + 1, &mut cache) {
            Verdict::Pass => summary.passed += 1,
            Verdict::Fail { id, reason } => summary.failures.push((id, reason)),
        }
    }
    summary
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fail_reason(line: &str) -> String {
        match run_line(line, 7, &mut ReferenceEncodingCache::new()) {
            Verdict::Fail { reason, .. } => reason,
            Verdict::Pass => panic!("expected a failure for {line}"),
        }
    }

    #[test]
    fn a_passing_case_passes() {
        let line = r#"{"id":"c1","kind":"count_text","model":"gpt-4o","text":"hello world","expected":{"tokens":2}}"#;
        assert_eq!(
            run_line(line, 1, &mut ReferenceEncodingCache::new()),
            Verdict::Pass
        );
    }

    #[test]
    fn failures_name_the_first_differing_path() {
        let number = fail_reason(
            r#"{"id":"c1","kind":"count_text","model":"gpt-4o","text":"hello world","expected":{"tokens":3}}"#,
        );
        assert_eq!(number, "$.tokens: expected 3 got 2");
        let string = fail_reason(
            r#"{"id":"h","kind":"attachment_header","args":{"attachment_id":1,"filename":"a.txt","file_size":1},"expected":{"header":"[Attachment: b.txt"}}"#,
        );
        assert!(
            string.starts_with("$.header: expected …\"[Attachment: b.txt\" got …"),
            "{string}"
        );
        assert!(
            string.ends_with("(strings differ from char 13)"),
            "{string}"
        );
    }

    #[test]
    fn bad_lines_are_failed_cases_not_crashes() {
        assert!(fail_reason("{not json").starts_with("malformed JSON"));
        assert!(fail_reason(r#"{"id":"x","kind":"nope","expected":{}}"#)
            .starts_with("unknown kind \"nope\""));
        assert!(fail_reason(r#"{"id":"x","kind":"count_text"}"#).contains("no \"expected\""));
        assert!(fail_reason(
            r#"{"id":"x","kind":"allocate","sizes":"many","budget":1,"expected":{}}"#
        )
        .starts_with("field \"sizes\""));
        let Verdict::Fail { id, .. } = run_line("[]", 7, &mut ReferenceEncodingCache::new()) else {
            panic!("an array is not a case")
        };
        assert_eq!(id, "line 7");
    }
}
