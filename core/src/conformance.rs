//! The conformance runner: one recorded reference case (a JSON line of
//! `shared/conformance/vectors.jsonl`'s format) in, its verdict out. The CLI,
//! the native tests and the browser tests all run cases through this one
//! function, so every path checks the same core entry points.
//!
//! Cases are independent: each is evaluated on its own, with no state carried
//! from one line to the next, so a file of any kinds in any order runs alike.

mod case;
mod compare;
mod guard;
mod kinds;

pub use compare::{first_difference, UUID4_PLACEHOLDER};
pub use kinds::{evaluate, kinds};

use serde_json::Value;
use thiserror::Error;

/// Why a case did not pass.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum CaseError {
    /// The line is not JSON.
    #[error("malformed JSON: {0}")]
    MalformedJson(String),
    /// The case is not a JSON object.
    #[error("a case must be a JSON object, got {0}")]
    NotAnObject(&'static str),
    /// The case has no `expected` field.
    #[error("case has no \"expected\" field")]
    NoExpected,
    /// The case has no string `kind`.
    #[error("case has no string \"kind\"")]
    NoKind,
    /// The kind is not one the runner knows.
    #[error("unknown kind \"{kind}\" (known: {known})")]
    UnknownKind {
        /// The kind the case names.
        kind: String,
        /// Every known kind, comma-separated.
        known: String,
    },
    /// An input field is missing or has the wrong shape.
    #[error("field \"{field}\": {detail}")]
    Field {
        /// The field's name.
        field: &'static str,
        /// What was wrong with it.
        detail: String,
    },
    /// The output differs from `expected`: `path: expected … got …`.
    #[error("{0}")]
    Mismatch(String),
}

/// The verdict on one case.
#[derive(Debug, Clone, PartialEq)]
pub enum Verdict {
    /// Output equals `expected`.
    Pass,
    /// Output differs, or the case could not be run.
    Fail {
        /// Case id, or `line N` when it has none.
        id: String,
        /// What differed, or why the case could not run.
        error: CaseError,
    },
}

/// Runs one JSONL line; `line_no` (1-based) names cases without an id.
pub fn run_line(line: &str, line_no: usize) -> Verdict {
    match serde_json::from_str::<Value>(line) {
        Ok(case) => run_case(&case, line_no),
        Err(e) => Verdict::Fail {
            id: format!("line {line_no}"),
            error: CaseError::MalformedJson(e.to_string()),
        },
    }
}

/// Runs one parsed case.
pub fn run_case(case: &Value, line_no: usize) -> Verdict {
    let id = case
        .get("id")
        .and_then(Value::as_str)
        .map_or_else(|| format!("line {line_no}"), str::to_string);
    match check(case) {
        Ok(()) => Verdict::Pass,
        Err(error) => Verdict::Fail { id, error },
    }
}

fn check(case: &Value) -> Result<(), CaseError> {
    if !case.is_object() {
        return Err(CaseError::NotAnObject(json_type(case)));
    }
    let expected = case.get("expected").ok_or(CaseError::NoExpected)?;
    let actual = evaluate(case)?;
    match compare::first_difference(expected, &actual, "$") {
        None => compare::fresh_ids(expected, &actual, case),
        Some(reason) => Err(CaseError::Mismatch(reason)),
    }
}

fn json_type(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// Pass and fail counts with the failures, for a whole file.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Summary {
    /// Cases that matched.
    pub passed: usize,
    /// `(id, error)` of every failing case.
    pub failures: Vec<(String, CaseError)>,
}

/// Runs every non-blank line of a JSONL text.
pub fn run_jsonl(text: &str) -> Summary {
    let mut summary = Summary::default();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        match run_line(line, i + 1) {
            Verdict::Pass => summary.passed += 1,
            Verdict::Fail { id, error } => summary.failures.push((id, error)),
        }
    }
    summary
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fail_reason(line: &str) -> String {
        match run_line(line, 7) {
            Verdict::Fail { error, .. } => error.to_string(),
            Verdict::Pass => panic!("expected a failure for {line}"),
        }
    }

    #[test]
    fn a_passing_case_passes() {
        let line = r#"{"id":"c1","kind":"count_text","model":"gpt-4o","text":"hello world","expected":{"tokens":2}}"#;
        assert_eq!(run_line(line, 1), Verdict::Pass);
    }

    #[test]
    fn model_ids_are_lower_cased_with_no_state_between_cases() {
        // o200k counts "hello world" as 2 tokens and cl100k as 2 too; "façade" differs.
        let upper = r#"{"id":"u","kind":"count_text","model":"GPT-4O","text":"façade 😀","expected":{"tokens":N_TOKENS}}"#;
        let o200k = crate::tokens::TokenCounter::for_encoding(crate::encoding::Encoding::O200kBase)
            .count_text("façade 😀");
        assert_eq!(
            run_line(&upper.replace("N_TOKENS", &o200k.to_string()), 1),
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
        let Verdict::Fail { id, error } = run_line("[]", 7) else {
            panic!("an array is not a case")
        };
        assert_eq!(id, "line 7");
        assert_eq!(error, CaseError::NotAnObject("an array"));
    }
}
