//! Block composition: `attachment::compose_block` and `compose_message`, the
//! backend's `<attachment>` block (SPEC §6, "block composition"). Input: JSON
//! `{"attachments": [...], "inline_attachment_content"?, "inject_max_chars"?,
//! "message"?}`, the fields of the `attachment_block` conformance kind.
//!
//! Properties: no input panics; the block, its image URLs and its message
//! blocks are exactly SPEC §6's, transcribed here independently: numbers
//! 1, 2, … in order, each used up even by an attachment that adds nothing;
//! the cap counted in code points (whole, a prefix when the cap is at most
//! the marker's 81, else head + marker + tail with exactly the cap's code
//! points); the parse note only when parsing truncated the text and the cap
//! did not cut it.

use crate::input;
use ctxguard_core::attachment::{
    build_header, compose_block, compose_message, Attachment, ComposeOptions, ComposedMessage,
    HeaderArgs, InputBlock, Inlined, CLOSE_TAG, DEFAULT_INJECT_MAX_CHARS, INLINE_CUT_MARKER,
    OPEN_TAG, PARSING_TRUNCATED_NOTE,
};
use serde_json::Value;

/// Runs one input.
pub fn check(data: &[u8]) {
    let Some(value) = input::text(data).and_then(|t| serde_json::from_str::<Value>(t).ok()) else {
        return;
    };
    let Some(attachments) = value
        .get("attachments")
        .and_then(|a| serde_json::from_value::<Vec<Attachment>>(a.clone()).ok())
    else {
        return;
    };
    let options = ComposeOptions {
        inline_attachment_content: value
            .get("inline_attachment_content")
            .and_then(Value::as_bool)
            .unwrap_or(true),
        inject_max_chars: value
            .get("inject_max_chars")
            .and_then(Value::as_i64)
            .unwrap_or(DEFAULT_INJECT_MAX_CHARS),
    };
    let message = value.get("message").and_then(Value::as_str).unwrap_or("MSG");

    let block = compose_block(&attachments, options);
    let expected = Expected::of(&attachments, options);
    assert_eq!(block.text, expected.text, "the block is not SPEC §6's");
    assert_eq!(block.image_urls, expected.image_urls);
    assert_eq!(block.parts.len(), attachments.len());
    for (i, (part, attachment)) in block.parts.iter().zip(&attachments).enumerate() {
        assert_eq!(part.number, i + 1, "numbers are 1, 2, … in order");
        assert_eq!(part.attachment_id, attachment.attachment_id);
        assert_eq!(part.inlined, expected.inlined[i]);
        if part.inlined == Inlined::Text {
            let source = attachment.extracted_text.as_deref().unwrap_or_default();
            assert_eq!(part.source_chars, source.chars().count());
            assert_eq!(part.capped, part.injected_chars < part.source_chars);
            if let Ok(cap @ 1..) = usize::try_from(options.inject_max_chars) {
                assert!(part.injected_chars <= cap, "the cap keeps at most {cap} code points");
            }
        }
    }

    let composed = compose_message(&attachments, message, options);
    match (&expected.text, composed) {
        (None, ComposedMessage::Unchanged(m)) => assert_eq!(m, message),
        (Some(text), ComposedMessage::Blocks(blocks)) => {
            let mut want = vec![InputBlock::InputText { text: text.clone() }];
            want.extend(
                expected
                    .image_urls
                    .iter()
                    .map(|u| InputBlock::InputImage { image_url: u.clone() }),
            );
            want.push(InputBlock::InputText {
                text: message.to_string(),
            });
            assert_eq!(blocks, want);
        }
        (text, composed) => panic!("block {text:?} but message {composed:?}"),
    }
}

/// SPEC §6's composition, written from the spec.
struct Expected {
    text: Option<String>,
    image_urls: Vec<String>,
    inlined: Vec<Inlined>,
}

impl Expected {
    fn of(attachments: &[Attachment], options: ComposeOptions) -> Self {
        let header = |a: &Attachment, is_image: bool| {
            build_header(&HeaderArgs {
                attachment_id: a.attachment_id,
                filename: a.filename.clone(),
                mime_type: a.mime_type.clone(),
                file_size: a.file_size.unwrap_or(0),
                sandbox_path: a.sandbox_path.clone(),
                is_image,
            })
        };
        let mut documents = String::new();
        let mut image_headers = String::new();
        let mut image_urls = Vec::new();
        let mut inlined = Vec::new();
        for (i, a) in attachments.iter().enumerate() {
            let n = i + 1;
            let text = a.extracted_text.as_deref().unwrap_or_default();
            let data = a.image_base64.as_deref().unwrap_or_default();
            if !options.inline_attachment_content {
                documents += &format!("[Attachment {n}]\n{}\n\n", header(a, a.is_image));
                inlined.push(Inlined::Header);
            } else if a.is_image && !data.is_empty() {
                image_headers += &header(a, true);
                let mime = a.mime_type.as_deref().unwrap_or("None");
                image_urls.push(format!("data:{mime};base64,{data}"));
                inlined.push(Inlined::Image);
            } else if !text.is_empty() {
                let (injected, cut) = cap(text, options.inject_max_chars);
                let note = if a.is_truncated && !cut {
                    PARSING_TRUNCATED_NOTE
                } else {
                    ""
                };
                documents += &format!("[Attachment {n}]\n{}\n{note}{injected}\n\n", header(a, false));
                inlined.push(Inlined::Text);
            } else {
                inlined.push(Inlined::Nothing);
            }
        }
        let added = inlined.iter().any(|i| *i != Inlined::Nothing);
        Expected {
            text: added.then(|| format!("{OPEN_TAG}{documents}{image_headers}{CLOSE_TAG}")),
            image_urls,
            inlined,
        }
    }
}

/// The inline cap over code points: the text and whether it was cut.
fn cap(text: &str, max_chars: i64) -> (String, bool) {
    let chars: Vec<char> = text.chars().collect();
    let marker_chars = INLINE_CUT_MARKER.chars().count();
    assert_eq!(marker_chars, 81, "SPEC §6: the marker is 81 code points");
    let cap = match usize::try_from(max_chars) {
        Ok(c) if c > 0 && chars.len() > c => c,
        _ => return (text.to_string(), false),
    };
    if cap <= marker_chars {
        return (chars[..cap].iter().collect(), true);
    }
    let budget = cap - marker_chars;
    let head = (budget as f64 * 0.6) as usize;
    let tail = budget - head;
    let out: String = chars[..head]
        .iter()
        .chain(INLINE_CUT_MARKER.chars().collect::<Vec<_>>().iter())
        .chain(&chars[chars.len() - tail..])
        .collect();
    assert_eq!(out.chars().count(), cap, "a head/tail cut keeps exactly the cap");
    (out, true)
}
