//! The `document_parse` cases (`shared/conformance/documents.jsonl`): an
//! upload in, [`crate::upload`]'s answer compared with the recorded
//! `expected`. Messages of `parse_failed` refusals are compared up to the
//! parser's own prefix (what follows is the Python library's wording), and a
//! recorded `0x<addr>` matches any object address. Lines of any other kind go
//! to core's runner, so one call runs a mixed file.

use crate::error::{fixed_part, ErrorCode};
use crate::{upload, Options, DEFAULT_MAX_TEXT_LENGTH};
use ctxguard_core::conformance::{self as core_conformance, CaseError, Summary, Verdict};
use serde_json::Value;

/// The kind this module runs.
pub const KIND: &str = "document_parse";

/// Standard base64 (with or without padding) to bytes.
fn decode_base64(text: &str) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(text.len() / 4 * 3);
    let mut acc = 0u32;
    let mut bits = 0;
    for b in text.bytes() {
        let v = match b {
            b'A'..=b'Z' => b - b'A',
            b'a'..=b'z' => b - b'a' + 26,
            b'0'..=b'9' => b - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            b'=' => break,
            b'\n' | b'\r' | b' ' => continue,
            _ => return None,
        };
        acc = (acc << 6) | u32::from(v);
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
        }
    }
    Some(out)
}

/// The upload a case describes, answered as its `expected` is written.
pub fn evaluate(case: &Value) -> Result<Value, CaseError> {
    let field = |name: &'static str| {
        case.get(name)
            .and_then(Value::as_str)
            .ok_or(CaseError::Field {
                field: name,
                detail: "expected a string".into(),
            })
    };
    let filename = field("filename")?;
    let bytes = decode_base64(field("data_base64")?).ok_or(CaseError::Field {
        field: "data_base64",
        detail: "not base64".into(),
    })?;
    let max_text_length = match case.get("max_text_length") {
        None | Some(Value::Null) => DEFAULT_MAX_TEXT_LENGTH,
        Some(v) => v.as_i64().ok_or(CaseError::Field {
            field: "max_text_length",
            detail: "expected an integer".into(),
        })?,
    };
    let options = Options {
        max_text_length,
        ..Options::default()
    };
    Ok(upload(&bytes, filename, &options).to_json(true))
}

/// The error code a JSON `expected` or answer names, if any.
fn code_of(value: &Value) -> Option<ErrorCode> {
    let code = value.pointer("/error/code")?.as_str()?;
    ErrorCode::ALL.into_iter().find(|c| c.as_str() == code)
}

/// `0x1234abcd>` written as the recordings write object addresses.
fn mask_addresses(message: &str) -> String {
    let mut out = String::with_capacity(message.len());
    let mut rest = message;
    while let Some(i) = rest.find("0x") {
        out.push_str(&rest[..i + 2]);
        let after = &rest[i + 2..];
        let hex = after.bytes().take_while(u8::is_ascii_hexdigit).count();
        if hex > 0 && after[hex..].starts_with('>') {
            out.push_str("<addr>");
            rest = &after[hex..];
        } else {
            rest = after;
        }
    }
    out.push_str(rest);
    out
}

/// The comparable form of an answer: messages cut to their fixed part.
fn normalise(mut value: Value) -> Value {
    let Some(code) = code_of(&value) else {
        return value;
    };
    for pointer in ["/error/message", "/record/error_message"] {
        if let Some(Value::String(m)) = value.pointer_mut(pointer) {
            *m = mask_addresses(fixed_part(code, m));
        }
    }
    value
}

/// Runs one parsed `document_parse` case.
pub fn check(case: &Value) -> Result<(), CaseError> {
    let expected = case.get("expected").ok_or(CaseError::NoExpected)?;
    let actual = evaluate(case)?;
    let (expected, actual) = (normalise(expected.clone()), normalise(actual));
    match core_conformance::first_difference(&expected, &actual, "$") {
        None => Ok(()),
        Some(reason) => Err(CaseError::Mismatch(reason)),
    }
}

/// Runs one JSONL line of any kind: `document_parse` here, the rest by core.
pub fn run_line(line: &str, line_no: usize) -> Verdict {
    let Ok(case) = serde_json::from_str::<Value>(line) else {
        return core_conformance::run_line(line, line_no);
    };
    if case.get("kind").and_then(Value::as_str) != Some(KIND) {
        return core_conformance::run_case(&case, line_no);
    }
    let id = case
        .get("id")
        .and_then(Value::as_str)
        .map_or_else(|| format!("line {line_no}"), str::to_string);
    match check(&case) {
        Ok(()) => Verdict::Pass,
        Err(error) => Verdict::Fail { id, error },
    }
}

/// Runs every non-blank line of a JSONL text, of any kinds.
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

    #[test]
    fn base64_round_trips() {
        assert_eq!(decode_base64("Zm9vYg=="), Some(b"foob".to_vec()));
        assert_eq!(decode_base64("Zm9v"), Some(b"foo".to_vec()));
        assert_eq!(decode_base64("Zm9v!"), None);
    }

    #[test]
    fn addresses_and_library_wording_are_not_compared() {
        assert_eq!(
            mask_addresses("file <_io.BytesIO object at 0x7f12ab> x 0xZZ"),
            "file <_io.BytesIO object at 0x<addr>> x 0xZZ"
        );
        let answer = serde_json::json!({
            "error": {"code": "parse_failed", "message": "Failed to parse CSV: anything"},
            "record": {"error_message": "Failed to parse CSV: anything"}
        });
        assert_eq!(
            normalise(answer)["error"]["message"],
            "Failed to parse CSV: "
        );
    }

    #[test]
    fn a_recorded_case_passes_and_a_wrong_one_names_the_path() {
        let case = serde_json::json!({
            "id": "t", "kind": KIND, "filename": "hello.txt", "data_base64": "aGk=",
            "expected": {"text": "hi", "text_length": 2, "is_truncated": false, "truncation": null, "image": null,
              "record": {"status": "ready", "error_message": "", "extracted_text": "<text>", "text_length": 2,
                "image_base64": "", "type_data": {"original_filename": "hello.txt", "file_extension": ".txt",
                "file_size": 2, "mime_type": "text/plain", "is_truncated": false}, "truncation_info": null, "parsed": true}}
        });
        assert_eq!(check(&case), Ok(()));
        let mut wrong = case.clone();
        wrong["expected"]["text"] = "ho".into();
        let Err(CaseError::Mismatch(reason)) = check(&wrong) else {
            panic!("a different text must fail")
        };
        assert!(reason.starts_with("$.text: "), "{reason}");
    }

    #[test]
    fn other_kinds_go_to_core() {
        let line = r#"{"id":"c1","kind":"count_text","model":"gpt-4o","text":"hello world","expected":{"tokens":2}}"#;
        assert_eq!(run_line(line, 1), Verdict::Pass);
    }
}
