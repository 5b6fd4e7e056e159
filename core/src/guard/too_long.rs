//! Classifying a failed summariser call (kind `context_too_long`): only a
//! context-length overflow is worth a shorter retry; anything else, a bare
//! 400 included, ends the compaction.

/// Lower-cased markers of a context-too-long error message (English and Chinese provider phrasings).
pub const CONTEXT_TOO_LONG_MARKERS: &[&str] = &[
    "context_length_exceeded",
    "context length exceeded",
    "prompt is too long",
    "input is too long",
    "maximum context length",
    "request too large",
    "maximum number of tokens",
    "token limit exceeded",
    "输入长度超过",
    "输入过长",
    "请求体过大",
    "token 数量超过",
    "上下文长度",
];

/// How the summariser call failed, as the host saw it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct SummaryError {
    /// The error's text (Python's `str(error)`).
    pub message: String,
    /// The error object's own `message` attribute, when it has one apart from its text.
    pub detail: Option<String>,
    /// The HTTP status, when there was one.
    pub status: Option<u16>,
}

impl SummaryError {
    /// An error with a message and no status.
    pub fn new(message: impl Into<String>) -> Self {
        SummaryError {
            message: message.into(),
            detail: None,
            status: None,
        }
    }

    /// The same error with an HTTP status.
    pub fn with_status(mut self, status: u16) -> Self {
        self.status = Some(status);
        self
    }

    /// The same error with the error object's own `message` attribute.
    pub fn with_detail(mut self, detail: impl Into<String>) -> Self {
        self.detail = Some(detail.into());
        self
    }

    /// Whether it is a context-too-long error ([`is_context_too_long`]).
    pub fn is_context_too_long(&self) -> bool {
        is_context_too_long(self)
    }
}

/// Whether a failed call was a context-length overflow (SPEC §8 d): status
/// 413, or its text (with its own non-empty `message` attribute appended
/// after a space), lower-cased as Python's `str.lower` does, containing one
/// of [`CONTEXT_TOO_LONG_MARKERS`]. A bare 400 is not one.
pub fn is_context_too_long(error: &SummaryError) -> bool {
    if error.status == Some(413) {
        return true;
    }
    let parts: Vec<&str> = [Some(error.message.as_str()), error.detail.as_deref()]
        .into_iter()
        .flatten()
        .filter(|part| !part.is_empty())
        .collect();
    let text = parts.join(" ").to_lowercase();
    CONTEXT_TOO_LONG_MARKERS.iter().any(|m| text.contains(m))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn too_long(message: &str, status: Option<u16>) -> bool {
        let mut error = SummaryError::new(message);
        error.status = status;
        is_context_too_long(&error)
    }

    #[test]
    fn status_413_or_a_marker_in_any_case() {
        assert!(too_long("", Some(413)));
        assert!(too_long("Error: PROMPT IS TOO LONG", Some(400)));
        assert!(too_long("模型调用失败：输入过长", None));
        assert!(
            !too_long("invalid parameter", Some(400)),
            "a bare 400 is not an overflow"
        );
        assert!(
            !too_long("Error code: 413", None),
            "the status is a number, not text"
        );
        assert!(!too_long("prompt too long", None));
    }

    /// Python's `str.lower` is Unicode full lower-casing: `İ` becomes `i̇`, which no marker matches.
    #[test]
    fn lower_casing_is_unicode_full_lower_casing() {
        assert!(!too_long("İnput is too long", None));
        assert!(too_long("TOKEN LIMIT EXCEEDED", None));
        assert!(
            !too_long("ＴＯＫＥＮ 数量超过", None),
            "full-width letters stay full-width"
        );
    }

    #[test]
    fn the_error_objects_own_message_is_read_too() {
        let error = SummaryError::new("BadRequest").with_detail("maximum context length is 8192");
        assert!(is_context_too_long(&error));
        let split = SummaryError::new("prompt is").with_detail("too long");
        assert!(
            split.is_context_too_long(),
            "joined with a space, as the reference joins them"
        );
    }
}
