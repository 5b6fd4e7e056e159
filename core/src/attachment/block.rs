//! The `<attachment>` block: its tags, how Wegent's backend composes it from
//! a user message's attachments before chat_shell's preview runs (SPEC §6,
//! "block composition"), and how blocks are found again in message text.
//!
//! Every producer of blocks (the CLI's `preview`, the toolbar's panel, the
//! demo, the benches) composes them here, and every reader (the preview pass,
//! the ledger's attachment accounting) finds them here, so the numbers shown
//! before an upload are the numbers the model will see.

use super::header::{build_header, HeaderArgs};
use serde::{Deserialize, Serialize};

/// Opening tag of an attachment block.
pub const OPEN_TAG: &str = "<attachment>";
/// Closing tag of an attachment block.
pub const CLOSE_TAG: &str = "</attachment>";
/// The backend's inline cap, in code points of extracted text per attachment.
pub const DEFAULT_INJECT_MAX_CHARS: i64 = 32_000;
/// Joins the head and tail of an inline text cut by the cap (81 code points).
pub const INLINE_CUT_MARKER: &str =
    "\n\n\u{2026}[inline preview truncated; the full file is referenced in the header above]\u{2026}\n\n";
/// The line put before a text that parsing truncated (when the cap did not cut it).
pub const PARSING_TRUNCATED_NOTE: &str = "(Note: parsing truncated this file; only partial content is shown below. Read the full file at the path above for the complete content.)\n";

/// One attachment of a user message, with the fields the backend composes from.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Attachment {
    /// Attachment id, as `read_attachment` takes it.
    pub attachment_id: i64,
    /// The uploaded file name (any path; only its last part is shown).
    #[serde(default)]
    pub filename: String,
    /// MIME type, when known.
    #[serde(default)]
    pub mime_type: Option<String>,
    /// File size in bytes (`None` counts as 0).
    #[serde(default)]
    pub file_size: Option<i64>,
    /// The text the backend's parser extracted (`None` or empty: nothing to inline).
    #[serde(default)]
    pub extracted_text: Option<String>,
    /// Whether parsing stopped before the end of the file.
    #[serde(default)]
    pub is_truncated: bool,
    /// Whether the attachment is an image.
    #[serde(default)]
    pub is_image: bool,
    /// The image bytes in base64, for images sent to the model as image blocks.
    #[serde(default)]
    pub image_base64: Option<String>,
    /// Where the file sits in the agent's sandbox, when it was copied there.
    #[serde(default)]
    pub sandbox_path: Option<String>,
}

impl Attachment {
    fn header(&self, as_image: bool) -> String {
        build_header(&HeaderArgs {
            attachment_id: self.attachment_id,
            filename: self.filename.clone(),
            mime_type: self.mime_type.clone(),
            file_size: self.file_size.unwrap_or(0),
            sandbox_path: self.sandbox_path.clone(),
            is_image: as_image,
        })
    }

    fn image_data(&self) -> Option<&str> {
        self.image_base64
            .as_deref()
            .filter(|data| self.is_image && !data.is_empty())
    }
}

/// How the backend composes a message's block.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ComposeOptions {
    /// Inline extracted text and images (the default); `false`: headers only.
    pub inline_attachment_content: bool,
    /// Cap on each inlined text, in code points; 0 or less: no cap.
    pub inject_max_chars: i64,
}

impl Default for ComposeOptions {
    fn default() -> Self {
        ComposeOptions {
            inline_attachment_content: true,
            inject_max_chars: DEFAULT_INJECT_MAX_CHARS,
        }
    }
}

/// One block of the model input the backend sends for a user message.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum InputBlock {
    /// `{"type": "input_text", "text"}`.
    InputText {
        /// The text.
        text: String,
    },
    /// `{"type": "input_image", "image_url"}` with a `data:` URL.
    InputImage {
        /// `data:MIME;base64,DATA`.
        image_url: String,
    },
}

/// The user message as the backend hands it on: unchanged, or as blocks.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum ComposedMessage {
    /// No attachment added anything: the message string itself.
    Unchanged(String),
    /// The `<attachment>` text block, the image blocks, then the message.
    Blocks(Vec<InputBlock>),
}

/// What composition did with one attachment, for UIs and the CLI.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ComposedPart {
    /// The `[Attachment N]` number (1-based, in message order; used up even when nothing is added).
    pub number: usize,
    /// The attachment's id.
    pub attachment_id: i64,
    /// How it entered the block.
    pub inlined: Inlined,
    /// Code points of extracted text the block carries for it (after the cap).
    pub injected_chars: usize,
    /// Code points of the extracted text before the cap.
    pub source_chars: usize,
    /// Whether the inline cap cut the text.
    pub capped: bool,
}

