//! How much of a string from an event the toolbar lays out: at most
//! [`MAX_SHOWN_CHARS`] characters and an ellipsis. The whole text stays in the
//! state (and in the element's `title`); laying out a 10 MB `failure_reason`
//! would block the page for seconds.

use std::borrow::Cow;

/// Characters of an event string shown in the toolbar.
pub const MAX_SHOWN_CHARS: usize = 1_000;

/// `text` cut to [`MAX_SHOWN_CHARS`] characters plus `…`, or whole when it is that short.
/// O(min(len, MAX_SHOWN_CHARS)).
pub fn shown(text: &str) -> Cow<'_, str> {
    match text.char_indices().nth(MAX_SHOWN_CHARS) {
        Some((end, _)) => Cow::Owned(format!("{}…", &text[..end])),
        None => Cow::Borrowed(text),
    }
}

/// At most 40 characters of `text`, quoted: for a refusal's reason, which never carries a
/// sender's megabytes.
pub fn quoted(text: &str) -> String {
    match text.char_indices().nth(40) {
        Some((end, _)) => format!("\"{}…\"", &text[..end]),
        None => format!("\"{text}\""),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cuts_long_text_on_a_character_boundary() {
        assert_eq!(shown("short"), "short");
        let exact = "é".repeat(MAX_SHOWN_CHARS);
        assert_eq!(shown(&exact), exact);
        let long = "界".repeat(10 * MAX_SHOWN_CHARS);
        let cut = shown(&long);
        assert_eq!(cut.chars().count(), MAX_SHOWN_CHARS + 1);
        assert!(cut.ends_with("界…"));
        assert_eq!(quoted("id"), "\"id\"");
        assert_eq!(quoted(&"x".repeat(99)), format!("\"{}…\"", "x".repeat(40)));
    }
}
