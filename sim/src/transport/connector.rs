//! The client side over turmoil TCP: a `tower::Service<http::Uri>` that dials the URI's
//! host and port with a connect timeout, for `hyper::client::conn::http1::handshake`, or
//! for hyper-util's pooled client once its connections are wrapped for hyper's I/O traits:
//! `Client::builder(TokioExecutor::new()).build(connector.map_response(TokioIo::new))`.

use std::future::Future;
use std::io;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use http::Uri;
use hyper_util::client::legacy::connect::{Connected, Connection};
use tower::Service;
use turmoil::net::TcpStream;

use super::{Receipts, TimeoutIo};
use meshsim_protocol::digits::push_decimal;
use meshsim_trace::{ConnectOutcome, ErrorKind, TraceEvent};

/// Dials turmoil TCP. Cheap to clone.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TurmoilConnector {
    connect_timeout: Duration,
    read_idle: Option<Duration>,
    write_stall: Option<Duration>,
    receipts: Option<Receipts>,
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
            receipts: None,
        }
    }

    /// Connections keep the JSON strings they receive in `receipts`, under the name of the
    /// [`receiving_for`](super::receiving_for) job they are opened in (under none when
    /// opened outside every job, as by a task the consumer spawned).
    pub fn with_receipts(mut self, receipts: Receipts) -> Self {
        self.receipts = Some(receipts);
        self
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
        // `host:port` for the trace, written without `format!` (one per exchange).
        let mut target = String::with_capacity(host.len() + 6);
        target.push_str(host);
        target.push(':');
        push_decimal(&mut target, u64::from(port));
        let attempt = TcpStream::connect((host, port));
        match meshsim_time::timeout(self.connect_timeout, attempt).await {
            Ok(Ok(stream)) => {
                TraceEvent::Connect {
                    to: target.as_str().into(),
                    outcome: ConnectOutcome::Ok,
                }
                .emit();
                let receipt = self.receipts.as_ref().map(Receipts::for_connection);
                Ok(TimeoutIo::new(stream)
                    .with_read_idle(self.read_idle)
                    .with_write_stall(self.write_stall)
                    .with_receipt(receipt))
            }
            Ok(Err(source)) => {
                TraceEvent::Connect {
                    to: target.as_str().into(),
                    outcome: ConnectOutcome::Error(ErrorKind::of(&source)),
                }
                .emit();
                Err(ConnectError::Io { target, source })
            }
            Err(_) => {
                TraceEvent::Connect {
                    to: target.as_str().into(),
                    outcome: ConnectOutcome::Timeout,
                }
                .emit();
                Err(ConnectError::Timeout {
                    target,
                    after: self.connect_timeout,
                })
            }
        }
    }
}

/// What hyper-util's pooled client asks of a connection: nothing beyond plain HTTP/1.1 (no
/// proxy, no ALPN).
impl Connection for TimeoutIo<TcpStream> {
    fn connected(&self) -> Connected {
        Connected::new()
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

#[cfg(test)]
mod tests {
    use super::*;
    use std::error::Error;
    use tokio::io::{AsyncRead, AsyncWrite};
    use tower::ServiceExt;

    /// The connector contract the consumer and the sidecar rely on.
    fn assert_connector<C>()
    where
        C: Service<Uri> + Clone + Send + Sync + 'static,
        C::Response: AsyncRead + AsyncWrite + Unpin + Send + 'static,
        C::Error: Into<Box<dyn Error + Send + Sync>>,
        C::Future: Send,
    {
    }

    #[test]
    fn meets_the_connector_contract() {
        assert_connector::<TurmoilConnector>();
    }

    #[test]
    fn held_syns_time_out_and_hostless_uris_are_refused() {
        let mut sim = turmoil::Builder::new()
            .rng_seed(1)
            .max_message_latency(Duration::from_millis(5))
            .build();
        sim.host("server", || async {
            let listener = crate::transport::SimListener::bind(80).await?;
            match crate::transport::serve(listener, axum::Router::new()).await {}
        });
        sim.client("client", async {
            let connector = TurmoilConnector::new(Duration::from_millis(100));
            let connected = connector.clone().oneshot("http://server/".parse()?).await;
            if let Err(err) = connected {
                return Err(format!("the healthy link must connect: {err}").into());
            }
            turmoil::hold("client", "server");
            match connector
                .clone()
                .oneshot("http://server:80/".parse()?)
                .await
            {
                Err(ConnectError::Timeout { target, after }) => {
                    assert_eq!(target, "server:80");
                    assert_eq!(after, Duration::from_millis(100));
                }
                other => return Err(format!("expected a timeout, got {other:?}").into()),
            }
            match connector.oneshot("/relative".parse()?).await {
                Err(err @ ConnectError::NoHost { .. }) => {
                    assert_eq!(
                        err.to_string(),
                        "cannot connect to /relative: the URI has no host"
                    );
                }
                other => return Err(format!("expected NoHost, got {other:?}").into()),
            }
            Ok(())
        });
        sim.run().unwrap();
    }
}
