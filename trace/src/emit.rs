//! Emitting a [`TraceEvent`]: one `tracing` call per event, which names the event's fields.
//! [`TraceLine::parse`](crate::TraceLine::parse) reads the same names back.
//!
//! Each call names its fields in bytewise order, as the recorded line has them (a message
//! too is a named field, not the macro's trailing text, which tracing puts first): the
//! recorder then writes each value into the line as it is visited (fields named in another
//! order would be gathered and sorted first).

use meshsim_protocol::TaskState;

use crate::event::{Applied, ConnectOutcome, JobOutcome, StreamEnd, TraceEvent};
use crate::target::{
    CONSUMER_TARGET, FAULT_TARGET, NET_TARGET, NOTE_TARGET, RUNNER_TARGET, RUNTIME_TARGET,
};

impl TraceEvent<'_> {
    /// Records the event (with the recorder's host and simulated time, when one is installed).
    pub fn emit(&self) {
        match self {
            TraceEvent::Accept { conn } => {
                tracing::info!(target: NET_TARGET, conn, event = "accept")
            }
            TraceEvent::AcceptFailed { error } => {
                tracing::warn!(target: NET_TARGET, error = error.name(), event = "accept_error")
            }
            TraceEvent::Connect { to, outcome } => match outcome {
                ConnectOutcome::Ok => {
                    tracing::info!(target: NET_TARGET, event = "connect", outcome = "ok", to = to.as_ref())
                }
                ConnectOutcome::Error(error) => tracing::info!(
                    target: NET_TARGET, error = error.name(), event = "connect", outcome = "error",
                    to = to.as_ref()
                ),
                ConnectOutcome::Timeout => tracing::info!(
                    target: NET_TARGET, event = "connect", outcome = "timeout", to = to.as_ref()
                ),
            },
            TraceEvent::Request { conn, method, path } => tracing::info!(
                target: NET_TARGET, conn, event = "request", method = method.as_ref(),
                path = path.as_ref()
            ),
            TraceEvent::Response {
                conn,
                method,
                path,
                status,
                streaming,
            } => tracing::info!(
                target: NET_TARGET, conn, event = "response", method = method.as_ref(),
                path = path.as_ref(), status, streaming
            ),
            TraceEvent::StreamFrame { conn, seq, bytes } => {
                tracing::info!(target: NET_TARGET, bytes, conn, event = "stream_event", seq)
            }
            TraceEvent::StreamClose { conn, frames, end } => match end {
                StreamEnd::End => tracing::info!(
                    target: NET_TARGET, conn, event = "stream_close", frames, outcome = "end"
                ),
                StreamEnd::Dropped => tracing::info!(
                    target: NET_TARGET, conn, event = "stream_close", frames, outcome = "dropped"
                ),
                StreamEnd::Error(error) => tracing::info!(
                    target: NET_TARGET, conn, error = error.name(), event = "stream_close", frames,
                    outcome = "error"
                ),
            },
            TraceEvent::ConnClose { conn, error } => match error {
                None => {
                    tracing::info!(target: NET_TARGET, conn, event = "conn_close", outcome = "ok")
                }
                Some(error) => tracing::info!(
                    target: NET_TARGET, conn, error = error.name(), event = "conn_close",
                    outcome = "error"
                ),
            },
            TraceEvent::Fault { at_ms, fault } => {
                tracing::info!(target: FAULT_TARGET, at_ms, event = "fault", fault = fault.as_ref())
            }
            TraceEvent::Heal {
                bounced,
                latency_reset,
                loss_reset,
            } => tracing::info!(
                target: FAULT_TARGET, bounced = bounced.join(","), event = "heal", latency_reset,
                loss_reset
            ),
            TraceEvent::Exit { node, error } => match error {
                None => tracing::info!(
                    target: RUNNER_TARGET, event = "exit", node = node.as_ref(), outcome = "ok"
                ),
                Some(error) => tracing::info!(
                    target: RUNNER_TARGET, error = error.name(), event = "exit", node = node.as_ref(),
                    outcome = "err"
                ),
            },
            TraceEvent::Violation { message } => {
                tracing::info!(target: RUNNER_TARGET, event = "violation", message = message.as_ref())
            }
            TraceEvent::End { clients_done } => {
                tracing::info!(target: RUNNER_TARGET, clients_done, event = "end")
            }
            TraceEvent::TaskCreated {
                runtime,
                task,
                origin,
                to,
            } => tracing::info!(
                target: RUNTIME_TARGET, message = "task created", origin = origin.name(),
                runtime = runtime.as_ref(), task = task.as_ref(), to = to.name()
            ),
            TraceEvent::TaskStalled { runtime, task } => tracing::info!(
                target: RUNTIME_TARGET, message = "task stalled", runtime = runtime.as_ref(),
                task = task.as_ref()
            ),
            TraceEvent::TaskEvicted { runtime, task } => tracing::info!(
                target: RUNTIME_TARGET, message = "task evicted", runtime = runtime.as_ref(),
                task = task.as_ref()
            ),
            TraceEvent::FollowUpQueued { runtime, task } => tracing::info!(
                target: RUNTIME_TARGET, message = "follow-up queued", runtime = runtime.as_ref(),
                task = task.as_ref()
            ),
            TraceEvent::FollowUpsDropped {
                runtime,
                task,
                dropped,
            } => tracing::info!(
                target: RUNTIME_TARGET, dropped, message = "queued follow-ups dropped",
                runtime = runtime.as_ref(), task = task.as_ref()
            ),
            TraceEvent::Transition {
                runtime,
                task,
                from,
                to,
            } => tracing::info!(
                target: RUNTIME_TARGET, from = from.name(), message = "transition",
                runtime = runtime.as_ref(), task = task.as_ref(), to = to.name()
            ),
            TraceEvent::Artifact {
                runtime,
                task,
                chunk,
                last,
            } => tracing::info!(
                target: RUNTIME_TARGET, chunk, last, message = "artifact",
                runtime = runtime.as_ref(), task = task.as_ref()
            ),
            TraceEvent::TaskReaped {
                runtime,
                task,
                state,
                reason,
            } => tracing::info!(
                target: RUNTIME_TARGET, message = "task reaped", reason = reason.as_ref(),
                runtime = runtime.as_ref(), state = state.name(), task = task.as_ref()
            ),
            TraceEvent::TaskStreamOpen {
                runtime,
                task,
                stream,
                kind,
            } => tracing::info!(
                target: RUNTIME_TARGET, kind = kind.as_ref(), message = "stream open",
                runtime = runtime.as_ref(), stream, task = task.as_ref()
            ),
            TraceEvent::TaskStreamClose {
                runtime,
                task,
                stream,
                reason,
            } => tracing::info!(
                target: RUNTIME_TARGET, message = "stream close", reason = reason.as_ref(),
                runtime = runtime.as_ref(), stream, task = task.as_ref()
            ),
            TraceEvent::DirectReply { runtime } => {
                tracing::info!(target: RUNTIME_TARGET, message = "direct reply", runtime = runtime.as_ref())
            }
            TraceEvent::ErrorAnswered {
                runtime,
                method,
                code,
            } => tracing::info!(
                target: RUNTIME_TARGET, code, message = "error answered", method = method.as_ref(),
                runtime = runtime.as_ref()
            ),
            TraceEvent::StreamErrorAnswered {
                task,
                code,
                problem,
            } => tracing::info!(
                target: RUNTIME_TARGET, code, message = "error answered",
                problem = problem.as_ref(), task = task.as_ref()
            ),
            TraceEvent::SidecarUpstreamError { path, problem } => tracing::info!(
                target: RUNTIME_TARGET, message = "sidecar upstream error", path = path.as_ref(),
                problem = problem.name()
            ),
            TraceEvent::SidecarCut { path, reason } => tracing::info!(
                target: RUNTIME_TARGET, message = "sidecar cut", path = path.as_ref(),
                reason = reason.as_ref()
            ),
            TraceEvent::JobStart {
                job,
                consumer,
                peer,
            } => tracing::info!(
                target: CONSUMER_TARGET, consumer = consumer.as_ref(), event = "job-start",
                job = job.as_ref(), peer = peer.as_ref()
            ),
            TraceEvent::Card {
                path,
                dialect,
                version,
                streaming,
            } => match streaming {
                Some(streaming) => tracing::info!(
                    target: CONSUMER_TARGET, dialect = dialect.as_ref(), event = "card",
                    path = path.as_ref(), streaming, version = version.as_ref()
                ),
                // A Card without `capabilities.streaming`: the field is left out.
                None => tracing::info!(
                    target: CONSUMER_TARGET, dialect = dialect.as_ref(), event = "card",
                    path = path.as_ref(), version = version.as_ref()
                ),
            },
            TraceEvent::EncodeLoss { method, loss } => tracing::info!(
                target: CONSUMER_TARGET, event = "encode-loss", loss = loss.as_ref(),
                method = method.as_ref()
            ),
            TraceEvent::Applied(Applied {
                job,
                task,
                from,
                state,
                connection,
                index,
            }) => tracing::info!(
                target: CONSUMER_TARGET, connection, event = "applied",
                from = from.map_or("none", TaskState::name), index, job = job.as_ref(),
                state = state.name(), task = task.as_ref()
            ),
            TraceEvent::Anomaly {
                job,
                task,
                kind,
                detail,
            } => tracing::info!(
                target: CONSUMER_TARGET, detail = detail.as_ref(), event = "anomaly",
                job = job.as_ref(), kind = kind.as_ref(), task = task.as_ref()
            ),
            TraceEvent::Decision {
                job,
                task,
                decision,
                reason,
            } => tracing::info!(
                target: CONSUMER_TARGET, decision = decision.as_ref(), event = "decision",
                job = job.as_ref(), reason = reason.as_ref(), task = task.as_ref()
            ),
            TraceEvent::Deadline {
                job,
                task,
                state,
                limit_ms,
            } => tracing::info!(
                target: CONSUMER_TARGET, event = "deadline", job = job.as_ref(), limit_ms,
                state = state.name(), task = task.as_ref()
            ),
            TraceEvent::Abandoned {
                job,
                task,
                reason,
                cancel,
            } => tracing::info!(
                target: CONSUMER_TARGET, cancel = cancel.as_ref(), event = "abandoned",
                job = job.as_ref(), reason = reason.as_ref(), task = task.as_ref()
            ),
            TraceEvent::ProfileLearned {
                job,
                peer,
                card_version,
                field,
                value,
            } => tracing::info!(
                target: CONSUMER_TARGET, card_version = card_version.as_ref(),
                event = "profile-learned", field = field.as_ref(), job = job.as_ref(),
                peer = peer.as_ref(), value = value.as_ref()
            ),
            TraceEvent::Outcome { job, outcome } => match outcome {
                JobOutcome::Completed { task, artifact } => tracing::info!(
                    target: CONSUMER_TARGET, artifact = artifact.as_ref(), event = "outcome",
                    job = job.as_ref(), outcome = outcome.name(), task = task.as_ref()
                ),
                JobOutcome::Failed { task, reason } => tracing::info!(
                    target: CONSUMER_TARGET, event = "outcome", job = job.as_ref(),
                    outcome = outcome.name(), reason = reason.as_ref(), task = task.as_ref()
                ),
                JobOutcome::Canceled { task } => tracing::info!(
                    target: CONSUMER_TARGET, event = "outcome", job = job.as_ref(),
                    outcome = outcome.name(), task = task.as_ref()
                ),
                JobOutcome::GaveUp { reason } => tracing::info!(
                    target: CONSUMER_TARGET, event = "outcome", job = job.as_ref(),
                    outcome = outcome.name(), reason = reason.as_ref()
                ),
            },
            TraceEvent::Note { note, value } => match value {
                None => tracing::info!(target: NOTE_TARGET, event = "note", note = note.as_ref()),
                Some(value) => tracing::info!(
                    target: NOTE_TARGET, event = "note", note = note.as_ref(), value
                ),
            },
            TraceEvent::Unrecognised => {}
        }
    }
}
