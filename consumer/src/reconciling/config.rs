//! The reconciling consumer's limits.

use crate::client::ClientConfig;
use std::time::Duration;

/// The reconciling consumer's limits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReconcilingConfig {
    pub client: ClientConfig,
    /// Tasks it may give up itself for one job: the tasks it cancels or leaves while the
    /// peer may still have them (one sat past its deadline, one the peer replaced or whose
    /// follow-up it refused). Each may be work done twice, and a peer that never finishes
    /// one would otherwise be sent new ones until the job's deadline. Tasks the peer lost
    /// (it answered -32001 for them) leave nothing running and do not count; nor do calls
    /// that start nothing (the Card unreadable, a send that failed), which are retried
    /// with backoff. Both are bounded by the job's deadline.
    pub max_tasks_given_up: u32,
    /// Pause before the second attempt; it doubles with each further attempt (up to 16
    /// times), so that a partition or a restarting peer has time to come back.
    pub retry_backoff: Duration,
    /// Follow-ups it may send to one task.
    pub max_turns: u32,
    /// Pause between polls of a task it cannot stream.
    pub poll_interval: Duration,
}

impl Default for ReconcilingConfig {
    fn default() -> Self {
        ReconcilingConfig {
            client: ClientConfig::default(),
            max_tasks_given_up: 8,
            retry_backoff: Duration::from_millis(250),
            max_turns: 4,
            poll_interval: Duration::from_millis(200),
        }
    }
}

impl ReconcilingConfig {
    /// The pause before attempt `attempt` (counting from 0, which needs none).
    pub(super) fn backoff(&self, attempt: u32) -> Duration {
        self.retry_backoff * (1u32 << attempt.saturating_sub(1).min(4))
    }
}
