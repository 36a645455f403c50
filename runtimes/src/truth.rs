//! Ground truth: what really happened to every task of a host, for the oracle.
//!
//! A [`GroundTruth`] is created outside the runtime and handed in, so it outlives the
//! runtime's in-memory task store: when a simulated host crashes and comes back, the new
//! runtime instance writes to the same handle and the tasks the old one held are marked
//! lost. Times are the runtime's [`Clock`](meshsim_protocol::clock::Clock) readings
//! (simulated time since the pinned epoch inside the simulation).

use meshsim_protocol::TaskState;
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

/// One state change of a task. `from` is `None` for the task's creation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Transition {
    pub at: Duration,
    pub from: Option<TaskState>,
    pub to: TaskState,
}

/// How a task came to exist.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Origin {
    /// A message without a `taskId`.
    New,
    /// A follow-up carrying `requested_task_id` that the runtime answered with a new task
    /// (the id was unknown, e.g. reaped, or the personality starts new tasks on follow-up).
    FollowUpCreated { requested_task_id: String },
}

/// Why a live task left the store without reaching a terminal state.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Fate {
    /// The runtime dropped it (its reaping policy).
    Reaped { at: Duration, reason: String },
    /// The host's memory went away (crash or bounce).
    Lost { at: Duration },
}

/// Everything known about one task.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TaskTruth {
    pub id: String,
    pub context_id: String,
    /// Which runtime instance on this host created it (0 for the first, +1 per restart).
    pub instance: u32,
    pub origin: Origin,
    pub created_at: Duration,
    /// The state in the store (or when it left the store).
    pub state: TaskState,
    /// Every transition, in order, starting with the creation.
    pub transitions: Vec<Transition>,
    /// `Some` once the task left the store alive.
    pub fate: Option<Fate>,
    /// Whether the runtime refused a cancel of it while it was live (answered -32002, or
    /// answered with the task and went on): a consumer that reports such a refusal is
    /// believed only when it happened.
    pub cancel_refused: bool,
    /// The text of the task's artifacts as it holds them (each artifact's text parts, the
    /// artifacts in order): what a consumer that accepts it `completed` should report.
    pub artifact_text: String,
}

impl TaskTruth {
    /// Whether the task is still in a store and not terminal.
    pub fn is_live(&self) -> bool {
        self.fate.is_none() && !self.state.is_terminal()
    }

    /// The states the task went through, in order (creation included).
    pub fn states(&self) -> Vec<TaskState> {
        self.transitions
            .iter()
            .map(|transition| transition.to)
            .collect()
    }
}

#[derive(Debug, Default)]
struct Ledger {
    /// Every task record in creation order. A v0.1 client chooses task ids, so after a
    /// task was reaped or lost a new task may reuse its id: both records stay.
    records: Vec<TaskTruth>,
    /// The index of the latest record for each id.
    latest: BTreeMap<String, usize>,
    instances: u32,
    /// Off for a long-running `meshsim serve`: nobody reads its truth, and the ledger
    /// would grow with every task.
    unrecorded: bool,
}

impl Ledger {
    fn latest_mut(&mut self, id: &str) -> Option<&mut TaskTruth> {
        let index = *self.latest.get(id)?;
        self.records.get_mut(index)
    }
}

/// A shared, cloneable handle on a host's ground truth.
#[derive(Debug, Clone, Default)]
pub struct GroundTruth {
    ledger: Arc<Mutex<Ledger>>,
}

impl GroundTruth {
    /// An empty ledger.
    pub fn new() -> Self {
        Self::default()
    }

    /// A ledger that counts instances but records no task, so memory stays bounded in a
    /// server that runs for ever (`meshsim serve`); reads find nothing.
    pub fn unrecorded() -> Self {
        let truth = Self::default();
        truth.lock().unrecorded = true;
        truth
    }

    fn lock(&self) -> MutexGuard<'_, Ledger> {
        // A panic elsewhere must not hide the truth from the oracle.
        self.ledger
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// The latest record of the task with this id.
    pub fn task(&self, id: &str) -> Option<TaskTruth> {
        let ledger = self.lock();
        ledger
            .latest
            .get(id)
            .and_then(|index| ledger.records.get(*index))
            .cloned()
    }

    /// Every record with this id, oldest first (more than one when an id was reused).
    pub fn records(&self, id: &str) -> Vec<TaskTruth> {
        self.lock()
            .records
            .iter()
            .filter(|task| task.id == id)
            .cloned()
            .collect()
    }

    /// Every task record, in creation order.
    pub fn tasks(&self) -> Vec<TaskTruth> {
        self.lock().records.clone()
    }

    /// Whether a task with this id ever existed here (no record is copied).
    pub fn knows(&self, id: &str) -> bool {
        self.lock().latest.contains_key(id)
    }

    /// Whether no task was ever created here.
    pub fn is_empty(&self) -> bool {
        self.lock().records.is_empty()
    }

    /// The current state of the task with this id, if it ever existed.
    pub fn state(&self, id: &str) -> Option<TaskState> {
        self.task(id).map(|task| task.state)
    }

    /// How many runtime instances have written here.
    pub fn instances(&self) -> u32 {
        self.lock().instances
    }

