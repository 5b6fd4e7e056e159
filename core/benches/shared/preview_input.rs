//! The attachment preview's input, shared by the bench (`benches/engine.rs`)
//! and the instruction-count example (`examples/preview_file.rs`), so both
//! measure the same 8 attachments of 1.25 MB in one user message.

use ctxguard_core::attachment::{build_header, HeaderArgs};
use ctxguard_core::Message;

/// The longest prefix of `s` of at most `n` bytes that ends on a char boundary.
pub fn prefix(s: &str, n: usize) -> &str {
    let mut end = n.min(s.len());
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    &s[..end]
}

/// 8 attachments totalling 10 MB in one user message, as the clients write
/// them, from the corpus's mixed and prose texts; and the 8 bodies.
pub fn attachments(mixed: &str, prose: &str) -> (Vec<Message>, Vec<String>) {
    let per = 10_000_000 / 8;
    let source = format!("{mixed}{prose}");
    let mut bodies = Vec::new();
    let mut text = String::from("Please review these files.\n<attachment>");
    for i in 0..8usize {
        // Each body starts at a different place of the corpus and wraps around.
        let mut start = i * source.len() / 8;
        while !source.is_char_boundary(start) {
            start += 1;
        }
        let rotated = format!("{}{}", &source[start..], &source[..start]);
        let body = prefix(&rotated, per).to_string();
        let header = build_header(&HeaderArgs {
            attachment_id: 1000 + i as i64,
            filename: format!("docs/file-{i}.txt"),
            mime_type: Some("text/plain".into()),
            file_size: body.len() as i64,
            sandbox_path: Some(format!("/home/user/attachments/file-{i}.txt")),
            is_image: false,
        });
        text.push_str(&header);
        text.push('\n');
        text.push_str(&body);
        text.push('\n');
        bodies.push(body);
    }
    text.push_str("</attachment>");
    (
        vec![Message::system("You are terse."), Message::user(text)],
        bodies,
    )
}
