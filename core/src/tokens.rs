//! Token counting and token-boundary cuts, as the reference's `TokenCounter`
//! does them: ordinary encoding (special-token text is plain text), the chat
//! message overhead rules, and lossy decoding of a cut token run.

use crate::bpe::{out_of_memory, Encoder, Mark};
use crate::encoding::Encoding;
use crate::message::{Content, ContentPart, Message, ToolCall};
use crate::pyjson;
use serde_json::Value;

/// A token id.
pub type Rank = u32;

/// A number of tokens: the one integer type of counts, budgets, limits and
/// metrics across core (signed, as the wire's metrics and the limit arithmetic are).
pub type Tokens = i64;

/// Tokens added per message by the chat format.
pub const TOKENS_PER_MESSAGE: Tokens = 4;
/// Tokens added once per message list (reply priming).
pub const TOKENS_PER_REPLY: Tokens = 3;
/// Tokens an `image_url` part counts as.
pub const IMAGE_TOKENS: Tokens = 170;
/// Tokens a video part counts as.
pub const VIDEO_TOKENS: Tokens = 3600;

/// A text counted once, with the piece boundaries its count passed (one
/// every 4 KiB or so), so that its first and last tokens can be had later by
/// encoding a little of it instead of all of it ([`TokenCounter::head_tail_ids`]).
#[derive(Debug, Clone)]
pub struct Measured<'a> {
    text: &'a str,
    total: usize,
    marks: Vec<Mark>,
}

impl<'a> Measured<'a> {
    /// The text that was measured.
    pub fn text(&self) -> &'a str {
        self.text
    }

    /// The text's tokens, as [`TokenCounter::count_text`] gives them.
    pub fn tokens(&self) -> Tokens {
        tokens_of_len(self.total)
    }

    /// The number of tokens, as a length.
    pub fn len(&self) -> usize {
        self.total
    }

    /// Whether the text has no tokens.
    pub fn is_empty(&self) -> bool {
        self.total == 0
    }
}

/// Counts and cuts text under one model's encoding.
#[derive(Clone, Copy)]
pub struct TokenCounter {
    encoding: Encoding,
    bpe: &'static Encoder,
}

impl std::fmt::Debug for TokenCounter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TokenCounter")
            .field("encoding", &self.encoding)
            .finish()
    }
}

impl TokenCounter {
    /// The counter for `model`'s encoding (built on first use, then shared).
    pub fn for_model(model: &str) -> Self {
        Self::for_encoding(Encoding::for_model(model))
    }

    /// The counter for an explicit encoding.
    pub fn for_encoding(encoding: Encoding) -> Self {
        TokenCounter {
            encoding,
            bpe: encoding.encoder(),
        }
    }

    /// Which encoding this counter uses.
    pub fn encoding(&self) -> Encoding {
        self.encoding
    }

    /// Number of tokens of `text`, ordinary encoding.
    pub fn count_text(&self, text: &str) -> Tokens {
        if text.is_empty() {
            return 0;
        }
        tokens_of_len(self.bpe.count_ordinary(text))
    }

    /// [`Self::count_text`], or [`crate::Error::OutOfMemory`] when the tokenizer's working memory cannot be had.
    pub fn try_count_text(&self, text: &str) -> crate::Result<Tokens> {
        if text.is_empty() {
            return Ok(0);
        }
        self.bpe.try_count_ordinary(text).map(tokens_of_len)
    }

    /// [`Self::try_count_text`] of UTF-8 bytes, or [`crate::Error::InvalidUtf8`] naming the first invalid byte.
    pub fn try_count_bytes(&self, bytes: &[u8]) -> crate::Result<Tokens> {
        let text = std::str::from_utf8(bytes).map_err(|e| crate::Error::InvalidUtf8 {
            offset: e.valid_up_to(),
        })?;
        self.try_count_text(text)
    }

