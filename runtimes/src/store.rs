//! One runtime instance's in-memory task store and the lifecycle operations on it.
//!
//! Every operation takes the store's lock, decides with the personality (through the
//! [`Behaviour`]), changes the task, writes ground truth and pushes events to the attached
//! streams, all before the lock is released, so that the order of events is the order of
//! decisions. The store dies with the instance; the [`GroundTruth`] handle does not.

use crate::behaviour::{Behaviour, TaskView};
use crate::executor;
use crate::personality::{
    BusyFollowUp, CancelOutcome, FollowUp, FollowUpOpening, NewTaskOpening, Personality, Reaping,
    Resubscribe, TerminalCancel, Timestamps, UnknownTask,
};
use crate::script::{Script, Step};
use crate::truth::{GroundTruth, Origin, TaskTruth, Transition};
use meshsim_protocol::clock::Clock;
use meshsim_protocol::{
    Artifact, Dialect, ErrorCode, ListTasksParams, Message, Part, Role, RpcError,
    SendMessageParams, StreamEvent, Task, TaskArtifactUpdateEvent, TaskList, TaskState, TaskStatus,
    TaskStatusUpdateEvent,
};
use meshsim_trace::{TaskOrigin, TraceEvent};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::collections::{BTreeMap, VecDeque};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;
use tokio::sync::{mpsc, oneshot};

/// One runtime instance: its personality, its clock, its store.
pub(crate) struct Host {
    pub(crate) personality: Personality,
    pub(crate) dialect: Dialect,
    clock: Clock,
    truth: GroundTruth,
    behaviour: Arc<dyn Behaviour>,
    instance: u32,
    /// At most this many tasks in the store (see [`Host::make_room`]); `None`: unbounded.
    max_tasks: Option<usize>,
    store: Mutex<Store>,
}

struct Store {
    tasks: BTreeMap<String, Entry>,
    rng: ChaCha8Rng,
    next_stream: u64,
    next_seq: u64,
    /// Orders status changes store-wide, for ListTasks.
    next_update: u64,
}

struct Entry {
    task: Task,
    /// When its status last changed, in `next_update` order: ListTasks lists the most
    /// recently updated first, and its page token is the last listed task's `updated`.
    updated: u64,
    script: Script,
    turns: u32,
    /// Bumped when a turn starts or the task is canceled: a running turn whose epoch is
    /// stale stops.
    epoch: u64,
    active: bool,
    /// Every event emitted for the task, for replaying personalities.
    log: Vec<StreamEvent>,
    streams: BTreeMap<u64, mpsc::UnboundedSender<StreamEvent>>,
    /// Non-streaming sends waiting for the turn to settle.
    waiters: Vec<oneshot::Sender<Task>>,
    /// The stream that created the task, while it is attached.
    creator_stream: Option<u64>,
    /// Transitions and follow-ups taken so far, so a reaping timer knows whether the task
    /// moved on (a task answered at `input-required` is not left without a follow-up, even
    /// before its next turn's first transition).
    transitions: u64,
    resubscribes: u32,
    /// The artifact being streamed in chunks.
    artifact_id: Option<String>,
    /// Follow-ups that arrived while a turn ran, in order.
    queued: VecDeque<Message>,
}

impl Entry {
    fn view(&self) -> TaskView {
        TaskView {
            id: self.task.id.clone(),
            state: self.task.status.state,
            turns: self.turns,
            active: self.active,
            open_streams: self.streams.len(),
            resubscribes: self.resubscribes,
        }
    }
}

/// A stream attached to a task: its events, and a guard that detaches it when dropped
/// (the client went away or the body finished).
pub(crate) struct Subscription {
    pub(crate) task_id: String,
    pub(crate) events: mpsc::UnboundedReceiver<StreamEvent>,
    pub(crate) guard: Detach,
}

/// Detaches a stream from its task when dropped.
pub(crate) struct Detach {
    host: Arc<Host>,
    task_id: String,
    stream: u64,
}

