//! The bounds a [`crate::ServeGuard`] puts on what one client can make the server hold.

use std::time::Duration;

/// The limits a [`crate::ServeGuard`] enforces.
#[derive(Debug, Clone)]
pub struct ServeLimits {
    /// A larger request body is refused with 413 before it is read whole.
    pub max_body_bytes: usize,
    /// The whole body must arrive within this time (a slow-body client gets 408).
    pub body_timeout: Duration,
    /// Streams open at once; one more is refused with 503.
    pub max_streams: usize,
    /// How much of a refused body (413, 408) is read and dropped before the refusal is
    /// sent, so a client still sending reads the refusal rather than a reset connection.
    pub drain: BodyDrain,
}

/// The bound on draining a refused body: at most `bytes`, for at most `time`.
#[derive(Debug, Clone, Copy)]
pub struct BodyDrain {
    pub bytes: u64,
    pub time: Duration,
}
