//! `read_attachment` paging: `read_attachment::read_page` (SPEC §7). Input: a
//! first line `OFFSET LIMIT PAGE_TOKEN_LIMIT` (integers; a missing or
//! unreadable one is 0, 0 and a page limit of 1 to 32 tokens from the line's
//! length; the word `truncated` marks the source truncated, `cl100k` picks
//! that encoding over o200k), then the attachment's text.
//!
//! Properties: no input panics; the page at OFFSET and every page of a read
//! from 0 that follows `next_offset` are well-formed (`chars_read` counts the
//! content, `next_offset` is offset + chars_read while text is left and null
//! at the end, `has_more` and the warning agree with it); each page's
//! content is exactly the text at its offset, but for a last character split
//! at a token boundary, which reads as one U+FFFD (the reference's lossy page
//! edge, README "Security notes"); and so the pages concatenate back to the
//! text with exactly those characters replaced by U+FFFD.

use crate::input;
use crate::oracle;
use ctxguard_core::encoding::Encoding;
use ctxguard_core::read_attachment::{read_page, Document, ReadResult};
use ctxguard_core::tokens::TokenCounter;

/// Runs one input.
pub fn check(data: &[u8]) {
    let Some(all) = input::text(data) else {
        return;
    };
    let (params, text) = input::params_and_text(all);
    let ints: Vec<Option<i64>> = input::ints(params).collect();
    let int = |i: usize| ints.get(i).copied().flatten();
    let offset = int(0).unwrap_or(0);
    let limit = int(1).unwrap_or(0);
    let page_tokens = int(2).unwrap_or(1 + params.len() as i64 % 32);
    let encoding = if params.contains("cl100k") {
        Encoding::Cl100kBase
    } else {
        Encoding::O200kBase
    };
    let counter = oracle::counter(encoding);
    let doc = Document {
        text: text.to_string(),
        name: "a.txt".into(),
        mime_type: "text/plain".into(),
        source_truncated: params.contains("truncated"),
    };
    let chars: Vec<char> = text.chars().collect();

    assert!(matches!(
        read_page(None, 1, offset, limit, page_tokens, &counter),
        ReadResult::Error { .. }
    ));
    if chars.is_empty() {
        assert!(matches!(
            read_page(Some(&doc), 1, offset, limit, page_tokens, &counter),
            ReadResult::Empty { .. }
        ));
        return;
    }
    page(&doc, &chars, offset, limit, page_tokens, &counter);

    let mut read = String::new();
    let mut expected = String::new();
    let mut at = 0;
    loop {
        let (next, content, lossy) = page(&doc, &chars, at, limit, page_tokens, &counter);
        read.push_str(&content);
        let end = next.unwrap_or(chars.len() as i64) as usize;
        expected.extend(&chars[at as usize..end]);
        if lossy {
            expected.pop();
            expected.push('\u{fffd}');
        }
        match next {
            Some(n) => {
                assert!(n > at, "a read from {at} does not advance");
                at = n;
            }
            None => break,
        }
    }
    assert_eq!(
        read, expected,
        "the pages are not the text (with split characters as U+FFFD)"
    );
}

/// Reads and checks the page at `offset`: its `next_offset`, its content,
/// and whether it ends with a character split at a token boundary.
fn page(
    doc: &Document,
    chars: &[char],
    offset: i64,
    limit: i64,
    page_tokens: i64,
    counter: &TokenCounter,
) -> (Option<i64>, String, bool) {
    let result = read_page(Some(doc), 7, offset, limit, page_tokens, counter);
    let ReadResult::Success {
        attachment_id,
        offset: at,
        chars_read,
        total_chars,
        next_offset,
        has_more,
        source_truncated,
        content,
        warning,
        ..
    } = result
    else {
        panic!("a text with characters reads as a page, not {result:?}")
    };
    assert_eq!(attachment_id, 7);
    assert_eq!(at, offset.max(0), "negative offsets read from 0");
    assert_eq!(total_chars, chars.len() as i64);
    assert_eq!(chars_read, content.chars().count() as i64);
    let end = at.saturating_add(chars_read);
    assert_eq!(next_offset, (end < total_chars).then_some(end));
    assert_eq!(has_more, next_offset.is_some());
    assert_eq!(source_truncated, doc.source_truncated);
    assert_eq!(warning.is_some(), source_truncated && !has_more);
    if at >= total_chars {
        assert_eq!(chars_read, 0, "nothing is read past the end");
        return (next_offset, content, false);
    }
    let start = at as usize;
    let end = (end as usize).min(chars.len());
    let exact: String = chars[start..end].iter().collect();
    if content == exact {
        return (next_offset, content, false);
    }
    let kept = content
        .strip_suffix('\u{fffd}')
        .unwrap_or_else(|| panic!("page at {at}: {content:?} is not the text {exact:?}"));
    let whole: String = chars[start..end - 1].iter().collect();
    assert_eq!(
        kept, whole,
        "page at {at}: only a last, split character may differ"
    );
    assert!(
        chars[end - 1].len_utf8() > 1,
        "a split character has more than one byte"
    );
    (next_offset, content, true)
}
