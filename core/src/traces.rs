//! Protection traces: one uniformly shaped record per context-protection
//! operation (`context_protection.<op>`), so a tracing backend can count
//! events, success rates, durations and token savings alike for all of them.

use crate::tokens::Tokens;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// Prefix of every trace name.
pub const EVENT_PREFIX: &str = "context_protection";

/// One trace record.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ProtectionTrace {
    /// `context_protection.<operation>`.
    pub name: String,
    /// `operation`, `status`, then the optional figures; absent values are never present.
    pub attributes: Map<String, Value>,
}

/// Builds a [`ProtectionTrace`] with the reference's attribute rules.
#[derive(Debug, Clone)]
pub struct TraceBuilder {
    operation: String,
    status: String,
    duration_ms: Option<f64>,
    before_tokens: Option<Tokens>,
    after_tokens: Option<Tokens>,
    extra: Vec<(String, Value)>,
}

impl TraceBuilder {
    /// Starts a record for `operation` with outcome `status`.
    pub fn new(operation: &str, status: &str) -> Self {
        TraceBuilder {
            operation: operation.into(),
            status: status.into(),
            duration_ms: None,
            before_tokens: None,
            after_tokens: None,
            extra: Vec::new(),
        }
    }

    /// Wall time of the operation, measured by the host (rounded to 2 decimals).
    pub fn duration_ms(mut self, ms: Option<f64>) -> Self {
        self.duration_ms = ms;
        self
    }

    /// Token size before and after; adds `tokens_saved` when both are present.
    pub fn tokens(mut self, before: Option<Tokens>, after: Option<Tokens>) -> Self {
        self.before_tokens = before;
        self.after_tokens = after;
        self
    }

    /// Any further attribute; `None` is dropped.
    pub fn attr(mut self, key: &str, value: Option<Value>) -> Self {
        if let Some(v) = value.filter(|v| !v.is_null()) {
            self.extra.push((key.into(), v));
        }
        self
    }

    /// The finished record.
    pub fn build(self) -> ProtectionTrace {
        let mut a = Map::new();
        a.insert("operation".into(), Value::from(self.operation.clone()));
        a.insert("status".into(), Value::from(self.status));
        if let Some(ms) = self.duration_ms {
            a.insert("duration_ms".into(), Value::from(round2(ms)));
        }
        if let Some(b) = self.before_tokens {
            a.insert("before_tokens".into(), Value::from(b));
        }
        if let Some(after) = self.after_tokens {
            a.insert("after_tokens".into(), Value::from(after));
        }
        if let (Some(b), Some(after)) = (self.before_tokens, self.after_tokens) {
            a.insert("tokens_saved".into(), Value::from((b - after).max(0)));
        }
        for (k, v) in self.extra {
            a.insert(k, v);
        }
        ProtectionTrace {
            name: format!("{EVENT_PREFIX}.{}", self.operation),
            attributes: a,
        }
    }
}

/// Python's `round(x, 2)` for display purposes (half-even on the decimal representation).
fn round2(x: f64) -> f64 {
    // Formatting with two decimals rounds the exact binary value correctly, as Python's round does.
    format!("{x:.2}").parse().unwrap_or(x)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn saved_tokens_and_dropped_absent_values() {
        let t = TraceBuilder::new("attachment_preview", "applied")
            .duration_ms(Some(1.23456))
            .tokens(Some(10), Some(25))
            .attr("attachment_segments_truncated", Some(Value::from(2)))
            .attr("missing", None)
            .build();
        assert_eq!(t.name, "context_protection.attachment_preview");
        let keys: Vec<&str> = t.attributes.keys().map(String::as_str).collect();
        assert_eq!(
            keys,
            [
                "operation",
                "status",
                "duration_ms",
                "before_tokens",
                "after_tokens",
                "tokens_saved",
                "attachment_segments_truncated"
            ]
        );
        assert_eq!(t.attributes["tokens_saved"], 0);
        assert_eq!(t.attributes["duration_ms"], 1.23);
    }
}
