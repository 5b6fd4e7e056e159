//! Who may publish and who may read.
//!
//! - Publishing (`POST …/events`, `DELETE /api/sessions/{id}`) takes the
//!   publish token as `Authorization: Bearer`. Without one configured,
//!   publishing is off (403 saying how to turn it on).
//! - Reads (`/context`, `/events`) take a read token for that session, as
//!   `?token=` (EventSource cannot set headers) or `Authorization: Bearer`,
//!   once a read secret is configured; `/api/sessions` then takes the
//!   publish token. Without a read secret reads are open.
//!
//! A read token is `v1.EXPIRY.SESSION.SIGNATURE`: `EXPIRY` in Unix seconds,
//! `SIGNATURE` the unpadded base64url HMAC-SHA256, keyed with the read
//! secret, of `v1.EXPIRY.SESSION`. A backend mints its own with any HMAC
//! library (`examples/publish.py`). Both credentials are compared in
//! constant time and never logged.

use super::error::AppError;
use super::session_id::SessionId;
use anyhow::Context as _;
use axum::http::{header, HeaderMap};
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine as _;
use hmac::{Hmac, Mac};
use sha2::{Digest, Sha256};
use std::path::Path;
use subtle::ConstantTimeEq;

/// The version prefix of read tokens.
pub const TOKEN_VERSION: &str = "v1";
/// Environment variable holding the publish token (when no `--publish-token-file`).
pub const PUBLISH_TOKEN_VAR: &str = "CTXGUARD_PUBLISH_TOKEN";
/// Environment variable holding the read secret (when no `--read-secret-file`).
pub const READ_SECRET_VAR: &str = "CTXGUARD_READ_SECRET";
/// Read secrets shorter than this are accepted with a warning.
pub const MIN_SECRET_BYTES: usize = 16;

type HmacSha256 = Hmac<Sha256>;

/// The secret text of `file`, else of the environment variable `var`
/// (surrounding whitespace trimmed); `None` when neither is set.
pub fn secret_from_file_or_env(file: Option<&Path>, var: &str) -> anyhow::Result<Option<String>> {
    let text = match file {
        Some(path) => std::fs::read_to_string(path)
            .with_context(|| format!("cannot read {}", path.display()))?,
        None => match std::env::var(var) {
            Ok(v) => v,
            Err(_) => return Ok(None),
        },
    };
    let text = text.trim().to_string();
    let source = file.map_or_else(|| var.to_string(), |p| p.display().to_string());
    anyhow::ensure!(!text.is_empty(), "{source} is empty");
    Ok(Some(text))
}

/// The publish token, kept as its SHA-256 so comparisons take the same time whatever the input.
#[derive(Clone)]
pub struct PublishToken([u8; 32]);

impl PublishToken {
    /// The token `text`.
    pub fn new(text: &str) -> Self {
        PublishToken(Sha256::digest(text.as_bytes()).into())
    }

    /// Whether `presented` is the token (constant time).
    pub fn matches(&self, presented: &str) -> bool {
        let digest: [u8; 32] = Sha256::digest(presented.as_bytes()).into();
        digest.ct_eq(&self.0).into()
    }
}

/// Why a read token was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TokenError {
    /// Not `v1.EXPIRY.SESSION.SIGNATURE`.
    Malformed,
    /// The signature does not verify under the secret.
    BadSignature,
    /// Its expiry has passed.
    Expired,
    /// Valid, but for another session.
    OtherSession,
}

impl TokenError {
    fn into_app_error(self) -> AppError {
        match self {
            TokenError::Malformed => AppError::unauthorized("malformed read token"),
            TokenError::BadSignature => AppError::unauthorized("invalid read token"),
            TokenError::Expired => AppError::unauthorized("expired read token"),
            TokenError::OtherSession => {
                AppError::forbidden("the read token is for another session")
            }
        }
    }
}

/// The secret read tokens are signed with.
#[derive(Clone)]
pub struct ReadSecret(Vec<u8>);

impl ReadSecret {
    /// The secret `text`.
    pub fn new(text: &str) -> Self {
        ReadSecret(text.as_bytes().to_vec())
    }

