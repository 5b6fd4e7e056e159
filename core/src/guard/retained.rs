//! The user messages a checkpoint retains (kind `recent_user_messages`): the
//! newest real user messages within a token limit, the last one cut to what
//! is left, each a fresh copy marked `checkpoint_retained` under a fresh id.

use super::counting::GuardCounter;
use super::markers::{fresh_id, is_summary, CHECKPOINT_RETAINED_FLAG};
use crate::message::{Content, Message};
use crate::tokens::{len_of_tokens, Tokens};
use serde_json::Value;

/// The retained users of `messages` within `limit_tokens` (SPEC §8 h), oldest first.
///
/// Walks newest → oldest over user messages that are not summaries; each
/// costs `count_messages([m])` (the reference counts the reply priming once
/// per message); the first that does not fit is retained once, cut to the
/// tokens left (see [`GuardCounter::is_strict`] for the strict variant), and ends the walk.
/// O(n) plus one encoding of the cut message.
pub fn recent_user_messages(
    messages: &[Message],
    limit_tokens: Tokens,
    counter: &GuardCounter,
) -> Vec<Message> {
    let mut selected = Vec::new();
    let mut used: Tokens = 0;
    for message in messages.iter().rev() {
        if !message.is_user() || is_summary(message) {
            continue;
        }
        let remaining = limit_tokens - used;
        if remaining <= 0 {
            break;
        }
        let tokens = if counter.is_strict() {
            counter.cost(message)
        } else {
            counter.count(std::slice::from_ref(message))
        };
        if tokens <= remaining {
            selected.push(retained(message.content.clone(), message));
            used += tokens;
            continue;
        }
        if let Some(content) = cut(message, remaining, counter) {
            selected.push(retained(Some(content), message));
        }
        break;
    }
    selected.reverse();
    selected
}

/// The content a message that does not fit whole is retained with, or `None` to retain nothing.
///
/// The reference compares only the message text with `remaining`: an empty
/// text gives `""`, a text of at most `remaining` tokens keeps the content
/// whole (images and all), a longer one gives the lossy decode of its first
/// `remaining` tokens. Strictly, the retained message itself must fit: the
/// text gets `remaining` less a user message's own overhead, and a text that
/// fits that budget is kept as a string (the images are what did not fit).
fn cut(message: &Message, remaining: Tokens, counter: &GuardCounter) -> Option<Content> {
    let text_budget = if counter.is_strict() {
        remaining - counter.cost(&Message::user(""))
    } else {
        remaining
    };
    if text_budget <= 0 {
        return None;
    }
    let text = message.message_text();
    if text.is_empty() {
        return Some(Content::Text(String::new()));
    }
    let tokens = counter.token_counter();
    let ids = tokens.encode(&text);
    let budget = len_of_tokens(text_budget);
    if ids.len() <= budget {
        return Some(if counter.is_strict() {
            Content::Text(text)
        } else {
            message.content.clone().unwrap_or(Content::Text(text))
        });
    }
    Some(Content::Text(tokens.decode_lossy(&ids[..budget])))
}

