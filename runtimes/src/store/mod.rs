//! One runtime instance's task store: the state machine ([`core`]) behind a lock, and the
//! shell that carries out what it decides ([`effects`]).
//!
//! Every operation takes the lock, hands the command to the [`Core`] with the clock's
//! reading, and carries out the effects it returns before the lock is released (ground
//! truth, trace events, stream events, waiting sends, turns and timers), so that the order
//! of what the outside sees is the order of decisions. The store dies with the instance;
//! the [`GroundTruth`] handle does not.

mod core;
mod effects;
mod ids;
mod listing;
pub(crate) mod probe;
mod shaping;

pub(crate) use listing::trimmed;

use crate::behaviour::Behaviour;
use crate::executor::Clockwork;
use crate::personality::Personality;
use crate::step::TurnStep;
use crate::truth::GroundTruth;
use core::{Core, StreamId};
use meshsim_protocol::clock::Clock;
use meshsim_protocol::{
    Dialect, ListTasksParams, RpcError, SendMessageParams, StreamEvent, Task, TaskList, TaskState,
};
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;
use tokio::sync::{mpsc, oneshot};

/// One runtime instance: its personality, its clock, its store.
pub(crate) struct Host {
    /// The runtime's, shared with its store and the runtime's other instances.
    pub(crate) personality: Arc<Personality>,
    pub(crate) dialect: Dialect,
    /// When the instance began (its Card's `Last-Modified`).
    pub(crate) started: Duration,
    behaviour: Arc<dyn Behaviour>,
    clock: Clock,
    truth: GroundTruth,
    shell: Mutex<Shell>,
}

/// The state machine and the channels its effects reach.
struct Shell {
    core: Core,
    streams: BTreeMap<StreamId, mpsc::UnboundedSender<StreamEvent>>,
    /// Non-streaming sends waiting for their task's turn to settle, by task id.
    waiters: BTreeMap<String, Vec<oneshot::Sender<Task>>>,
}

/// A stream attached to a task: its events, and a guard that detaches it when dropped
/// (the client went away or the body finished).
pub(crate) struct Subscription {
    pub(crate) task_id: String,
    pub(crate) events: mpsc::UnboundedReceiver<StreamEvent>,
    pub(crate) guard: Detach,
}

impl Subscription {
    /// Whether an event asserting `state` ends this stream, as the runtime's behaviour says.
    pub(crate) fn closes_on(&self, state: TaskState) -> bool {
        let host = &self.guard.host;
        host.behaviour.closes_stream(&host.personality, state)
    }
}

/// Detaches a stream from its task when dropped.
pub(crate) struct Detach {
    host: Arc<Host>,
    task_id: String,
    stream: StreamId,
}

impl Drop for Detach {
    fn drop(&mut self) {
        let mut shell = self.host.lock();
        let now = self.host.clock.now();
        let outcome = shell
            .core
            .stream_gone(now, &self.task_id, self.stream, "stream dropped");
        self.host.carry_out(&mut shell, outcome);
    }
}

/// What a send produced.
pub(crate) struct Sent {
    /// The task as accepted.
    pub(crate) accepted: Task,
    /// For streaming sends: the task's events.
    pub(crate) stream: Option<Subscription>,
    /// For non-streaming sends that answer when the turn settles.
    pub(crate) settled: Option<oneshot::Receiver<Task>>,
}

/// Receivers of the streams a command opened, until the command's answer takes its own.
type Opened = BTreeMap<StreamId, mpsc::UnboundedReceiver<StreamEvent>>;

