//! The demo's summarisers, answering the guard's [`SummaryRequest`]s
//! (`ctxguard_core::guard::SummaryRequest::messages`):
//!
//! - [`ExtractiveSummarizer`], embedded and the default: it writes nothing of
//!   its own but picks the leading sentence of each turn and the key line of
//!   each tool output (errors and warnings first), newest first, up to a token
//!   budget. No network, no model; deterministic.
//! - [`HttpSummarizer`] (`--summarizer-url`): POSTs `{model, messages}` to any
//!   OpenAI-compatible chat-completions endpoint and reads
//!   `choices[0].message.content`; an HTTP error becomes a [`SummaryError`]
//!   with its status and the provider's message, so the guard's
//!   context-too-long rules (413, `context_length_exceeded`, ...) apply.

use ctxguard_core::guard::{is_summary, SummaryError, SUMMARY_INSTRUCTION, SUMMARY_PREFIX};
use ctxguard_core::tokens::{TokenCounter, Tokens};
use ctxguard_core::tool_output::HEADER_PREFIX;
use ctxguard_core::{Message, Role, ToolCall};
use serde_json::{json, Map, Value};
use std::fmt;
use std::time::Duration;

/// Default budget of an extractive summary, in tokens.
pub const DEFAULT_SUMMARY_TOKENS: Tokens = 800;
/// Most words of one extracted line.
const LINE_WORDS: usize = 24;
/// Most bytes of an HTTP error body quoted in a [`SummaryError`].
const ERROR_BODY_BYTES: usize = 2_000;

/// The embedded extractive summariser (see the module docs).
#[derive(Debug, Clone, Copy)]
pub struct ExtractiveSummarizer {
    counter: TokenCounter,
    budget_tokens: Tokens,
}

impl ExtractiveSummarizer {
    /// A summariser whose summaries stay within `budget_tokens` (counted with `counter`).
    pub fn new(counter: TokenCounter, budget_tokens: Tokens) -> Self {
        ExtractiveSummarizer {
            counter,
            budget_tokens: budget_tokens.max(64),
        }
    }

    /// Summarises a summariser request: an objective (the latest user turn),
    /// the progress so far as one line per turn (an earlier summary's lines
    /// carried over first), and the next step. Empty when there is nothing
    /// but system messages and the instruction.
    pub fn summarize(&self, messages: &[Message]) -> Result<String, SummaryError> {
        let turns: Vec<&Message> = messages
            .iter()
            .filter(|m| !m.is_system())
            .filter(|m| m.text() != Some(SUMMARY_INSTRUCTION))
            .collect();
        let Some(objective) = turns
            .iter()
            .rev()
            .find(|m| m.is_user() && !is_summary(m))
            .map(|m| leading_sentence(&m.content_as_text()))
        else {
            return Ok(String::new());
        };
        let mut points = Vec::new();
        for m in &turns {
            points.extend(key_lines(m));
        }
        let head = format!("Objective: {objective}\n\nProgress so far (oldest first):");
        let tail = format!("\n\nNext step: answer \"{objective}\"");
        let mut spent = self.counter.count_text(&head) + self.counter.count_text(&tail);
        let mut kept = Vec::new();
        for point in points.iter().rev() {
            let cost = self.counter.count_text(point) + 1;
            if spent + cost > self.budget_tokens {
                break;
            }
            spent += cost;
            kept.push(point.as_str());
        }
        let omitted = points.len() - kept.len();
        let mut out = head;
        if omitted > 0 {
            out.push_str(&format!("\n- ({omitted} earlier points left out)"));
        }
        for point in kept.iter().rev() {
            out.push('\n');
            out.push_str(point);
        }
        out.push_str(&tail);
        Ok(out)
    }
}