/// How one attachment entered the block.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Inlined {
    /// Its header and extracted text.
    Text,
    /// Its image header, and an image block.
    Image,
    /// Its header alone (metadata-only mode).
    Header,
    /// Nothing: no text and no image data.
    Nothing,
}

/// The `<attachment>` block of a message's attachments, before the message is attached to it.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ComposedBlock {
    /// The whole `<attachment>…</attachment>` text; `None` when nothing was added.
    pub text: Option<String>,
    /// `data:` URLs of the image blocks, in order.
    pub image_urls: Vec<String>,
    /// One entry per attachment, in order.
    pub parts: Vec<ComposedPart>,
}

impl ComposedBlock {
    /// The message the backend sends: `message` alone when nothing was added,
    /// else the block text, the image blocks and `message` as blocks.
    pub fn into_message(self, message: &str) -> ComposedMessage {
        let Some(text) = self.text else {
            return ComposedMessage::Unchanged(message.to_string());
        };
        let mut blocks = Vec::with_capacity(self.image_urls.len() + 2);
        blocks.push(InputBlock::InputText { text });
        blocks.extend(
            self.image_urls
                .into_iter()
                .map(|image_url| InputBlock::InputImage { image_url }),
        );
        blocks.push(InputBlock::InputText {
            text: message.to_string(),
        });
        ComposedMessage::Blocks(blocks)
    }
}

/// Composes the block of `attachments` exactly as the reference backend does. O(total text).
pub fn compose_block(attachments: &[Attachment], options: ComposeOptions) -> ComposedBlock {
    let mut documents = String::new();
    let mut image_headers = String::new();
    let mut image_urls = Vec::new();
    let mut parts = Vec::with_capacity(attachments.len());
    for (i, attachment) in attachments.iter().enumerate() {
        let number = i + 1;
        let mut part = ComposedPart {
            number,
            attachment_id: attachment.attachment_id,
            inlined: Inlined::Nothing,
            injected_chars: 0,
            source_chars: 0,
            capped: false,
        };
        if !options.inline_attachment_content {
            documents.push_str(&format!("[Attachment {number}]\n"));
            documents.push_str(&attachment.header(attachment.is_image));
            documents.push_str("\n\n");
            part.inlined = Inlined::Header;
        } else if let Some(data) = attachment.image_data() {
            image_headers.push_str(&attachment.header(true));
            // Python's f-string prints a missing MIME type as `None`.
            let mime = attachment.mime_type.as_deref().unwrap_or("None");
            image_urls.push(format!("data:{mime};base64,{data}"));
            part.inlined = Inlined::Image;
        } else if let Some(text) = attachment
            .extracted_text
            .as_deref()
            .filter(|t| !t.is_empty())
        {
            let injected = cap_inline_text(text, options.inject_max_chars);
            documents.push_str(&format!("[Attachment {number}]\n"));
            documents.push_str(&attachment.header(false));
            documents.push('\n');
            if attachment.is_truncated && !injected.capped {
                documents.push_str(PARSING_TRUNCATED_NOTE);
            }
            documents.push_str(&injected.text);
            documents.push_str("\n\n");
            part.inlined = Inlined::Text;
            part.source_chars = injected.source_chars;
            part.injected_chars = injected.kept_chars;
            part.capped = injected.capped;
        }
        parts.push(part);
    }
    let added = parts.iter().any(|p| p.inlined != Inlined::Nothing);
    ComposedBlock {
        text: added.then(|| format!("{OPEN_TAG}{documents}{image_headers}{CLOSE_TAG}")),
        image_urls,
        parts,
    }
}

/// [`compose_block`], then the message as the backend sends it.
pub fn compose_message(
    attachments: &[Attachment],
    message: &str,
    options: ComposeOptions,
) -> ComposedMessage {
    compose_block(attachments, options).into_message(message)
}

/// An extracted text under the inline cap.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InlineText {
    /// The text to inline (whole, a prefix, or head + marker + tail).
    pub text: String,
    /// Code points of the source text.
    pub source_chars: usize,
    /// Code points of the source text that were kept.
    pub kept_chars: usize,
    /// Whether the cap cut it.
    pub capped: bool,
}

/// The backend's head/tail cap of one text at `max_chars` code points (≤ 0: no cap). O(text).
pub fn cap_inline_text(text: &str, max_chars: i64) -> InlineText {
    let source_chars = text.chars().count();
    let whole = |text: &str| InlineText {
        text: text.to_string(),
        source_chars,
        kept_chars: source_chars,
        capped: false,
    };
    let Ok(cap) = usize::try_from(max_chars) else {
        return whole(text);
    };
    if cap == 0 || source_chars <= cap {
        return whole(text);
    }
    let marker_chars = INLINE_CUT_MARKER.chars().count();
    if cap <= marker_chars {
        return InlineText {
            text: text.chars().take(cap).collect(),
            source_chars,
            kept_chars: cap,
            capped: true,
        };
    }
    let budget = cap - marker_chars;
    let head = (budget as f64 * 0.6) as usize;
    let tail = budget - head;
    let head_end = char_boundary(text, head);
    let tail_start = char_boundary(text, source_chars - tail);
    InlineText {
        text: format!(
            "{}{INLINE_CUT_MARKER}{}",
            &text[..head_end],
            &text[tail_start..]
        ),
        source_chars,
        kept_chars: head + tail,
        capped: true,
    }
}

