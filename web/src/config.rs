//! What the elements are told through their attributes, read into plain
//! values (so every default is tested natively), and the endpoints of one
//! session with its read token.
//!
//! `<ctxguard-toolbar>`: `session` (default `demo`), `server` (an origin;
//! default the page's), `token` (sent as `?token=` on every request), `lang`
//! (`en` | `zh-CN`; default the nearest `lang` up the document, then the
//! browser's), `source` (`sse`, the default, or `host`), `compact`, `stale-after-ms`
//! (`source="sse"`: a compaction with no event for longer shows as stalled; default
//! [`DEFAULT_STALE_AFTER_MS`]).
//! `<ctxguard-attachment-preview>`: `model`, `limit`, `lang`, `max-upload-bytes`,
//! `max-text-length` (its `for` link is the entry script's: it finds the toolbar).

use crate::i18n::Lang;
use ctxguard_core::attachment::ADMISSION_ATTRIBUTES;
use serde::Serialize;

/// The session shown when none is named.
pub const DEFAULT_SESSION: &str = "demo";

/// Milliseconds without an event after which a running compaction shows as stalled
/// (Wegent's heartbeat comes every 15 s).
pub const DEFAULT_STALE_AFTER_MS: u64 = 120_000;

/// Where a toolbar's events come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum FeedSource {
    /// `/context`, then the session's SSE stream.
    #[default]
    Sse,
    /// The host page pushes them; no network at all.
    Host,
}

impl FeedSource {
    /// `sse` or `host` (anything else reads as `sse`).
    pub fn parse(value: Option<&str>) -> FeedSource {
        match value.map(|v| v.trim().to_ascii_lowercase()).as_deref() {
            Some("host") => FeedSource::Host,
            _ => FeedSource::Sse,
        }
    }
}

/// A session's endpoints on a server.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Endpoints {
    /// Origin (or path prefix) of the server; empty for the page's own origin.
    pub server: String,
    /// Session id.
    pub session: String,
    /// Read token, sent as `?token=` on every request.
    pub token: Option<String>,
}

impl Endpoints {
    fn session_path(&self) -> String {
        format!(
            "{}/api/sessions/{}",
            self.server.trim_end_matches('/'),
            percent_encode(&self.session)
        )
    }

    fn with_query(&self, path: String, mut query: Vec<(&str, String)>) -> String {
        if let Some(token) = &self.token {
            query.push(("token", token.clone()));
        }
        if query.is_empty() {
            return path;
        }
        let query: Vec<String> = query
            .into_iter()
            .map(|(k, v)| format!("{k}={}", percent_encode(&v)))
            .collect();
        format!("{path}?{}", query.join("&"))
    }

    /// `GET …/context`.
    pub fn context_url(&self) -> String {
        self.with_query(format!("{}/context", self.session_path()), Vec::new())
    }

    /// `GET …/events`, resuming after `last_event_id`.
    pub fn events_url(&self, last_event_id: Option<u64>) -> String {
        let query = last_event_id
            .map(|id| vec![("last_event_id", id.to_string())])
            .unwrap_or_default();
        self.with_query(format!("{}/events", self.session_path()), query)
    }
}

/// Percent-encodes everything but RFC 3986's unreserved characters (as `encodeURIComponent`,
/// which also keeps `!'()*`). O(n).
pub fn percent_encode(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b'~') {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// The configuration of one `<ctxguard-toolbar>`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolbarConfig {
    /// The session and where to reach it.
    pub endpoints: Endpoints,
    /// UI language.
    pub lang: Lang,
    /// Where events come from.
    pub source: FeedSource,
    /// One line, no legend.
    pub compact: bool,
    /// `stale-after-ms`, a positive integer (default [`DEFAULT_STALE_AFTER_MS`]).
    pub stale_after_ms: u64,
}

/// An attribute's value, trimmed; absent or blank is `None`.
fn trimmed(attr: &impl Fn(&str) -> Option<String>, name: &str) -> Option<String> {
    attr(name)
        .map(|v| v.trim().to_string())
        .filter(|v| !v.is_empty())
}