    /// Whether the secret is shorter than [`MIN_SECRET_BYTES`].
    pub fn is_short(&self) -> bool {
        self.0.len() < MIN_SECRET_BYTES
    }

    fn mac(&self, signed: &str) -> HmacSha256 {
        let mut mac = HmacSha256::new_from_slice(&self.0).expect("HMAC takes a key of any length");
        mac.update(signed.as_bytes());
        mac
    }

    /// A token for `session` that expires at `expires_unix_secs`.
    pub fn mint(&self, session: &SessionId, expires_unix_secs: u64) -> String {
        let signed = format!("{TOKEN_VERSION}.{expires_unix_secs}.{session}");
        let signature = URL_SAFE_NO_PAD.encode(self.mac(&signed).finalize().into_bytes());
        format!("{signed}.{signature}")
    }

    /// Checks `token` for `session` at `now_unix_secs`.
    pub fn verify(
        &self,
        token: &str,
        session: &SessionId,
        now_unix_secs: u64,
    ) -> Result<(), TokenError> {
        let parts = TokenParts::split(token).ok_or(TokenError::Malformed)?;
        if parts.expiry.is_empty() || !parts.expiry.bytes().all(|b| b.is_ascii_digit()) {
            return Err(TokenError::Malformed);
        }
        let expiry: u64 = parts.expiry.parse().map_err(|_| TokenError::Malformed)?;
        let named = SessionId::parse(parts.session).map_err(|_| TokenError::Malformed)?;
        let signature = URL_SAFE_NO_PAD
            .decode(parts.signature)
            .map_err(|_| TokenError::Malformed)?;
        self.mac(parts.signed)
            .verify_slice(&signature)
            .map_err(|_| TokenError::BadSignature)?;
        if expiry <= now_unix_secs {
            return Err(TokenError::Expired);
        }
        if &named != session {
            return Err(TokenError::OtherSession);
        }
        Ok(())
    }
}

/// The fields of `v1.EXPIRY.SESSION.SIGNATURE`, unchecked.
struct TokenParts<'a> {
    expiry: &'a str,
    session: &'a str,
    signature: &'a str,
    /// `v1.EXPIRY.SESSION`, the signed text.
    signed: &'a str,
}

impl<'a> TokenParts<'a> {
    /// Splits `token` at its dots (the session may hold dots: it is everything between the
    /// expiry and the last dot); `None` without the version prefix or the dots.
    fn split(token: &'a str) -> Option<Self> {
        let rest = token
            .strip_prefix(TOKEN_VERSION)
            .and_then(|r| r.strip_prefix('.'))?;
        let (expiry, rest) = rest.split_once('.')?;
        let (session, signature) = rest.rsplit_once('.')?;
        let signed = &token[..token.len() - signature.len() - 1];
        Some(TokenParts {
            expiry,
            session,
            signature,
            signed,
        })
    }
}

/// The session a read token names (unverified), so a request carrying several tokens can
/// give each session its own; `None` when `token` is not shaped like one.
pub fn token_session(token: &str) -> Option<&str> {
    TokenParts::split(token).map(|p| p.session)
}

/// The configured credentials.
#[derive(Clone, Default)]
pub struct Auth {
    publish: Option<PublishToken>,
    read: Option<ReadSecret>,
}

impl Auth {
    /// Credentials from the configured texts (`None`: not configured).
    pub fn new(publish_token: Option<&str>, read_secret: Option<&str>) -> Self {
        Auth {
            publish: publish_token.map(PublishToken::new),
            read: read_secret.map(ReadSecret::new),
        }
    }

    /// Whether anyone may read any session (no read secret).
    pub fn reads_are_open(&self) -> bool {
        self.read.is_none()
    }

    /// Whether publishing is configured.
    pub fn can_publish(&self) -> bool {
        self.publish.is_some()
    }

    /// The read secret, when configured.
    pub fn read_secret(&self) -> Option<&ReadSecret> {
        self.read.as_ref()
    }