/// A new user message: `content`, the source's `additional_kwargs` plus
/// `checkpoint_retained: true`, a fresh uuid4 id, and no name.
fn retained(content: Option<Content>, source: &Message) -> Message {
    let mut kwargs = source.additional_kwargs.clone().unwrap_or_default();
    kwargs.insert(CHECKPOINT_RETAINED_FLAG.to_string(), Value::Bool(true));
    let mut message = Message {
        role: "user".into(),
        content: Some(content.unwrap_or(Content::Text(String::new()))),
        additional_kwargs: Some(kwargs),
        ..Message::default()
    };
    message.set_id(fresh_id());
    message
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::guard::SUMMARY_FLAG;
    use serde_json::json;

    fn counter() -> GuardCounter {
        GuardCounter::for_model("gpt-4o")
    }

    fn texts(msgs: &[Message]) -> Vec<String> {
        msgs.iter().map(Message::message_text).collect()
    }

    #[test]
    fn newest_first_within_the_limit_and_returned_oldest_first() {
        let c = counter();
        let msgs = vec![
            Message::user("one"),
            Message::assistant("a"),
            Message::user("two"),
        ];
        let each = c.count(&msgs[..1]);
        assert_eq!(
            texts(&recent_user_messages(&msgs, 2 * each, &c)),
            ["one", "two"]
        );
        // One token short of both: the older one's text still fits what is left, so it stays whole.
        let out = recent_user_messages(&msgs, 2 * each - 1, &c);
        assert_eq!(texts(&out), ["one", "two"]);
        assert!(recent_user_messages(&msgs, 0, &c).is_empty());
    }

    /// Reference quirk: each retained user costs count_messages([m]), reply priming included.
    #[test]
    fn each_message_counts_its_own_reply_priming() {
        let c = counter();
        let msgs = vec![
            Message::user("one two three four five six seven eight"),
            Message::user("beta"),
        ];
        let limit = c.count(&msgs[1..]) + 4;
        let out = recent_user_messages(&msgs, limit, &c);
        assert_eq!(texts(&out), ["one two three four", "beta"]);
        // Strictly, the newest costs 3 less, and the cut leaves room for the message's own overhead.
        let strict = GuardCounter::new(*c.token_counter(), true);
        let out = recent_user_messages(&msgs, limit, &strict);
        assert_eq!(texts(&out), ["one two", "beta"]);
        assert!(strict.count(&out) - 3 <= limit);
    }

    /// Reference quirk: a text that fits the tokens left keeps the message whole, images and all.
    #[test]
    fn a_fitting_text_keeps_the_whole_message() {
        let c = counter();
        let with_image: Message = serde_json::from_value(json!({
            "role": "user", "name": "alice", "id": "m1",
            "content": [{"type": "text", "text": "look"}, {"type": "image_url", "image_url": {"url": "x"}}],
            "additional_kwargs": {"checkpoint_retained": false, "source": "web"}
        }))
        .expect("message");
        let out = recent_user_messages(std::slice::from_ref(&with_image), 5, &c);
        assert_eq!(out.len(), 1);
        let value = serde_json::to_value(&out[0]).expect("serialises");
        assert_eq!(
            value["content"],
            json!([{"type": "text", "text": "look"}, {"type": "image_url", "image_url": {"url": "x"}}])
        );
        assert_eq!(
            value["additional_kwargs"],
            json!({"checkpoint_retained": true, "source": "web"}),
            "kept in place"
        );
        assert!(value.get("name").is_none(), "no name");
        assert_ne!(value["id"], json!("m1"));
        assert!(c.count(&out) > 5);
        // Strictly the images go and the text is cut to what fits beside the message overhead.
        let strict = GuardCounter::new(*c.token_counter(), true);
        assert!(recent_user_messages(std::slice::from_ref(&with_image), 5, &strict).is_empty());
        let cut = recent_user_messages(std::slice::from_ref(&with_image), 7, &strict);
        assert_eq!(
            serde_json::to_value(&cut[0].content).expect("json"),
            json!("look")
        );
    }

    #[test]
    fn summaries_and_other_roles_are_skipped_and_ids_are_fresh() {
        let c = counter();
        let mut summary = Message::user("[COMPACT SUMMARY] old");
        summary.set_kwarg(SUMMARY_FLAG, true.into());
        let mut empty: Message = serde_json::from_value(
            json!({"role": "user", "content": [{"type": "image_url", "image_url": {"url": "x"}}]}),
        )
        .expect("message");
        empty.set_id("e");
        let msgs = vec![empty, Message::system("s"), summary, Message::user("q")];
        let out = recent_user_messages(&msgs, c.count(&msgs[3..]) + 1, &c);
        assert_eq!(texts(&out), ["", "q"], "an empty text is retained as \"\"");
        assert_eq!(
            serde_json::to_value(&out[0].content).expect("json"),
            json!("")
        );
        let ids: Vec<_> = out.iter().filter_map(Message::id).collect();
        assert_eq!(ids.len(), 2);
        assert_ne!(ids[0], ids[1]);
        assert!(ids
            .iter()
            .all(|id| id.len() == 36 && id.as_bytes()[14] == b'4'));
    }
}
