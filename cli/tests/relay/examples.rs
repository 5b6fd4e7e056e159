//! The publishing examples against a live relay with a read secret: what they
//! publish is what `/context` says, through the read token they mint.

use crate::support::*;
use serde_json::json;
use std::process::Command;

const EXAMPLES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../examples");

/// Runs `program file --server URL --session chat:42`; returns its stdout lines as (key, value).
fn run_example(program: &str, file: &str, server: &Server) -> Vec<(String, String)> {
    let out = Command::new(program)
        .arg(format!("{EXAMPLES}/{file}"))
        .args(["--server", &server.url, "--session", "chat:42"])
        .env("CTXGUARD_PUBLISH_TOKEN", PUBLISH_TOKEN)
        .env("CTXGUARD_READ_SECRET", READ_SECRET)
        .output()
        .unwrap_or_else(|e| panic!("{program} runs: {e}"));
    assert!(
        out.status.success(),
        "{file}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout)
        .expect("utf-8")
        .lines()
        .filter_map(|l| {
            l.split_once(": ")
                .map(|(k, v)| (k.to_string(), v.to_string()))
        })
        .collect()
}

async fn check_example(program: &str, file: &str) {
    let server = Server::start_with(
        &[],
        &[
            ("CTXGUARD_PUBLISH_TOKEN", PUBLISH_TOKEN),
            ("CTXGUARD_READ_SECRET", READ_SECRET),
        ],
        None,
    );
    let printed = run_example(program, file, &server);
    let field = |k: &str| {
        printed
            .iter()
            .find(|(key, _)| key == k)
            .map(|(_, v)| v.clone())
            .unwrap_or_else(|| panic!("{k} in {printed:?}"))
    };
    let last: u64 = field("last event id").parse().expect("an id");
    let token = field("read token");
    assert!(field("toolbar").ends_with(&format!("?session=chat:42&token={token}")));
    let c = client();
    let (status, ctx) = get_json(
        &c,
        &server.url,
        &format!("api/sessions/chat:42/context?token={token}"),
    )
    .await;
    assert_eq!(status, 200, "{ctx}");
    assert_eq!(ctx["event_id"], json!(last));
    assert_eq!(ctx["phase"], json!("final"));
    assert_eq!(ctx["context_metrics"]["used_input_tokens"], json!(24_610));
    assert_eq!(
        ctx["context_metrics"]["display_remaining_percent"],
        json!(80)
    );
    assert_eq!(ctx["context_compaction"]["status"], json!("completed"));
    assert_eq!(ctx["context_compaction"]["after_tokens"], json!(23_750));
    let (status, _) = get_json(&c, &server.url, "api/sessions/chat:42/context").await;
    assert_eq!(status, 401, "the relay wants the token");
}

#[tokio::test]
async fn publish_py_publishes_a_turn_and_mints_a_token_the_relay_accepts() {
    check_example("python3", "publish.py").await;
}

#[tokio::test]
async fn publish_mjs_publishes_a_turn_and_mints_a_token_the_relay_accepts() {
    check_example("node", "publish.mjs").await;
}
