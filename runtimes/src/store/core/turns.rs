//! Turns: starting one, the steps that fall due as it runs (status changes and artifact
//! chunks), and the reaping that follows transitions.

use super::{Core, Effect, Outcome};
use crate::personality::Reaping;
use crate::step::TurnStep;
use crate::store::shaping;
use meshsim_protocol::{
    Artifact, Message, Part, PartContent, Role, StreamEvent, Task, TaskArtifactUpdateEvent,
    TaskState, TaskStatus,
};
use std::time::Duration;

impl Core {
    /// A step of the turn started at `epoch` fell due at `now`. The reply is false when the
    /// turn is stale (the task was canceled, reaped or moved on) and must stop.
    pub(crate) fn step(
        &mut self,
        now: Duration,
        id: &str,
        epoch: u64,
        step: TurnStep,
    ) -> Outcome<bool> {
        self.begin(now);
        let current = self.tasks.get(id).is_some_and(|entry| entry.epoch == epoch);
        if current {
            match step {
                TurnStep::Work => {}
                TurnStep::Status { state, question } => {
                    self.set_status(id, state, question, |_| ());
                }
                TurnStep::Artifact { part, chunk, last } => self.artifact(id, part, chunk, last),
            }
        }
        self.finish(current)
    }

    /// A reaping timer fired at `now`: reaps the task if it made no transition and took no
    /// follow-up since `transitions`.
    pub(crate) fn reap_if_idle(
        &mut self,
        now: Duration,
        id: &str,
        transitions: u64,
        reason: &str,
    ) -> Outcome<()> {
        self.begin(now);
        if self
            .tasks
            .get(id)
            .is_some_and(|entry| entry.transitions == transitions)
        {
            self.reap(id, reason);
        }
        self.finish(())
    }

    pub(super) fn start_turn(&mut self, id: &str, input: &str) {
        let Some(entry) = self.tasks.get(id) else {
            return;
        };
        let steps = entry
            .script
            .turn(entry.turns, input, self.personality.work.long_running_steps);
        let durations: Vec<Duration> = steps
            .iter()
            .filter(|step| **step == TurnStep::Work)
            .map(|_| self.draws.work(&self.personality.work))
            .collect();
        let Some(entry) = self.tasks.get_mut(id) else {
            return;
        };
        entry.turns += 1;
        entry.epoch += 1;
        entry.active = true;
        let epoch = entry.epoch;
        self.effect(Effect::TurnStarted {
            task: id.to_string(),
            epoch,
            steps,
            durations,
        });
    }

    /// Moves the task to `state` (`question` becomes its status message); what `keep` takes
    /// of the task as the status is set (a turn's step keeps nothing, so the task is not
    /// copied for it), or `None` if there is no such task.
    pub(super) fn set_status<Kept>(
        &mut self,
        id: &str,
        state: TaskState,
        question: Option<String>,
        keep: impl FnOnce(&Task) -> Kept,
    ) -> Option<Kept> {
        let message_id = question.as_ref().map(|_| self.draws.id());
        let stamp = self.stamp();
        let updated = self.next_update;
        self.next_update += 1;
        let entry = self.tasks.get_mut(id)?;
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
            unrecognised_state: None,
        };
        if state.is_terminal() || state.is_interrupted() {
            entry.active = false;
        }
        let kept = keep(&entry.task);
        let closes = self.behaviour.closes_stream(&self.personality, state);
        let event = shaping::status_event(self.dialect, &entry.task, closes);
        self.effect(Effect::Transitioned {
            task: id.to_string(),
            from,
            to: state,
        });
        self.emit(id, event, closes.then_some(state));
        self.after_transition(id, state);
        self.drain_queue(id, state);
        Some(kept)
    }

    fn artifact(&mut self, id: &str, part: Part, chunk: u32, last: bool) {
        let fresh = self.draws.id();
        let Some(entry) = self.tasks.get_mut(id) else {
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
        let text = entry
            .task
            .artifacts
            .iter()
            .flat_map(|artifact| &artifact.parts)
            .filter_map(|part| match &part.content {
                PartContent::Text(text) => Some(text.as_str()),
                _ => None,
            })
            .collect();
        self.effect(Effect::ArtifactChunk {
            task: id.to_string(),
            chunk,
            last,
            text,
        });
        self.emit(id, event, None);
    }

    /// Counts the transition and starts the reaping timer the behaviour asks for, if any.
    pub(super) fn after_transition(&mut self, id: &str, state: TaskState) {
        let Some(entry) = self.tasks.get_mut(id) else {
            return;
        };
        entry.transitions += 1;
        let transitions = entry.transitions;
        let (after_ms, reason) = match self.behaviour.reaping(&self.personality, &entry.view()) {
            Reaping::Ttl { after_ms } => (after_ms, "ttl expired"),
            Reaping::InputRequiredTimeout { after_ms } if state == TaskState::InputRequired => {
                (after_ms, "input-required timeout")
            }
            _ => return,
        };
        self.effect(Effect::ReapTimer {
            task: id.to_string(),
            transitions,
            after: Duration::from_millis(after_ms),
            reason,
        });
    }

    /// Drops the task from the store, with its streams and waiting sends.
    pub(super) fn reap(&mut self, id: &str, reason: &str) {
        let Some(entry) = self.tasks.remove(id) else {
            return;
        };
        self.effect(Effect::Reaped {
            task: id.to_string(),
            state: entry.task.status.state,
            reason: reason.to_string(),
            streams: entry.streams.into_iter().collect(),
        });
    }
}
