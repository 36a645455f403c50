//! Streams: attaching one to a task, delivering the task's events to every attached stream,
//! detaching (which may reap the task), and resubscribing.

use super::{Core, Effect, Outcome, StreamId, error, not_found};
use crate::personality::{Reaping, Resubscribe, Timestamps};
use crate::store::shaping;
use meshsim_protocol::clock::rfc3339;
use meshsim_protocol::{ErrorCode, RpcError, StreamEvent, TaskState};
use std::time::Duration;

impl Core {
    /// `tasks/resubscribe` / `SubscribeToTask` at `now`: the stream opened.
    pub(crate) fn subscribe(
        &mut self,
        now: Duration,
        id: &str,
    ) -> Outcome<Result<StreamId, RpcError>> {
        self.begin(now);
        let reply = self.resubscribe(id);
        self.finish(reply)
    }

    /// The stream `stream` went away at `now` (its client left, or its body ended).
    pub(crate) fn stream_gone(
        &mut self,
        now: Duration,
        id: &str,
        stream: StreamId,
        reason: &str,
    ) -> Outcome<()> {
        self.begin(now);
        self.detach(id, stream, reason);
        self.finish(())
    }

    fn resubscribe(&mut self, id: &str) -> Result<StreamId, RpcError> {
        let entry = self.tasks.get_mut(id).ok_or_else(|| not_found(id))?;
        let view = entry.view();
        let state = view.state;
        if state.is_terminal() {
            return Err(error(
                self.behaviour
                    .terminal_subscribe_error(&self.personality, &view),
                format!("task {id} is in terminal state {state}"),
            ));
        }
        let mode = self.behaviour.resubscribe(&self.personality, &view);
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
            Resubscribe::ReplayFromStart => match self.behaviour.timestamps(&self.personality) {
                Timestamps::RestampedOnReplay => shaping::restamped(&entry.log, &rfc3339(self.now)),
                Timestamps::Present | Timestamps::Absent => entry.log.clone(),
            },
            _ => vec![shaping::snapshot_event(self.dialect, &entry.task)],
        };
        let stream = self.attach(id, "resubscribe");
        for event in events {
            self.effect(Effect::Delivered { stream, event });
        }
        if mode == Resubscribe::ReplayFromStart
            && self.behaviour.closes_stream(&self.personality, state)
        {
            self.detach(id, stream, "replay ended");
        }
        Ok(stream)
    }

    /// Attaches a new stream to the task; `kind` says why.
    pub(super) fn attach(&mut self, id: &str, kind: &'static str) -> StreamId {
        let stream = self.next_stream;
        self.next_stream += 1;
        if let Some(entry) = self.tasks.get_mut(id) {
            entry.streams.insert(stream);
        }
        self.effect(Effect::StreamOpened {
            task: id.to_string(),
            stream,
            kind,
        });
        stream
    }

    /// Detaches a stream; a task reaped with its last stream goes.
    fn detach(&mut self, id: &str, stream: StreamId, reason: &str) {
        let Some(entry) = self.tasks.get_mut(id) else {
            return;
        };
        if !entry.streams.remove(&stream) {
            return;
        }
        if entry.creator_stream == Some(stream) {
            entry.creator_stream = None;
        }
        let last_gone = entry.streams.is_empty();
        let view = entry.view();
        self.effect(Effect::StreamClosed {
            task: id.to_string(),
            stream,
            reason: reason.to_string(),
        });
        if last_gone && self.behaviour.reaping(&self.personality, &view) == Reaping::OnStreamClose {
            self.reap(id, "stream closed");
        }
    }

    /// Logs an event and delivers it to every attached stream; `closing` ends them all
    /// after it. Waiting sends are answered once the task settles.
    pub(super) fn emit(&mut self, id: &str, event: StreamEvent, closing: Option<TaskState>) {
        let Some(entry) = self.tasks.get_mut(id) else {
            return;
        };
        for delivered in self.behaviour.deliver(&self.personality, event) {
            for stream in &entry.streams {
                self.effects.push(Effect::Delivered {
                    stream: *stream,
                    event: delivered.clone(),
                });
            }
            entry.log.push(delivered);
        }
        let state = entry.task.status.state;
        if entry.waiters > 0 && (state.is_terminal() || state.is_interrupted()) {
            entry.waiters = 0;
            self.effects.push(Effect::Settled {
                task: entry.task.clone(),
            });
        }
        if let Some(state) = closing {
            let streams: Vec<StreamId> = entry.streams.iter().copied().collect();
            let reason = format!("closed on {state}");
            for stream in streams {
                self.detach(id, stream, &reason);
            }
        }
    }
}
