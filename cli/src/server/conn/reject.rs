//! The answer to a connection past `--max-connections`: a JSON 503 with
//! `Retry-After`, then a close that lets the client read it.

use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// Most rejections answered at once (each holds a descriptor for up to a second); past that, closed at once.
pub const MAX_IN_PROGRESS: usize = 32;
/// How long a rejection spends writing its answer and draining the request.
const REJECT_TIME: Duration = Duration::from_secs(1);

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

/// Answers `stream` with [`response`] and closes it, reading what the client
/// sent meanwhile (closing with unread bytes would reset the connection and
/// could lose the answer).
pub async fn answer(mut stream: TcpStream) {
    let _ = tokio::time::timeout(REJECT_TIME, async {
        stream.write_all(response().as_bytes()).await?;
        stream.shutdown().await?;
        let mut sink = [0u8; 4096];
        let mut drained = 0;
        while drained < 64 * 1024 {
            let n = stream.read(&mut sink).await?;
            if n == 0 {
                break;
            }
            drained += n;
        }
        Ok::<_, std::io::Error>(())
    })
    .await;
}
