//! Test fixtures of the summarisers: a conversation to summarise and a
//! chat-completions stub on a loopback port.

use super::HttpSummarizer;
use super::HttpSummarizerConfig;
use axum::http::StatusCode;
use axum::routing::post;
use axum::{Json, Router};
use ctxguard_core::guard::SUMMARY_INSTRUCTION;
use ctxguard_core::message::FunctionCall;
use ctxguard_core::{Message, ToolCall};
use serde_json::{json, Map, Value};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

pub(crate) fn conversation() -> Vec<Message> {
    let mut call = Message::assistant("");
    call.tool_calls = Some(vec![ToolCall::Function {
        id: Some("call_1".into()),
        function: FunctionCall {
            name: "shell".into(),
            arguments: Value::String(r#"{"cmd": "grep -n error build.log"}"#.into()),
            extra: Map::new(),
        },
        extra: Map::from_iter([("type".to_string(), json!("function"))]),
    }]);
    let mut tool = Message::tool(
        "0001 INFO cache warm\n0002 ERROR linker relocation overflow in module a\n0003 WARN retry",
    );
    tool.name = Some("shell".into());
    tool.tool_call_id = Some("call_1".into());
    vec![
        Message::system("be brief"),
        Message::user("Why does the nightly build fail on ARM? It worked last week."),
        call,
        tool,
        Message::assistant("The linker overflows. Use a larger code model."),
        Message::user("Find where the timeout is configured. Thanks."),
        Message::user(SUMMARY_INSTRUCTION),
    ]
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
