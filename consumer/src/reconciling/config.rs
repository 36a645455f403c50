//! The reconciling consumer's limits.

use crate::client::ClientConfig;
use std::time::Duration;

/// The reconciling consumer's limits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReconcilingConfig {
    pub client: ClientConfig,
    /// Tasks it may start and give up for one job (the first dispatch included). Calls
    /// that start nothing (the Card unreadable, a send that failed) are retried with
    /// backoff until the job's deadline instead.
    pub max_dispatches: u32,
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
            max_dispatches: 8,
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
