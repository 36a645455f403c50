//! v0.1's client-chosen task ids: confirming that the task under the job's id is still the
//! job's, not one the peer started afresh from a later message after losing ours; and the
//! task read whole where v0.1's streams left events of it unread.

use super::run::{DispatchEnd, Run};
use crate::client::Connector;
use crate::report::{AnomalyKind, CancelResult};
use meshsim_protocol::{Dialect, Role, Task};

/// How many times the whole task is asked for when only it has the whole artifact, the
/// pause before each growing as between dispatches.
const FETCHES: u32 = 8;

impl<C: Connector> Run<'_, C> {
    /// In v0.1 the client names tasks, so an answer to a task the peer lost in the meantime
    /// (reaped, or gone with a restart) silently starts a new task under the same id, and
    /// its outcome answers the answer, not the job. Before accepting an outcome there, the
    /// task's history must begin with the job's request; `Err` to start over when it does
    /// not, else the task as fetched (`None` where nothing was fetched). Elsewhere a lost id
    /// is -32001 or a new id, which the reads already catch.
    ///
    /// Where events of the task went unread (`events_unread`), the fetched task is also the
    /// only whole account of its artifacts: a fetch that fails is tried again with backoff,
    /// and a task the peer no longer has is lost, its artifacts with it. Elsewhere the
    /// events read have every chunk, and a failed fetch leaves the outcome to them.
    pub(super) async fn confirm_ours(
        &mut self,
        task_id: &str,
        events_unread: bool,
    ) -> Result<Option<Task>, DispatchEnd> {
        if self.session.client.dialect() != Dialect::V0_1 {
            return Ok(None);
        }
        let mut attempt = 0;
        let task = loop {
            let error = match self.session.client.get_task(task_id).await {
                Ok(task) => break task,
                Err(_) if !events_unread => return Ok(None),
                Err(error) if error.is_task_not_found() => {
                    return Err(self.task_lost(task_id, &error));
                }
                Err(error) => error,
            };
            self.session
                .recorder
                .anomaly(task_id, AnomalyKind::Protocol, error.to_string());
            attempt += 1;
            if attempt == FETCHES {
                let reason = "it ended, but its artifacts could not be read whole";
                self.session
                    .recorder
                    .abandoned(task_id, reason, CancelResult::NotAttempted);
                return Err(DispatchEnd::Redispatch(format!("task {task_id}: {reason}")));
            }
            meshsim_time::sleep(self.config.backoff(attempt)).await;
        };
        match self.check_ours(&task).await {
            Some(end) => Err(end),
            None => Ok(Some(task)),
        }
    }

    /// `Some` to start over when `task`, fetched under the job's v0.1 task id, is one the
    /// peer started afresh from a later message.
    pub(super) async fn check_ours(&mut self, task: &Task) -> Option<DispatchEnd> {
        if !self.began_elsewhere(task) {
            return None;
        }
        Some(self.replaced(&task.id).await)
    }

    /// Whether `task`, reported under the job's v0.1 task id, is one the peer started
    /// afresh from a later message: its history begins with another request. Such a task
    /// asks its first question again, which looks like a new question, or like the one
    /// already answered when the peer stamps nothing; an answer to it would complete a task
    /// that never saw the job. A history without a request proves nothing.
    pub(super) fn began_elsewhere(&self, task: &Task) -> bool {
        if self.session.client.dialect() != Dialect::V0_1 {
            return false;
        }
        task.history
            .iter()
            .find(|message| message.role == Role::User)
            .is_some_and(|first| first.text_content() != self.session.job.request)
    }

    /// The task under the job's id is the peer's own, started afresh: say so, cancel it,
    /// and start over.
    pub(super) async fn replaced(&mut self, task_id: &str) -> DispatchEnd {
        self.session.recorder.anomaly(
            task_id,
            AnomalyKind::NewTaskOnFollowup,
            "the task under this id began with another request: the peer lost ours and started afresh",
        );
        self.session
            .abandon(
                task_id,
                "the peer replaced it with a task of its own under the same id",
            )
            .await;
        DispatchEnd::Redispatch(format!(
            "task {task_id} was restarted by the peer under the same id"
        ))
    }
}
