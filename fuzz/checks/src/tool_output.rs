//! Tool-output compaction: `tool_output::render`, `render_raw` and
//! `extract_raw` (SPEC §5). Input: JSON `{"raw", "policy", "emergency"?,
//! "model"?, "name"?, "additional_kwargs"?}`: `raw`, `policy` and `emergency`
//! as in the `tool_output` conformance kind; with `name` or
//! `additional_kwargs` and a string `raw`, also a tool message of that
//! content, name and kwargs through `extract_raw`.
//!
//! Properties: no input panics; a rendering starts with its header; headers
//! never nest (rendering adds at most one header and re-rendering adds none);
//! rendering a rendering is a fixed point when nothing is cut, except where
//! the reference itself is not idempotent (see [`reference_not_idempotent`]);
//! a tool message's own non-blank name (blank as Python's `str.strip` sees
//! it) and its `additional_kwargs` exit code and wall time win over what its
//! content claims, and the rendering shows them.

use crate::input;
use crate::oracle::{py_isspace, py_non_blank};
use ctxguard_core::encoding::Encoding;
use ctxguard_core::tokens::TokenCounter;
use ctxguard_core::cut::{truncate_body, TruncationPolicy};
use ctxguard_core::tool_output::{
    extract_raw, parse_rendered, render, render_raw, RawToolOutput, ToolOutputInput,
    HEADER_PREFIX,
};
use ctxguard_core::Message;
use regex::Regex;
use serde_json::{Map, Value};
use std::sync::LazyLock;

/// A footer line as the reference writes one and reads one back.
static FOOTER: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^\[(?:exit_code=-?\d+)?(?: ?wall_time=\d+\.\d+s)?\]$")
        .expect("the footer pattern compiles")
});

/// Runs one input.
pub fn check(data: &[u8]) {
    let Some(value) = input::text(data).and_then(|t| serde_json::from_str::<Value>(t).ok()) else {
        return;
    };
    let (Some(Ok(input)), Some(Ok(policy))) = (
        value
            .get("raw")
            .map(|r| serde_json::from_value::<ToolOutputInput>(r.clone())),
        value
            .get("policy")
            .map(|p| serde_json::from_value::<TruncationPolicy>(p.clone())),
    ) else {
        return;
    };
    let policy = if value.get("emergency").and_then(Value::as_bool) == Some(true) {
        policy.emergency()
    } else {
        policy
    };
    let model = value.get("model").and_then(Value::as_str).unwrap_or("gpt-4o");
    let counter = TokenCounter::for_encoding(Encoding::for_model(model));

    let once = render(&input, policy, &counter);
    assert!(once.starts_with(HEADER_PREFIX), "a rendering starts with its header");
    let raw = match &input {
        ToolOutputInput::Text(t) => parse_rendered(t),
        ToolOutputInput::Raw(r) => r.clone(),
    };
    assert_eq!(once, render_raw(&raw, policy, &counter));
    // A header is a line that opens with the prefix. The source is counted by every occurrence
    // of the prefix: a tool's name may hold its text (`name=x[tool_output`), and a cut may start
    // a line where the text had the prefix mid-line; neither is a header the rendering added.
    let header_lines = |s: &str| s.split('\n').filter(|line| line.starts_with(HEADER_PREFIX)).count();
    let occurrences = |s: &str| s.matches(HEADER_PREFIX).count();
    let source_headers = match &input {
        ToolOutputInput::Text(t) if t.starts_with(HEADER_PREFIX) => occurrences(t),
        ToolOutputInput::Text(t) => occurrences(t) + 1,
        ToolOutputInput::Raw(r) => occurrences(&r.text) + r.tool_name.as_deref().map_or(0, occurrences) + 1,
    };
    assert!(
        header_lines(&once) <= source_headers,
        "rendering added more than one header: {once:?}"
    );
    let twice = render(&ToolOutputInput::Text(once.clone()), policy, &counter);
    assert!(
        header_lines(&twice) <= occurrences(&once),
        "re-rendering nested a header: {twice:?}"
    );
    let cut = truncate_body(&raw.text, policy, &counter).truncated;
    if !cut && !reference_not_idempotent(&raw) {
        assert_eq!(twice, once, "rendering a rendering is not a fixed point");
    }

    if let ToolOutputInput::Text(text) = &input {
        let name = value.get("name").and_then(Value::as_str);
        let kwargs = value.get("additional_kwargs").and_then(Value::as_object);
        if name.is_some() || kwargs.is_some() {
            message_metadata_wins(text, name, kwargs, policy, &counter);
        }
    }
}

