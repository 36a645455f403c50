//! What a request holds while it is answered: its place in the in-flight count, and for a
//! stream its slot under the stream cap and its end at shutdown.

use axum::body::{Body, Bytes, HttpBody};
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::task::{Context, Poll};
use tokio::sync::OwnedSemaphorePermit;

/// Counts a request in flight until dropped.
pub(super) struct InFlight(Arc<AtomicUsize>);

impl InFlight {
    pub(super) fn new(count: &Arc<AtomicUsize>) -> Self {
        count.fetch_add(1, Ordering::SeqCst);
        InFlight(Arc::clone(count))
    }
}

impl Drop for InFlight {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

/// A stream body that holds its slot under `--max-streams` and ends cleanly (the final
/// empty chunk) when the server shuts down.
pub(super) struct GuardedStream {
    pub(super) body: Body,
    pub(super) shutdown: Pin<Box<dyn Future<Output = ()> + Send>>,
    pub(super) _permit: Option<OwnedSemaphorePermit>,
    pub(super) _in_flight: InFlight,
}

impl HttpBody for GuardedStream {
    type Data = Bytes;
    type Error = axum::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<hyper::body::Frame<Bytes>, Self::Error>>> {
        if self.shutdown.as_mut().poll(cx).is_ready() {
            return Poll::Ready(None);
        }
        Pin::new(&mut self.body).poll_frame(cx)
    }
}
