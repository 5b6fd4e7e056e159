//! The attachment-preview pass: every `<attachment>…</attachment>` block in a
//! message is bounded to one shared token budget, water-filled over its
//! attachments, with every header kept (and annotated) so each attachment id
//! stays discoverable, and a hint on each cut body saying where the rest is.

use super::allocate::allocate_budget;
use super::block::{find_blocks, has_block_marker};
use super::header::is_text_readable_mime;
use super::parse;
use crate::cut::{truncate_body, truncate_measured, TruncationPolicy};
use crate::message::{Content, ContentPart, Message};
use crate::tokens::{Measured, TokenCounter, Tokens};
use crate::traces::{ProtectionTrace, TraceBuilder};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Upper bound of the per-block budget.
pub const DEFAULT_LIMIT_CAP: Tokens = 15_000;

/// The default per-block budget for a model: min(window ÷ 2, 15000).
pub fn default_limit(context_window: Tokens) -> Tokens {
    context_window.div_euclid(2).min(DEFAULT_LIMIT_CAP)
}

/// What the preview did to one attachment, for UIs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SegmentReport {
    /// Index of the message holding the block.
    pub message_index: usize,
    /// Attachment id from the header (empty for a block without headers).
    pub attachment_id: String,
    /// File name from the header.
    pub name: String,
    /// MIME type from the header, when it has one.
    pub mime_type: Option<String>,
    /// Characters of the body.
    pub chars: usize,
    /// Tokens of the body.
    pub tokens: Tokens,
    /// Tokens the body was allowed.
    pub allocation: Tokens,
    /// Whether the body was cut.
    pub truncated: bool,
}

/// The result of a preview pass.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PreviewOutcome {
    /// The messages with every block bounded.
    pub messages: Vec<Message>,
    /// The `context_protection.attachment_preview` record (none when no block exists).
    pub traces: Vec<ProtectionTrace>,
    /// One entry per attachment segment seen.
    pub segments: Vec<SegmentReport>,
}

#[derive(Default)]
struct Tally {
    saw_block: bool,
    truncated_segments: usize,
    before_tokens: Tokens,
    after_tokens: Tokens,
    segments: Vec<SegmentReport>,
}

/// Runs the preview over `messages` with `limit` tokens per block; `limit` ≤ 0 turns it off.
pub fn preview_messages(
    messages: &[Message],
    counter: &TokenCounter,
    limit: Tokens,
) -> PreviewOutcome {
    if limit <= 0 {
        return PreviewOutcome {
            messages: messages.to_vec(),
            traces: Vec::new(),
            segments: Vec::new(),
        };
    }
    let mut tally = Tally::default();
    let out: Vec<Message> = messages
        .iter()
        .enumerate()
        .map(|(index, message)| {
            // The new content is made first, so that a long text is not copied only to be replaced.
            let content = match &message.content {
                Some(Content::Text(text)) => {
                    preview_text(text, limit, counter, index, &mut tally).map(Content::Text)
                }
                Some(Content::Parts(parts)) => {
                    let mut changed = false;
                    let parts = parts
                        .iter()
                        .map(|part| match part {
                            ContentPart::Text { text, rest } => {
                                match preview_text(text, limit, counter, index, &mut tally) {
                                    Some(new) => {
                                        changed = true;
                                        ContentPart::Text {
                                            text: new,
                                            rest: rest.clone(),
                                        }
                                    }
                                    None => part.clone(),
                                }
                            }
                            _ => part.clone(),
                        })
                        .collect();
                    changed.then_some(Content::Parts(parts))
                }
                _ => None,
            };
            match content {
                Some(content) => with_content(message, content),
                None => message.clone(),
            }
        })
        .collect();
    let traces = if tally.saw_block {
        let applied = tally.truncated_segments > 0;
        let (before, after) = if applied {
            (Some(tally.before_tokens), Some(tally.after_tokens))
        } else {
            (None, None)
        };
        vec![TraceBuilder::new(
            "attachment_preview",
            if applied { "applied" } else { "noop" },
        )
        .tokens(before, after)
        .attr(
            "attachment_segments_truncated",
            Some(Value::from(tally.truncated_segments)),
        )
        .build()]
    } else {
        Vec::new()
    };
    PreviewOutcome {
        messages: out,
        traces,
        segments: tally.segments,
    }
}

/// A copy of `message` with `content` instead of its own (which is not copied).
fn with_content(message: &Message, content: Content) -> Message {
    let Message {
        role,
        content: _,
        name,
        tool_calls,
        tool_call_id,
        additional_kwargs,
        extra,
    } = message;
    Message {
        role: role.clone(),
        content: Some(content),
        name: name.clone(),
        tool_calls: tool_calls.clone(),
        tool_call_id: tool_call_id.clone(),
        additional_kwargs: additional_kwargs.clone(),
        extra: extra.clone(),
    }
}

/// Rewrites every block of `text`; `None` when the text holds no block marker.
fn preview_text(
    text: &str,
    limit: Tokens,
    counter: &TokenCounter,
    index: usize,
    tally: &mut Tally,
) -> Option<String> {
    if !has_block_marker(text) {
        return None;
    }
    tally.saw_block = true;
    let mut out = String::with_capacity(text.len());
    let mut copied = 0;
    for block in find_blocks(text) {
        out.push_str(&text[copied..block.body.start]);
        out.push_str(&preview_block(
            &text[block.body.clone()],
            limit,
            counter,
            index,
            tally,
        ));
        copied = block.body.end;
    }
    out.push_str(&text[copied..]);
    Some(out)
}