/// Where the reference's own rendering is not idempotent, so neither is core's:
/// - a name made only of `]` renders as `name=` (the reference tests for an
///   empty name before it strips `]`), which reads back as empty: `unknown`;
/// - a wall time the footer pattern does not read back (`nan`, `inf`,
///   negative) leaves its footer in the body on a re-render;
/// - with no footer to write, a body whose last line has the footer's form is
///   read back as a footer.
fn reference_not_idempotent(raw: &RawToolOutput) -> bool {
    let brackets_only = raw
        .tool_name
        .as_deref()
        .is_some_and(|n| !n.is_empty() && n.chars().all(|c| c == ']'));
    let unreadable_time = raw
        .wall_time
        .is_some_and(|t| !t.is_finite() || format!("{t:.1}").starts_with('-'));
    let no_footer = raw.exit_code.is_none() && raw.wall_time.is_none();
    let last_line = raw.text.rsplit('\n').next().unwrap_or_default();
    let footer_like_body = no_footer && last_line != "[]" && FOOTER.is_match(last_line);
    brackets_only || unreadable_time || footer_like_body
}

/// A tool message's name and `additional_kwargs` win over its content's claims.
fn message_metadata_wins(
    text: &str,
    name: Option<&str>,
    kwargs: Option<&Map<String, Value>>,
    policy: TruncationPolicy,
    counter: &TokenCounter,
) {
    let mut message = Message::tool(text);
    message.name = name.map(str::to_string);
    message.additional_kwargs = kwargs.cloned();
    let raw = extract_raw(&message);
    let claimed = parse_rendered(text);
    assert_eq!(raw.text, claimed.text);
    let out = render_raw(&raw, policy, counter);
    let header_name = |n: &str| {
        if n.is_empty() {
            "unknown".to_string()
        } else {
            n.chars()
                .filter(|c| *c != ']')
                .map(|c| if py_isspace(c) { '_' } else { c })
                .collect()
        }
    };
    match name.filter(|n| py_non_blank(n)) {
        Some(n) => {
            assert_eq!(raw.tool_name.as_deref(), Some(n), "the message's name wins");
            let want = format!("{HEADER_PREFIX}name={} ", header_name(n));
            assert!(out.starts_with(&want), "{out:?} does not start with {want:?}");
        }
        None => assert_eq!(
            raw.tool_name,
            claimed.tool_name.filter(|n| !n.is_empty()),
            "a blank message name overrides the content's"
        ),
    }
    let kw = |key: &str| kwargs.and_then(|k| k.get(key));
    match kw("exit_code") {
        Some(Value::Number(n)) if n.as_i64().is_some() => {
            let code = n.as_i64();
            assert_eq!(raw.exit_code, code, "the kwargs exit code wins");
            let footer = out.rsplit('\n').next().unwrap_or_default();
            let want = format!("[exit_code={} ", code.unwrap_or_default());
            let want_alone = format!("[exit_code={}]", code.unwrap_or_default());
            assert!(
                footer.starts_with(&want) || footer == want_alone,
                "the footer {footer:?} does not show the kwargs exit code"
            );
        }
        None | Some(Value::Null) => assert_eq!(raw.exit_code, claimed.exit_code),
        _ => {}
    }
    match kw("wall_time") {
        Some(Value::Number(n)) => assert_eq!(raw.wall_time, n.as_f64(), "the kwargs wall time wins"),
        None | Some(Value::Null) => assert_eq!(
            raw.wall_time.map(f64::to_bits),
            claimed.wall_time.map(f64::to_bits)
        ),
        _ => {}
    }
}