/// The lines a message contributes to the progress list.
fn key_lines(m: &Message) -> Vec<String> {
    let text = m.content_as_text();
    if is_summary(m) || text.starts_with(SUMMARY_PREFIX) {
        // Carry an earlier summary's progress forward.
        return text
            .lines()
            .filter(|l| l.starts_with("- ") && !l.ends_with("points left out)"))
            .map(str::to_string)
            .collect();
    }
    match m.role_kind() {
        Some(Role::User) => {
            let mut line = format!("- user asked: {}", leading_sentence(&text));
            let files = attachment_names(&text);
            if !files.is_empty() {
                line.push_str(&format!(" (attached: {})", files.join(", ")));
            }
            vec![line]
        }
        Some(Role::Assistant) => match &m.tool_calls {
            Some(calls) if !calls.is_empty() => calls
                .iter()
                .map(|c| {
                    let (name, args) = call_parts(c);
                    format!("- assistant ran {name} {}", clip_words(&args, 12))
                })
                .collect(),
            _ if text.trim().is_empty() => Vec::new(),
            _ => vec![format!("- assistant answered: {}", leading_sentence(&text))],
        },
        Some(Role::Tool) => {
            let name = m.name.as_deref().unwrap_or("tool");
            let line = tool_key_line(&text);
            vec![format!("- {name} output: {line}")]
        }
        _ => Vec::new(),
    }
}

/// The first sentence of `text`, at most [`LINE_WORDS`] words, on one line.
fn leading_sentence(text: &str) -> String {
    let first = text
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty() && !l.starts_with('<'))
        .unwrap_or("");
    let end = first
        .char_indices()
        .find(|&(i, c)| {
            matches!(c, '.' | '?' | '!') && first[i + c.len_utf8()..].starts_with([' ', '\t'])
        })
        .map(|(i, c)| i + c.len_utf8())
        .unwrap_or(first.len());
    clip_words(&first[..end], LINE_WORDS)
}

fn clip_words(text: &str, max: usize) -> String {
    let words: Vec<&str> = text.split_whitespace().collect();
    if words.len() <= max {
        return words.join(" ");
    }
    format!("{} …", words[..max].join(" "))
}

/// File names in `[Attachment: NAME | ...]` headers.
fn attachment_names(text: &str) -> Vec<String> {
    text.lines()
        .filter_map(|l| {
            let rest = l
                .strip_prefix("[Attachment: ")
                .or_else(|| l.strip_prefix("[Image Attachment: "))?;
            Some(rest.split(" | ").next()?.trim().to_string())
        })
        .collect()
}

/// The most telling line of a tool output: the first error, else the first
/// warning, else the first line of the body (a rendered header skipped).
fn tool_key_line(text: &str) -> String {
    let body: Vec<&str> = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with(HEADER_PREFIX))
        .collect();
    let find = |needles: &[&str]| {
        body.iter()
            .find(|l| {
                let lower = l.to_lowercase();
                needles.iter().any(|n| lower.contains(n))
            })
            .copied()
    };
    let line = find(&["error", "fail", "panic"])
        .or_else(|| find(&["warn"]))
        .or_else(|| body.first().copied())
        .unwrap_or("(empty)");
    clip_words(line, LINE_WORDS)
}