    /// The host crashed or bounced at `at`: every task still live is lost.
    pub fn host_lost(&self, at: Duration) {
        let mut ledger = self.lock();
        for task in &mut ledger.records {
            if task.is_live() {
                task.fate = Some(Fate::Lost { at });
            }
        }
    }

    /// A new runtime instance starts writing here; tasks of earlier instances that were
    /// still live were lost with their store. Returns the new instance's number.
    pub(crate) fn begin_instance(&self, at: Duration) -> u32 {
        let mut ledger = self.lock();
        let instance = ledger.instances;
        ledger.instances += 1;
        for task in &mut ledger.records {
            if task.instance < instance && task.is_live() {
                task.fate = Some(Fate::Lost { at });
            }
        }
        instance
    }

    /// Records a new task (a runtime calls this; so do tests that craft evidence).
    pub fn created(&self, truth: TaskTruth) {
        let mut ledger = self.lock();
        if ledger.unrecorded {
            return;
        }
        let index = ledger.records.len();
        ledger.latest.insert(truth.id.clone(), index);
        ledger.records.push(truth);
    }

    /// Records that the latest task with this id moved to `to` at `at`.
    pub fn transition(&self, id: &str, at: Duration, to: TaskState) {
        if let Some(task) = self.lock().latest_mut(id) {
            task.transitions.push(Transition {
                at,
                from: Some(task.state),
                to,
            });
            task.state = to;
        }
    }

    /// Records that the runtime refused a cancel of the latest task with this id while it
    /// was live.
    pub fn cancel_refused(&self, id: &str) {
        if let Some(task) = self.lock().latest_mut(id) {
            task.cancel_refused = true;
        }
    }

    /// Records the text of the latest task with this id's artifacts, after a chunk.
    pub fn artifact_text(&self, id: &str, text: String) {
        if let Some(task) = self.lock().latest_mut(id) {
            task.artifact_text = text;
        }
    }

    /// Records that the runtime dropped the latest task with this id at `at`.
    pub fn reaped(&self, id: &str, at: Duration, reason: &str) {
        if let Some(task) = self.lock().latest_mut(id) {
            task.fate = Some(Fate::Reaped {
                at,
                reason: reason.to_string(),
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(id: &str, instance: u32) -> TaskTruth {
        TaskTruth {
            id: id.to_string(),
            context_id: "ctx".to_string(),
            instance,
            origin: Origin::New,
            created_at: Duration::ZERO,
            state: TaskState::Submitted,
            transitions: vec![Transition {
                at: Duration::ZERO,
                from: None,
                to: TaskState::Submitted,
            }],
            fate: None,
            cancel_refused: false,
            artifact_text: String::new(),
        }
    }

    #[test]
    fn transitions_are_logged_in_order() {
        let truth = GroundTruth::new();
        truth.created(record("a", 0));
        truth.transition("a", Duration::from_millis(5), TaskState::Working);
        truth.transition("a", Duration::from_millis(9), TaskState::Completed);
        let task = truth.task("a").unwrap();
        assert_eq!(
            task.states(),
            vec![
                TaskState::Submitted,
                TaskState::Working,
                TaskState::Completed
            ]
        );
        assert_eq!(task.transitions[2].from, Some(TaskState::Working));
        assert_eq!(task.transitions[2].at, Duration::from_millis(9));
        assert!(!task.is_live());
    }

    #[test]
    fn a_new_instance_loses_the_live_tasks_of_the_old_one() {
        let truth = GroundTruth::new();
        assert_eq!(truth.begin_instance(Duration::ZERO), 0);
        truth.created(record("live", 0));
        truth.created(record("done", 0));
        truth.transition("done", Duration::from_secs(1), TaskState::Completed);
        assert_eq!(truth.begin_instance(Duration::from_secs(2)), 1);
        assert_eq!(
            truth.task("live").unwrap().fate,
            Some(Fate::Lost {
                at: Duration::from_secs(2)
            })
        );
        assert_eq!(truth.task("done").unwrap().fate, None);
        assert_eq!(truth.instances(), 2);
    }

    #[test]
    fn host_lost_marks_only_live_tasks() {
        let truth = GroundTruth::new();
        truth.created(record("a", 0));
        truth.created(record("b", 0));
        truth.reaped("b", Duration::from_secs(1), "ttl");
        truth.host_lost(Duration::from_secs(3));
        assert_eq!(
            truth.task("a").unwrap().fate,
            Some(Fate::Lost {
                at: Duration::from_secs(3)
            })
        );
        assert!(matches!(
            truth.task("b").unwrap().fate,
            Some(Fate::Reaped { .. })
        ));
        assert_eq!(truth.tasks().len(), 2);
    }

    #[test]
    fn a_reused_id_keeps_both_records() {
        let truth = GroundTruth::new();
        truth.created(record("a", 0));
        truth.reaped("a", Duration::from_secs(1), "stream closed");
        let mut again = record("a", 0);
        again.origin = Origin::FollowUpCreated {
            requested_task_id: "a".to_string(),
        };
        truth.created(again);
        truth.transition("a", Duration::from_secs(2), TaskState::Working);
        let records = truth.records("a");
        assert_eq!(records.len(), 2);
        assert!(records[0].fate.is_some());
        assert_eq!(records[0].state, TaskState::Submitted);
        assert_eq!(records[1].state, TaskState::Working);
        assert_eq!(truth.state("a"), Some(TaskState::Working));
    }
}
