//! How reading one connection ended, and what it judged on the way.

use crate::client::ClientError;
use meshsim_protocol::TaskState;
use std::time::Duration;
use tokio::time::Instant;

/// Why reading a connection stopped.
pub(super) enum ReadEnd {
    /// The peer closed it.
    Closed,
    /// The task reached a state that waits for the client or ends it.
    Settled,
    /// A local deadline expired.
    Deadline(TaskState, Duration),
    /// The connection failed.
    Failed(ClientError),
    /// An event about another task than the one followed.
    ForeignTask(String),
    /// A whole task under the followed v0.1 id that the peer started afresh from a later
    /// message (its history begins with another request): the job's task is gone.
    Replaced,
}

/// What happened on one connection.
pub(super) struct ReadReport {
    pub(super) end: ReadEnd,
    pub(super) applied: usize,
    /// When the peer sent the first `submitted` this connection reported of a task that had
    /// already been applied a state, on the consumer's clock (see
    /// [`PeerClock::sent_at`](super::peer_clock::PeerClock::sent_at)). The ledger may hold
    /// it, and judge it a duplicate, only when the connection ends, seconds later.
    pub(super) resubmitted_at: Option<Instant>,
    pub(super) duplicate_submitted: bool,
    pub(super) replayed: bool,
}

impl ReadReport {
    /// A connection that ended as `end` with nothing judged.
    pub(super) fn ended(end: ReadEnd) -> Self {
        ReadReport {
            end,
            applied: 0,
            resubmitted_at: None,
            duplicate_submitted: false,
            replayed: false,
        }
    }
}
