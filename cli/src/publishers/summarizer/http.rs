//! `--summarizer-url`: an OpenAI-compatible chat-completions endpoint as the summariser.

use super::calls::call_parts;
use ctxguard_core::guard::SummaryError;
use ctxguard_core::{Message, Role, ToolCall};
use serde_json::{json, Map, Value};
use std::fmt;
use std::time::Duration;

/// Most bytes of an HTTP error body quoted in a [`SummaryError`].
const ERROR_BODY_BYTES: usize = 2_000;

/// Where and how `--summarizer-url` calls.
#[derive(Clone, PartialEq, Eq)]
pub struct HttpSummarizerConfig {
    /// The chat-completions URL (e.g. `http://localhost:8000/v1/chat/completions`).
    pub url: String,
    /// The `model` field of the request.
    pub model: String,
    /// Timeout of one call (connect to last byte).
    pub timeout: Duration,
    /// Sent as `Authorization: Bearer …` when set.
    pub api_key: Option<String>,
}

impl fmt::Debug for HttpSummarizerConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("HttpSummarizerConfig")
            .field("url", &self.url)
            .field("model", &self.model)
            .field("timeout", &self.timeout)
            .field("api_key", &self.api_key.as_ref().map(|_| "<set>"))
            .finish()
    }
}

/// An OpenAI-compatible chat-completions endpoint as the summariser.
#[derive(Debug, Clone)]
pub struct HttpSummarizer {
    client: reqwest::Client,
    config: HttpSummarizerConfig,
}

impl HttpSummarizer {
    /// A client for `config`; fails on a URL that is not http(s).
    pub fn new(config: HttpSummarizerConfig) -> anyhow::Result<Self> {
        let url = reqwest::Url::parse(&config.url)
            .map_err(|e| anyhow::anyhow!("--summarizer-url {}: {e}", config.url))?;
        anyhow::ensure!(
            matches!(url.scheme(), "http" | "https"),
            "--summarizer-url must be an http or https URL, got {}",
            config.url
        );
        let client = reqwest::Client::builder()
            .timeout(config.timeout)
            .user_agent(concat!("ctxguard/", env!("CARGO_PKG_VERSION")))
            .build()?;
        Ok(HttpSummarizer { client, config })
    }

    /// The request body for `messages`.
    pub fn body(&self, messages: &[Message]) -> Value {
        json!({
            "model": self.config.model,
            "messages": messages.iter().map(wire_message).collect::<Vec<_>>(),
        })
    }

    /// One summariser call: the summary text, or the error as the guard should see it.
    pub async fn summarize(&self, messages: &[Message]) -> Result<String, SummaryError> {
        let mut request = self
            .client
            .post(&self.config.url)
            .header(reqwest::header::CONTENT_TYPE, "application/json");
        if let Some(key) = &self.config.api_key {
            request = request.bearer_auth(key);
        }
        let body = self.body(messages).to_string();
        let response = request
            .body(body)
            .send()
            .await
            .map_err(|e| transport_error(&e, self.config.timeout))?;
        let status = response.status();
        let text = response
            .text()
            .await
            .map_err(|e| transport_error(&e, self.config.timeout))?;
        if !status.is_success() {
            return Err(
                SummaryError::new(http_error_message(status.as_u16(), &text))
                    .with_status(status.as_u16()),
            );
        }
        let value: Value = serde_json::from_str(&text)
            .map_err(|e| SummaryError::new(format!("the summariser's answer is not JSON: {e}")))?;
        match value.pointer("/choices/0/message/content") {
            Some(Value::String(s)) => Ok(s.clone()),
            _ => Err(SummaryError::new(
                "the summariser's answer has no choices[0].message.content",
            )),
        }
    }
}

fn transport_error(e: &reqwest::Error, timeout: Duration) -> SummaryError {
    if e.is_timeout() {
        SummaryError::new(format!(
            "the summariser did not answer within {} ms",
            timeout.as_millis()
        ))
    } else {
        SummaryError::new(format!("summariser call failed: {e}"))
    }
}

/// `HTTP 400: MESSAGE (CODE)` from an OpenAI-style error body, else the body itself (clipped).
fn http_error_message(status: u16, body: &str) -> String {
    let parsed: Option<Value> = serde_json::from_str(body).ok();
    let error = parsed.as_ref().and_then(|v| v.get("error"));
    let field = |k: &str| {
        error
            .and_then(|e| e.get(k))
            .and_then(Value::as_str)
            .filter(|s| !s.is_empty())
    };
    let detail = match (
        field("message").or_else(|| error.and_then(Value::as_str)),
        field("code").or_else(|| field("type")),
    ) {
        (Some(m), Some(c)) => format!("{m} ({c})"),
        (Some(m), None) => m.to_string(),
        (None, Some(c)) => c.to_string(),
        (None, None) => {
            let mut end = body.len().min(ERROR_BODY_BYTES);
            while !body.is_char_boundary(end) {
                end -= 1;
            }
            body[..end].trim().to_string()
        }
    };
    format!("HTTP {status}: {detail}")
}