impl ToolbarConfig {
    /// Reads the attributes through `attr` (a present but empty attribute is `Some("")`);
    /// `inherited_lang` is the nearest `lang` up the document, `browser_langs` the browser's.
    pub fn from_attributes<'a>(
        attr: impl Fn(&str) -> Option<String>,
        inherited_lang: Option<&str>,
        browser_langs: impl IntoIterator<Item = &'a str>,
    ) -> Self {
        let text = |name: &str| trimmed(&attr, name);
        ToolbarConfig {
            endpoints: Endpoints {
                server: text("server").unwrap_or_default(),
                session: text("session").unwrap_or_else(|| DEFAULT_SESSION.to_string()),
                token: text("token"),
            },
            lang: pick_lang(text("lang").as_deref(), inherited_lang, browser_langs),
            source: FeedSource::parse(text("source").as_deref()),
            compact: attr("compact").is_some_and(|v| v.trim() != "false"),
            stale_after_ms: text("stale-after-ms")
                .and_then(|v| v.parse::<u64>().ok())
                .filter(|ms| *ms > 0)
                .unwrap_or(DEFAULT_STALE_AFTER_MS),
        }
    }

    /// The stall watch of this configuration: `stale-after-ms` for a stream, none when the
    /// host feeds the events (it says when a turn ends).
    pub fn stall_watch_ms(&self) -> Option<f64> {
        (self.source == FeedSource::Sse).then_some(self.stale_after_ms as f64)
    }

    /// Whether going from `self` to `next` needs the feed started over (session,
    /// server, token or source changed).
    pub fn feed_changed(&self, next: &ToolbarConfig) -> bool {
        self.endpoints != next.endpoints || self.source != next.source
    }
}

/// The configuration of one `<ctxguard-attachment-preview>`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PreviewConfig {
    /// `model`, when set.
    pub model: Option<String>,
    /// `limit` in tokens, when set to a non-negative integer.
    pub limit_tokens: Option<i64>,
    /// UI language.
    pub lang: Lang,
    /// `max-upload-bytes`: the backend's upload cap (default 104 857 600, its 100 MB).
    pub max_upload_bytes: u64,
    /// `max-text-length`: the backend's `MAX_EXTRACTED_TEXT_LENGTH` (default 500 000).
    pub max_text_length: i64,
    /// The chat input's refusals before upload: `max-attachments`,
    /// `max-reference-images`, `max-reference-images-with-video`,
    /// `max-reference-videos`, `max-reference-audios`, `image-max-size-mb`,
    /// `video-max-size-mb`, `audio-max-size-mb`, `video-uploader-max-size-bytes`
    /// (each absent: the reference's chat default, no limit and no video
    /// uploader); its generic cap is `max-upload-bytes`.
    pub admission: AdmissionAttributes,
}

/// The chat input's limits as the element's attributes give them (the present ones, in
/// `ctxguard_core::attachment::ADMISSION_ATTRIBUTES` order): the worker reads them with
/// `AdmissionLimits::from_attributes`, so the toolbar's module carries no admission rule.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[serde(transparent)]
pub struct AdmissionAttributes(pub Vec<(String, String)>);

impl AdmissionAttributes {
    /// The admission attributes `attribute` gives.
    pub fn read(attribute: impl Fn(&str) -> Option<String>) -> Self {
        AdmissionAttributes(
            ADMISSION_ATTRIBUTES
                .iter()
                .filter_map(|name| attribute(name).map(|v| (name.to_string(), v)))
                .collect(),
        )
    }

    /// The value of attribute `name`, when given.
    pub fn get(&self, name: &str) -> Option<String> {
        self.0
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.clone())
    }
}

/// The backend's upload cap, `MAX_UPLOAD_FILE_SIZE_MB` = 100.
pub const DEFAULT_MAX_UPLOAD_BYTES: u64 = 100 * 1024 * 1024;
/// The backend's `MAX_EXTRACTED_TEXT_LENGTH`.
pub const DEFAULT_MAX_TEXT_LENGTH: i64 = 500_000;

