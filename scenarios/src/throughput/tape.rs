//! A connector that tapes every byte its connections carry, so that the protocol floor can
//! replay exactly what a simulated run put on the wire. Taping copies bytes and changes
//! nothing the peers see: a taped run keeps the untaped run's trace hash.

use crate::lock::lock;
use meshsim_consumer::{BoxError, BoxFuture, Connector};
use std::io;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tower::Service;

/// What one connection carried each way.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Tape {
    /// Bytes the client wrote (its requests).
    pub sent: Vec<u8>,
    /// Bytes the client read (the answers).
    pub received: Vec<u8>,
}

/// The tapes of every connection, in the order they were opened.
#[derive(Debug, Clone, Default)]
pub struct Tapes(Arc<Mutex<Vec<Arc<Mutex<Tape>>>>>);

impl Tapes {
    /// A copy of every tape so far.
    pub fn snapshot(&self) -> Vec<Tape> {
        lock(&self.0)
            .iter()
            .map(|tape| lock(tape).clone())
            .collect()
    }

    fn open(&self) -> Arc<Mutex<Tape>> {
        let tape = Arc::new(Mutex::new(Tape::default()));
        lock(&self.0).push(Arc::clone(&tape));
        tape
    }
}

/// Wraps a connector: every connection it opens is taped into `tapes`.
#[derive(Debug, Clone)]
pub struct TapingConnector<C> {
    inner: C,
    tapes: Tapes,
}

impl<C> TapingConnector<C> {
    pub fn new(inner: C, tapes: Tapes) -> Self {
        TapingConnector { inner, tapes }
    }
}

impl<C: Connector> Service<http::Uri> for TapingConnector<C> {
    type Response = Taped<C::Stream>;
    type Error = BoxError;
    type Future = BoxFuture<'static, Result<Taped<C::Stream>, BoxError>>;

    fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), BoxError>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, uri: http::Uri) -> Self::Future {
        let connect = self.inner.connect(uri);
        let tapes = self.tapes.clone();
        Box::pin(async move {
            let stream = connect.await?;
            Ok(Taped {
                stream,
                tape: tapes.open(),
            })
        })
    }
}

/// A connection whose bytes are copied onto a [`Tape`].
#[derive(Debug)]
pub struct Taped<S> {
    stream: S,
    tape: Arc<Mutex<Tape>>,
}

impl<S: AsyncRead + Unpin> AsyncRead for Taped<S> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let before = buf.filled().len();
        let polled = Pin::new(&mut self.stream).poll_read(cx, buf);
        if let Poll::Ready(Ok(())) = polled {
            lock(&self.tape)
                .received
                .extend_from_slice(&buf.filled()[before..]);
        }
        polled
    }
}

impl<S: AsyncWrite + Unpin> AsyncWrite for Taped<S> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        data: &[u8],
    ) -> Poll<io::Result<usize>> {
        let polled = Pin::new(&mut self.stream).poll_write(cx, data);
        if let Poll::Ready(Ok(written)) = polled {
            lock(&self.tape).sent.extend_from_slice(&data[..written]);
        }
        polled
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.stream).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.stream).poll_shutdown(cx)
    }
}
