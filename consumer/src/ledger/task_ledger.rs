//! One task's ledger: the applied state sequence, and the alignment that holds events while
//! they may be a replay of it.

use super::observation::{ConnectionKind, Observation};
use super::ruling::{Applied, Ruling, StateVerdict};
use meshsim_protocol::{TaskMove, TaskState};

/// Held observations of a possible replay on one connection.
#[derive(Debug, Clone)]
struct Alignment {
    connection: u32,
    kind: ConnectionKind,
    /// How much of the applied sequence the held events have matched.
    cursor: usize,
    held: Vec<Observation>,
}

/// One task's applied state sequence and the pending replay check.
#[derive(Debug, Clone, Default)]
pub struct TaskLedger {
    applied: Vec<Applied>,
    alignment: Option<Alignment>,
}

impl TaskLedger {
    /// An empty ledger: nothing applied yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// The state applied last.
    pub fn current(&self) -> Option<TaskState> {
        self.applied.last().map(|applied| applied.observation.state)
    }

    /// Whether events are being held to tell a replay from live events.
    pub fn is_aligning(&self) -> bool {
        self.alignment.is_some()
    }

    /// Whether the events held on `connection`, a turn, end in a state that waits for the
    /// client. Were they a replay, the answer's turn would follow at once; were they live,
    /// the peer now waits for the client and sends nothing that could tell.
    pub fn holds_question(&self, connection: u32) -> bool {
        self.last_held_on_turn(connection)
            .is_some_and(TaskState::is_interrupted)
    }

    /// Whether the events held on `connection`, a turn, end in `submitted`: the peer
    /// started the task's turn afresh (a resume that says `submitted` again, or a task it
    /// started anew under the same id) and has said nothing since. A replay would go on at
    /// once; a live start has yet to leave `submitted`.
    pub fn holds_start(&self, connection: u32) -> bool {
        self.last_held_on_turn(connection) == Some(TaskState::Submitted)
    }

    /// The state of the last event held on `connection`, if it is a turn being aligned.
    fn last_held_on_turn(&self, connection: u32) -> Option<TaskState> {
        let alignment = self.alignment.as_ref()?;
        (alignment.connection == connection && alignment.kind == ConnectionKind::Turn)
            .then(|| alignment.held.last().map(|held| held.state))
            .flatten()
    }

    /// Every state applied, in order.
    pub fn applied(&self) -> &[Applied] {
        &self.applied
    }

    /// Judges one observation made on connection `connection` of kind `kind`. Returns the
    /// final rulings this observation settles: none while it is held, several when it
    /// settles held ones.
    pub fn observe(
        &mut self,
        connection: u32,
        kind: ConnectionKind,
        observation: Observation,
    ) -> Vec<Ruling> {
        let mut rulings = Vec::new();
        let other = self
            .alignment
            .as_ref()
            .map(|alignment| alignment.connection);
        if let Some(other) = other.filter(|other| *other != connection) {
            rulings.extend(self.close(other));
        }
        if let Some(alignment) = self.alignment.as_mut() {
            let cursor = alignment.cursor;
            // A `submitted` is applied only first, so one past the start of the alignment
            // never matches the applied sequence: it is the duplicate `submitted` a follow-up
            // left in the peer's history (seen live or not). It is held, never applied, and
            // the applied sequence is matched on after it.
            if observation.state == TaskState::Submitted && cursor > 0 {
                alignment.held.push(observation);
                return rulings;
            }
            // A state said again right after itself (a peer that repeats its states) adds
            // nothing to either reading: it is held beside the first, and the applied
            // sequence is matched on after both. Settling on it instead would take the held
            // events for a replay whenever the repeat follows the whole applied sequence,
            // though a live turn that ends at a question repeats it as readily.
            if alignment
                .held
                .last()
                .is_some_and(|last| last.state == observation.state)
            {
                alignment.held.push(observation);
                return rulings;
            }
            if cursor < self.applied.len()
                && self.applied[cursor].observation.state == observation.state
            {
                alignment.held.push(observation);
                alignment.cursor += 1;
                if alignment.cursor == self.applied.len()
                    && alignment.kind == ConnectionKind::Resubscribe
                {
                    rulings.extend(self.settle_as_replay());
                }
                return rulings;
            }
            if cursor == self.applied.len() {
                rulings.extend(self.settle_as_replay());
            } else {
                rulings.extend(self.settle_as_live());
            }
        }
        if kind != ConnectionKind::Probe && self.opens_alignment(&observation) {
            self.alignment = Some(Alignment {
                connection,
                kind,
                cursor: 1,
                held: vec![observation],
            });
            return rulings;
        }
        rulings.push(self.judge_live(observation, kind));
        rulings
    }

