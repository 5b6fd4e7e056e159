//! The answer to a connection past `--max-connections`: a JSON 503 with
//! `Retry-After`, then a close that lets the client read it.

use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// Most rejections lingering at once (each holds a descriptor a moment); past it, answered without lingering.
pub const MAX_IN_PROGRESS: usize = 32;
/// How long a lingering rejection writes its answer and reads what the client sends.
const LINGER: Duration = Duration::from_millis(500);
/// A lingering rejection stops reading once the client has been quiet this long.
const QUIET: Duration = Duration::from_millis(100);

/// The raw response of a rejected connection.
pub fn response() -> String {
    let body = serde_json::json!({
        "error": "too many connections: the server is at its --max-connections; retry shortly"
    })
    .to_string();
    format!(
        "HTTP/1.1 503 Service Unavailable\r\ncontent-type: application/json\r\ncontent-length: {}\r\nretry-after: 1\r\nconnection: close\r\n\r\n{body}",
        body.len()
    )
}

/// Answers `stream` with [`response`] once its request began to arrive (or
/// after a moment of silence) and closes it, reading what the client sends
/// meanwhile (closing on unread bytes would reset the connection and could
/// lose the answer).
pub async fn answer(mut stream: TcpStream) {
    let _ = tokio::time::timeout(LINGER, async {
        let mut sink = [0u8; 4096];
        if let Ok(Ok(0)) = tokio::time::timeout(LINGER / 2, stream.read(&mut sink)).await {
            return Ok(());
        }
        while matches!(stream.try_read(&mut sink), Ok(n) if n > 0) {}
        stream.write_all(response().as_bytes()).await?;
        stream.shutdown().await?;
        while let Ok(Ok(n)) = tokio::time::timeout(QUIET, stream.read(&mut sink)).await {
            if n == 0 {
                break;
            }
        }
        Ok::<_, std::io::Error>(())
    })
    .await;
}

/// [`answer`] without waiting: reads what has arrived, writes what the socket takes now, closes.
pub fn answer_now(stream: TcpStream) {
    let mut sink = [0u8; 4096];
    while matches!(stream.try_read(&mut sink), Ok(n) if n > 0) {}
    let _ = stream.try_write(response().as_bytes());
}
