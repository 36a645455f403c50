//! The task store as a state machine: no locks, no clock, no I/O.
//!
//! [`Core`] holds one runtime instance's tasks. Each command (a send, a step of a turn that
//! fell due, a subscribe, a cancel, a stream that went away, a reaping timer that fired)
//! is a method taking the simulated time it happens at; it decides through the
//! [`Behaviour`], changes the tasks, and returns its answer with the [`Effect`]s it caused,
//! in the order it caused them: ground-truth records, events for attached streams, turns
//! and timers to start. The store's shell ([`super::Host`]) carries the effects out under
//! its lock, so the order of what the outside sees is the order of decisions.

mod cancel;
mod entry;
mod sends;
mod streams;
mod turns;

#[cfg(test)]
mod tests;

use super::ids::Draws;
use super::listing::{self, Listed};
use crate::behaviour::Behaviour;
use crate::personality::{Personality, Timestamps};
use crate::step::TurnStep;
use crate::truth::TaskTruth;
use entry::Entry;
pub(crate) use entry::StreamId;
use meshsim_protocol::clock::rfc3339;
use meshsim_protocol::{
    Dialect, ErrorCode, ListTasksParams, RpcError, StreamEvent, Task, TaskList, TaskState,
};
use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

/// What a command caused, in order. Each is something the outside world sees or must do.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Effect {
    /// A task was created; ground truth records it as `truth` says.
    Created { truth: TaskTruth },
    /// A task's status changed.
    Transitioned {
        task: String,
        from: TaskState,
        to: TaskState,
    },
    /// A terminal task was dropped to make room (`max_tasks`); its streams go with it.
    Evicted {
        task: String,
        streams: Vec<StreamId>,
    },
    /// The executor never picks the new task up.
    Stalled { task: String },
    /// A cancel of the live task was refused (-32002, or answered and ignored).
    CancelRefused { task: String },
    /// A follow-up waits for the running turn to settle.
    Queued { task: String },
    /// Queued follow-ups were dropped (the task ended, or will not take them).
    QueueDropped { task: String, dropped: usize },
    /// An artifact chunk was produced; `text` is the text of the task's artifacts with it.
    ArtifactChunk {
        task: String,
        chunk: u32,
        last: bool,
        text: String,
    },
    /// A task left the store; `state` is the state it left in (a live one was reaped, which
    /// ground truth records). Its streams and waiting sends go with it.
    Reaped {
        task: String,
        state: TaskState,
        reason: String,
        streams: Vec<StreamId>,
    },
    /// A stream attached to a task; `kind` says why (`send`, `follow-up`, `resubscribe`...).
    StreamOpened {
        task: String,
        stream: StreamId,
        kind: &'static str,
    },
    /// An event for one attached stream.
    Delivered {
        stream: StreamId,
        event: StreamEvent,
    },
    /// A stream detached from its task and ends.
    StreamClosed {
        task: String,
        stream: StreamId,
        reason: String,
    },
    /// The task's turn settled: non-streaming sends waiting on it answer with `task`.
    Settled { task: Task },
    /// A turn starts: its steps, with the duration of each work step, for the executor.
    TurnStarted {
        task: String,
        epoch: u64,
        steps: Vec<TurnStep>,
        durations: Vec<Duration>,
    },
    /// Reap the task `after` from now unless it made a transition meanwhile.
    ReapTimer {
        task: String,
        transitions: u64,
        after: Duration,
        reason: &'static str,
    },
}

/// A command's answer and the effects it caused.
#[derive(Debug)]
pub(crate) struct Outcome<T> {
    pub(crate) reply: T,
    pub(crate) effects: Vec<Effect>,
}

/// What a send was answered with.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Accepted {
    /// The task as accepted.
    pub(crate) task: Task,
    /// For streaming sends: the stream opened for the task's events.
    pub(crate) stream: Option<StreamId>,
    /// For non-streaming sends: whether the answer waits for the turn to settle
    /// ([`Effect::Settled`]).
    pub(crate) waits: bool,
}

/// One runtime instance's tasks and the counters that order them.
pub(crate) struct Core {
    personality: Arc<Personality>,
    dialect: Dialect,
    behaviour: Arc<dyn Behaviour>,
    instance: u32,
    /// At most this many tasks (see [`Core::make_room`]); `None`: unbounded.
    max_tasks: Option<usize>,
    tasks: BTreeMap<String, Entry>,
    draws: Draws,
    next_stream: StreamId,
    /// Tasks created so far, for `stalled_first_tasks`.
    created: u64,
    /// Orders status changes store-wide, for ListTasks.
    next_update: u64,
    /// When the command being handled happens.
    now: Duration,
    effects: Vec<Effect>,
}

impl Core {
    /// An empty store for instance `instance` of a runtime seeded with `seed`.
    pub(crate) fn new(
        personality: impl Into<Arc<Personality>>,
        dialect: Dialect,
        behaviour: Arc<dyn Behaviour>,
        seed: u64,
        instance: u32,
        max_tasks: Option<usize>,
    ) -> Self {
        Core {
            personality: personality.into(),
            dialect,
            behaviour,
            instance,
            max_tasks,
            tasks: BTreeMap::new(),
            draws: Draws::new(seed, instance),
            next_stream: 0,
            created: 0,
            next_update: 0,
            now: Duration::ZERO,
            effects: Vec::new(),
        }
    }

    /// Starts handling a command that happens at `now`.
    fn begin(&mut self, now: Duration) {
        self.now = now;
        self.effects.clear();
    }

    /// Ends a command: its reply and the effects it caused.
    fn finish<T>(&mut self, reply: T) -> Outcome<T> {
        Outcome {
            reply,
            effects: std::mem::take(&mut self.effects),
        }
    }

    fn effect(&mut self, effect: Effect) {
        self.effects.push(effect);
    }

    /// The timestamp a status change gets now, if the behaviour stamps.
    fn stamp(&self) -> Option<String> {
        match self.behaviour.timestamps(&self.personality) {
            Timestamps::Absent => None,
            Timestamps::Present | Timestamps::RestampedOnReplay => Some(rfc3339(self.now)),
        }
    }

    /// `tasks/get` / `GetTask`.
    pub(crate) fn get(&self, id: &str, history_length: Option<i32>) -> Result<Task, RpcError> {
        let entry = self.tasks.get(id).ok_or_else(|| not_found(id))?;
        listing::trimmed(entry.task.clone(), history_length)
    }

    /// `ListTasks` (v1.0).
    pub(crate) fn list(&self, params: &ListTasksParams) -> Result<TaskList, RpcError> {
        let stored = self.tasks.values().map(|entry| Listed {
            task: &entry.task,
            updated: entry.updated,
        });
        listing::list(stored, params)
    }
}

fn error(code: ErrorCode, message: impl Into<String>) -> RpcError {
    RpcError::new(code, message)
}

fn not_found(id: &str) -> RpcError {
    error(ErrorCode::TaskNotFound, format!("task {id} not found"))
}