/// Byte offset of the `chars`-th code point of `text` (its length past the end).
fn char_boundary(text: &str, chars: usize) -> usize {
    text.char_indices()
        .nth(chars)
        .map_or(text.len(), |(i, _)| i)
}

/// Where one block sits in a text: the byte ranges of the whole block and of its body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BlockSpan {
    /// From the opening tag to the end of the closing tag.
    pub outer: std::ops::Range<usize>,
    /// Between the tags.
    pub body: std::ops::Range<usize>,
}

/// Every complete `<attachment>…</attachment>` block of `text`, left to right,
/// each body ending at the first closing tag after its opening tag. O(text).
pub fn find_blocks(text: &str) -> impl Iterator<Item = BlockSpan> + '_ {
    let mut from = 0;
    std::iter::from_fn(move || {
        // Byte searches: a match of UTF-8 bytes in UTF-8 bytes starts on a char boundary.
        let find = |from: usize, tag: &str| {
            memchr::memmem::find(text.as_bytes().get(from..)?, tag.as_bytes()).map(|i| from + i)
        };
        let start = find(from, OPEN_TAG)?;
        let body_start = start + OPEN_TAG.len();
        let body_end = find(body_start, CLOSE_TAG)?;
        let end = body_end + CLOSE_TAG.len();
        from = end;
        Some(BlockSpan {
            outer: start..end,
            body: body_start..body_end,
        })
    })
}

/// Whether `text` holds an opening tag (a block the preview pass looks at, complete or not).
pub fn has_block_marker(text: &str) -> bool {
    text.contains(OPEN_TAG)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn doc(id: i64, text: Option<&str>) -> Attachment {
        Attachment {
            attachment_id: id,
            filename: format!("f{id}.txt"),
            mime_type: Some("text/plain".into()),
            file_size: Some(10),
            extracted_text: text.map(str::to_string),
            ..Attachment::default()
        }
    }

    #[test]
    fn numbers_are_used_up_by_attachments_that_add_nothing() {
        let block = compose_block(
            &[doc(7, None), doc(8, Some("hi"))],
            ComposeOptions::default(),
        );
        let text = block.text.expect("one attachment added text");
        assert!(text.starts_with("<attachment>[Attachment 2]\n[Attachment: f8.txt | ID: 8 "));
        assert!(text.ends_with("]\nhi\n\n</attachment>"));
        assert_eq!(block.parts[0].inlined, Inlined::Nothing);
    }

    #[test]
    fn nothing_added_leaves_the_message_alone() {
        let out = compose_message(&[doc(1, Some(""))], "MSG", ComposeOptions::default());
        assert_eq!(out, ComposedMessage::Unchanged("MSG".into()));
        assert_eq!(
            serde_json::to_value(&out).expect("serialises"),
            serde_json::json!("MSG")
        );
    }

    #[test]
    fn the_cap_counts_code_points_and_drops_the_note() {
        let text = "é".repeat(200);
        let capped = cap_inline_text(&text, 100);
        assert!(capped.capped);
        assert_eq!(capped.text.chars().count(), 100);
        assert_eq!(capped.kept_chars, 19);
        assert!(capped.text.starts_with(&"é".repeat(11)));
        assert_eq!(cap_inline_text(&text, 81).text, "é".repeat(81));
        assert_eq!(cap_inline_text(&text, 0).text, text);
        assert_eq!(cap_inline_text(&text, 200).text, text);
        let mut truncated = doc(1, Some(&text));
        truncated.is_truncated = true;
        let options = ComposeOptions {
            inject_max_chars: 100,
            ..ComposeOptions::default()
        };
        let block = compose_block(&[truncated.clone()], options);
        assert!(!block.text.expect("added").contains("(Note: parsing"));
        let block = compose_block(&[truncated], ComposeOptions::default());
        assert!(block.text.expect("added").contains(PARSING_TRUNCATED_NOTE));
    }

    #[test]
    fn blocks_are_found_left_to_right() {
        let text = "a<attachment>x</attachment>b<attachment>y</attachment><attachment>z";
        let bodies: Vec<&str> = find_blocks(text).map(|b| &text[b.body]).collect();
        assert_eq!(bodies, ["x", "y"]);
        assert!(has_block_marker(text));
    }
}
