//! Carrying out what the store's state machine decided: each [`Effect`] of a command, in
//! order and under the store's lock, becomes ground truth, a trace event, a stream event, an
//! answer to a waiting send, a turn or a timer.

use super::core::{Effect, Outcome, StreamId};
use super::{Host, Opened, Shell};
use crate::executor;
use crate::truth::Origin;
use meshsim_protocol::TaskState;
use meshsim_trace::{TaskOrigin, TraceEvent};
use std::borrow::Cow;
use std::sync::Arc;
use tokio::sync::mpsc;

impl Host {
    /// Carries out a command's effects in order; its reply, and the streams it opened.
    pub(super) fn carry_out<T>(
        self: &Arc<Self>,
        shell: &mut Shell,
        outcome: Outcome<T>,
    ) -> (T, Opened) {
        let mut opened = Opened::new();
        for effect in outcome.effects {
            self.carry_out_one(shell, effect, &mut opened);
        }
        (outcome.reply, opened)
    }

    fn carry_out_one(self: &Arc<Self>, shell: &mut Shell, effect: Effect, opened: &mut Opened) {
        let runtime = || Cow::Borrowed(self.name());
        match effect {
            Effect::Created { truth } => {
                let event = TraceEvent::TaskCreated {
                    runtime: runtime(),
                    task: truth.id.clone().into(),
                    origin: match truth.origin {
                        Origin::New => TaskOrigin::New,
                        Origin::FollowUpCreated { .. } => TaskOrigin::FollowUp,
                    },
                    to: TaskState::Submitted,
                };
                self.truth.created(truth);
                event.emit();
            }
            Effect::Transitioned { task, from, to } => {
                self.truth.transition(&task, self.clock.now(), to);
                TraceEvent::Transition {
                    runtime: runtime(),
                    task: task.into(),
                    from,
                    to,
                }
                .emit();
            }
            Effect::Evicted { task, streams } => {
                shell.forget(&task, &streams);
                TraceEvent::TaskEvicted {
                    runtime: runtime(),
                    task: task.into(),
                }
                .emit();
            }
            Effect::CancelRefused { task } => self.truth.cancel_refused(&task),
            Effect::Stalled { task } => TraceEvent::TaskStalled {
                runtime: runtime(),
                task: task.into(),
            }
            .emit(),
            Effect::Queued { task } => TraceEvent::FollowUpQueued {
                runtime: runtime(),
                task: task.into(),
            }
            .emit(),
            Effect::QueueDropped { task, dropped } => TraceEvent::FollowUpsDropped {
                runtime: runtime(),
                task: task.into(),
                dropped: u64::try_from(dropped).unwrap_or(u64::MAX),
            }
            .emit(),
            Effect::ArtifactChunk {
                task,
                chunk,
                last,
                text,
            } => {
                self.truth.artifact_text(&task, text);
                TraceEvent::Artifact {
                    runtime: runtime(),
                    task: task.into(),
                    chunk: u64::from(chunk),
                    last,
                }
                .emit();
            }
            Effect::Reaped {
                task,
                state,
                reason,
                streams,
            } => {
                shell.forget(&task, &streams);
                if !state.is_terminal() {
                    self.truth.reaped(&task, self.clock.now(), &reason);
                }
                TraceEvent::TaskReaped {
                    runtime: runtime(),
                    task: task.into(),
                    state,
                    reason: reason.into(),
                }
                .emit();
            }
            Effect::StreamOpened { task, stream, kind } => {
                let (sender, receiver) = mpsc::unbounded_channel();
                shell.streams.insert(stream, sender);
                opened.insert(stream, receiver);
                TraceEvent::TaskStreamOpen {
                    runtime: runtime(),
                    task: task.into(),
                    stream,
                    kind: kind.into(),
                }
                .emit();
            }
            Effect::Delivered { stream, event } => {
                if let Some(sender) = shell.streams.get(&stream) {
                    // A closed receiver is a stream being dropped; its guard detaches it.
                    let _ = sender.send(event);
                }
            }
            Effect::StreamClosed {
                task,
                stream,
                reason,
            } => {
                shell.streams.remove(&stream);
                TraceEvent::TaskStreamClose {
                    runtime: runtime(),
                    task: task.into(),
                    stream,
                    reason: reason.into(),
                }
                .emit();
            }
            Effect::Settled { task } => {
                for waiter in shell.waiters.remove(&task.id).unwrap_or_default() {
                    let _ = waiter.send(task.clone());
                }
            }
            Effect::TurnStarted {
                task,
                epoch,
                steps,
                durations,
            } => {
                tokio::spawn(executor::run_turn(
                    Arc::clone(self),
                    task,
                    epoch,
                    steps,
                    durations,
                ));
            }
            Effect::ReapTimer {
                task,
                transitions,
                after,
                reason,
            } => {
                tokio::spawn(executor::reap_after(
                    Arc::clone(self),
                    task,
                    transitions,
                    after,
                    reason,
                ));
            }
        }
    }
}

impl Shell {
    /// Drops the channels of a task that left the store: its streams end and its waiting
    /// sends learn that it is gone.
    fn forget(&mut self, task: &str, streams: &[StreamId]) {
        for stream in streams {
            self.streams.remove(stream);
        }
        self.waiters.remove(task);
    }
}
