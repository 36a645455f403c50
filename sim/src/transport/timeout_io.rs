//! An I/O wrapper that fails a read that waits longer than an idle timeout and a write that
//! stays blocked longer than a stall timeout, turning a silently dead simulated connection
//! (lost segment, partition) into an `io::ErrorKind::TimedOut` error.

use std::future::Future;
use std::io;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use super::receipts::Receipt;
use meshsim_time::{Sleep, sleep};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};

/// `inner` with optional read-idle and write-stall timeouts (simulated time under turmoil).
#[derive(Debug)]
pub struct TimeoutIo<S> {
    inner: S,
    read_idle: Option<Duration>,
    write_stall: Option<Duration>,
    read_timer: Option<Pin<Box<Sleep>>>,
    write_timer: Option<Pin<Box<Sleep>>>,
    /// Where what is read is kept for its job, if anywhere.
    receipt: Option<Receipt>,
}

impl<S> TimeoutIo<S> {
    /// `inner` without timeouts.
    pub fn new(inner: S) -> Self {
        Self {
            inner,
            read_idle: None,
            write_stall: None,
            read_timer: None,
            write_timer: None,
            receipt: None,
        }
    }

    /// Keep what is read in `receipt`.
    pub(super) fn with_receipt(mut self, receipt: Option<Receipt>) -> Self {
        self.receipt = receipt;
        self
    }

    /// Fail a read that has had no data for `idle`.
    pub fn with_read_idle(mut self, idle: Option<Duration>) -> Self {
        self.read_idle = idle;
        self
    }

    /// Fail a write that has been blocked for `stall`.
    pub fn with_write_stall(mut self, stall: Option<Duration>) -> Self {
        self.write_stall = stall;
        self
    }

    /// The wrapped stream.
    pub fn get_ref(&self) -> &S {
        &self.inner
    }
}

/// Polls the timer of a pending operation, creating it on the first pending poll.
fn expired(
    timer: &mut Option<Pin<Box<Sleep>>>,
    limit: Option<Duration>,
    cx: &mut Context<'_>,
) -> Option<Duration> {
    let limit = limit?;
    let sleep = timer.get_or_insert_with(|| Box::pin(sleep(limit)));
    if sleep.as_mut().poll(cx).is_ready() {
        *timer = None;
        Some(limit)
    } else {
        None
    }
}

impl<S: AsyncRead + Unpin> AsyncRead for TimeoutIo<S> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        let before = buf.filled().len();
        match Pin::new(&mut this.inner).poll_read(cx, buf) {
            Poll::Ready(result) => {
                this.read_timer = None;
                if let Some(receipt) = &mut this.receipt {
                    receipt.received(&buf.filled()[before..]);
                }
                Poll::Ready(result)
            }
            Poll::Pending => match expired(&mut this.read_timer, this.read_idle, cx) {
                Some(idle) => Poll::Ready(Err(io::Error::new(
                    io::ErrorKind::TimedOut,
                    format!("no data received for {} ms", idle.as_millis()),
                ))),
                None => Poll::Pending,
            },
        }
    }
}

impl<S: AsyncWrite + Unpin> AsyncWrite for TimeoutIo<S> {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        match Pin::new(&mut this.inner).poll_write(cx, buf) {
            Poll::Ready(result) => {
                this.write_timer = None;
                Poll::Ready(result)
            }
            Poll::Pending => match expired(&mut this.write_timer, this.write_stall, cx) {
                Some(stall) => Poll::Ready(Err(io::Error::new(
                    io::ErrorKind::TimedOut,
                    format!("write blocked for {} ms", stall.as_millis()),
                ))),
                None => Poll::Pending,
            },
        }
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().inner).poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().inner).poll_shutdown(cx)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::{AsyncReadExt, AsyncWriteExt, duplex};

    #[tokio::test(start_paused = true)]
    async fn an_idle_read_times_out_and_data_resets_the_clock() {
        let (mut far, near) = duplex(64);
        let mut io = TimeoutIo::new(near).with_read_idle(Some(Duration::from_millis(100)));
        let writer = tokio::spawn(async move {
            meshsim_time::sleep(Duration::from_millis(80)).await;
            far.write_all(b"x").await.unwrap();
            meshsim_time::sleep(Duration::from_millis(500)).await;
            drop(far);
        });
        let mut byte = [0u8; 1];
        io.read_exact(&mut byte).await.unwrap();
        // Still waiting after 99 ms of silence (the idle timer survives the dropped read)...
        let early = meshsim_time::timeout(Duration::from_millis(99), io.read(&mut byte)).await;
        assert!(early.is_err(), "failed before the idle timeout");
        // ...and failing at 100 ms.
        let late = meshsim_time::timeout(Duration::from_millis(2), io.read(&mut byte)).await;
        let err = late.expect("the idle timeout fired").unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::TimedOut);
        writer.abort();
    }

    #[tokio::test(start_paused = true)]
    async fn a_blocked_write_times_out() {
        let (_far, near) = duplex(4);
        let mut io = TimeoutIo::new(near).with_write_stall(Some(Duration::from_millis(50)));
        let err = io.write_all(b"more than four bytes").await.unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::TimedOut);
    }
}
