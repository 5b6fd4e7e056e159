//! Session ids: `[A-Za-z0-9._:-]{1,128}`, checked once at the HTTP boundary
//! (every route answers anything else with 400 before it looks at a token),
//! so the store, the token check and the Redis keys only ever see valid ids.

use axum::extract::{FromRequestParts, Path};
use axum::http::request::Parts;
use std::fmt;
use thiserror::Error;

/// Most bytes of a session id.
pub const MAX_SESSION_ID_BYTES: usize = 128;

/// Why a text is not a session id (answered as 400 at the HTTP boundary).
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum InvalidSessionId {
    /// Empty, too long, or a character outside the alphabet.
    #[error("invalid session id {0}: a session id is 1 to {MAX_SESSION_ID_BYTES} characters of A-Z a-z 0-9 . _ : -")]
    Alphabet(String),
    /// The path segment is not UTF-8 once percent-decoded.
    #[error("invalid session id: it is not valid UTF-8 once percent-decoded")]
    NotUtf8,
}

/// A valid session id.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct SessionId(String);

impl SessionId {
    /// `id` when it is 1 to 128 characters of `A-Z a-z 0-9 . _ : -`.
    pub fn parse(id: &str) -> Result<Self, InvalidSessionId> {
        let valid = !id.is_empty()
            && id.len() <= MAX_SESSION_ID_BYTES
            && id
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"._:-".contains(&b));
        if valid {
            Ok(SessionId(id.to_string()))
        } else {
            Err(InvalidSessionId::Alphabet(quoted(id)))
        }
    }

    /// The id as text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for SessionId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// `id` quoted for an error message, cut to a readable length.
fn quoted(id: &str) -> String {
    let mut cut: String = id.chars().take(40).collect();
    if cut.len() < id.len() {
        cut.push('…');
    }
    serde_json::Value::String(cut).to_string()
}

/// The `{id}` of the route, or a 400 (invalid characters, invalid UTF-8 after
/// percent-decoding, too long, empty).
impl<S: Send + Sync> FromRequestParts<S> for SessionId {
    type Rejection = InvalidSessionId;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Self::Rejection> {
        match Path::<String>::from_request_parts(parts, state).await {
            Ok(Path(id)) => SessionId::parse(&id),
            Err(_) => Err(InvalidSessionId::NotUtf8),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accepts_the_documented_alphabet_only() {
        for ok in ["a", "demo", "chat:42.sub_7-x", &"x".repeat(128)] {
            assert_eq!(SessionId::parse(ok).expect("valid").as_str(), ok);
        }
        for bad in ["", "a b", "a/b", "é", "a%20", &"x".repeat(129), "a\nb"] {
            assert!(SessionId::parse(bad).is_err(), "{bad:?}");
        }
    }
}
