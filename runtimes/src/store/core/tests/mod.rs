//! Unit tests of the state machine: one case per value of every knob it asks about
//! ([`knobs`]), and a check that every knob of a personality has its case ([`coverage`]).
//!
//! A [`Run`] drives a [`Core`] as the shell and the executor would, without time passing
//! on its own: turns run step by step when asked, timers fire when asked, and every effect
//! is kept for the assertions.

mod coverage;
mod knobs;

use super::{Accepted, Core, Effect, StreamId};
use crate::behaviour::Knobs;
use crate::personality::Personality;
use crate::step::TurnStep;
use crate::store::shaping::asserted;
use meshsim_protocol::{Dialect, ErrorCode, Message, Role, RpcError, StreamEvent, TaskState};
use std::collections::VecDeque;
use std::sync::Arc;
use std::time::Duration;

/// A core under test, with everything it did.
struct Run {
    core: Core,
    now: Duration,
    /// Every effect so far, in order.
    effects: Vec<Effect>,
    /// Turns started and not yet run: task, epoch, steps.
    turns: VecDeque<(String, u64, Vec<TurnStep>)>,
}

impl Run {
    fn new(personality: Personality) -> Self {
        Run::speaking(personality, Dialect::V1_0)
    }

    fn speaking(personality: Personality, dialect: Dialect) -> Self {
        Run {
            core: Core::new(personality, dialect, Arc::new(Knobs), 7, 0, None),
            now: Duration::from_millis(1_000),
            effects: Vec::new(),
            turns: VecDeque::new(),
        }
    }

    /// Keeps a command's effects; queues the turns it started.
    fn keep<T>(&mut self, outcome: super::Outcome<T>) -> T {
        for effect in &outcome.effects {
            if let Effect::TurnStarted {
                task, epoch, steps, ..
            } = effect
            {
                self.turns.push_back((task.clone(), *epoch, steps.clone()));
            }
        }
        self.effects.extend(outcome.effects);
        outcome.reply
    }

    /// Sends `text`, to task `task` if given.
    fn send(
        &mut self,
        text: &str,
        task: Option<&str>,
        streaming: bool,
    ) -> Result<Accepted, RpcError> {
        let mut message = Message::text(Role::User, Some(format!("m{}", self.effects.len())), text);
        message.task_id = task.map(str::to_string);
        let outcome = self.core.send(self.now, message, streaming, false);
        self.keep(outcome)
    }

    /// A streaming send of the default script (it asks one question), run until it asks.
    fn asking(&mut self) -> Accepted {
        let accepted = self
            .send("do it", None, true)
            .expect("a new task is accepted");
        self.run_turns();
        accepted
    }

    /// Runs every started turn to its end (or until it is stale), later time for each step.
    fn run_turns(&mut self) {
        while let Some((task, epoch, steps)) = self.turns.pop_front() {
            for step in steps {
                self.now += Duration::from_millis(10);
                if step == TurnStep::Work {
                    continue;
                }
                let outcome = self.core.step(self.now, &task, epoch, step);
                if !self.keep(outcome) {
                    break;
                }
            }
        }
    }

    /// Fires every reaping timer set so far.
    fn fire_timers(&mut self) {
        let timers: Vec<(String, u64, &'static str)> = self
            .effects
            .iter()
            .filter_map(|effect| match effect {
                Effect::ReapTimer {
                    task,
                    transitions,
                    reason,
                    ..
                } => Some((task.clone(), *transitions, *reason)),
                _ => None,
            })
            .collect();
        for (task, transitions, reason) in timers {
            let outcome = self.core.reap_if_idle(self.now, &task, transitions, reason);
            self.keep(outcome);
        }
    }

    fn subscribe(&mut self, id: &str) -> Result<StreamId, RpcError> {
        let outcome = self.core.subscribe(self.now, id);
        self.keep(outcome)
    }

    fn cancel(&mut self, id: &str) -> Result<meshsim_protocol::Task, RpcError> {
        let outcome = self.core.cancel(self.now, id);
        self.keep(outcome)
    }

    fn drop_stream(&mut self, id: &str, stream: StreamId) {
        let outcome = self.core.stream_gone(self.now, id, stream, "client left");
        self.keep(outcome);
    }

    fn state(&self, id: &str) -> Option<TaskState> {
        self.core.get(id, None).ok().map(|task| task.status.state)
    }

    /// The events delivered to `stream`, in order.
    fn delivered(&self, stream: StreamId) -> Vec<StreamEvent> {
        self.effects
            .iter()
            .filter_map(|effect| match effect {
                Effect::Delivered { stream: to, event } if *to == stream => Some(event.clone()),
                _ => None,
            })
            .collect()
    }

    /// The states `stream`'s events assert, in order (artifact events assert none).
    fn delivered_states(&self, stream: StreamId) -> Vec<TaskState> {
        self.delivered(stream).iter().filter_map(asserted).collect()
    }

    fn closed(&self, stream: StreamId) -> bool {
        self.effects.iter().any(
            |effect| matches!(effect, Effect::StreamClosed { stream: closed, .. } if *closed == stream),
        )
    }

    fn reaped(&self, id: &str) -> bool {
        self.effects
            .iter()
            .any(|effect| matches!(effect, Effect::Reaped { task, .. } if task == id))
    }

    fn count(&self, matches: impl Fn(&Effect) -> bool) -> usize {
        self.effects.iter().filter(|effect| matches(effect)).count()
    }
}

fn code(result: Result<impl std::fmt::Debug, RpcError>) -> ErrorCode {
    result.expect_err("an error").code
}
