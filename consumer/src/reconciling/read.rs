//! Reading what a peer reports about a task (a stream, or the task a call returned) and
//! judging every state through the task's ledger.

use super::read_report::{ReadEnd, ReadReport};
use super::run::Run;
use super::tracked::{Tracked, slot_id};
use crate::client::{Connector, EventStream};
use crate::ledger::{ConnectionKind, EventKind, EventRef, Observation, Ruling, StateVerdict};
use crate::report::AnomalyKind;
use crate::session;
use meshsim_protocol::{RpcResult, StreamEvent, TaskState};
use std::time::Duration;
use tokio::time::Instant;

/// How long the consumer waits for what a peer sends right behind a question on the same
/// connection, where that matters: the stream's end, while it is learning whether tasks
/// outlive their streams, and the answer's turn after a replay (see
/// [`Run::wait_bound`]). Only the link's jitter separates them (1 to 20 ms in the
/// simulation, delivered at the next step).
const TRAILING_GRACE: Duration = Duration::from_millis(50);

impl<C: Connector> Run<'_, C> {
    /// Reads a stream until it closes or the task settles, judging every state.
    pub(super) async fn read(
        &mut self,
        mut stream: EventStream,
        kind: ConnectionKind,
        slot: &mut Option<Tracked>,
        streamed: bool,
    ) -> ReadReport {
        let connection = self.session.next_connection();
        let mut report = ReadReport::ended(ReadEnd::Closed);
        let mut index = 0;
        loop {
            let next = match self.wait_bound(slot, connection) {
                Some((at, end)) => match meshsim_time::timeout_at(at, stream.next()).await {
                    Ok(next) => next,
                    Err(_) => {
                        report.end = end;
                        break;
                    }
                },
                None => stream.next().await,
            };
            let event = match next {
                None => break,
                Some(Err(error)) => {
                    report.end = ReadEnd::Failed(error);
                    break;
                }
                Some(Ok(event)) => event,
            };
            let at = EventRef {
                connection,
                index,
                kind: event_kind(&event, EventKind::StatusUpdate),
            };
            index += 1;
            let end = self.take_event(&event, at, kind, slot, streamed, &mut report);
            if let Some(end) = end {
                let ended_by_peer = self.peer_ends(&mut stream, &end, slot).await;
                if let Some(task) = slot.as_mut() {
                    task.ended_by_peer = ended_by_peer;
                }
                report.end = end;
                return report;
            }
        }
        if let Some(task) = slot.as_mut() {
            task.ended_by_peer = matches!(report.end, ReadEnd::Closed);
            let rulings = task.ledger.close(connection);
            self.record_rulings(task, rulings, kind, &mut report);
        }
        report
    }

    /// Until when reading `connection` waits for the next event, and how it ends if none
    /// comes: at the current state's deadline, or where the ledger holds a `submitted` that
    /// restarts the turn, at that start's (`Tracked::start_deadline`); and shortly
    /// (`TRAILING_GRACE`) where the ledger holds this turn's events, as a possible replay,
    /// up to a question. A replay would go on at once with the answer's turn; a question of
    /// the peer's own (a task it resumed, or started afresh under the v0.1 id after losing
    /// ours) waits for the consumer, has no deadline, and a peer that keeps its streams open
    /// sends nothing more, so waiting for the stream's end would last until the job's
    /// deadline. Reading then ends settled, and the ledger judges the held events the turn's
    /// own, as it would at the stream's close.
    fn wait_bound(&self, slot: &Option<Tracked>, connection: u32) -> Option<(Instant, ReadEnd)> {
        let task = slot.as_ref()?;
        let deadlines = &self.session.job.deadlines;
        let deadline = task
            .deadline(deadlines)
            .or_else(|| task.start_deadline(connection, deadlines));
        if !task.ledger.holds_question(connection) {
            return deadline.map(|(at, state, limit)| (at, ReadEnd::Deadline(state, limit)));
        }
        let grace = Instant::now() + TRAILING_GRACE;
        Some(match deadline {
            Some((at, state, limit)) if at <= grace => (at, ReadEnd::Deadline(state, limit)),
            _ => (grace, ReadEnd::Settled),
        })
    }

    /// Whether the peer ends a stream the consumer stops reading at `end`. It matters only
    /// while the profile does not yet say whether tasks outlive their streams: the call that
    /// finds out follows at once, and finding the task alive proves something only if the
    /// peer had seen the close first. A peer that closes its streams at `input-required`
    /// sends the end right after the question, so the consumer waits briefly for it
    /// (`TRAILING_GRACE`); a stream still open then is one the consumer drops itself.
    async fn peer_ends(
        &mut self,
        stream: &mut EventStream,
        end: &ReadEnd,
        slot: &Option<Tracked>,
    ) -> bool {
        let waiting = || {
            slot.as_ref()
                .and_then(|task| task.ledger.current())
                .is_some_and(TaskState::is_interrupted)
        };
        // The profile (a lookup in the shared cache, copied out) only where it can matter.
        matches!(end, ReadEnd::Settled)
            && waiting()
            && self.profile().streams_keep_tasks().is_none()
            && stream.ends_within(TRAILING_GRACE).await
    }

    /// Judges one event; `Some` when reading should stop.
    fn take_event(
        &mut self,
        event: &StreamEvent,
        at: EventRef,
        kind: ConnectionKind,
        slot: &mut Option<Tracked>,
        streamed: bool,
        report: &mut ReadReport,
    ) -> Option<ReadEnd> {
        let event_task = event.task_id().map(str::to_string);
        let task = match (slot.as_mut(), event_task) {
            (Some(task), Some(id)) if id != task.task_id => return Some(ReadEnd::ForeignTask(id)),
            (Some(task), _) => task,
            (None, Some(id)) => slot.insert(Tracked::new(id, streamed)),
            (None, None) => {
                self.session
                    .recorder
                    .anomaly("", AnomalyKind::Protocol, "an event names no task");
                return None;
            }
        };
        if let StreamEvent::Task(whole) = event
            && self.began_elsewhere(whole)
        {
            return Some(ReadEnd::Replaced);
        }
        task.absorb(event);
        let (state, timestamp, message_id) = session::status_of(event)?;
        // A stream that begins at the task's first state (a replay from the start, or a
        // resubscribe before it started) carries every event of it from there.
        if at.index == 0 && state == TaskState::Submitted {
            task.events_unread = false;
        }
        let arrived = Instant::now();
        if let Some(stamp) = &timestamp {
            self.peer_clock.arrived(stamp, arrived);
        }
        if state == TaskState::Submitted && task.ledger.current().is_some() {
            let sent = self.peer_clock.sent_at(timestamp.as_deref(), arrived);
            report.resubmitted_at.get_or_insert(sent);
        }
        self.session.recorder.touched(&task.task_id);
        let observation = Observation {
            at,
            state,
            timestamp,
            message_id,
            unrecognised_state: session::unrecognised_state_of(event),
        };
        let rulings = task.ledger.observe(at.connection, kind, observation);
        task.note_status(event, at, &rulings);
        if rulings
            .iter()
            .any(|ruling| ruling.verdict == StateVerdict::Applied)
        {
            task.status_text = session::status_text(event).or(task.status_text.take());
        }
        self.record_rulings(task, rulings, kind, report);
        let settled = task
            .ledger
            .current()
            .is_some_and(|state| state.is_interrupted() || state.is_terminal());
        let counts = kind != ConnectionKind::Turn || report.applied > 0;
        (settled && counts && !task.ledger.is_aligning()).then_some(ReadEnd::Settled)
    }

    /// Records what the ledger ruled of the events read on a `kind` connection. A state
    /// applied from a resubscribe is not dated by its stamp: the stream may begin with the
    /// task's history replayed, and a peer may stamp what it replays anew, so a question
    /// asked seconds ago (its task since reaped by a timer) would read as asked just now.
    fn record_rulings(
        &mut self,
        task: &mut Tracked,
        rulings: Vec<Ruling>,
        kind: ConnectionKind,
        report: &mut ReadReport,
    ) {
        let stamps_date = kind != ConnectionKind::Resubscribe;
        for ruling in rulings {
            let observation = ruling.observation;
            match ruling.verdict {
                StateVerdict::Applied => {
                    report.applied += 1;
                    let now = Instant::now();
                    task.entered = now;
                    task.stamped = if stamps_date {
                        self.peer_clock
                            .stamped_sent_at(observation.timestamp.as_deref(), now)
                    } else {
                        None
                    };
                    self.session.recorder.applied(
                        &task.task_id,
                        ruling.from,
                        observation.state,
                        observation.at,
                        observation.timestamp,
                    );
                }
                StateVerdict::Repeat => {}
                verdict => {
                    report.duplicate_submitted |= verdict == StateVerdict::DuplicateSubmitted;
                    report.replayed |= verdict == StateVerdict::Replayed;
                    self.session.recorder.anomaly(
                        &task.task_id,
                        AnomalyKind::Event(verdict),
                        format!(
                            "{}{} reported while in {} (connection {}, event {})",
                            observation.state,
                            observation
                                .unrecognised_state
                                .map(|sent| format!(" (sent as {sent:?})"))
                                .unwrap_or_default(),
                            ruling.from.map(TaskState::name).unwrap_or("nothing"),
                            observation.at.connection,
                            observation.at.index
                        ),
                    );
                }
            }
        }
    }

    /// Judges the task a send, get or cancel returned.
    pub(super) fn observe_result(
        &mut self,
        result: RpcResult,
        kind: ConnectionKind,
        slot: &mut Option<Tracked>,
    ) -> ReadReport {
        let connection = self.session.next_connection();
        let mut report = ReadReport::ended(ReadEnd::Closed);
        let event = match result {
            RpcResult::Task(task) => StreamEvent::Task(task),
            RpcResult::Event(event) => event,
            RpcResult::Message(_) | RpcResult::TaskList(_) => {
                self.session.recorder.anomaly(
                    &slot_id(slot),
                    AnomalyKind::Protocol,
                    "an answer without a task",
                );
                return report;
            }
        };
        let at = EventRef {
            connection,
            index: 0,
            kind: EventKind::Result,
        };
        if let Some(end) = self.take_event(&event, at, kind, slot, false, &mut report) {
            report.end = end;
        }
        if let Some(task) = slot.as_mut() {
            let rulings = task.ledger.close(connection);
            self.record_rulings(task, rulings, kind, &mut report);
        }
        report
    }
}

fn event_kind(event: &StreamEvent, otherwise: EventKind) -> EventKind {
    match event {
        StreamEvent::Task(_) => EventKind::Snapshot,
        _ => otherwise,
    }
}
