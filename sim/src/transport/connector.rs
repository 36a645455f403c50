//! The client side over turmoil TCP: a `tower::Service<http::Uri>` that dials the URI's
//! host and port with a connect timeout, for `hyper::client::conn::http1::handshake`.

use std::future::Future;
use std::io;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use http::Uri;
use tower::Service;
use turmoil::net::TcpStream;

use super::TimeoutIo;
use crate::trace::NET_TARGET;

/// Dials turmoil TCP. Cheap to clone.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TurmoilConnector {
    connect_timeout: Duration,
    read_idle: Option<Duration>,
    write_stall: Option<Duration>,
}

/// Why a connection could not be made.
#[derive(Debug, thiserror::Error)]
pub enum ConnectError {
    /// The URI has no host.
    #[error("cannot connect to {uri}: the URI has no host")]
    NoHost { uri: String },
    /// No connection within the connect timeout (a partition drops the SYN silently).
    #[error("connecting to {target} timed out after {} ms", .after.as_millis())]
    Timeout { target: String, after: Duration },
    /// The network refused (no listener, unknown host, ...).
    #[error("connecting to {target} failed: {source}")]
    Io {
        target: String,
        #[source]
        source: io::Error,
    },
}

impl TurmoilConnector {
    /// A connector giving up on a connection attempt after `connect_timeout`.
    pub fn new(connect_timeout: Duration) -> Self {
        Self {
            connect_timeout,
            read_idle: None,
            write_stall: None,
        }
    }

    /// Connections fail a read that waits longer than `idle` for data.
    pub fn with_read_idle_timeout(mut self, idle: Duration) -> Self {
        self.read_idle = Some(idle);
        self
    }

    /// Connections fail a write blocked longer than `stall`.
    pub fn with_write_stall_timeout(mut self, stall: Duration) -> Self {
        self.write_stall = Some(stall);
        self
    }

    async fn connect(self, uri: Uri) -> Result<TimeoutIo<TcpStream>, ConnectError> {
        let host = uri.host().ok_or_else(|| ConnectError::NoHost {
            uri: uri.to_string(),
        })?;
        let port = uri
            .port_u16()
            .unwrap_or(if uri.scheme_str() == Some("https") {
                443
            } else {
                80
            });
        let target = format!("{host}:{port}");
        let attempt = TcpStream::connect((host.to_string(), port));
        match tokio::time::timeout(self.connect_timeout, attempt).await {
            Ok(Ok(stream)) => {
                tracing::info!(target: NET_TARGET, event = "connect", to = %target, outcome = "ok");
                Ok(TimeoutIo::new(stream)
                    .with_read_idle(self.read_idle)
                    .with_write_stall(self.write_stall))
            }
            Ok(Err(source)) => {
                tracing::info!(
                    target: NET_TARGET, event = "connect", to = %target, outcome = "error", error = %source
                );
                Err(ConnectError::Io { target, source })
            }
            Err(_) => {
                tracing::info!(target: NET_TARGET, event = "connect", to = %target, outcome = "timeout");
                Err(ConnectError::Timeout {
                    target,
                    after: self.connect_timeout,
                })
            }
        }
    }
}

impl Service<Uri> for TurmoilConnector {
    type Response = TimeoutIo<TcpStream>;
    type Error = ConnectError;
    type Future = Pin<Box<dyn Future<Output = Result<Self::Response, Self::Error>> + Send>>;

    fn poll_ready(&mut self, _cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, uri: Uri) -> Self::Future {
        Box::pin(self.clone().connect(uri))
    }
}
