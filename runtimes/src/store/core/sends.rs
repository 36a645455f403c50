//! Sends: a message that creates a task, resumes an interrupted one, waits behind a running
//! turn, or is refused.

use super::entry::Entry;
use super::{Accepted, Core, Effect, Outcome, error, not_found};
use crate::personality::{
    BusyFollowUp, FollowUp, FollowUpOpening, NewTaskOpening, SendReply, UnknownTask,
};
use crate::script::Script;
use crate::store::shaping;
use crate::truth::{Origin, TaskTruth, Transition};
use meshsim_protocol::{Dialect, ErrorCode, Message, RpcError, Task, TaskState, TaskStatus};
use std::time::Duration;

impl Core {
    /// `SendMessage` (`streaming` false) and `SendStreamingMessage`, at `now`.
    /// `id_seen_before`: whether this host ever created a task with the message's id (an
    /// earlier instance may have); it tells a v0.1 follow-up to a lost task from a new one.
    pub(crate) fn send(
        &mut self,
        now: Duration,
        message: Message,
        streaming: bool,
        id_seen_before: bool,
    ) -> Outcome<Result<Accepted, RpcError>> {
        self.begin(now);
        let reply = self.dispatch_send(message, streaming, id_seen_before);
        self.finish(reply)
    }

    fn dispatch_send(
        &mut self,
        message: Message,
        streaming: bool,
        id_seen_before: bool,
    ) -> Result<Accepted, RpcError> {
        let Some(id) = message.task_id.clone() else {
            return self.create(message, None, Origin::New, streaming);
        };
        let Some(entry) = self.tasks.get(&id) else {
            if self.dialect == Dialect::V0_1 {
                // v0.1 clients choose task ids: an unknown id names a new task.
                let origin = match id_seen_before {
                    true => Origin::FollowUpCreated {
                        requested_task_id: id.clone(),
                    },
                    false => Origin::New,
                };
                return self.create(message, Some(id), origin, streaming);
            }
            return match self.behaviour.unknown_task(&self.personality, &id) {
                UnknownTask::NotFound => Err(not_found(&id)),
                UnknownTask::NewTask => {
                    let origin = Origin::FollowUpCreated {
                        requested_task_id: id,
                    };
                    self.create(message, None, origin, streaming)
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
        let view = entry.view();
        let state = view.state;
        if state.is_terminal() {
            return Err(error(
                self.behaviour.terminal_send_error(&self.personality, &view),
                format!("task {id} is in terminal state {state}"),
            ));
        }
        let follow_up = self.behaviour.follow_up(&self.personality, &view);
        if entry.active || !state.is_interrupted() {
            let resumes = matches!(
                follow_up,
                FollowUp::Resume | FollowUp::ResumeWithDuplicateSubmitted
            );
            if resumes
                && self.behaviour.busy_follow_up(&self.personality, &view) == BusyFollowUp::Queue
            {
                return self.enqueue(&id, message, streaming);
            }
            return Err(error(
                ErrorCode::UnsupportedOperation,
                format!("task {id} is {state} and not waiting for input"),
            ));
        }
        match follow_up {
            FollowUp::Resume => self.resume(&id, message, false, streaming),
            FollowUp::ResumeWithDuplicateSubmitted => self.resume(&id, message, true, streaming),
            FollowUp::NewTask => {
                let origin = Origin::FollowUpCreated {
                    requested_task_id: id,
                };
                let mut message = message;
                message.task_id = None;
                self.create(message, None, origin, streaming)
            }
            FollowUp::NotFound => Err(not_found(&id)),
        }
    }

    fn create(
        &mut self,
        mut message: Message,
        client_id: Option<String>,
        origin: Origin,
        streaming: bool,
    ) -> Result<Accepted, RpcError> {
        self.make_room()?;
        let id = client_id.unwrap_or_else(|| self.draws.id());
        let context_id = message
            .context_id
            .clone()
            .unwrap_or_else(|| self.draws.id());
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
        self.effect(Effect::Created {
            truth: TaskTruth {
                id: id.clone(),
                context_id,
                instance: self.instance,
                origin,
                created_at: self.now,
                state: TaskState::Submitted,
                transitions: vec![Transition {
                    at: self.now,
                    from: None,
                    to: TaskState::Submitted,
                }],
                fate: None,
                cancel_refused: false,
                artifact_text: String::new(),
            },
        });
        let created_before = self.created;
        self.created += 1;
        let updated = self.next_update;
        self.next_update += 1;
        self.tasks
            .insert(id.clone(), Entry::new(task.clone(), script, updated));
        let stream = streaming.then(|| {
            let stream = self.attach(&id, "send");
            if let Some(entry) = self.tasks.get_mut(&id) {
                entry.creator_stream = Some(stream);
            }
            stream
        });
        let opening = match self.behaviour.new_task_opening(&self.personality) {
            NewTaskOpening::Snapshot => shaping::snapshot_event(self.dialect, &task),
            NewTaskOpening::StatusUpdate => shaping::status_event(self.dialect, &task, false),
        };
        self.emit(&id, opening, None);
        self.after_transition(&id, TaskState::Submitted);
        if self.behaviour.stalls(&self.personality, created_before) {
            self.effect(Effect::Stalled { task: id.clone() });
        } else {
            self.start_turn(&id, &input);
        }
        let waits = !streaming && self.wait(&id);
        Ok(Accepted {
            task,
            stream,
            waits,
        })
    }

    /// Makes room for one more task under `max_tasks`: evicts the terminal task whose
    /// status changed longest ago (its answer was given; only a later GetTask misses it),
    /// and while no task is terminal refuses the new one, so the store never outgrows it.
    fn make_room(&mut self) -> Result<(), RpcError> {
        let Some(max) = self.max_tasks else {
            return Ok(());
        };
        while self.tasks.len() >= max {
            let oldest = self
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
            if let Some(entry) = self.tasks.remove(&id) {
                let streams = entry.streams.into_iter().collect();
                self.effect(Effect::Evicted { task: id, streams });
            }
        }
        Ok(())
    }

    fn resume(
        &mut self,
        id: &str,
        message: Message,
        duplicate_submitted: bool,
        streaming: bool,
    ) -> Result<Accepted, RpcError> {
        let input = self
            .accept_follow_up(id, message)
            .ok_or_else(|| not_found(id))?;
        let stream = streaming.then(|| {
            let stream = self.attach(id, "follow-up");
            let opening = self.tasks.get(id).map(|entry| {
                let opening = self
                    .behaviour
                    .follow_up_opening(&self.personality, &entry.view());
                (opening, shaping::snapshot_event(self.dialect, &entry.task))
            });
            if let Some((FollowUpOpening::Snapshot, snapshot)) = opening {
                self.effect(Effect::Delivered {
                    stream,
                    event: snapshot,
                });
            }
            stream
        });
        let task = self
            .run_follow_up(id, &input, duplicate_submitted)
            .ok_or_else(|| not_found(id))?;
        let waits = !streaming && self.wait(id);
        Ok(Accepted {
            task,
            stream,
            waits,
        })
    }

    /// A follow-up joins the task's history and picks the script of its turn; its text.
    fn accept_follow_up(&mut self, id: &str, mut message: Message) -> Option<String> {
        let entry = self.tasks.get_mut(id)?;
        entry.transitions += 1;
        entry.script = entry.script.for_follow_up(&message);
        message.task_id = Some(id.to_string());
        message.context_id = entry.task.context_id.clone();
        let input = message.text_content();
        entry.task.history.push(message);
        Some(input)
    }

    /// Starts the turn an accepted follow-up opens, first moving the task back to
    /// `submitted` if the behaviour does that; the task as the turn starts.
    fn run_follow_up(&mut self, id: &str, input: &str, duplicate_submitted: bool) -> Option<Task> {
        let mut accepted = self.tasks.get(id)?.task.clone();
        if duplicate_submitted
            && let Some(task) = self.set_status(id, TaskState::Submitted, None, Task::clone)
        {
            accepted = task;
        }
        self.start_turn(id, input);
        Some(accepted)
    }

    /// A follow-up to a task whose turn still runs waits for the turn to settle (a2a-python
    /// 1.3); its stream attaches now and sees the rest of the running turn.
    fn enqueue(
        &mut self,
        id: &str,
        message: Message,
        streaming: bool,
    ) -> Result<Accepted, RpcError> {
        let entry = self.tasks.get_mut(id).ok_or_else(|| not_found(id))?;
        entry.queued.push_back(message);
        let task = entry.task.clone();
        self.effect(Effect::Queued {
            task: id.to_string(),
        });
        let stream = streaming.then(|| self.attach(id, "queued follow-up"));
        let waits = !streaming && self.wait(id);
        Ok(Accepted {
            task,
            stream,
            waits,
        })
    }

    /// When a turn settles: an interrupted task takes the next queued follow-up as its
    /// answer; a terminal one drops whatever was queued.
    pub(super) fn drain_queue(&mut self, id: &str, state: TaskState) {
        let Some(entry) = self.tasks.get_mut(id) else {
            return;
        };
        if state.is_terminal() {
            let dropped = entry.queued.len();
            entry.queued.clear();
            if dropped > 0 {
                self.effect(Effect::QueueDropped {
                    task: id.to_string(),
                    dropped,
                });
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
                self.effect(Effect::QueueDropped {
                    task: id.to_string(),
                    dropped: 1,
                });
                return;
            }
        };
        if let Some(input) = self.accept_follow_up(id, message) {
            self.run_follow_up(id, &input, duplicate_submitted);
        }
    }

    /// Whether a non-streaming send waits for the task's turn to settle (the behaviour
    /// answers when settled); if so, the task counts it among its waiters.
    fn wait(&mut self, id: &str) -> bool {
        if self.behaviour.send_reply(&self.personality) != SendReply::WhenSettled {
            return false;
        }
        let Some(entry) = self.tasks.get_mut(id) else {
            return false;
        };
        entry.waiters += 1;
        true
    }
}