    /// The connection ended: settles what it left held. On a resubscribe a
    /// partial match counts as replay (applying a stale state cannot be undone; a missed
    /// one is caught at the next sync point); on a turn the held events were live.
    pub fn close(&mut self, connection: u32) -> Vec<Ruling> {
        match &self.alignment {
            Some(alignment) if alignment.connection == connection => {
                if alignment.kind == ConnectionKind::Turn {
                    self.settle_as_live()
                } else {
                    self.settle_as_replay()
                }
            }
            _ => Vec::new(),
        }
    }

    fn opens_alignment(&self, observation: &Observation) -> bool {
        observation.state == TaskState::Submitted
            && self.applied.len() >= 2
            && self.applied[0].observation.state == TaskState::Submitted
            && !self.current().is_some_and(TaskState::is_terminal)
    }

    /// Ends the alignment, handing back what it held.
    fn take_held(&mut self) -> Vec<Observation> {
        self.alignment
            .take()
            .map(|alignment| alignment.held)
            .unwrap_or_default()
    }

    fn settle_as_replay(&mut self) -> Vec<Ruling> {
        let from = self.current();
        self.take_held()
            .into_iter()
            .map(|observation| Ruling {
                observation,
                verdict: StateVerdict::Replayed,
                from,
            })
            .collect()
    }

    fn settle_as_live(&mut self) -> Vec<Ruling> {
        let Some(kind) = self.alignment.as_ref().map(|alignment| alignment.kind) else {
            return Vec::new();
        };
        self.take_held()
            .into_iter()
            .map(|observation| self.judge_live(observation, kind))
            .collect()
    }

    fn judge_live(&mut self, observation: Observation, kind: ConnectionKind) -> Ruling {
        let from = self.current();
        // The turn that answers a question leaves it: the peer working again is what the
        // client asked for, not an earlier `working` said again, however alike their
        // timestamps (a peer stamping whole seconds stamps a quick second turn as the first).
        let answered = kind == ConnectionKind::Turn && from.is_some_and(TaskState::is_interrupted);
        let verdict = match observation.state.move_from(from) {
            TaskMove::Repeat => StateVerdict::Repeat,
            TaskMove::Unrecognised => StateVerdict::Unrecognised,
            TaskMove::AfterTerminal => StateVerdict::AfterTerminal,
            TaskMove::Backward if observation.state == TaskState::Submitted => {
                StateVerdict::DuplicateSubmitted
            }
            TaskMove::Backward => StateVerdict::Backward,
            TaskMove::Forward if !answered && self.matches_applied(&observation) => {
                StateVerdict::Duplicate
            }
            TaskMove::Forward => StateVerdict::Applied,
        };
        if verdict == StateVerdict::Applied {
            self.applied.push(Applied {
                from,
                observation: observation.clone(),
            });
        }
        Ruling {
            observation,
            verdict,
            from,
        }
    }

    /// Same state as an applied one, and the same timestamp or status-message id.
    fn matches_applied(&self, observation: &Observation) -> bool {
        self.applied.iter().any(|applied| {
            let earlier = &applied.observation;
            earlier.state == observation.state
                && ((observation.timestamp.is_some() && earlier.timestamp == observation.timestamp)
                    || (observation.message_id.is_some()
                        && earlier.message_id == observation.message_id))
        })
    }
}