impl PreviewConfig {
    /// Reads the attributes as [`ToolbarConfig::from_attributes`] does.
    pub fn from_attributes<'a>(
        attr: impl Fn(&str) -> Option<String>,
        inherited_lang: Option<&str>,
        browser_langs: impl IntoIterator<Item = &'a str>,
    ) -> Self {
        let text = |name: &str| trimmed(&attr, name);
        let max_upload_bytes = text("max-upload-bytes")
            .and_then(|v| v.parse::<u64>().ok())
            .unwrap_or(DEFAULT_MAX_UPLOAD_BYTES);
        PreviewConfig {
            model: text("model"),
            limit_tokens: text("limit")
                .and_then(|v| v.parse::<i64>().ok())
                .filter(|n| *n >= 0),
            lang: pick_lang(text("lang").as_deref(), inherited_lang, browser_langs),
            max_upload_bytes,
            max_text_length: text("max-text-length")
                .and_then(|v| v.parse::<i64>().ok())
                .filter(|n| *n > 0)
                .unwrap_or(DEFAULT_MAX_TEXT_LENGTH),
            admission: AdmissionAttributes::read(text),
        }
    }
}

fn pick_lang<'a>(
    own: Option<&str>,
    inherited: Option<&str>,
    browser: impl IntoIterator<Item = &'a str>,
) -> Lang {
    own.and_then(Lang::from_tag)
        .or_else(|| inherited.and_then(Lang::from_tag))
        .unwrap_or_else(|| Lang::pick(None, browser))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn attrs<'a>(pairs: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<String> + 'a {
        move |name| {
            pairs
                .iter()
                .find(|(k, _)| *k == name)
                .map(|(_, v)| v.to_string())
        }
    }

    #[test]
    fn toolbar_defaults() {
        let c = ToolbarConfig::from_attributes(attrs(&[]), None, ["fr-FR"]);
        assert_eq!(c.endpoints.session, "demo");
        assert_eq!(c.endpoints.server, "");
        assert_eq!(c.endpoints.token, None);
        assert_eq!(c.lang, Lang::En);
        assert_eq!(c.source, FeedSource::Sse);
        assert!(!c.compact);
        assert_eq!(c.stale_after_ms, 120_000);
        assert_eq!(c.stall_watch_ms(), Some(120_000.0));
        let quick = ToolbarConfig::from_attributes(attrs(&[("stale-after-ms", " 500 ")]), None, []);
        assert_eq!(quick.stale_after_ms, 500);
        for bad in ["0", "-5", "soon", "1.5"] {
            let c = ToolbarConfig::from_attributes(attrs(&[("stale-after-ms", bad)]), None, []);
            assert_eq!(c.stale_after_ms, DEFAULT_STALE_AFTER_MS, "{bad}");
        }
        let host = ToolbarConfig::from_attributes(attrs(&[("source", "host")]), None, []);
        assert_eq!(host.stall_watch_ms(), None);
    }

    #[test]
    fn toolbar_attributes() {
        let c = ToolbarConfig::from_attributes(
            attrs(&[
                ("session", " s1 "),
                ("server", "http://127.0.0.1:9/"),
                ("token", "r.abc"),
                ("source", "HOST"),
                ("compact", ""),
            ]),
            Some("zh-CN"),
            ["en-US"],
        );
        assert_eq!(c.endpoints.session, "s1");
        assert_eq!(c.endpoints.token.as_deref(), Some("r.abc"));
        assert_eq!(
            c.lang,
            Lang::ZhCn,
            "the document's lang before the browser's"
        );
        assert_eq!(c.source, FeedSource::Host);
        assert!(c.compact);
        let own = ToolbarConfig::from_attributes(attrs(&[("lang", "en")]), Some("zh-CN"), []);
        assert_eq!(own.lang, Lang::En);
        let browser = ToolbarConfig::from_attributes(attrs(&[("lang", "xx")]), None, ["zh-TW"]);
        assert_eq!(browser.lang, Lang::ZhCn);
        let off = ToolbarConfig::from_attributes(attrs(&[("compact", "false")]), None, []);
        assert!(!off.compact);
    }

    #[test]
    fn feed_changes() {
        let a = ToolbarConfig::from_attributes(attrs(&[("session", "a")]), None, []);
        let mut b = a.clone();
        b.lang = Lang::ZhCn;
        b.compact = true;
        assert!(!a.feed_changed(&b));
        for change in [
            &[("session", "b")][..],
            &[("session", "a"), ("server", "http://x")],
            &[("session", "a"), ("token", "t")],
            &[("session", "a"), ("source", "host")],
        ] {
            let c = ToolbarConfig::from_attributes(attrs(change), None, []);
            assert!(a.feed_changed(&c), "{change:?}");
        }
    }

    #[test]
    fn endpoints() {
        let e = Endpoints {
            server: "http://127.0.0.1:9000/".into(),
            session: "a b/c".into(),
            token: None,
        };
        assert_eq!(
            e.context_url(),
            "http://127.0.0.1:9000/api/sessions/a%20b%2Fc/context"
        );
        assert_eq!(
            e.events_url(Some(12)),
            "http://127.0.0.1:9000/api/sessions/a%20b%2Fc/events?last_event_id=12"
        );
        let t = Endpoints {
            server: String::new(),
            session: "demo".into(),
            token: Some("r.a+b/=&".into()),
        };
        assert_eq!(
            t.context_url(),
            "/api/sessions/demo/context?token=r.a%2Bb%2F%3D%26"
        );
        assert_eq!(
            t.events_url(Some(3)),
            "/api/sessions/demo/events?last_event_id=3&token=r.a%2Bb%2F%3D%26"
        );
        assert_eq!(
            t.events_url(None),
            "/api/sessions/demo/events?token=r.a%2Bb%2F%3D%26"
        );
        assert_eq!(percent_encode("会话"), "%E4%BC%9A%E8%AF%9D");
    }

    #[test]
    fn preview_attributes() {
        let p = PreviewConfig::from_attributes(
            attrs(&[
                ("model", "gpt-4"),
                ("limit", "900"),
                ("max-upload-bytes", "1048576"),
            ]),
            None,
            [],
        );
        assert_eq!(p.model.as_deref(), Some("gpt-4"));
        assert_eq!(p.limit_tokens, Some(900));
        assert_eq!(p.max_upload_bytes, 1_048_576);
        assert_eq!(p.max_text_length, DEFAULT_MAX_TEXT_LENGTH);
        let defaults =
            PreviewConfig::from_attributes(attrs(&[("max-upload-bytes", "lots")]), None, []);
        assert_eq!(defaults.max_upload_bytes, DEFAULT_MAX_UPLOAD_BYTES);
        for bad in ["-1", "1.5", "lots", ""] {
            let p = PreviewConfig::from_attributes(attrs(&[("limit", bad)]), None, []);
            assert_eq!(p.limit_tokens, None, "{bad}");
        }
    }

    #[test]
    fn admission_attributes_are_handed_on_as_given() {
        let d = PreviewConfig::from_attributes(attrs(&[]), None, []);
        assert_eq!(d.admission, AdmissionAttributes::default());
        let p = PreviewConfig::from_attributes(
            attrs(&[
                ("max-attachments", " 2 "),
                ("image-max-size-mb", "1.5"),
                ("limit", "9"),
            ]),
            None,
            [],
        );
        assert_eq!(p.admission.get("max-attachments").as_deref(), Some("2"));
        assert_eq!(p.admission.get("image-max-size-mb").as_deref(), Some("1.5"));
        assert_eq!(p.admission.0.len(), 2, "only the admission attributes");
        let json = serde_json::to_string(&p.admission).expect("JSON");
        assert_eq!(
            json,
            r#"[["max-attachments","2"],["image-max-size-mb","1.5"]]"#
        );
    }
}