/// A message in the chat-completions shape: role, text content, OpenAI tool calls and ids.
fn wire_message(m: &Message) -> Value {
    let mut out = Map::new();
    let role = m.role_kind().map_or("user", Role::as_str);
    out.insert("role".into(), json!(role));
    let text = m.content_as_text();
    let calls: Vec<Value> = m
        .tool_calls
        .iter()
        .flatten()
        .enumerate()
        .map(|(i, c)| {
            let (name, arguments) = call_parts(c);
            let id = match c {
                ToolCall::Function { id, .. } | ToolCall::Flat { id, .. } => id.clone(),
                ToolCall::Other(v) => return v.clone(),
            };
            json!({
                "id": id.unwrap_or_else(|| format!("call_{i}")),
                "type": "function",
                "function": {"name": name, "arguments": arguments},
            })
        })
        .collect();
    if calls.is_empty() {
        out.insert("content".into(), json!(text));
    } else {
        let content = if text.is_empty() {
            Value::Null
        } else {
            json!(text)
        };
        out.insert("content".into(), content);
        out.insert("tool_calls".into(), Value::Array(calls));
    }
    if let Some(id) = &m.tool_call_id {
        out.insert("tool_call_id".into(), json!(id));
    }
    Value::Object(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::publishers::summarizer::testing::{completion, conversation, http, stub};

    #[test]
    fn wire_messages_are_chat_completions_shaped() {
        let config = HttpSummarizerConfig {
            url: "http://127.0.0.1:9/v1/chat/completions".into(),
            model: "m".into(),
            timeout: Duration::from_secs(1),
            api_key: Some("secret".into()),
        };
        assert!(!format!("{config:?}").contains("secret"));
        let http = HttpSummarizer::new(config).expect("client");
        let mut history = conversation();
        history[1].set_kwarg("checkpoint_retained", Value::Bool(true));
        let body = http.body(&history);
        assert_eq!(body["model"], "m");
        let m = &body["messages"];
        assert_eq!(
            m[1],
            json!({"role": "user", "content": "Why does the nightly build fail on ARM? It worked last week."})
        );
        assert_eq!(m[2]["content"], Value::Null);
        assert_eq!(m[2]["tool_calls"][0]["type"], "function");
        assert_eq!(m[2]["tool_calls"][0]["function"]["name"], "shell");
        assert!(m[2]["tool_calls"][0]["function"]["arguments"].is_string());
        assert_eq!(m[3]["tool_call_id"], "call_1");
        assert!(m[3].get("additional_kwargs").is_none());
        assert!(HttpSummarizer::new(HttpSummarizerConfig {
            url: "ftp://x/".into(),
            model: "m".into(),
            timeout: Duration::from_secs(1),
            api_key: None,
        })
        .is_err());
    }

    #[test]
    fn http_errors_keep_the_provider_message_and_code() {
        let body = r#"{"error":{"message":"This model's maximum context length is 8192 tokens.","type":"invalid_request_error","code":"context_length_exceeded"}}"#;
        let msg = http_error_message(400, body);
        assert_eq!(
            msg,
            "HTTP 400: This model's maximum context length is 8192 tokens. (context_length_exceeded)"
        );
        assert!(SummaryError::new(msg)
            .with_status(400)
            .is_context_too_long());
        assert!(!SummaryError::new(http_error_message(
            400,
            r#"{"error":{"message":"invalid parameter"}}"#
        ))
        .with_status(400)
        .is_context_too_long());
        assert_eq!(
            http_error_message(502, "bad gateway\n"),
            "HTTP 502: bad gateway"
        );
        assert!(SummaryError::new(http_error_message(413, "too big"))
            .with_status(413)
            .is_context_too_long());
    }

    #[tokio::test]
    async fn http_summarizer_against_a_loopback_stub() {
        let too_long = r#"{"error":{"message":"Please reduce the length of the messages.","code":"context_length_exceeded"}}"#;
        let s = stub(
            vec![
                (400, too_long.into()),
                (500, r#"{"error":{"message":"boom"}}"#.into()),
                (200, completion("the summary")),
                (200, r#"{"choices": []}"#.into()),
            ],
            Duration::ZERO,
        )
        .await;
        let h = http(&s.url, Duration::from_secs(10));
        let input = conversation();
        let e = h.summarize(&input).await.expect_err("400");
        assert_eq!(e.status, Some(400));
        assert!(e.is_context_too_long(), "{e}");
        let e = h.summarize(&input).await.expect_err("500");
        assert_eq!(
            (e.status, e.message.as_str()),
            (Some(500), "HTTP 500: boom")
        );
        assert!(!e.is_context_too_long());
        assert_eq!(h.summarize(&input).await.expect("200"), "the summary");
        let e = h.summarize(&input).await.expect_err("no content");
        assert!(e.message.contains("choices[0].message.content"), "{e}");
        let seen = s.requests.lock().expect("lock");
        assert_eq!(seen.len(), 4);
        assert_eq!(seen[0]["model"], "stub-model");
        assert_eq!(
            seen[0]["messages"].as_array().map(Vec::len),
            Some(input.len())
        );
    }

    #[tokio::test]
    async fn http_summarizer_times_out_and_reports_unreachable_servers() {
        let s = stub(vec![(200, completion("late"))], Duration::from_secs(5)).await;
        let e = http(&s.url, Duration::from_millis(200))
            .summarize(&conversation())
            .await
            .expect_err("timeout");
        assert!(e.message.contains("did not answer within 200 ms"), "{e}");
        assert_eq!(e.status, None);
        // A port nobody listens on: bind one, then free it.
        let free = std::net::TcpListener::bind(("127.0.0.1", 0)).expect("bind");
        let port = free.local_addr().expect("addr").port();
        drop(free);
        let e = http(
            &format!("http://127.0.0.1:{port}/v1/chat/completions"),
            Duration::from_secs(5),
        )
        .summarize(&conversation())
        .await
        .expect_err("refused");
        assert!(e.message.starts_with("summariser call failed"), "{e}");
    }
}