impl Drop for Detach {
    fn drop(&mut self) {
        let mut store = self.host.lock();
        self.host
            .detach(&mut store, &self.task_id, self.stream, "stream dropped");
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

fn error(code: ErrorCode, message: impl Into<String>) -> RpcError {
    RpcError::new(code, message)
}

fn not_found(id: &str) -> RpcError {
    error(ErrorCode::TaskNotFound, format!("task {id} not found"))
}

/// A UUID-shaped id drawn from the seeded generator.
fn fresh_id(rng: &mut ChaCha8Rng) -> String {
    let bytes: [u8; 16] = rng.random();
    let hex: String = bytes.iter().map(|byte| format!("{byte:02x}")).collect();
    format!(
        "{}-{}-{}-{}-{}",
        &hex[0..8],
        &hex[8..12],
        &hex[12..16],
        &hex[16..20],
        &hex[20..32]
    )
}

impl Host {
    pub(crate) fn new(
        personality: Personality,
        dialect: Dialect,
        clock: Clock,
        seed: u64,
        truth: GroundTruth,
        behaviour: Arc<dyn Behaviour>,
        max_tasks: Option<usize>,
    ) -> Arc<Self> {
        let instance = truth.begin_instance(clock.now());
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        // A restarted instance must not hand out the ids of its predecessor.
        rng.set_stream(u64::from(instance));
        Arc::new(Host {
            personality,
            dialect,
            clock,
            truth,
            behaviour,
            instance,
            max_tasks,
            store: Mutex::new(Store {
                tasks: BTreeMap::new(),
                rng,
                next_stream: 0,
                next_seq: 0,
                next_update: 0,
            }),
        })
    }

    fn lock(&self) -> MutexGuard<'_, Store> {
        self.store
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    fn name(&self) -> &str {
        &self.personality.name
    }

    fn stamp(&self) -> Option<String> {
        match self.personality.timestamps {
            Timestamps::Absent => None,
            Timestamps::Present | Timestamps::RestampedOnReplay => Some(self.clock.now_rfc3339()),
        }
    }

    /// The `final` flag of a status event: v1.0 has none.
    fn final_flag(&self, closes: bool) -> Option<bool> {
        (self.dialect != Dialect::V1_0).then_some(closes)
    }

    /// A Task snapshot as a stream event; v0.1 has no snapshot event, so there it is a
    /// status update carrying the current status.
    fn snapshot_event(&self, task: &Task) -> StreamEvent {
        if self.dialect == Dialect::V0_1 {
            StreamEvent::StatusUpdate(TaskStatusUpdateEvent {
                task_id: task.id.clone(),
                context_id: task.context_id.clone(),
                status: task.status.clone(),
                is_final: self.final_flag(false),
                metadata: None,
            })
        } else {
            StreamEvent::Task(task.clone())
        }
    }

    // ---- sends -------------------------------------------------------------------------

    /// `SendMessage` (`streaming` false) and `SendStreamingMessage`.
    pub(crate) fn send(
        self: &Arc<Self>,
        params: SendMessageParams,
        streaming: bool,
    ) -> Result<Sent, RpcError> {
        let mut store = self.lock();
        let message = params.message;
        let Some(id) = message.task_id.clone() else {
            return self.create(&mut store, message, None, Origin::New, streaming);
        };
        let Some(entry) = store.tasks.get(&id) else {
            if self.dialect == Dialect::V0_1 {
                // v0.1 clients choose task ids: an unknown id names a new task.
                let origin = match self.truth.task(&id) {
                    Some(_) => Origin::FollowUpCreated {
                        requested_task_id: id.clone(),
                    },
                    None => Origin::New,
                };
                return self.create(&mut store, message, Some(id), origin, streaming);
            }
            return match self.personality.unknown_task {
                UnknownTask::NotFound => Err(not_found(&id)),
                UnknownTask::NewTask => {
                    let origin = Origin::FollowUpCreated {
                        requested_task_id: id,
                    };
                    self.create(&mut store, message, None, origin, streaming)
                }
            };
        };
        if let (Some(sent), Some(held)) = (&message.context_id, &entry.task.context_id)
            && sent != held
        {
            return Err(error(
                ErrorCode::InvalidParams,
                format!("contextId {sent} does not match task {id}'s context {held}"),
            ));
        }
        let state = entry.task.status.state;
        if state.is_terminal() {
            return Err(error(
                self.personality.terminal_send_error,
                format!("task {id} is in terminal state {state}"),
            ));
        }
        if entry.active || !state.is_interrupted() {
            let resumes = matches!(
                self.behaviour.follow_up(&self.personality, &entry.view()),
                FollowUp::Resume | FollowUp::ResumeWithDuplicateSubmitted
            );
            if self.personality.busy_follow_up == BusyFollowUp::Queue && resumes {
                return self.enqueue(&mut store, &id, message, streaming);
            }
            return Err(error(
                ErrorCode::UnsupportedOperation,
                format!("task {id} is {state} and not waiting for input"),
            ));
        }
        match self.behaviour.follow_up(&self.personality, &entry.view()) {
            FollowUp::Resume => self.resume(&mut store, &id, message, false, streaming),
            FollowUp::ResumeWithDuplicateSubmitted => {
                self.resume(&mut store, &id, message, true, streaming)
            }
            FollowUp::NewTask => {
                let origin = Origin::FollowUpCreated {
                    requested_task_id: id,
                };
                let mut message = message;
                message.task_id = None;
                self.create(&mut store, message, None, origin, streaming)
            }
            FollowUp::NotFound => Err(not_found(&id)),
        }
    }

    fn create(
        self: &Arc<Self>,
        store: &mut Store,
        mut message: Message,
        client_id: Option<String>,
        origin: Origin,
        streaming: bool,
    ) -> Result<Sent, RpcError> {
        self.make_room(store)?;
        let id = client_id.unwrap_or_else(|| fresh_id(&mut store.rng));
        let context_id = message
            .context_id
            .clone()
            .unwrap_or_else(|| fresh_id(&mut store.rng));
        message.task_id = Some(id.clone());
        message.context_id = Some(context_id.clone());
        let input = message.text_content();
        let script = Script::for_message(&message);
        let task = Task {
            id: id.clone(),
            context_id: Some(context_id.clone()),
            status: TaskStatus::new(TaskState::Submitted, self.stamp()),
            history: vec![message],
            artifacts: Vec::new(),
            metadata: None,
        };
        let now = self.clock.now();
        self.truth.created(TaskTruth {
            id: id.clone(),
            context_id,
            instance: self.instance,
            origin: origin.clone(),
            created_at: now,
            state: TaskState::Submitted,
            transitions: vec![Transition {
                at: now,
                from: None,
                to: TaskState::Submitted,
            }],
            fate: None,
        });
        TraceEvent::TaskCreated {
            runtime: self.name().into(),
            task: id.as_str().into(),
            origin: match origin {
                Origin::New => TaskOrigin::New,
                Origin::FollowUpCreated { .. } => TaskOrigin::FollowUp,
            },
            to: TaskState::Submitted,
        }
        .emit();
        let seq = store.next_seq;
        store.next_seq += 1;
        let updated = store.next_update;
        store.next_update += 1;
        store.tasks.insert(
            id.clone(),
            Entry {
                task: task.clone(),
                updated,
                script,
                turns: 0,
                epoch: 0,
                active: false,
                log: Vec::new(),
                streams: BTreeMap::new(),
                waiters: Vec::new(),
                creator_stream: None,
                transitions: 0,
                resubscribes: 0,
                artifact_id: None,
                queued: VecDeque::new(),
            },
        );
        let stream = streaming.then(|| {
            let subscription = self.attach(store, &id, "send");
            if let Some(entry) = store.tasks.get_mut(&id) {
                entry.creator_stream = Some(subscription.guard.stream);
            }
            subscription
        });
        let opening = match self.personality.opening.new_task {
            NewTaskOpening::Snapshot => self.snapshot_event(&task),
            NewTaskOpening::StatusUpdate => self.status_event(&task, false),
        };
        self.emit(store, &id, opening, None);
        self.after_transition(store, &id, TaskState::Submitted);
        if seq >= u64::from(self.personality.stalled_first_tasks) {
            self.start_turn(store, &id, &input);
        } else {
            TraceEvent::TaskStalled {
                runtime: self.name().into(),
                task: id.as_str().into(),
            }
            .emit();
        }
        let settled = (!streaming).then(|| self.waiter(store, &id)).flatten();
        Ok(Sent {
            accepted: task,
            stream,
            settled,
        })
    }

    /// Makes room for one more task under `max_tasks`: evicts the terminal task whose
    /// status changed longest ago (its answer was given; only a later GetTask misses it),
    /// and while no task is terminal refuses the new one, so the store never outgrows it.
    fn make_room(&self, store: &mut Store) -> Result<(), RpcError> {
        let Some(max) = self.max_tasks else {
            return Ok(());
        };
        while store.tasks.len() >= max {
            let oldest = store
                .tasks
                .iter()
                .filter(|(_, entry)| entry.task.status.state.is_terminal())
                .min_by_key(|(_, entry)| entry.updated)
                .map(|(id, _)| id.clone());
            let Some(id) = oldest else {
                return Err(error(
                    ErrorCode::InternalError,
                    format!(
                        "the task store is full: {max} tasks, none finished (--max-tasks); \
                         retry when one ends"
                    ),
                ));
            };
            store.tasks.remove(&id);
            TraceEvent::TaskEvicted {
                runtime: self.name().into(),
                task: id.as_str().into(),
            }
            .emit();
        }
        Ok(())
    }

    fn resume(
        self: &Arc<Self>,
        store: &mut Store,
        id: &str,
        message: Message,
        duplicate_submitted: bool,
        streaming: bool,
    ) -> Result<Sent, RpcError> {
        let input = self
            .accept_follow_up(store, id, message)
            .ok_or_else(|| not_found(id))?;
        let stream = streaming.then(|| {
            let subscription = self.attach(store, id, "follow-up");
            let snapshot = store
                .tasks
                .get(id)
                .map(|entry| self.snapshot_event(&entry.task));
            if let (FollowUpOpening::Snapshot, Some(snapshot)) =
                (self.personality.opening.follow_up, snapshot)
            {
                self.send_to(store, id, subscription.guard.stream, snapshot);
            }
            subscription
        });
        let accepted = self
            .run_follow_up(store, id, &input, duplicate_submitted)
            .ok_or_else(|| not_found(id))?;
        let settled = (!streaming).then(|| self.waiter(store, id)).flatten();
        Ok(Sent {
            accepted,
            stream,
            settled,
        })
    }

    /// A follow-up joins the task's history and picks the script of its turn; its text.
    fn accept_follow_up(
        &self,
        store: &mut Store,
        id: &str,
        mut message: Message,
    ) -> Option<String> {
        let entry = store.tasks.get_mut(id)?;
        entry.transitions += 1;
        entry.script = entry.script.for_follow_up(&message);
        message.task_id = Some(id.to_string());
        message.context_id = entry.task.context_id.clone();
        let input = message.text_content();
        entry.task.history.push(message);
        Some(input)
    }

    /// Starts the turn an accepted follow-up opens, first moving the task back to
    /// `submitted` if the personality does that; the task as the turn starts.
    fn run_follow_up(
        self: &Arc<Self>,
        store: &mut Store,
        id: &str,
        input: &str,
        duplicate_submitted: bool,
    ) -> Option<Task> {
        let mut accepted = store.tasks.get(id)?.task.clone();
        if duplicate_submitted
            && let Some(task) = self.set_status(store, id, TaskState::Submitted, None)
        {
            accepted = task;
        }
        self.start_turn(store, id, input);
        Some(accepted)
    }

    /// A follow-up to a task whose turn still runs waits for the turn to settle (a2a-python
    /// 1.3); its stream attaches now and sees the rest of the running turn.
    fn enqueue(
        self: &Arc<Self>,
        store: &mut Store,
        id: &str,
        message: Message,
        streaming: bool,
    ) -> Result<Sent, RpcError> {
        let entry = store.tasks.get_mut(id).ok_or_else(|| not_found(id))?;
        entry.queued.push_back(message);
        let accepted = entry.task.clone();
        TraceEvent::FollowUpQueued {
            runtime: self.name().into(),
            task: id.into(),
        }
        .emit();
        let stream = streaming.then(|| self.attach(store, id, "queued follow-up"));
        let settled = (!streaming).then(|| self.waiter(store, id)).flatten();
        Ok(Sent {
            accepted,
            stream,
            settled,
        })
    }

    /// When a turn settles: an interrupted task takes the next queued follow-up as its
    /// answer; a terminal one drops whatever was queued.
    fn drain_queue(self: &Arc<Self>, store: &mut Store, id: &str, state: TaskState) {
        let Some(entry) = store.tasks.get_mut(id) else {
            return;
        };
        if state.is_terminal() {
            let dropped = entry.queued.len();
            entry.queued.clear();
            if dropped > 0 {
                TraceEvent::FollowUpsDropped {
                    runtime: self.name().into(),
                    task: id.into(),
                    dropped: u64::try_from(dropped).unwrap_or(u64::MAX),
                }
                .emit();
            }
            return;
        }
        if !state.is_interrupted() {
            return;
        }
        let Some(message) = entry.queued.pop_front() else {
            return;
        };
        let duplicate_submitted = match self.behaviour.follow_up(&self.personality, &entry.view()) {
            FollowUp::Resume => false,
            FollowUp::ResumeWithDuplicateSubmitted => true,
            FollowUp::NewTask | FollowUp::NotFound => {
                TraceEvent::FollowUpsDropped {
                    runtime: self.name().into(),
                    task: id.into(),
                    dropped: 1,
                }
                .emit();
                return;
            }
        };
        if let Some(input) = self.accept_follow_up(store, id, message) {
            self.run_follow_up(store, id, &input, duplicate_submitted);
        }
    }

    /// A receiver for the task as it is when its turn settles, if the personality answers
    /// non-streaming sends then.
    fn waiter(&self, store: &mut Store, id: &str) -> Option<oneshot::Receiver<Task>> {
        if self.personality.send_reply != crate::personality::SendReply::WhenSettled {
            return None;
        }
        let (sender, receiver) = oneshot::channel();
        store.tasks.get_mut(id)?.waiters.push(sender);
        Some(receiver)
    }

    // ---- the executor's side -----------------------------------------------------------

    fn start_turn(self: &Arc<Self>, store: &mut Store, id: &str, input: &str) {
        let Some(entry) = store.tasks.get(id) else {
            return;
        };
        let steps = entry
            .script
            .turn(entry.turns, input, self.personality.work.long_running_steps);
        let work = &self.personality.work;
        let durations: Vec<Duration> = steps
            .iter()
            .filter(|step| **step == Step::Work)
            .map(|_| Duration::from_millis(store.rng.random_range(work.min_ms..=work.max_ms)))
            .collect();
        let Some(entry) = store.tasks.get_mut(id) else {
            return;
        };
        entry.turns += 1;
        entry.epoch += 1;
        entry.active = true;
        let epoch = entry.epoch;
        tokio::spawn(executor::run_turn(
            Arc::clone(self),
            id.to_string(),
            epoch,
            steps,
            durations,
        ));
    }

    /// Does one non-waiting step of a turn; false when the turn is stale (the task was
    /// canceled, reaped or moved on) and must stop.
    pub(crate) fn step(self: &Arc<Self>, id: &str, epoch: u64, step: Step) -> bool {
        let mut store = self.lock();
        let current = store
            .tasks
            .get(id)
            .is_some_and(|entry| entry.epoch == epoch);
        if !current {
            return false;
        }
        match step {
            Step::Work => {}
            Step::Status { state, question } => {
                self.set_status(&mut store, id, state, question);
            }
            Step::Artifact { part, chunk, last } => {
                self.artifact(&mut store, id, part, chunk, last)
            }
        }
        true
    }

    fn set_status(
        self: &Arc<Self>,
        store: &mut Store,
        id: &str,
        state: TaskState,
        question: Option<String>,
    ) -> Option<Task> {
        let message_id = question.as_ref().map(|_| fresh_id(&mut store.rng));
        let stamp = self.stamp();
        let updated = store.next_update;
        store.next_update += 1;
        let entry = store.tasks.get_mut(id)?;
        entry.updated = updated;
        let from = entry.task.status.state;
        let message = question.map(|text| Message {
            message_id,
            role: Role::Agent,
            parts: vec![Part::text(text)],
            task_id: Some(id.to_string()),
            context_id: entry.task.context_id.clone(),
            metadata: None,
        });
        if let Some(message) = &message {
            entry.task.history.push(message.clone());
        }
        entry.task.status = TaskStatus {
            state,
            message,
            timestamp: stamp,
        };
        if state.is_terminal() || state.is_interrupted() {
            entry.active = false;
        }
        self.truth.transition(id, self.clock.now(), state);
        TraceEvent::Transition {
            runtime: self.name().into(),
            task: id.into(),
            from,
            to: state,
        }
        .emit();
        let closes = self.personality.stream_close.closes_on(state);
        let event = self.status_event(&entry.task, closes);
        let task = entry.task.clone();
        self.emit(store, id, event, closes.then_some(state));
        self.after_transition(store, id, state);
        self.drain_queue(store, id, state);
        Some(task)
    }

    fn status_event(&self, task: &Task, closes: bool) -> StreamEvent {
        StreamEvent::StatusUpdate(TaskStatusUpdateEvent {
            task_id: task.id.clone(),
            context_id: task.context_id.clone(),
            status: task.status.clone(),
            is_final: self.final_flag(closes),
            metadata: None,
        })
    }

    fn artifact(&self, store: &mut Store, id: &str, part: Part, chunk: u32, last: bool) {
        let fresh = fresh_id(&mut store.rng);
        let Some(entry) = store.tasks.get_mut(id) else {
            return;
        };
        let artifact_id = match (&entry.artifact_id, chunk) {
            (Some(current), 1..) => current.clone(),
            _ => fresh,
        };
        entry.artifact_id = (!last).then(|| artifact_id.clone());
        let artifact = Artifact {
            artifact_id: Some(artifact_id.clone()),
            name: Some("result".to_string()),
            description: None,
            parts: vec![part],
            metadata: None,
        };
        match entry
            .task
            .artifacts
            .iter_mut()
            .find(|held| held.artifact_id.as_ref() == Some(&artifact_id))
        {
            Some(held) => held.parts.extend(artifact.parts.iter().cloned()),
            None => entry.task.artifacts.push(artifact.clone()),
        }
        let event = StreamEvent::ArtifactUpdate(TaskArtifactUpdateEvent {
            task_id: id.to_string(),
            context_id: entry.task.context_id.clone(),
            artifact,
            append: Some(chunk > 0),
            last_chunk: Some(last),
            metadata: None,
        });
        TraceEvent::Artifact {
            runtime: self.name().into(),
            task: id.into(),
            chunk: u64::from(chunk),
            last,
        }
        .emit();
        self.emit(store, id, event, None);
    }

    /// Logs an event and sends it to every attached stream; `closing` closes them all
    /// after it. Waiters are answered once the task settles.
    fn emit(&self, store: &mut Store, id: &str, event: StreamEvent, closing: Option<TaskState>) {
        let Some(entry) = store.tasks.get_mut(id) else {
            return;
        };
        for delivered in self.behaviour.deliver(&self.personality, event) {
            entry.log.push(delivered.clone());
            for sender in entry.streams.values() {
                // A closed receiver is a stream being dropped; its guard detaches it.
                let _ = sender.send(delivered.clone());
            }
        }
        let state = entry.task.status.state;
        if state.is_terminal() || state.is_interrupted() {
            for waiter in entry.waiters.drain(..) {
                let _ = waiter.send(entry.task.clone());
            }
        }
        if let Some(state) = closing {
            let streams: Vec<u64> = entry.streams.keys().copied().collect();
            let reason = format!("closed on {state}");
            for stream in streams {
                self.detach(store, id, stream, &reason);
            }
        }
    }

    fn send_to(&self, store: &mut Store, id: &str, stream: u64, event: StreamEvent) {
        if let Some(sender) = store
            .tasks
            .get(id)
            .and_then(|entry| entry.streams.get(&stream))
        {
            let _ = sender.send(event);
        }
    }

    /// Timers that reap a task which does not move on.
    fn after_transition(self: &Arc<Self>, store: &mut Store, id: &str, state: TaskState) {
        let Some(entry) = store.tasks.get_mut(id) else {
            return;
        };
        entry.transitions += 1;
        let (after_ms, reason) = match self.personality.reaping {
            Reaping::Ttl { after_ms } => (after_ms, "ttl expired"),
            Reaping::InputRequiredTimeout { after_ms } if state == TaskState::InputRequired => {
                (after_ms, "input-required timeout")
            }
            _ => return,
        };
        tokio::spawn(executor::reap_after(
            Arc::clone(self),
            id.to_string(),
            entry.transitions,
            Duration::from_millis(after_ms),
            reason,
        ));
    }

    /// Reaps the task if it made no transition and took no follow-up since `transitions`.
    pub(crate) fn reap_if_idle(&self, id: &str, transitions: u64, reason: &str) {
        let mut store = self.lock();
        if store
            .tasks
            .get(id)
            .is_some_and(|entry| entry.transitions == transitions)
        {
            self.reap(&mut store, id, reason);
        }
    }

    fn reap(&self, store: &mut Store, id: &str, reason: &str) {
        let Some(entry) = store.tasks.remove(id) else {
            return;
        };
        if !entry.task.status.state.is_terminal() {
            self.truth.reaped(id, self.clock.now(), reason);
        }
        TraceEvent::TaskReaped {
            runtime: self.name().into(),
            task: id.into(),
            state: entry.task.status.state,
            reason: reason.into(),
        }
        .emit();
    }

    // ---- streams -----------------------------------------------------------------------

    fn attach(self: &Arc<Self>, store: &mut Store, id: &str, kind: &str) -> Subscription {
        let stream = store.next_stream;
        store.next_stream += 1;
        let (sender, events) = mpsc::unbounded_channel();
        if let Some(entry) = store.tasks.get_mut(id) {
            entry.streams.insert(stream, sender);
        }
        TraceEvent::TaskStreamOpen {
            runtime: self.name().into(),
            task: id.into(),
            stream,
            kind: kind.into(),
        }
        .emit();
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

    fn detach(&self, store: &mut Store, id: &str, stream: u64, reason: &str) {
        let Some(entry) = store.tasks.get_mut(id) else {
            return;
        };
        if entry.streams.remove(&stream).is_none() {
            return;
        }
        if entry.creator_stream == Some(stream) {
            entry.creator_stream = None;
        }
        TraceEvent::TaskStreamClose {
            runtime: self.name().into(),
            task: id.into(),
            stream,
            reason: reason.into(),
        }
        .emit();
        if self.personality.reaping == Reaping::OnStreamClose && entry.streams.is_empty() {
            self.reap(store, id, "stream closed");
        }
    }

    /// `tasks/resubscribe` / `SubscribeToTask`.
    pub(crate) fn subscribe(self: &Arc<Self>, id: &str) -> Result<Subscription, RpcError> {
        let mut store = self.lock();
        let entry = store.tasks.get_mut(id).ok_or_else(|| not_found(id))?;
        let state = entry.task.status.state;
        if state.is_terminal() {
            return Err(error(
                self.personality.terminal_subscribe_error,
                format!("task {id} is in terminal state {state}"),
            ));
        }
        let mode = self.behaviour.resubscribe(&self.personality, &entry.view());
        entry.resubscribes += 1;
        let events = match mode {
            Resubscribe::NotFoundAfterStreamClose if entry.creator_stream.is_none() => {
                return Err(error(
                    ErrorCode::TaskNotFound,
                    format!("task {id} not found: its stream has closed"),
                ));
            }
            Resubscribe::NotFoundUnlessActive if !entry.active => {
                return Err(error(
                    ErrorCode::TaskNotFound,
                    format!("task {id} not found: no active execution"),
                ));
            }
            Resubscribe::ReplayFromStart => self.replayed(&entry.log),
            _ => vec![self.snapshot_event(&entry.task)],
        };
        let subscription = self.attach(&mut store, id, "resubscribe");
        for event in events {
            self.send_to(&mut store, id, subscription.guard.stream, event);
        }
        if mode == Resubscribe::ReplayFromStart && self.personality.stream_close.closes_on(state) {
            self.detach(&mut store, id, subscription.guard.stream, "replay ended");
        }
        Ok(subscription)
    }

    fn replayed(&self, log: &[StreamEvent]) -> Vec<StreamEvent> {
        if self.personality.timestamps != Timestamps::RestampedOnReplay {
            return log.to_vec();
        }
        let now = self.clock.now_rfc3339();
        log.iter()
            .cloned()
            .map(|mut event| {
                match &mut event {
                    StreamEvent::StatusUpdate(update) => {
                        update.status.timestamp = Some(now.clone())
                    }
                    StreamEvent::Task(task) => task.status.timestamp = Some(now.clone()),
                    StreamEvent::Message(_) | StreamEvent::ArtifactUpdate(_) => {}
                }
                event
            })
            .collect()
    }

    // ---- reads and cancel --------------------------------------------------------------

    /// `tasks/get` / `GetTask`.
    pub(crate) fn get(&self, id: &str, history_length: Option<i32>) -> Result<Task, RpcError> {
        let store = self.lock();
        let entry = store.tasks.get(id).ok_or_else(|| not_found(id))?;
        trimmed(entry.task.clone(), history_length)
    }

    /// `ListTasks` (v1.0): the most recently updated first (v1.0 §3.1.4 MUST), paged by a
    /// cursor, so a task updated between two pages moves to the front instead of shifting
    /// the rest.
    pub(crate) fn list(&self, params: &ListTasksParams) -> Result<TaskList, RpcError> {
        let page_size = params.page_size.unwrap_or(50);
        if !(1..=100).contains(&page_size) {
            return Err(error(
                ErrorCode::InvalidParams,
                "pageSize must be between 1 and 100",
            ));
        }
        let cursor = match params.page_token.as_deref() {
            None | Some("") => None,
            Some(token) => Some(token.parse::<u64>().map_err(|_| {
                error(ErrorCode::InvalidParams, format!("bad pageToken `{token}`"))
            })?),
        };
        let store = self.lock();
        let mut entries: Vec<&Entry> = store
            .tasks
            .values()
            .filter(|entry| {
                params
                    .context_id
                    .as_ref()
                    .is_none_or(|ctx| entry.task.context_id.as_ref() == Some(ctx))
                    && params
                        .status
                        .is_none_or(|state| entry.task.status.state == state)
            })
            .collect();
        let total = entries.len();
        entries.retain(|entry| cursor.is_none_or(|cursor| entry.updated < cursor));
        entries.sort_by_key(|entry| std::cmp::Reverse(entry.updated));
        let more = entries.len() > page_size as usize;
        entries.truncate(page_size as usize);
        let next_page_token = match (more, entries.last()) {
            (true, Some(last)) => last.updated.to_string(),
            _ => String::new(),
        };
        let tasks = entries
            .iter()
            .map(|entry| trimmed(entry.task.clone(), params.history_length))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(TaskList {
            tasks,
            next_page_token,
            page_size,
            total_size: i32::try_from(total).unwrap_or(i32::MAX),
        })
    }

    /// `tasks/cancel` / `CancelTask`.
    pub(crate) fn cancel(self: &Arc<Self>, id: &str) -> Result<Task, RpcError> {
        let mut store = self.lock();
        let entry = store.tasks.get_mut(id).ok_or_else(|| not_found(id))?;
        let state = entry.task.status.state;
        let refused = || {
            error(
                ErrorCode::TaskNotCancelable,
                format!("task {id} is {state} and cannot be canceled"),
            )
        };
        if state.is_terminal() {
            return match self.personality.cancel.terminal {
                TerminalCancel::NotCancelable => Err(refused()),
                TerminalCancel::ReturnTask => Ok(entry.task.clone()),
                TerminalCancel::ReturnCanceled if state == TaskState::Canceled => {
                    Ok(entry.task.clone())
                }
                TerminalCancel::ReturnCanceled => Err(refused()),
            };
        }
        match self.behaviour.cancel(&self.personality, &entry.view()) {
            CancelOutcome::NotCancelable => Err(refused()),
            CancelOutcome::Ignore => Ok(entry.task.clone()),
            CancelOutcome::Cancel => {
                entry.epoch += 1;
                self.set_status(&mut store, id, TaskState::Canceled, None)
                    .ok_or_else(|| not_found(id))
            }
        }
    }
}

/// Keeps the last `history_length` messages; a negative length is invalid.
pub(crate) fn trimmed(mut task: Task, history_length: Option<i32>) -> Result<Task, RpcError> {
    match history_length {
        None => Ok(task),
        Some(length) if length < 0 => Err(error(
            ErrorCode::InvalidParams,
            format!("historyLength {length} is negative"),
        )),
        Some(length) => {
            let keep = length as usize;
            let skip = task.history.len().saturating_sub(keep);
            task.history.drain(..skip);
            Ok(task)
        }
    }
}
