//! The `ctxguard` binary as a user runs it: exit codes, one-line errors, and the
//! conformance runner's output contract (`FAIL <id>: <path>: expected … got …`, then `N passed, M failed`).

use std::io::Write;
use std::process::{Command, Output, Stdio};

fn ctxguard(args: &[&str], stdin: &[u8]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_ctxguard"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary runs");
    // The command may exit before reading stdin (bad usage): a broken pipe is fine.
    let _ = child.stdin.take().expect("piped").write_all(stdin);
    child.wait_with_output().expect("the binary finishes")
}

/// A valid 1×1 RGBA PNG.
const PNG_1X1: &[u8] = &[
    0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44, 0x52,
    0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x06, 0x00, 0x00, 0x00, 0x1f, 0x15, 0xc4,
    0x89, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x44, 0x41, 0x54, 0x78, 0x9c, 0x63, 0xf8, 0xcf, 0xc0, 0xf0,
    0x1f, 0x00, 0x05, 0x00, 0x01, 0xff, 0x89, 0x99, 0x3d, 0x1d, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45,
    0x4e, 0x44, 0xae, 0x42, 0x60, 0x82,
];

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// The recorded `document_parse` cases through the binary (core's own tests run
/// the 815 chat_shell cases natively; here a sample of them checks that the
/// runner takes both kinds in one file).
#[test]
fn conformance_passes_the_recorded_documents_and_a_sample_of_the_vectors() {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/conformance/");
    let out = ctxguard(&["conformance", &format!("{root}documents.jsonl")], b"");
    let stdout = text(&out.stdout);
    let last = stdout.lines().last().unwrap_or_default();
    assert!(out.status.success(), "{stdout}");
    assert!(last.ends_with(" passed, 0 failed"), "{last}");
    let vectors = std::fs::read_to_string(format!("{root}vectors.jsonl")).expect("vectors");
    let dir = std::env::temp_dir().join(format!("ctxguard-mixed-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let mixed = dir.join("mixed.jsonl");
    let documents = std::fs::read_to_string(format!("{root}documents.jsonl")).expect("documents");
    let sample: Vec<&str> = vectors
        .lines()
        .step_by(40)
        .chain(
            documents
                .lines()
                .filter(|l| l.contains("\"id\": \"document_parse-txt-"))
                .take(5),
        )
        .collect();
    std::fs::write(&mixed, sample.join("\n")).expect("write sample");
    let out = ctxguard(&["conformance", mixed.to_str().expect("utf-8 path")], b"");
    assert_eq!(
        text(&out.stdout).lines().last(),
        Some(format!("{} passed, 0 failed", sample.len()).as_str())
    );
    let _ = std::fs::remove_dir_all(dir);
}

/// `ctxguard extract`: the stored text, the record as JSON, and the backend's refusal on stderr.
#[test]
fn extract_prints_the_stored_text_or_the_refusal() {
    let out = ctxguard(
        &["extract", "-", "--filename", "people.csv"],
        b"name,age\nAlice,30\n",
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(
        text(&out.stdout),
        "--- Sheet: CSV Data ---\nname | age\nAlice | 30"
    );
    let out = ctxguard(
        &["extract", "-", "--filename", "notes.txt", "--json"],
        b"hi",
    );
    let record: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(record["text"], "hi");
    assert_eq!(record["record"]["extracted_text"], "<text>");
    assert_eq!(record["record"]["type_data"]["mime_type"], "text/plain");
    let out = ctxguard(
        &["extract", "-", "--filename", "old.doc"],
        b"\xd0\xcf\x11\xe0",
    );
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        text(&out.stderr).trim(),
        "rejected (legacy_doc): Legacy .doc format is not fully supported. Please convert to .docx"
    );
    let long = "line of text\n".repeat(100);
    let out = ctxguard(
        &[
            "extract",
            "-",
            "--filename",
            "a.txt",
            "--max-text-length",
            "300",
        ],
        long.as_bytes(),
    );
    let stdout = text(&out.stdout);
    assert!(stdout.starts_with("# Head Section (lines 1-"), "{stdout}");
    assert!(stdout.chars().count() <= 300);
}

#[test]
fn conformance_reports_failures_and_exits_1() {
    let dir = std::env::temp_dir().join(format!("ctxguard-cli-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let file = dir.join("cases.jsonl");
    std::fs::write(
        &file,
        concat!(
            r#"{"id":"ok","kind":"count_text","model":"gpt-4o","text":"hello world","expected":{"tokens":2}}"#,
            "\n",
            r#"{"id":"bad","kind":"count_text","model":"gpt-4o","text":"hello world","expected":{"tokens":9}}"#,
            "\n",
            "not json\n",
        ),
    )
    .expect("write cases");
    let out = ctxguard(&["conformance", file.to_str().expect("utf-8 path")], b"");
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert!(
        stdout.contains("FAIL bad: $.tokens: expected 9 got 2\n"),
        "{stdout}"
    );
    assert!(stdout.contains("FAIL line 3: malformed JSON"), "{stdout}");
    assert!(stdout.ends_with("1 passed, 2 failed\n"), "{stdout}");
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn bad_usage_is_one_line_and_exit_2() {
    for args in [
        &["--bogus"][..],
        &["count", "--nope"],
        &["limits"],
        &["frobnicate"],
    ] {
        let out = ctxguard(args, b"");
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let stderr = text(&out.stderr);
        assert_eq!(stderr.lines().count(), 1, "{args:?}: {stderr}");
        assert!(stderr.starts_with("ctxguard: "), "{stderr}");
    }
}

#[test]
fn invalid_utf8_names_the_file_and_offset() {
    let out = ctxguard(&["count", "-"], b"ok \xff\xfe");
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        text(&out.stderr).trim(),
        "ctxguard: <stdin>: not valid UTF-8 at byte offset 3"
    );
}

/// A text of every kind the splitter tells apart (prose, Chinese, code, digit
/// runs, whitespace runs, apostrophes, emoji), `bytes` long or a little more.
fn mixed_text(bytes: usize) -> String {
    let mut out = String::with_capacity(bytes + 256);
    let mut i = 0u64;
    while out.len() < bytes {
        i += 1;
        let line = match i % 7 {
            0 => format!("The fox's {i}th jump wasn't {}; it'll do.\n", i * 7919),
            1 => format!("第{i}行：你好，世界。这是一个测试。\n"),
            2 => format!("fn f{i}(x: u64) -> u64 {{\n    x * {i} // done\n}}\n"),
            3 => format!("{}\r\n\r\n", i * 1_000_003),
            4 => format!("  \t  {i}    spaces   and\ttabs  \n\n\n"),
            5 => format!("😀👍🏽 e\u{301} <a href=\"/p/{i}\">/x/</a>\n"),
            _ => format!("{}\n", "word ".repeat((i % 13) as usize)),
        };
        out.push_str(&line);
    }
    out
}

/// The token count `ctxguard count` prints for one file.
fn counted(path: &std::path::Path, model: &str) -> i64 {
    let out = ctxguard(&["count", "--model", model, &path.to_string_lossy()], b"");
    assert!(out.status.success(), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    let first = stdout.split_whitespace().next().expect("a count");
    first.replace(',', "").parse().expect("a number")
}

/// `count` reads a file in buffers of 4 MiB (not whole, so a large file costs
/// no memory in proportion), cut
/// only at sure splits and counted on every core. A file of several buffers
/// counts exactly as its whole text, under the four encodings' patterns; an
/// invalid byte past the first buffer, or at its last byte, or a character cut
/// short far into the file, is reported at its exact offset.
#[test]
fn count_streams_a_file_larger_than_its_buffer_with_exact_counts_and_offsets() {
    let dir = std::env::temp_dir().join(format!("ctxguard-stream-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let body = mixed_text(14 << 20);
    let path = dir.join("big.txt");
    std::fs::write(&path, &body).expect("write");
    for model in ["gpt-4o", "gpt-4", "text-davinci-003", "davinci"] {
        let whole = ctxguard_core::tokens::count_text(&body, model);
        assert_eq!(counted(&path, model), whole, "{model}");
    }
    let buffer = 4 << 20;
    let broken: [(usize, &[u8]); 3] = [
        (buffer + 12_345, b"\xff"),
        (buffer - 1, b"\xff"),
        (3 * buffer + 777, b"\xe4\xb8"),
    ];
    for (near, bad) in broken {
        let offset = (near..)
            .find(|&i| body.is_char_boundary(i))
            .expect("in the text");
        let mut bytes = body.as_bytes().to_vec();
        bytes.splice(offset..offset, bad.iter().copied());
        let path = dir.join("bad.txt");
        std::fs::write(&path, &bytes).expect("write");
        let out = ctxguard(&["count", &path.to_string_lossy()], b"");
        assert_eq!(out.status.code(), Some(2));
        assert_eq!(
            text(&out.stderr).lines().last().unwrap_or_default(),
            format!(
                "ctxguard: {}: not valid UTF-8 at byte offset {offset}",
                path.display()
            )
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn count_reads_stdin_and_limits_prints_the_budget() {
    let out = ctxguard(&["count", "--model", "gpt-4o"], b"hello world");
    assert!(out.status.success());
    assert!(
        text(&out.stdout).starts_with("2  <stdin>"),
        "{}",
        text(&out.stdout)
    );
    let out = ctxguard(&["limits", "--model", "o3-mini"], b"");
    let stdout = text(&out.stdout);
    assert!(
        stdout.contains("compaction target           125,999"),
        "{stdout}"
    );
}

/// `ctxguard preview` composes the block with core's builder: the inline cap
/// (head + marker + tail), sandbox paths in the headers, images as image blocks.
#[test]
fn preview_composes_the_backend_block_with_cap_and_sandbox_paths() {
    let dir = std::env::temp_dir().join(format!("ctxguard-preview-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let log = dir.join("app.log");
    std::fs::write(&log, "0123456789".repeat(500)).expect("write log");
    let png = dir.join("pic.png");
    // A 1×1 PNG.
    std::fs::write(&png, PNG_1X1).expect("write png");
    let out = ctxguard(
        &[
            "preview",
            "--model",
            "gpt-4o",
            "--inject-max-chars",
            "100",
            "--sandbox-dir",
            "/sb",
            "--show",
            log.to_str().expect("utf-8 path"),
            png.to_str().expect("utf-8 path"),
        ],
        b"",
    );
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{stdout}{}", text(&out.stderr));
    assert!(stdout.contains("inline cap 100 chars per file"), "{stdout}");
    // 100 − 81 (the marker) code points of 5,000 are injected.
    assert!(stdout.contains("19 of 5,000"), "{stdout}");
    assert!(stdout.contains("pic.png (image block)"), "{stdout}");
    assert!(
        stdout.contains("| File Path(already in sandbox): /sb/app.log"),
        "{stdout}"
    );
    assert!(
        stdout.contains(
            "…[inline preview truncated; the full file is referenced in the header above]…"
        ),
        "{stdout}"
    );
    assert!(
        stdout.contains("[Image Attachment: pic.png | ID: 2 |"),
        "{stdout}"
    );
    let _ = std::fs::remove_dir_all(dir);
}

/// A reader that goes away (`ctxguard conformance … | head -1`) ends the
/// command quietly with SIGPIPE's shell status, never a panic.
#[test]
fn a_closed_stdout_is_not_a_panic() {
    let vectors = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../tests/conformance/documents.jsonl"
    );
    let dir = std::env::temp_dir().join(format!("ctxguard-pipe-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    // Many failing lines, so the command writes well past a pipe's buffer.
    let cases = dir.join("failing.jsonl");
    let line =
        r#"{"id":"f","kind":"count_text","model":"gpt-4o","text":"hi","expected":{"tokens":9}}"#;
    std::fs::write(&cases, format!("{line}\n").repeat(20_000)).expect("write cases");
    for file in [cases.to_str().expect("utf-8 path"), vectors] {
        let mut child = Command::new(env!("CARGO_BIN_EXE_ctxguard"))
            .args(["conformance", file])
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("the binary runs");
        drop(child.stdout.take());
        let out = child.wait_with_output().expect("the binary finishes");
        let stderr = text(&out.stderr);
        assert!(!stderr.contains("panicked"), "{stderr}");
        if file != vectors {
            assert_eq!(out.status.code(), Some(141), "{stderr}");
        }
    }
    let _ = std::fs::remove_dir_all(dir);
}
