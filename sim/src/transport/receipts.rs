//! What each job's connections received: the JSON strings a consumer was sent, kept per job
//! (the job a connection is opened for is the one whose future opened it, named by
//! [`receiving_for`]; a connection opened by a task the consumer spawned belongs to no job),
//! so that the oracle can tell which task ids reached which job. Only a connector given
//! [`Receipts`] keeps them; nothing of it reaches the trace.

use super::json_strings::JsonStrings;
use std::collections::BTreeSet;
use std::future::Future;
use std::sync::{Arc, Mutex, MutexGuard};

tokio::task_local! {
    static RECEIVING_FOR: Arc<str>;
}

/// Runs `job`'s future so that the connections it opens keep what they receive under
/// `name` (a connection opened by a task it spawns keeps what it receives under no job:
/// tokio's task-locals do not pass to spawned tasks).
pub async fn receiving_for<F: Future>(name: &str, job: F) -> F::Output {
    RECEIVING_FOR.scope(name.into(), job).await
}

/// The strings each job's connections received, in the order each was first received;
/// `None` for the job of a connection opened outside every [`receiving_for`] job.
#[derive(Clone, Debug, Default)]
pub struct Receipts {
    received: Arc<Mutex<Received>>,
}

#[derive(Debug, Default)]
struct Received {
    seen: BTreeSet<(Option<Arc<str>>, String)>,
    order: Vec<(Option<Arc<str>>, String)>,
}

impl PartialEq for Receipts {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.received, &other.received)
    }
}

impl Eq for Receipts {}

impl Receipts {
    pub fn new() -> Self {
        Self::default()
    }

    fn lock(&self) -> MutexGuard<'_, Received> {
        self.received
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Every (job, string) received, each once, in the order first received; the job is
    /// `None` for a connection opened outside every [`receiving_for`] job.
    pub fn received(&self) -> Vec<(Option<String>, String)> {
        self.lock()
            .order
            .iter()
            .map(|(job, text)| (job.as_deref().map(str::to_string), text.clone()))
            .collect()
    }

    /// The receipt of a connection opened now, for the [`receiving_for`] job it is opened
    /// in, if any.
    pub(super) fn for_connection(&self) -> Receipt {
        Receipt {
            receipts: self.clone(),
            job: RECEIVING_FOR.try_with(Arc::clone).ok(),
            strings: JsonStrings::default(),
        }
    }
}

/// What one connection received, kept for its job.
#[derive(Debug)]
pub struct Receipt {
    receipts: Receipts,
    job: Option<Arc<str>>,
    strings: JsonStrings,
}

impl Receipt {
    /// Reads `bytes`, as the connection received them.
    pub(super) fn received(&mut self, bytes: &[u8]) {
        let mut found = Vec::new();
        self.strings.feed(bytes, &mut found);
        if found.is_empty() {
            return;
        }
        let mut received = self.receipts.lock();
        for text in found {
            let key = (self.job.clone(), text);
            if received.seen.insert(key.clone()) {
                received.order.push(key);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_connection_keeps_what_it_receives_for_the_job_that_opened_it() {
        let receipts = Receipts::new();
        receiving_for("a", async {
            let mut first = receipts.for_connection();
            first.received(br#"{"id":"t-"#);
            first.received(br#"1","kind":"task"}"#);
            let mut second = receipts.for_connection();
            second.received(br#"{"id":"t-1"}"#);
        })
        .await;
        receiving_for("b", async {
            let mut connection = receipts.for_connection();
            connection.received(br#"{"id":"t-1"}"#);
        })
        .await;
        let mut outside = receipts.for_connection();
        outside.received(br#"{"id":"t-2"}"#);
        let pairs = |list: &[(Option<&str>, &str)]| -> Vec<(Option<String>, String)> {
            list.iter()
                .map(|(job, text)| (job.map(str::to_string), text.to_string()))
                .collect()
        };
        assert_eq!(
            receipts.received(),
            pairs(&[
                (Some("a"), "id"),
                (Some("a"), "t-1"),
                (Some("a"), "kind"),
                (Some("a"), "task"),
                (Some("b"), "id"),
                (Some("b"), "t-1"),
                (None, "id"),
                (None, "t-2"),
            ])
        );
    }
}