impl Host {
    pub(crate) fn new(
        personality: impl Into<Arc<Personality>>,
        dialect: Dialect,
        clock: Clock,
        seed: u64,
        truth: GroundTruth,
        behaviour: Arc<dyn Behaviour>,
        max_tasks: Option<usize>,
    ) -> Arc<Self> {
        let personality = personality.into();
        let started = clock.now();
        let instance = truth.begin_instance(started);
        let core = Core::new(
            Arc::clone(&personality),
            dialect,
            Arc::clone(&behaviour),
            seed,
            instance,
            max_tasks,
        );
        Arc::new(Host {
            personality,
            dialect,
            started,
            behaviour,
            clock,
            truth,
            shell: Mutex::new(Shell {
                core,
                streams: BTreeMap::new(),
                waiters: BTreeMap::new(),
            }),
        })
    }

    fn lock(&self) -> MutexGuard<'_, Shell> {
        self.shell
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    fn name(&self) -> &str {
        &self.personality.name
    }

    /// `SendMessage` (`streaming` false) and `SendStreamingMessage`.
    pub(crate) fn send(
        self: &Arc<Self>,
        params: SendMessageParams,
        streaming: bool,
    ) -> Result<Sent, RpcError> {
        let mut shell = self.lock();
        let message = params.message;
        let id_seen_before = message
            .task_id
            .as_ref()
            .is_some_and(|id| self.truth.task(id).is_some());
        let outcome = shell
            .core
            .send(self.clock.now(), message, streaming, id_seen_before);
        let (accepted, mut opened) = self.carry_out(&mut shell, outcome);
        let accepted = accepted?;
        let id = accepted.task.id.clone();
        let stream = accepted
            .stream
            .map(|stream| self.subscription(&id, stream, &mut opened));
        let settled = accepted.waits.then(|| {
            let (sender, receiver) = oneshot::channel();
            shell.waiters.entry(id).or_default().push(sender);
            receiver
        });
        Ok(Sent {
            accepted: accepted.task,
            stream,
            settled,
        })
    }

    /// `tasks/resubscribe` / `SubscribeToTask`.
    pub(crate) fn subscribe(self: &Arc<Self>, id: &str) -> Result<Subscription, RpcError> {
        let mut shell = self.lock();
        let outcome = shell.core.subscribe(self.clock.now(), id);
        let (stream, mut opened) = self.carry_out(&mut shell, outcome);
        Ok(self.subscription(id, stream?, &mut opened))
    }

    /// `tasks/get` / `GetTask`.
    pub(crate) fn get(&self, id: &str, history_length: Option<i32>) -> Result<Task, RpcError> {
        self.lock().core.get(id, history_length)
    }

    /// `ListTasks` (v1.0).
    pub(crate) fn list(&self, params: &ListTasksParams) -> Result<TaskList, RpcError> {
        self.lock().core.list(params)
    }

    /// `tasks/cancel` / `CancelTask`.
    pub(crate) fn cancel(self: &Arc<Self>, id: &str) -> Result<Task, RpcError> {
        let mut shell = self.lock();
        let outcome = shell.core.cancel(self.clock.now(), id);
        self.carry_out(&mut shell, outcome).0
    }

    fn subscription(
        self: &Arc<Self>,
        id: &str,
        stream: StreamId,
        opened: &mut Opened,
    ) -> Subscription {
        // Every stream a command answers with was opened by it; were it not, the stream
        // would end at once rather than wait forever.
        let events = opened
            .remove(&stream)
            .unwrap_or_else(|| mpsc::unbounded_channel().1);
        Subscription {
            task_id: id.to_string(),
            events,
            guard: Detach {
                host: Arc::clone(self),
                task_id: id.to_string(),
                stream,
            },
        }
    }
}

impl Clockwork for Host {
    fn step_due(self: &Arc<Self>, task: &str, epoch: u64, step: TurnStep) -> bool {
        let mut shell = self.lock();
        let outcome = shell.core.step(self.clock.now(), task, epoch, step);
        self.carry_out(&mut shell, outcome).0
    }

    fn reap_due(self: &Arc<Self>, task: &str, transitions: u64, reason: &str) {
        let mut shell = self.lock();
        let outcome = shell
            .core
            .reap_if_idle(self.clock.now(), task, transitions, reason);
        self.carry_out(&mut shell, outcome);
    }
}
