//! Stopping: the signals that stop the server, and the switch every task
//! watches (a `watch` channel that turns true once).

use tokio::sync::watch;

/// Resolves once `switch` is true (or its sender is gone).
pub async fn stopped(switch: &mut watch::Receiver<bool>) {
    let _ = switch.wait_for(|stop| *stop).await;
}

/// Resolves on Ctrl-C or SIGTERM.
pub async fn signal() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let terminate = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let terminate = std::future::pending::<()>();
    tokio::select! {
        _ = ctrl_c => {}
        _ = terminate => {}
    }
}