fn call_parts(call: &ToolCall) -> (String, String) {
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
pub(crate) mod tests {
    use super::*;
    use axum::http::StatusCode;
    use axum::routing::post;
    use axum::{Json, Router};
    use ctxguard_core::message::FunctionCall;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::{Arc, Mutex};

    fn counter() -> TokenCounter {
        TokenCounter::for_model("gpt-4o")
    }

    fn conversation() -> Vec<Message> {
        let mut call = Message::new("assistant", "");
        call.tool_calls = Some(vec![ToolCall::Function {
            id: Some("call_1".into()),
            function: FunctionCall {
                name: "shell".into(),
                arguments: Value::String(r#"{"cmd": "grep -n error build.log"}"#.into()),
                extra: Map::new(),
            },
            extra: Map::from_iter([("type".to_string(), json!("function"))]),
        }]);
        let mut tool = Message::new(
            "tool",
            "0001 INFO cache warm\n0002 ERROR linker relocation overflow in module a\n0003 WARN retry",
        );
        tool.name = Some("shell".into());
        tool.tool_call_id = Some("call_1".into());
        vec![
            Message::new("system", "be brief"),
            Message::new(
                "user",
                "Why does the nightly build fail on ARM? It worked last week.",
            ),
            call,
            tool,
            Message::new(
                "assistant",
                "The linker overflows. Use a larger code model.",
            ),
            Message::new("user", "Find where the timeout is configured. Thanks."),
            Message::new("user", SUMMARY_INSTRUCTION),
        ]
    }

    #[test]
    fn extractive_summary_picks_leading_sentences_and_key_lines() {
        let s = ExtractiveSummarizer::new(counter(), DEFAULT_SUMMARY_TOKENS)
            .summarize(&conversation())
            .expect("summary");
        assert!(
            s.starts_with("Objective: Find where the timeout is configured."),
            "{s}"
        );
        assert!(
            s.contains("- user asked: Why does the nightly build fail on ARM?\n"),
            "{s}"
        );
        assert!(
            s.contains("- assistant ran shell {\"cmd\": \"grep -n error build.log\"}"),
            "{s}"
        );
        assert!(
            s.contains("- shell output: 0002 ERROR linker relocation overflow in module a"),
            "{s}"
        );
        assert!(
            s.contains("- assistant answered: The linker overflows."),
            "{s}"
        );
        assert!(
            !s.contains("be brief") && !s.contains("compacting this conversation"),
            "{s}"
        );
    }

    #[test]
    fn extractive_summary_keeps_the_newest_points_within_its_budget() {
        let mut history = vec![Message::new("system", "s")];
        for i in 0..400 {
            history.push(Message::new(
                "user",
                format!("Question number {i} about the cache key."),
            ));
            history.push(Message::new("assistant", format!("Answer number {i}.")));
        }
        let budget = 300;
        let s = ExtractiveSummarizer::new(counter(), budget)
            .summarize(&history)
            .expect("summary");
        assert!(
            counter().count_text(&s) <= budget,
            "{}",
            counter().count_text(&s)
        );
        assert!(s.contains("Answer number 399."));
        assert!(!s.contains("Question number 0 "));
        assert!(s.contains("earlier points left out)"));
        // A later summary of that summary carries its points forward.
        let mut summary = Message::new("user", format!("{SUMMARY_PREFIX}\n\n{s}"));
        summary.set_kwarg("summary_compacted", Value::Bool(true));
        let again = ExtractiveSummarizer::new(counter(), budget)
            .summarize(&[summary, Message::new("user", "And now?")])
            .expect("summary");
        assert!(
            again.contains("- assistant answered: Answer number 399."),
            "{again}"
        );
        assert!(again.starts_with("Objective: And now?"));
    }

    #[test]
    fn nothing_to_summarise_is_empty() {
        let s = ExtractiveSummarizer::new(counter(), 100)
            .summarize(&[
                Message::new("system", "s"),
                Message::new("user", SUMMARY_INSTRUCTION),
            ])
            .expect("ok");
        assert!(s.is_empty());
    }

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

    /// A chat-completions stub on a loopback port: answers each request with
    /// the next of `answers` (status, body), recording the request bodies.
    pub(crate) struct Stub {
        pub url: String,
        pub requests: Arc<Mutex<Vec<Value>>>,
        task: tokio::task::JoinHandle<()>,
    }

    impl Drop for Stub {
        fn drop(&mut self) {
            self.task.abort();
        }
    }

    pub(crate) async fn stub(answers: Vec<(u16, String)>, delay: Duration) -> Stub {
        let requests = Arc::new(Mutex::new(Vec::new()));
        let seen = requests.clone();
        let next = Arc::new(AtomicUsize::new(0));
        let answers = Arc::new(answers);
        let app = Router::new().route(
            "/v1/chat/completions",
            post(move |Json(body): Json<Value>| {
                let seen = seen.clone();
                let next = next.clone();
                let answers = answers.clone();
                async move {
                    seen.lock().expect("lock").push(body);
                    tokio::time::sleep(delay).await;
                    let i = next.fetch_add(1, Ordering::SeqCst).min(answers.len() - 1);
                    let (status, text) = answers[i].clone();
                    (
                        StatusCode::from_u16(status).expect("status"),
                        [("content-type", "application/json")],
                        text,
                    )
                }
            }),
        );
        let listener = tokio::net::TcpListener::bind(("127.0.0.1", 0))
            .await
            .expect("bind");
        let addr = listener.local_addr().expect("addr");
        let task = tokio::spawn(async move {
            let _ = axum::serve(listener, app).await;
        });
        Stub {
            url: format!("http://{addr}/v1/chat/completions"),
            requests,
            task,
        }
    }

    pub(crate) fn completion(text: &str) -> String {
        json!({"choices": [{"index": 0, "message": {"role": "assistant", "content": text}}]})
            .to_string()
    }

    pub(crate) fn http(url: &str, timeout: Duration) -> HttpSummarizer {
        HttpSummarizer::new(HttpSummarizerConfig {
            url: url.into(),
            model: "stub-model".into(),
            timeout,
            api_key: None,
        })
        .expect("client")
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
