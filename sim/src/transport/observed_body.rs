//! A response body wrapper that reports a streamed (SSE) body to the trace: one
//! `stream_event` per data frame and one `stream_close` when it ends, fails or is dropped
//! unfinished (client gone, host crashed).

use std::pin::Pin;
use std::task::{Context, Poll};

use axum::body::Body;
use bytes::Bytes;
use hyper::body::{Body as HttpBody, Frame, SizeHint};

use meshsim_trace::{ErrorKind, StreamEnd, TraceEvent};

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

    fn close(&mut self, end: StreamEnd) {
        self.closed = true;
        TraceEvent::StreamClose {
            conn: self.conn,
            frames: self.frames,
            end,
        }
        .emit();
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
                    TraceEvent::StreamFrame {
                        conn: this.conn,
                        seq: this.frames,
                        bytes: u64::try_from(data.len()).unwrap_or(u64::MAX),
                    }
                    .emit();
                }
            }
            Poll::Ready(Some(Err(err))) => this.close(StreamEnd::Error(ErrorKind::of(err))),
            Poll::Ready(None) if !this.closed => this.close(StreamEnd::End),
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
            self.close(StreamEnd::Dropped);
        }
    }
}