    /// Lets a publisher through: 403 when publishing is off, 401 without the token.
    pub fn check_publish(&self, headers: &HeaderMap) -> Result<(), AppError> {
        let Some(token) = &self.publish else {
            return Err(AppError::forbidden(format!(
                "publishing is not configured: start the server with --publish-token-file FILE or {PUBLISH_TOKEN_VAR} set to a token, and send it as Authorization: Bearer TOKEN"
            )));
        };
        match bearer(headers)? {
            Some(presented) if token.matches(presented) => Ok(()),
            Some(_) => Err(AppError::unauthorized("wrong publish token")),
            None => Err(AppError::unauthorized(
                "publishing needs Authorization: Bearer <publish token>",
            )),
        }
    }

    /// Lets a reader of `session` through: open without a read secret; else
    /// a read token for it from the header or `query_token` (401 missing,
    /// malformed or expired; 403 for another session).
    pub fn check_read(
        &self,
        session: &SessionId,
        headers: &HeaderMap,
        query_token: Option<&str>,
    ) -> Result<(), AppError> {
        let Some(secret) = &self.read else {
            return Ok(());
        };
        let token = bearer(headers)?.or(query_token).ok_or_else(|| {
            AppError::unauthorized(
                "reading this session needs a read token (?token= or Authorization: Bearer)",
            )
        })?;
        secret
            .verify(token, session, unix_secs())
            .map_err(TokenError::into_app_error)
    }

    /// Lets a reader of every session of `sessions` through, each with its own
    /// token: the one (of the `Authorization` bearer and `query_tokens`) that names it,
    /// else the first given, so a valid token of another session is a 403 and none at
    /// all a 401, as [`Auth::check_read`] answers for one session. The first session
    /// refused decides the answer.
    pub fn check_read_each(
        &self,
        sessions: &[SessionId],
        headers: &HeaderMap,
        query_tokens: &[String],
    ) -> Result<(), AppError> {
        if self.read.is_none() {
            return Ok(());
        }
        let header = bearer(headers)?;
        let tokens: Vec<&str> = header
            .into_iter()
            .chain(query_tokens.iter().map(String::as_str))
            .collect();
        for session in sessions {
            let own = tokens
                .iter()
                .find(|t| token_session(t) == Some(session.as_str()))
                .or(tokens.first())
                .copied();
            self.check_read(session, &HeaderMap::new(), own)?;
        }
        Ok(())
    }

    /// Lets a lister of sessions through: open without a read secret, else the publish token.
    pub fn check_list(&self, headers: &HeaderMap) -> Result<(), AppError> {
        if self.read.is_none() {
            return Ok(());
        }
        if self.publish.is_none() {
            return Err(AppError::forbidden(format!(
                "listing sessions needs the publish token, and publishing is not configured (--publish-token-file or {PUBLISH_TOKEN_VAR})"
            )));
        }
        self.check_publish(headers)
    }
}

/// The bearer credential of `Authorization`, if any; a header of another shape is a 401.
fn bearer(headers: &HeaderMap) -> Result<Option<&str>, AppError> {
    let Some(value) = headers.get(header::AUTHORIZATION) else {
        return Ok(None);
    };
    let malformed =
        || AppError::unauthorized("malformed Authorization header: expected Bearer <token>");
    let text = value.to_str().map_err(|_| malformed())?;
    let (scheme, credential) = text.split_once(' ').ok_or_else(malformed)?;
    let credential = credential.trim();
    if !scheme.eq_ignore_ascii_case("bearer") || credential.is_empty() {
        return Err(malformed());
    }
    Ok(Some(credential))
}

