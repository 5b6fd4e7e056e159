//! A tool call as text: its name and its arguments, whatever shape the call has.

use ctxguard_core::ToolCall;
use serde_json::Value;

/// The name and the arguments (as text) of `call`.
pub(super) fn call_parts(call: &ToolCall) -> (String, String) {
    match call {
        ToolCall::Function { function, .. } => {
            (function.name.clone(), args_text(&function.arguments))
        }
        ToolCall::Flat { name, args, .. } => (name.clone(), args_text(args)),
        ToolCall::Other(v) => {
            let name = v
                .pointer("/function/name")
                .or_else(|| v.get("name"))
                .and_then(Value::as_str)
                .unwrap_or("a tool");
            (name.to_string(), String::new())
        }
    }
}

fn args_text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Null => String::new(),
        other => other.to_string(),
    }
}
