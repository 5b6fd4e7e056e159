//! The demo conversation's text: user prompts (every third with attachments,
//! composed into the backend's `<attachment>` block by core's
//! `compose_block`), assistant tool calls and their raw log outputs, and
//! filler sentences, all from a seeded xorshift generator, so a seed always
//! gives the same conversation.

use ctxguard_core::attachment::{
    compose_block, Attachment, ComposeOptions, ComposedMessage, InputBlock,
};
use ctxguard_core::message::{Content, ContentPart, FunctionCall};
use ctxguard_core::{Message, ToolCall};
use serde_json::{json, Map, Value};

/// The seeded generator of the demo's text.
#[derive(Debug, Clone)]
pub(super) struct TextGenerator {
    rng: u64,
}

impl TextGenerator {
    /// A generator seeded with `seed`.
    pub(super) fn new(seed: u64) -> Self {
        TextGenerator { rng: seed | 1 }
    }

    /// The next pseudo-random number (xorshift64*).
    pub(super) fn next_u64(&mut self) -> u64 {
        self.rng ^= self.rng >> 12;
        self.rng ^= self.rng << 25;
        self.rng ^= self.rng >> 27;
        self.rng.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// The user message of turn `turn` (1-based): a prompt, and on every third
    /// turn one or two attached files, composed as the backend sends them (the
    /// `<attachment>` block, then the prompt, as two text parts).
    pub(super) fn user_message(&mut self, turn: u64) -> Message {
        let prompt = PROMPTS[(turn as usize - 1) % PROMPTS.len()];
        if !turn.is_multiple_of(3) {
            return Message::user(format!("{prompt} {}", self.words_between(10, 30)));
        }
        let files = 1 + (self.next_u64() % 2) as usize;
        let attachments: Vec<Attachment> = (0..files)
            .map(|f| {
                let (name, mime) = ATTACHMENTS[(turn as usize + f) % ATTACHMENTS.len()];
                let body = self.words_between(600, 3_000);
                Attachment {
                    attachment_id: (turn * 10 + f as u64) as i64,
                    filename: name.into(),
                    mime_type: Some(mime.into()),
                    file_size: Some(body.len() as i64),
                    extracted_text: Some(body),
                    sandbox_path: Some(format!("/home/user/uploads/{name}")),
                    ..Attachment::default()
                }
            })
            .collect();
        let text = format!("{prompt} The files are attached.");
        match compose_block(&attachments, ComposeOptions::default()).into_message(&text) {
            ComposedMessage::Unchanged(text) => Message::user(text),
            ComposedMessage::Blocks(blocks) => {
                let parts = blocks
                    .into_iter()
                    .filter_map(|b| match b {
                        InputBlock::InputText { text } => Some(ContentPart::text(text)),
                        InputBlock::InputImage { .. } => None,
                    })
                    .collect();
                Message {
                    content: Some(Content::Parts(parts)),
                    ..Message::user("")
                }
            }
        }
    }

    /// Tool call number `number`: an assistant tool call and its raw result
    /// (the guard renders it before the next model call).
    pub(super) fn tool_exchange(&mut self, number: u64) -> (Message, Message) {
        let (tool, args) = TOOLS[(self.next_u64() as usize) % TOOLS.len()];
        let call_id = format!("call_{:05}", number);
        let call = ToolCall::Function {
            id: Some(call_id.clone()),
            function: FunctionCall {
                name: tool.into(),
                arguments: Value::String(args.into()),
                extra: Map::new(),
            },
            extra: Map::from_iter([("type".to_string(), json!("function"))]),
        };
        let mut assistant = Message::assistant("");
        assistant.tool_calls = Some(vec![call]);
        let words = 80 + (self.next_u64() % 2_400) as usize;
        let mut output = Message::tool(self.log_lines(words));
        output.name = Some(tool.into());
        output.tool_call_id = Some(call_id);
        // The guard only rewrites tool messages it can upsert by id.
        output.set_id(format!("tool_{number:05}"));
        output.set_kwarg(
            "exit_code",
            json!(if self.next_u64().is_multiple_of(5) {
                1
            } else {
                0
            }),
        );
        output.set_kwarg(
            "wall_time",
            json!((self.next_u64() % 90) as f64 / 10.0 + 0.1),
        );
        (assistant, output)
    }

    /// Between `min` and `min + span - 1` words.
    pub(super) fn words_between(&mut self, min: usize, span: u64) -> String {
        let n = min + (self.next_u64() % span) as usize;
        self.sentence(n)
    }

    fn sentence(&mut self, words: usize) -> String {
        let mut out = String::with_capacity(words * 7);
        for i in 0..words {
            if i > 0 {
                out.push(if i % 13 == 0 { '.' } else { ' ' });
                if i % 13 == 0 {
                    out.push(' ');
                }
            }
            out.push_str(WORDS[(self.next_u64() as usize) % WORDS.len()]);
        }
        out.push('.');
        out
    }

    fn log_lines(&mut self, words: usize) -> String {
        let mut out = String::new();
        let mut line = 0;
        let mut left = words;
        while left > 0 {
            let n = left.min(9);
            line += 1;
            let level = ["INFO", "WARN", "DEBUG", "ERROR"][(self.next_u64() % 4) as usize];
            out.push_str(&format!("{line:04} {level} {}\n", self.sentence(n)));
            left -= n;
        }
        out
    }
}

const PROMPTS: &[&str] = &[
    "Why does the nightly build fail on the ARM runners?",
    "Check whether the cache key changed between the last two releases.",
    "Summarise what the integration tests complain about.",
    "Find where the timeout for the upload step is configured.",
    "Compare the flaky test's logs from Monday and today.",
    "Is the linker error related to the new allocator?",
    "What would it take to split the release job in two?",
];

const ATTACHMENTS: &[(&str, &str)] = &[
    ("build-notes.md", "text/markdown"),
    ("runner-metrics.csv", "text/csv"),
    ("pipeline.yaml", "application/x-yaml"),
    ("failure-report.txt", "text/plain"),
];

const TOOLS: &[(&str, &str)] = &[
    ("shell", r#"{"cmd": "grep -n error build.log"}"#),
    ("read_file", r#"{"path": "ci/release.yml"}"#),
    ("shell", r#"{"cmd": "cargo test --workspace"}"#),
    (
        "web_search",
        r#"{"query": "linker relocation overflow aarch64"}"#,
    ),
];

const WORDS: &[&str] = &[
    "cache",
    "runner",
    "artifact",
    "linker",
    "timeout",
    "retry",
    "stage",
    "upload",
    "worker",
    "queue",
    "token",
    "manifest",
    "checksum",
    "release",
    "branch",
    "commit",
    "build",
    "target",
    "profile",
    "allocator",
    "thread",
    "socket",
    "deadline",
    "fixture",
    "snapshot",
    "pipeline",
    "module",
    "symbol",
    "overflow",
    "config",
    "budget",
    "window",
    "context",
    "summary",
    "shard",
    "cluster",
    "node",
    "image",
    "layer",
    "registry",
    "mirror",
    "proxy",
];

#[cfg(test)]
mod tests {
    use super::*;
    use ctxguard_core::attachment::find_blocks;

    #[test]
    fn every_third_turn_attaches_files_composed_as_the_backend_does() {
        let mut text = TextGenerator::new(7);
        let plain = text.user_message(1);
        assert!(plain.text().is_some_and(|t| t.starts_with(PROMPTS[0])));
        let attached = text.user_message(3);
        let Some(Content::Parts(parts)) = &attached.content else {
            panic!("blocks: {attached:?}")
        };
        let texts: Vec<&str> = parts
            .iter()
            .map(|p| match p {
                ContentPart::Text { text, .. } => text.as_str(),
                other => panic!("{other:?}"),
            })
            .collect();
        assert_eq!(texts.len(), 2, "the block, then the message");
        assert_eq!(texts[1], format!("{} The files are attached.", PROMPTS[2]));
        let block = texts[0];
        assert_eq!(find_blocks(block).count(), 1);
        assert!(
            block.starts_with(
                "<attachment>[Attachment 1]\n[Attachment: failure-report.txt | ID: 30 | "
            ),
            "{block:.120}"
        );
        assert!(
            block.contains("/home/user/uploads/failure-report.txt")
                && block.ends_with("\n\n</attachment>")
        );
    }
}