/// The current time in Unix seconds.
pub fn unix_secs() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::server::testing::sid;
    use axum::http::{HeaderValue, StatusCode};

    const NOW: u64 = 1_782_226_534;

    #[test]
    fn read_tokens_verify_for_their_session_until_they_expire() {
        let secret = ReadSecret::new("a secret of some length");
        let token = secret.mint(&sid("chat:42.x"), NOW + 60);
        assert!(
            token.starts_with(&format!("v1.{}.chat:42.x.", NOW + 60)),
            "{token}"
        );
        assert_eq!(secret.verify(&token, &sid("chat:42.x"), NOW), Ok(()));
        assert_eq!(
            secret.verify(&token, &sid("other"), NOW),
            Err(TokenError::OtherSession)
        );
        assert_eq!(
            secret.verify(&token, &sid("chat:42.x"), NOW + 60),
            Err(TokenError::Expired)
        );
        let forged = ReadSecret::new("another secret!!").mint(&sid("chat:42.x"), NOW + 60);
        assert_eq!(
            secret.verify(&forged, &sid("chat:42.x"), NOW),
            Err(TokenError::BadSignature)
        );
        let retargeted = token.replacen("chat:42.x", "chat:43.x", 1);
        assert_eq!(
            secret.verify(&retargeted, &sid("chat:43.x"), NOW),
            Err(TokenError::BadSignature)
        );
        for bad in [
            "",
            "v1",
            "v1.",
            "v2.1.a.b",
            "v1.x.a.AAAA",
            "v1.1.a",
            "v1.1.a b.AAAA",
            "v1.1.a.***",
        ] {
            assert_eq!(
                secret.verify(bad, &sid("a"), NOW),
                Err(TokenError::Malformed),
                "{bad:?}"
            );
        }
    }

    #[test]
    fn the_token_is_the_documented_hmac() {
        // HMAC-SHA256(key "k", "v1.2000000000.s"), base64url without padding, computed independently.
        let token = ReadSecret::new("k").mint(&sid("s"), 2_000_000_000);
        let expected = {
            let mut mac = HmacSha256::new_from_slice(b"k").expect("key");
            mac.update(b"v1.2000000000.s");
            URL_SAFE_NO_PAD.encode(mac.finalize().into_bytes())
        };
        assert_eq!(token, format!("v1.2000000000.s.{expected}"));
        assert_eq!(expected.len(), 43);
    }

    fn headers(authorization: Option<&str>) -> HeaderMap {
        let mut h = HeaderMap::new();
        if let Some(a) = authorization {
            h.insert(
                header::AUTHORIZATION,
                HeaderValue::from_str(a).expect("header"),
            );
        }
        h
    }

    #[test]
    fn publishing_needs_the_configured_token() {
        let status = |auth: &Auth, a: Option<&str>| {
            auth.check_publish(&headers(a)).err().map(|e| e.status())
        };
        let off = Auth::new(None, None);
        assert_eq!(status(&off, Some("Bearer x")), Some(StatusCode::FORBIDDEN));
        let on = Auth::new(Some("pub-token"), None);
        assert_eq!(status(&on, Some("Bearer pub-token")), None);
        assert_eq!(status(&on, Some("bearer  pub-token ")), None);
        assert_eq!(
            status(&on, Some("Bearer pub-toke")),
            Some(StatusCode::UNAUTHORIZED)
        );
        assert_eq!(
            status(&on, Some("Basic cHViLXRva2Vu")),
            Some(StatusCode::UNAUTHORIZED)
        );
        assert_eq!(status(&on, None), Some(StatusCode::UNAUTHORIZED));
    }

    #[test]
    fn reads_need_a_token_once_a_secret_is_set() {
        let open = Auth::new(None, None);
        assert!(open.check_read(&sid("s"), &headers(None), None).is_ok());
        assert!(open.check_list(&headers(None)).is_ok());
        let closed = Auth::new(Some("pub-token"), Some("read secret, long enough"));
        let token = closed
            .read_secret()
            .expect("set")
            .mint(&sid("s"), unix_secs() + 60);
        let status = |h: HeaderMap, q: Option<&str>, s: &str| {
            closed.check_read(&sid(s), &h, q).err().map(|e| e.status())
        };
        assert_eq!(status(headers(None), Some(&token), "s"), None);
        assert_eq!(
            status(headers(Some(&format!("Bearer {token}"))), None, "s"),
            None
        );
        assert_eq!(
            status(headers(None), None, "s"),
            Some(StatusCode::UNAUTHORIZED)
        );
        assert_eq!(
            status(headers(None), Some("junk"), "s"),
            Some(StatusCode::UNAUTHORIZED)
        );
        assert_eq!(
            status(headers(None), Some(&token), "t"),
            Some(StatusCode::FORBIDDEN)
        );
        let list = |a: Option<&str>| closed.check_list(&headers(a)).err().map(|e| e.status());
        assert_eq!(list(Some("Bearer pub-token")), None);
        assert_eq!(
            list(Some(&format!("Bearer {token}"))),
            Some(StatusCode::UNAUTHORIZED)
        );
        assert_eq!(list(None), Some(StatusCode::UNAUTHORIZED));
    }
}
