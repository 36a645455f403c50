//! A response body wrapper that reports a streamed (SSE) body to the trace: one
//! `stream_event` per data frame and one `stream_close` when it ends, fails or is dropped
//! unfinished (client gone, host crashed).

use std::pin::Pin;
use std::task::{Context, Poll};

use axum::body::Body;
use bytes::Bytes;
use hyper::body::{Body as HttpBody, Frame, SizeHint};

use crate::trace::NET_TARGET;

/// `inner`, observed as the stream of connection `conn`.
pub(super) struct ObservedBody {
    inner: Body,
    conn: u64,
    frames: u64,
    closed: bool,
}

impl ObservedBody {
    pub(super) fn new(inner: Body, conn: u64) -> Self {
        Self {
            inner,
            conn,
            frames: 0,
            closed: false,
        }
    }

    fn close(&mut self, outcome: &str, error: Option<String>) {
        self.closed = true;
        let (conn, frames) = (self.conn, self.frames);
        match error {
            Some(error) => tracing::info!(
                target: NET_TARGET, event = "stream_close", conn, frames, outcome, error
            ),
            None => {
                tracing::info!(target: NET_TARGET, event = "stream_close", conn, frames, outcome)
            }
        }
    }
}

impl HttpBody for ObservedBody {
    type Data = Bytes;
    type Error = axum::Error;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Self::Error>>> {
        let this = self.get_mut();
        let polled = Pin::new(&mut this.inner).poll_frame(cx);
        match &polled {
            Poll::Ready(Some(Ok(frame))) => {
                if let Some(data) = frame.data_ref() {
                    this.frames += 1;
                    let (conn, seq, bytes) = (this.conn, this.frames, data.len());
                    tracing::info!(target: NET_TARGET, event = "stream_event", conn, seq, bytes);
                }
            }
            Poll::Ready(Some(Err(err))) => this.close("error", Some(err.to_string())),
            Poll::Ready(None) if !this.closed => this.close("end", None),
            Poll::Ready(None) | Poll::Pending => {}
        }
        polled
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}

impl Drop for ObservedBody {
    fn drop(&mut self) {
        if !self.closed {
            self.close("dropped", None);
        }
    }
}