    /// Counts `text` as [`Self::count_text`] does (without collecting its
    /// tokens), remembering where the count passed piece boundaries.
    ///
    /// Aborts, as a `Vec` that cannot grow does, if memory runs out.
    pub fn measure<'a>(&self, text: &'a str) -> Measured<'a> {
        let (total, marks) = self.bpe.count_marked(text).unwrap_or_else(out_of_memory);
        Measured { text, total, marks }
    }

    /// The first `head` and the last `tail` tokens of a measured text (the
    /// tail shortened so the two do not overlap), the same as slices of
    /// [`Self::encode`]'s tokens. Encodes about `head` tokens from the start
    /// and the text from the last boundary before the tail: O(head + tail + 4 KiB).
    ///
    /// Aborts, as a `Vec` that cannot grow does, if memory runs out.
    pub fn head_tail_ids(
        &self,
        measured: &Measured,
        head: usize,
        tail: usize,
    ) -> (Vec<Rank>, Vec<Rank>) {
        let total = measured.total;
        let head = head.min(total);
        let tail = tail.min(total - head);
        let head_ids = if head == 0 {
            Vec::new()
        } else {
            let mut ids = self
                .bpe
                .encode_from(measured.text, 0, head)
                .unwrap_or_else(out_of_memory);
            ids.truncate(head);
            ids
        };
        let tail_ids = if tail == 0 {
            Vec::new()
        } else {
            let first = total - tail;
            let marks = &measured.marks;
            let from = match marks.partition_point(|m| m.tokens <= first) {
                0 => Mark { byte: 0, tokens: 0 },
                i => marks[i - 1],
            };
            let mut ids = self
                .bpe
                .encode_from(measured.text, from.byte, usize::MAX)
                .unwrap_or_else(out_of_memory);
            debug_assert_eq!(from.tokens + ids.len(), total);
            ids.drain(..first - from.tokens);
            ids
        };
        (head_ids, tail_ids)
    }

    /// The tokens of `text`, ordinary encoding.
    pub fn encode(&self, text: &str) -> Vec<Rank> {
        self.bpe.encode_ordinary(text)
    }

    /// Decodes tokens, replacing split UTF-8 sequences with U+FFFD as Python's `errors="replace"` does.
    pub fn decode_lossy(&self, tokens: &[Rank]) -> String {
        String::from_utf8_lossy(&self.bpe.decode_bytes(tokens)).into_owned()
    }

    /// Tokens of one message without the list's reply priming.
    pub fn count_message(&self, message: &Message) -> Tokens {
        let mut total = TOKENS_PER_MESSAGE;
        if !message.role.is_empty() {
            total += self.count_text(&message.role);
        }
        total += match &message.content {
            Some(Content::Text(text)) => self.count_text(text),
            Some(Content::Parts(parts)) => parts.iter().map(|p| self.count_part(p)).sum(),
            Some(Content::Other(_)) | None => 0,
        };
        if let Some(name) = message.name.as_deref().filter(|n| !n.is_empty()) {
            total += self.count_text(name) + 1;
        }
        total + self.count_tool_calls(message)
    }

    /// Tokens of a message list: every message plus the reply priming once (`[]` counts 3).
    pub fn count_messages(&self, messages: &[Message]) -> Tokens {
        messages
            .iter()
            .map(|m| self.count_message(m))
            .sum::<Tokens>()
            + TOKENS_PER_REPLY
    }

    /// Tokens of a message's tool calls (function names and arguments).
    pub fn count_tool_calls(&self, message: &Message) -> Tokens {
        message
            .tool_calls
            .iter()
            .flatten()
            .map(|c| self.count_tool_call(c))
            .sum()
    }

    fn count_part(&self, part: &ContentPart) -> Tokens {
        match part {
            ContentPart::Text { text, .. } | ContentPart::Bare(text) => self.count_text(text),
            ContentPart::Image(_) => IMAGE_TOKENS,
            ContentPart::Video(_) => VIDEO_TOKENS,
            ContentPart::Other(_) => 0,
        }
    }

    /// The reference reads `call.get("function", {})` whatever the call's other
    /// keys hold, so a `function` object counts in every shape: also when the
    /// call's `id` is not a string, or its `name` is null (then only the
    /// arguments count), which the typed OpenAI shape does not accept.
    fn count_tool_call(&self, call: &ToolCall) -> Tokens {
        let (name, arguments) = match call {
            ToolCall::Function { function, .. } => {
                (Some(function.name.as_str()), Some(&function.arguments))
            }
            ToolCall::Flat { extra, .. } => function_fields(extra.get("function")),
            ToolCall::Other(v) => function_fields(v.get("function")),
        };
        let args = match arguments {
            Some(Value::String(s)) => self.count_text(s),
            Some(v) if pyjson::is_truthy(v) => self.count_text(&pyjson::dumps(v)),
            _ => 0,
        };
        name.map_or(0, |n| self.count_text(n)) + args
    }
}

/// The string `name` and the `arguments` of a `function` object, when it is one.
fn function_fields(function: Option<&Value>) -> (Option<&str>, Option<&Value>) {
    match function {
        Some(Value::Object(f)) => (f.get("name").and_then(Value::as_str), f.get("arguments")),
        _ => (None, None),
    }
}

