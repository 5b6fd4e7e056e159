//! The multi-session stream (`GET /api/events?session=a&session=b`): one SSE
//! connection carrying several sessions, so a page with
//! more toolbars than the browser's six HTTP/1.1 connections per origin
//! still connects them all.
//!
//! - Each event's `data:` is the session's own JSON with `"session":"<id>"`
//!   as its first key ([`tag_with_session`]), so a client routes it by the
//!   prefix alone and hands the rest on unchanged ([`untag`]).
//! - The `id:` is the stream's [`StreamCursor`]: every session's last
//!   delivered event id, `<session>:<n>` pairs joined by `,`. Session ids
//!   (`[A-Za-z0-9._:-]{1,128}`) never hold a `,` and may hold `:`, so a pair
//!   splits at its last `:`. Sent back as `Last-Event-ID` (or
//!   `?last_event_id=`), it resumes each session after its own id.

use std::fmt;

/// Most sessions one multi-session stream may name (a 400 past it).
pub const MAX_STREAM_SESSIONS: usize = 100;

/// The key, first in every multi-session event's JSON, that names its session.
pub const SESSION_KEY: &str = "session";

/// How every tagged event starts (keep in sync with [`SESSION_KEY`]).
const TAG_PREFIX: &str = "{\"session\":\"";

/// `data` (a session's event JSON) with `"session":"<session>"` as its first
/// key. `session` must be a valid session id (no character needs escaping).
/// Text that is not a JSON object (a replayed raw line) is carried as a JSON
/// string under `"data"`. O(len).
pub fn tag_with_session(session: &str, data: &str) -> String {
    let mut out = String::with_capacity(data.len() + session.len() + 16);
    out.push_str(TAG_PREFIX);
    out.push_str(session);
    out.push('"');
    match data.trim_start().strip_prefix('{') {
        Some(rest) if rest.trim_start().starts_with('}') => out.push('}'),
        Some(rest) => {
            out.push(',');
            out.push_str(rest);
        }
        None => {
            out.push_str(",\"data\":");
            out.push_str(&serde_json::Value::String(data.to_string()).to_string());
            out.push('}');
        }
    }
    out
}

/// The session a tagged event names and its JSON without the tag, when `data`
/// starts with the tag [`tag_with_session`] writes. O(len).
pub fn untag(data: &str) -> Option<(&str, String)> {
    let rest = data.strip_prefix(TAG_PREFIX)?;
    let end = rest.find('"')?;
    let (session, after) = (&rest[..end], &rest[end + 1..]);
    let body = match after.strip_prefix(',') {
        Some(fields) => format!("{{{fields}"),
        None => format!("{{{after}"),
    };
    Some((session, body))
}

/// Every session's last delivered event id on one multi-session stream, in
/// the order the sessions were first named.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct StreamCursor {
    pairs: Vec<(String, u64)>,
}

impl StreamCursor {
    /// An empty cursor.
    pub fn new() -> Self {
        StreamCursor::default()
    }

    /// Reads `a:1,b:2` leniently: a pair without `:` or with an id that is
    /// not a `u64` is skipped; a session named twice keeps its first id. O(len).
    pub fn parse(text: &str) -> Self {
        let mut cursor = StreamCursor::new();
        for pair in text.split(',') {
            let Some((session, id)) = pair.trim().rsplit_once(':') else {
                continue;
            };
            let Ok(id) = id.parse::<u64>() else { continue };
            if !session.is_empty() && cursor.get(session).is_none() {
                cursor.pairs.push((session.to_string(), id));
            }
        }
        cursor
    }

    /// The last id of `session`, if the cursor names it. O(sessions).
    pub fn get(&self, session: &str) -> Option<u64> {
        self.pairs
            .iter()
            .find(|(s, _)| s == session)
            .map(|(_, id)| *id)
    }

    /// Records `id` as the last of `session` (added at the end when new). O(sessions).
    pub fn set(&mut self, session: &str, id: u64) {
        match self.pairs.iter_mut().find(|(s, _)| s == session) {
            Some(pair) => pair.1 = id,
            None => self.pairs.push((session.to_string(), id)),
        }
    }

    /// Whether the cursor names no session.
    pub fn is_empty(&self) -> bool {
        self.pairs.is_empty()
    }
}

impl fmt::Display for StreamCursor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, (session, id)) in self.pairs.iter().enumerate() {
            if i > 0 {
                f.write_str(",")?;
            }
            write!(f, "{session}:{id}")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tags_put_the_session_first_and_untag_gives_the_json_back() {
        let data = r#"{"type":"response.status.updated","phase":"final"}"#;
        let tagged = tag_with_session("chat:42", data);
        assert_eq!(
            tagged,
            r#"{"session":"chat:42","type":"response.status.updated","phase":"final"}"#
        );
        let parsed: serde_json::Value = serde_json::from_str(&tagged).expect("JSON");
        assert_eq!(parsed["session"], "chat:42");
        assert_eq!(untag(&tagged), Some(("chat:42", data.to_string())));
        assert_eq!(tag_with_session("a", " { } "), r#"{"session":"a"}"#);
        assert_eq!(untag(r#"{"session":"a"}"#), Some(("a", "{}".to_string())));
        let raw = tag_with_session("a", "not \"json\"");
        assert_eq!(raw, r#"{"session":"a","data":"not \"json\""}"#);
        assert!(serde_json::from_str::<serde_json::Value>(&raw).is_ok());
        assert_eq!(untag(data), None);
        assert_eq!(TAG_PREFIX, format!("{{\"{SESSION_KEY}\":\""));
    }

    #[test]
    fn cursors_split_each_pair_at_its_last_colon() {
        let mut c = StreamCursor::parse("chat:42:17,b:3, x:y ,nocolon,c:,:5,b:9");
        assert_eq!(c.get("chat:42"), Some(17));
        assert_eq!(c.get("b"), Some(3), "the first id of a session named twice");
        assert_eq!(c.get("x"), None);
        assert_eq!(c.to_string(), "chat:42:17,b:3");
        c.set("b", 4);
        c.set("d.e", 1);
        assert_eq!(c.to_string(), "chat:42:17,b:4,d.e:1");
        assert_eq!(StreamCursor::parse(&c.to_string()), c);
        assert!(StreamCursor::parse("").is_empty());
        assert!(StreamCursor::parse("12").is_empty());
    }
}
