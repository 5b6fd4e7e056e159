//! The socket as hyper sees it: every read is reported to the connection's
//! [`Activity`], and the bodiless error responses hyper writes by itself for
//! requests it cannot parse (400 malformed, 414 URI too long, 431 headers
//! too large) are given a JSON body, like every other error of the server.
//! A head too large because of its request line is answered 414, not 431.

use super::activity::Activity;
use crate::server::state::MAX_URI_BYTES;
use std::io;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{ready, Context, Poll};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};

/// A socket watched for activity, with hyper's own error responses rewritten.
#[derive(Debug)]
pub struct WatchedIo<S> {
    inner: S,
    activity: Arc<Activity>,
    /// A rewritten response still to write, and how much of it is written.
    pending: Option<(Vec<u8>, usize)>,
    /// Whether the current request line is still being read, and its bytes so far.
    request_line: (bool, usize),
}

impl<S> WatchedIo<S> {
    /// Wraps `inner`, reporting reads to `activity`.
    pub fn new(inner: S, activity: Arc<Activity>) -> Self {
        WatchedIo {
            inner,
            activity,
            pending: None,
            request_line: (true, 0),
        }
    }
}

impl<S: AsyncWrite + Unpin> WatchedIo<S> {
    fn flush_pending(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        while let Some((bytes, written)) = &mut self.pending {
            if *written == bytes.len() {
                self.pending = None;
                break;
            }
            let n = ready!(Pin::new(&mut self.inner).poll_write(cx, &bytes[*written..]))?;
            if n == 0 {
                return Poll::Ready(Err(io::ErrorKind::WriteZero.into()));
            }
            *written += n;
        }
        Poll::Ready(Ok(()))
    }
}

impl<S: AsyncRead + Unpin> AsyncRead for WatchedIo<S> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        let before = buf.filled().len();
        ready!(Pin::new(&mut this.inner).poll_read(cx, buf))?;
        let fresh = &buf.filled()[before..];
        if !fresh.is_empty() {
            this.activity.read();
            if let (true, bytes) = this.request_line {
                this.request_line = match fresh.iter().position(|b| *b == b'\n') {
                    Some(end) => (false, bytes + end),
                    None => (true, bytes + fresh.len()),
                };
            }
        }
        Poll::Ready(Ok(()))
    }
}

impl<S: AsyncWrite + Unpin> AsyncWrite for WatchedIo<S> {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        ready!(this.flush_pending(cx))?;
        let line_too_long = this.request_line.1 > MAX_URI_BYTES;
        // What the client sends after this response starts a new request line.
        this.request_line = (true, 0);
        if let Some(rewritten) = json_error_response(buf, line_too_long) {
            this.pending = Some((rewritten, 0));
            // Written as far as the socket takes it now; the rest on the next flush.
            if let Poll::Ready(Err(e)) = this.flush_pending(cx) {
                return Poll::Ready(Err(e));
            }
            return Poll::Ready(Ok(buf.len()));
        }
        Pin::new(&mut this.inner).poll_write(cx, buf)
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        ready!(this.flush_pending(cx))?;
        Pin::new(&mut this.inner).poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        ready!(this.flush_pending(cx))?;
        Pin::new(&mut this.inner).poll_shutdown(cx)
    }

    // Not vectored, so hyper hands over each response head whole in one write.
    fn is_write_vectored(&self) -> bool {
        false
    }
}

/// A bodiless 4xx/5xx response head as hyper writes it for a request it could
/// not parse, rewritten with a JSON body (a 431 whose request line alone was
/// too long becomes a 414); `None` for anything else (every response of the
/// server's own handlers has a body).
pub fn json_error_response(head: &[u8], request_line_too_long: bool) -> Option<Vec<u8>> {
    let text = std::str::from_utf8(head).ok()?;
    let status_line_end = text.find("\r\n")?;
    let status_line = &text[..status_line_end];
    let rest = status_line
        .strip_prefix("HTTP/1.1 ")
        .or_else(|| status_line.strip_prefix("HTTP/1.0 "))?;
    let (code, reason) = rest.split_once(' ').unwrap_or((rest, ""));
    let code: u16 = code.parse().ok()?;
    if !(400..600).contains(&code) || text.find("\r\n\r\n")? != text.len() - 4 {
        return None;
    }
    let headers: Vec<&str> = text[status_line_end + 2..text.len() - 4]
        .split("\r\n")
        .collect();
    if !headers
        .iter()
        .any(|h| h.eq_ignore_ascii_case("content-length: 0"))
    {
        return None;
    }
    let (code, status_line) = if code == 431 && request_line_too_long {
        (414, format!("{} 414 URI Too Long", &status_line[..8]))
    } else {
        (code, status_line.to_string())
    };
    let message = match code {
        400 => "malformed request: it is not valid HTTP/1.1".to_string(),
        414 => "URI too long".to_string(),
        431 => "request header fields too large".to_string(),
        _ => reason.to_lowercase(),
    };
    let body = serde_json::json!({ "error": message }).to_string();
    let mut out = format!(
        "{status_line}\r\ncontent-type: application/json\r\ncontent-length: {}\r\n",
        body.len()
    );
    for h in headers
        .iter()
        .filter(|h| !h.to_ascii_lowercase().starts_with("content-length:"))
    {
        out.push_str(h);
        out.push_str("\r\n");
    }
    out.push_str("\r\n");
    out.push_str(&body);
    Some(out.into_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rewrites_hyper_s_bodiless_errors_only() {
        let head = b"HTTP/1.1 431 Request Header Fields Too Large\r\nconnection: close\r\ncontent-length: 0\r\ndate: x\r\n\r\n";
        let out =
            String::from_utf8(json_error_response(head, false).expect("rewritten")).expect("utf-8");
        let (top, body) = out.split_once("\r\n\r\n").expect("head and body");
        assert!(top.starts_with(
            "HTTP/1.1 431 Request Header Fields Too Large\r\ncontent-type: application/json\r\n"
        ));
        assert!(
            top.contains(&format!("content-length: {}", body.len()))
                && top.contains("connection: close")
        );
        assert!(!top.contains("content-length: 0"));
        assert_eq!(body, r#"{"error":"request header fields too large"}"#);
        for keep in [
            &b"HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n"[..],
            b"HTTP/1.1 404 Not Found\r\ncontent-type: application/json\r\ncontent-length: 20\r\n\r\n",
            b"HTTP/1.1 400 Bad Request\r\ncontent-length: 0\r\n\r\n{\"x\":1}",
            b"data: {}\n\n",
        ] {
            assert!(json_error_response(keep, false).is_none(), "{}", String::from_utf8_lossy(keep));
        }
        let out =
            String::from_utf8(json_error_response(head, true).expect("rewritten")).expect("utf-8");
        assert!(
            out.starts_with("HTTP/1.1 414 URI Too Long\r\n")
                && out.ends_with(r#"{"error":"URI too long"}"#),
            "{out}"
        );
    }
}