/// A length (of a token list, a text) as [`Tokens`], saturating (lengths past `i64::MAX` do not occur).
pub fn tokens_of_len(len: usize) -> Tokens {
    Tokens::try_from(len).unwrap_or(Tokens::MAX)
}

/// A token count as a length to slice with: negative counts are 0, and counts
/// past the address space saturate (on wasm32 a plain `as usize` would wrap).
pub fn len_of_tokens(tokens: Tokens) -> usize {
    usize::try_from(tokens.max(0)).unwrap_or(usize::MAX)
}

/// Counts `text` under `model`'s encoding.
pub fn count_text(text: &str, model: &str) -> Tokens {
    TokenCounter::for_model(model).count_text(text)
}

/// Counts UTF-8 `bytes` under `encoding` (ordinary encoding), as [`TokenCounter::count_text`]
/// counts the text they hold; [`crate::Error::InvalidUtf8`] names the first invalid byte.
pub fn count_token_bytes(bytes: &[u8], encoding: Encoding) -> crate::Result<Tokens> {
    TokenCounter::for_encoding(encoding).try_count_bytes(bytes)
}

/// Counts a message list under `model`'s encoding.
pub fn count_messages(messages: &[Message], model: &str) -> Tokens {
    TokenCounter::for_model(model).count_messages(messages)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_list_counts_reply_priming() {
        assert_eq!(count_messages(&[], "gpt-4o"), 3);
    }

    #[test]
    fn special_token_text_is_plain_text() {
        let counter = TokenCounter::for_model("gpt-4");
        assert!(counter.count_text("<|endoftext|>") > 1);
    }

    /// Found by the `message_count` fuzz target's reference transcription
    /// (fuzz/regressions/message_count/tool-call-with-*): a tool call whose id
    /// is not a string, or whose function name is null, still counts its
    /// function as the reference does.
    #[test]
    fn tool_calls_count_their_function_whatever_their_id_and_name() {
        let counter = TokenCounter::for_model("gpt-4o");
        let count = |call: serde_json::Value| {
            let raw = serde_json::json!([{"role": "assistant", "tool_calls": [call]}]);
            let msgs = crate::message::parse_messages(&raw).expect("accepted");
            counter.count_messages(&msgs)
        };
        let typed = count(
            serde_json::json!({"id": "5", "function": {"name": "lookup", "arguments": "{\"q\": 1}"}}),
        );
        let numeric_id = count(
            serde_json::json!({"id": 5, "function": {"name": "lookup", "arguments": "{\"q\": 1}"}}),
        );
        assert_eq!(numeric_id, typed);
        let null_name = count(
            serde_json::json!({"id": "5", "function": {"name": null, "arguments": "{\"q\": 1}"}}),
        );
        assert_eq!(null_name, typed - counter.count_text("lookup"));
        let langchain = count(serde_json::json!({"id": "5", "name": "lookup", "args": {"q": 1}}));
        assert_eq!(
            langchain,
            count(serde_json::json!(7)),
            "no function object: nothing"
        );
    }

    #[test]
    fn bytes_count_as_their_text_and_name_the_first_invalid_byte() {
        let text = "héllo wörld, 你好 😀\n";
        for encoding in [
            Encoding::O200kBase,
            Encoding::Cl100kBase,
            Encoding::P50kBase,
        ] {
            let counter = TokenCounter::for_encoding(encoding);
            assert_eq!(
                count_token_bytes(text.as_bytes(), encoding),
                Ok(counter.count_text(text))
            );
        }
        let mut bad = text.as_bytes().to_vec();
        bad.insert(2, 0xFF);
        assert_eq!(
            count_token_bytes(&bad, Encoding::O200kBase),
            Err(crate::Error::InvalidUtf8 { offset: 1 }),
            "the byte after h starts é, which 0xFF cuts"
        );
        let cut = &text.as_bytes()[..text.len() - 2];
        assert_eq!(
            count_token_bytes(cut, Encoding::O200kBase),
            Err(crate::Error::InvalidUtf8 {
                offset: text.len() - 5
            }),
            "an emoji cut by the end"
        );
    }

    #[test]
    fn lossy_decode_replaces_split_characters() {
        let counter = TokenCounter::for_model("gpt-4");
        let ids = counter.encode("😀");
        assert!(ids.len() > 1, "the emoji spans several cl100k tokens");
        assert!(counter.decode_lossy(&ids[..1]).contains('\u{fffd}'));
    }
}
