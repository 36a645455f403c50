//! One task in the store: the task as served, and what the state machine tracks about it.

use crate::behaviour::TaskFacts;
use crate::script::Script;
use meshsim_protocol::{Message, StreamEvent, Task};
use std::collections::{BTreeSet, VecDeque};

/// Identifies a stream attached to a task, unique within an instance.
pub(crate) type StreamId = u64;

pub(super) struct Entry {
    pub(super) task: Task,
    /// When its status last changed, in the store's update order: ListTasks lists the most
    /// recently updated first, and its page token is the last listed task's `updated`.
    pub(super) updated: u64,
    pub(super) script: Script,
    pub(super) turns: u32,
    /// Bumped when a turn starts or the task is canceled: a running turn whose epoch is
    /// stale stops.
    pub(super) epoch: u64,
    pub(super) active: bool,
    /// Every event emitted for the task, for replaying behaviours.
    pub(super) log: Vec<StreamEvent>,
    pub(super) streams: BTreeSet<StreamId>,
    /// Non-streaming sends waiting for the turn to settle.
    pub(super) waiters: usize,
    /// The stream that created the task, while it is attached.
    pub(super) creator_stream: Option<StreamId>,
    /// Transitions and follow-ups taken so far, so a reaping timer knows whether the task
    /// moved on (a task answered at `input-required` is not left without a follow-up, even
    /// before its next turn's first transition).
    pub(super) transitions: u64,
    pub(super) resubscribes: u32,
    /// The artifact being streamed in chunks.
    pub(super) artifact_id: Option<String>,
    /// Follow-ups that arrived while a turn ran, in order.
    pub(super) queued: VecDeque<Message>,
}

impl Entry {
    pub(super) fn new(task: Task, script: Script, updated: u64) -> Self {
        Entry {
            task,
            updated,
            script,
            turns: 0,
            epoch: 0,
            active: false,
            log: Vec::new(),
            streams: BTreeSet::new(),
            waiters: 0,
            creator_stream: None,
            transitions: 0,
            resubscribes: 0,
            artifact_id: None,
            queued: VecDeque::new(),
        }
    }

    /// What a behaviour may know about the task.
    pub(super) fn view(&self) -> TaskFacts {
        TaskFacts {
            id: self.task.id.clone(),
            state: self.task.status.state,
            turns: self.turns,
            active: self.active,
            open_streams: self.streams.len(),
            resubscribes: self.resubscribes,
        }
    }
}