struct Segment<'a> {
    id: &'a str,
    header: &'a str,
    body: &'a str,
}

/// Bounds one block body to `limit` tokens.
fn preview_block(
    body: &str,
    limit: Tokens,
    counter: &TokenCounter,
    index: usize,
    tally: &mut Tally,
) -> String {
    let matches = parse::segment_headers(body);
    if matches.is_empty() {
        return preview_headerless(body, limit, counter, index, tally);
    }
    let preamble = &body[..matches[0].0];
    let segments: Vec<Segment> = matches
        .iter()
        .enumerate()
        .map(|(i, &(start, id))| {
            let end = matches.get(i + 1).map_or(body.len(), |m| m.0);
            let seg = &body[start..end];
            let (header, seg_body) = seg.split_once('\n').unwrap_or((seg, ""));
            Segment {
                id,
                header,
                body: seg_body,
            }
        })
        .collect();
    let id_line = if segments.len() > 1 {
        let ids: Vec<&str> = segments.iter().map(|s| s.id).collect();
        format!("[Attachment IDs in this message: {}]\n", ids.join(", "))
    } else {
        String::new()
    };
    let reserved = counter.count_text(preamble)
        + counter.count_text(&id_line)
        + segments
            .iter()
            .map(|s| counter.count_text(s.header))
            .sum::<Tokens>();
    let body_budget = (limit - reserved).max(0);
    // Each body is counted once, without collecting its tokens; a cut body
    // then encodes only the head and tail it keeps (see `truncate_measured`).
    let measured: Vec<Measured> = segments.iter().map(|s| counter.measure(s.body)).collect();
    let sizes: Vec<Tokens> = measured.iter().map(Measured::tokens).collect();
    let allocations = allocate_budget(&sizes, body_budget);

    let mut out = String::with_capacity(
        body.len().min(
            usize::try_from(limit)
                .unwrap_or(usize::MAX)
                .saturating_mul(8),
        ),
    );
    out.push_str(preamble);
    out.push_str(&id_line);
    for (((seg, &size), &alloc), measured) in
        segments.iter().zip(&sizes).zip(&allocations).zip(&measured)
    {
        let chars = seg.body.chars().count();
        let report = |truncated| SegmentReport {
            message_index: index,
            attachment_id: seg.id.to_string(),
            name: header_name(seg.header),
            mime_type: header_mime(seg.header),
            chars,
            tokens: size,
            allocation: alloc,
            truncated,
        };
        if seg.body.is_empty() {
            out.push_str(seg.header);
            tally.segments.push(report(false));
            continue;
        }
        let truncated = size > alloc;
        out.push_str(&annotate(seg.header, chars, size, truncated));
        if !truncated {
            out.push('\n');
            out.push_str(seg.body);
        } else {
            if alloc > 0 {
                let cut = truncate_measured(measured, alloc, counter);
                tally.after_tokens += counter.count_text(&cut.rendered);
                out.push('\n');
                out.push_str(&cut.rendered);
            }
            out.push_str(&full_content_hint(seg.header, seg.id));
            tally.truncated_segments += 1;
            tally.before_tokens += size;
        }
        tally.segments.push(report(truncated));
    }
    out
}

/// A block without recognisable headers: head/tail cut of the whole body, only when over the limit.
fn preview_headerless(
    body: &str,
    limit: Tokens,
    counter: &TokenCounter,
    index: usize,
    tally: &mut Tally,
) -> String {
    let cut = truncate_body(body, TruncationPolicy::tokens(limit), counter);
    if cut.truncated {
        tally.truncated_segments += 1;
        tally.before_tokens += cut.total_tokens;
        tally.after_tokens += counter.count_text(&cut.rendered);
    }
    tally.segments.push(SegmentReport {
        message_index: index,
        attachment_id: String::new(),
        name: String::new(),
        mime_type: None,
        chars: body.chars().count(),
        tokens: cut.total_tokens,
        allocation: limit,
        truncated: cut.truncated,
    });
    cut.rendered
}

/// Inserts ` | Chars: C | Tokens: T | Truncated: yes|no` before the header's final `]`.
fn annotate(header: &str, chars: usize, tokens: Tokens, truncated: bool) -> String {
    let note = format!(
        " | Chars: {chars} | Tokens: {tokens} | Truncated: {}",
        if truncated { "yes" } else { "no" }
    );
    match header.rfind(']') {
        Some(pos) => format!("{}{note}{}", &header[..pos], &header[pos..]),
        None => format!("{header}{note}"),
    }
}

fn header_mime(header: &str) -> Option<String> {
    parse::header_type(header).map(|m| m.trim().to_string())
}

fn header_name(header: &str) -> String {
    parse::header_name(header).map_or_else(String::new, str::to_string)
}

/// Where the rest of a cut body is: the sandbox file for text types with a path, else `read_attachment`.
fn full_content_hint(header: &str, id: &str) -> String {
    let readable = header_mime(header).is_some_and(|m| is_text_readable_mime(&m));
    if readable {
        if let Some(path) = parse::header_path(header) {
            return format!(
                "\n[Preview truncated. Full file in the sandbox at {} \u{2014} read or grep/search it with your file tools to get the rest.]",
                path.trim()
            );
        }
    }
    format!(
        "\n[Preview truncated. Get the rest via read_attachment(attachment_id={id}) for the parsed text, or open the sandbox file (path in the header above) with a suitable tool.]"
    )
}
