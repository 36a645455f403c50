//! Dialect shaping: how the store's events look in the dialect a runtime speaks.

use meshsim_protocol::{Dialect, StreamEvent, Task, TaskState, TaskStatusUpdateEvent};

/// The `final` flag of a status event: v1.0 has none.
pub(crate) fn final_flag(dialect: Dialect, closes: bool) -> Option<bool> {
    (dialect != Dialect::V1_0).then_some(closes)
}

/// A status update carrying the task's current status.
pub(crate) fn status_event(dialect: Dialect, task: &Task, closes: bool) -> StreamEvent {
    StreamEvent::StatusUpdate(TaskStatusUpdateEvent {
        task_id: task.id.clone(),
        context_id: task.context_id.clone(),
        status: task.status.clone(),
        is_final: final_flag(dialect, closes),
        metadata: None,
    })
}

/// A Task snapshot as a stream event; v0.1 has no snapshot event, so there it is a status
/// update carrying the current status.
pub(crate) fn snapshot_event(dialect: Dialect, task: &Task) -> StreamEvent {
    if dialect == Dialect::V0_1 {
        status_event(dialect, task, false)
    } else {
        StreamEvent::Task(task.clone())
    }
}

/// The state an event asserts, if it asserts one.
pub(crate) fn asserted(event: &StreamEvent) -> Option<TaskState> {
    match event {
        StreamEvent::StatusUpdate(update) => Some(update.status.state),
        StreamEvent::Task(task) => Some(task.status.state),
        StreamEvent::Message(_) | StreamEvent::ArtifactUpdate(_) => None,
    }
}

/// `log` replayed with every status stamped `now` (a runtime that restamps on replay).
pub(crate) fn restamped(log: &[StreamEvent], now: &str) -> Vec<StreamEvent> {
    log.iter()
        .cloned()
        .map(|mut event| {
            match &mut event {
                StreamEvent::StatusUpdate(update) => update.status.timestamp = Some(now.into()),
                StreamEvent::Task(task) => task.status.timestamp = Some(now.into()),
                StreamEvent::Message(_) | StreamEvent::ArtifactUpdate(_) => {}
            }
            event
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use meshsim_protocol::TaskStatus;

    fn task() -> Task {
        Task {
            id: "t".into(),
            context_id: Some("c".into()),
            status: TaskStatus::new(TaskState::Working, Some("then".into())),
            history: Vec::new(),
            artifacts: Vec::new(),
            metadata: None,
        }
    }

    #[test]
    fn v1_0_status_events_carry_no_final_flag() {
        let StreamEvent::StatusUpdate(update) = status_event(Dialect::V1_0, &task(), true) else {
            panic!("a status update")
        };
        assert_eq!(update.is_final, None);
        let StreamEvent::StatusUpdate(update) = status_event(Dialect::V0_3, &task(), true) else {
            panic!("a status update")
        };
        assert_eq!(update.is_final, Some(true));
    }

    #[test]
    fn v0_1_has_no_snapshot_event() {
        assert!(matches!(
            snapshot_event(Dialect::V0_1, &task()),
            StreamEvent::StatusUpdate(_)
        ));
        assert!(matches!(
            snapshot_event(Dialect::V0_3, &task()),
            StreamEvent::Task(_)
        ));
    }

    #[test]
    fn replays_are_restamped() {
        let log = vec![snapshot_event(Dialect::V1_0, &task())];
        let StreamEvent::Task(replayed) = &restamped(&log, "now")[0] else {
            panic!("a snapshot")
        };
        assert_eq!(replayed.status.timestamp.as_deref(), Some("now"));
    }
}
