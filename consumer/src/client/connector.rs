//! How the client reaches a peer: any `tower::Service<http::Uri>` that yields a byte stream
//! (the simulation's connector, or [`TcpConnector`] for real TCP).

use crate::job::BoxFuture;
use http::Uri;
use std::future::Future;
use std::io;
use std::task::{Context, Poll};
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::net::TcpStream;
use tower::{Service, ServiceExt};

/// An error from a connector.
pub type BoxError = Box<dyn std::error::Error + Send + Sync>;

/// A way to open a byte stream to the host and port of a URI. Implemented for every
/// `tower::Service<Uri>` of the right shape, so users never implement it by hand.
pub trait Connector: Clone + Send + Sync + 'static {
    /// The connection.
    type Stream: AsyncRead + AsyncWrite + Unpin + Send + 'static;

    /// Opens a connection to `uri`'s host and port. The future is not boxed here: the
    /// exchange that awaits it is boxed whole.
    fn connect(
        &self,
        uri: Uri,
    ) -> impl Future<Output = Result<Self::Stream, BoxError>> + Send + 'static;
}

impl<S> Connector for S
where
    S: Service<Uri> + Clone + Send + Sync + 'static,
    S::Response: AsyncRead + AsyncWrite + Unpin + Send + 'static,
    S::Error: Into<BoxError>,
    S::Future: Send + 'static,
{
    type Stream = S::Response;

    fn connect(
        &self,
        uri: Uri,
    ) -> impl Future<Output = Result<Self::Stream, BoxError>> + Send + 'static {
        let service = self.clone();
        async move { service.oneshot(uri).await.map_err(Into::into) }
    }
}

/// Real TCP (tokio), with a connect timeout. For `meshsim probe` and users' programs; the
/// simulation brings its own connector.
#[derive(Debug, Clone, Copy)]
pub struct TcpConnector {
    connect_timeout: Duration,
}

impl TcpConnector {
    /// A connector that gives up on a connect after `connect_timeout`.
    pub fn new(connect_timeout: Duration) -> Self {
        TcpConnector { connect_timeout }
    }
}

impl Default for TcpConnector {
    fn default() -> Self {
        TcpConnector::new(Duration::from_secs(5))
    }
}

impl Service<Uri> for TcpConnector {
    type Response = TcpStream;
    type Error = io::Error;
    type Future = BoxFuture<'static, io::Result<TcpStream>>;

    fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, uri: Uri) -> Self::Future {
        let timeout = self.connect_timeout;
        Box::pin(async move {
            let host = uri
                .host()
                .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "URI has no host"))?
                .trim_start_matches('[')
                .trim_end_matches(']')
                .to_string();
            let port = uri.port_u16().unwrap_or(80);
            match meshsim_time::timeout(timeout, TcpStream::connect((host.as_str(), port))).await {
                Ok(stream) => {
                    let stream = stream?;
                    stream.set_nodelay(true)?;
                    Ok(stream)
                }
                Err(_) => Err(io::Error::new(
                    io::ErrorKind::TimedOut,
                    format!("connect to {host}:{port} timed out after {timeout:?}"),
                )),
            }
        })
    }
}
