//! The signals that stop a long-running subcommand: `serve` shuts down gracefully on them,
//! `check` kills the programs it started before it exits.

/// Resolves with the signal's name when SIGINT (Ctrl-C) or SIGTERM arrives. A signal that
/// cannot be watched is never reported.
pub async fn signal() -> &'static str {
    let interrupt = async {
        match tokio::signal::ctrl_c().await {
            Ok(()) => "SIGINT",
            Err(_) => std::future::pending().await,
        }
    };
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        let terminate = async {
            match signal(SignalKind::terminate()) {
                Ok(mut terminate) => {
                    terminate.recv().await;
                    "SIGTERM"
                }
                Err(_) => std::future::pending().await,
            }
        };
        tokio::select! {
            biased;
            name = interrupt => name,
            name = terminate => name,
        }
    }
    #[cfg(not(unix))]
    interrupt.await
}
