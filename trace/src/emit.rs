//! Emitting a [`TraceEvent`]: one `tracing` call per event, which names the event's fields.
//! [`TraceLine::parse`](crate::TraceLine::parse) reads the same names back.

use meshsim_protocol::TaskState;

use crate::event::{Applied, ConnectOutcome, StreamEnd, TraceEvent};
use crate::target::{
    CONSUMER_TARGET, FAULT_TARGET, NET_TARGET, NOTE_TARGET, RUNNER_TARGET, RUNTIME_TARGET,
};

impl TraceEvent<'_> {
    /// Records the event (with the recorder's host and simulated time, when one is installed).
    pub fn emit(&self) {
        match self {
            TraceEvent::Accept { conn } => {
                tracing::info!(target: NET_TARGET, event = "accept", conn)
            }
            TraceEvent::AcceptFailed { error } => {
                tracing::warn!(target: NET_TARGET, event = "accept_error", error = error.name())
            }
            TraceEvent::Connect { to, outcome } => match outcome {
                ConnectOutcome::Ok => {
                    tracing::info!(target: NET_TARGET, event = "connect", to = to.as_ref(), outcome = "ok")
                }
                ConnectOutcome::Error(error) => tracing::info!(
                    target: NET_TARGET, event = "connect", to = to.as_ref(), outcome = "error",
                    error = error.name()
                ),
                ConnectOutcome::Timeout => tracing::info!(
                    target: NET_TARGET, event = "connect", to = to.as_ref(), outcome = "timeout"
                ),
            },
            TraceEvent::Request { conn, method, path } => tracing::info!(
                target: NET_TARGET, event = "request", conn, method = method.as_ref(),
                path = path.as_ref()
            ),
            TraceEvent::Response {
                conn,
                method,
                path,
                status,
                streaming,
            } => tracing::info!(
                target: NET_TARGET, event = "response", conn, method = method.as_ref(),
                path = path.as_ref(), status, streaming
            ),
            TraceEvent::StreamFrame { conn, seq, bytes } => {
                tracing::info!(target: NET_TARGET, event = "stream_event", conn, seq, bytes)
            }
            TraceEvent::StreamClose { conn, frames, end } => match end {
                StreamEnd::End => tracing::info!(
                    target: NET_TARGET, event = "stream_close", conn, frames, outcome = "end"
                ),
                StreamEnd::Dropped => tracing::info!(
                    target: NET_TARGET, event = "stream_close", conn, frames, outcome = "dropped"
                ),
                StreamEnd::Error(error) => tracing::info!(
                    target: NET_TARGET, event = "stream_close", conn, frames, outcome = "error",
                    error = error.name()
                ),
            },
            TraceEvent::ConnClose { conn, error } => match error {
                None => {
                    tracing::info!(target: NET_TARGET, event = "conn_close", conn, outcome = "ok")
                }
                Some(error) => tracing::info!(
                    target: NET_TARGET, event = "conn_close", conn, outcome = "error",
                    error = error.name()
                ),
            },
            TraceEvent::Fault { at_ms, fault } => {
                tracing::info!(target: FAULT_TARGET, event = "fault", at_ms, fault = fault.as_ref())
            }
            TraceEvent::Heal {
                bounced,
                latency_reset,
                loss_reset,
            } => tracing::info!(
                target: FAULT_TARGET, event = "heal", bounced = bounced.join(","), latency_reset,
                loss_reset
            ),
            TraceEvent::Exit { node, error } => match error {
                None => tracing::info!(
                    target: RUNNER_TARGET, event = "exit", node = node.as_ref(), outcome = "ok"
                ),
                Some(error) => tracing::info!(
                    target: RUNNER_TARGET, event = "exit", node = node.as_ref(), outcome = "err",
                    error = error.name()
                ),
            },
            TraceEvent::Violation { message } => {
                tracing::info!(target: RUNNER_TARGET, event = "violation", message = message.as_ref())
            }
            TraceEvent::End { clients_done } => {
                tracing::info!(target: RUNNER_TARGET, event = "end", clients_done)
            }
            TraceEvent::TaskCreated {
                runtime,
                task,
                origin,
                to,
            } => tracing::info!(
                target: RUNTIME_TARGET, runtime = runtime.as_ref(), task = task.as_ref(),
                origin = origin.name(), to = to.name(), "task created"
            ),
            TraceEvent::TaskStalled { runtime, task } => tracing::info!(
                target: RUNTIME_TARGET, runtime = runtime.as_ref(), task = task.as_ref(),
                "task stalled"
            ),
            TraceEvent::TaskEvicted { runtime, task } => tracing::info!(
                target: RUNTIME_TARGET, runtime = runtime.as_ref(), task = task.as_ref(),
                "task evicted"
            ),
            TraceEvent::FollowUpQueued { runtime, task } => tracing::info!(
                target: RUNTIME_TARGET, runtime = runtime.as_ref(), task = task.as_ref(),
                "follow-up queued"
            ),
            TraceEvent::FollowUpsDropped {
                runtime,
                task,
                dropped,
            } => tracing::info!(
                target: RUNTIME_TARGET, runtime = runtime.as_ref(), task = task.as_ref(), dropped,
                "queued follow-ups dropped"
            ),
            TraceEvent::Transition {
                runtime,
                task,
                from,
                to,
            } => tracing::info!(
                target: RUNTIME_TARGET, runtime = runtime.as_ref(), task = task.as_ref(),
                from = from.name(), to = to.name(), "transition"
            ),
            TraceEvent::Artifact {
                runtime,
                task,
                chunk,
                last,
            } => tracing::info!(
                target: RUNTIME_TARGET, runtime = runtime.as_ref(), task = task.as_ref(), chunk,
                last, "artifact"
            ),
            TraceEvent::TaskReaped {
                runtime,
                task,
                state,
                reason,
            } => tracing::info!(
                target: RUNTIME_TARGET, runtime = runtime.as_ref(), task = task.as_ref(),
                state = state.name(), reason = reason.as_ref(), "task reaped"
            ),
            TraceEvent::TaskStreamOpen {
                runtime,
                task,
                stream,
                kind,
            } => tracing::info!(
                target: RUNTIME_TARGET, runtime = runtime.as_ref(), task = task.as_ref(), stream,
                kind = kind.as_ref(), "stream open"
            ),
            TraceEvent::TaskStreamClose {
                runtime,
                task,
                stream,
                reason,
            } => tracing::info!(
                target: RUNTIME_TARGET, runtime = runtime.as_ref(), task = task.as_ref(), stream,
                reason = reason.as_ref(), "stream close"
            ),
            TraceEvent::DirectReply { runtime } => {
                tracing::info!(target: RUNTIME_TARGET, runtime = runtime.as_ref(), "direct reply")
            }
            TraceEvent::ErrorAnswered {
                runtime,
                method,
                code,
            } => tracing::info!(
                target: RUNTIME_TARGET, runtime = runtime.as_ref(), method = method.as_ref(), code,
                "error answered"
            ),
            TraceEvent::StreamErrorAnswered {
                task,
                code,
                problem,
            } => tracing::info!(
                target: RUNTIME_TARGET, task = task.as_ref(), code, problem = problem.as_ref(),
                "error answered"
            ),
            TraceEvent::SidecarUpstreamError { path, problem } => tracing::info!(
                target: RUNTIME_TARGET, path = path.as_ref(), problem = problem.name(),
                "sidecar upstream error"
            ),
            TraceEvent::SidecarCut { path, reason } => tracing::info!(
                target: RUNTIME_TARGET, path = path.as_ref(), reason = reason.as_ref(),
                "sidecar cut"
            ),
            TraceEvent::JobStart {
                job,
                consumer,
                peer,
            } => tracing::info!(
                target: CONSUMER_TARGET, event = "job-start", job = job.as_ref(),
                consumer = consumer.as_ref(), peer = peer.as_ref()
            ),
            TraceEvent::Card {
                path,
                dialect,
                version,
                streaming,
            } => tracing::info!(
                target: CONSUMER_TARGET, event = "card", path = path.as_ref(),
                dialect = dialect.as_ref(), version = version.as_ref(), streaming = ?streaming
            ),
            TraceEvent::EncodeLoss { method, loss } => tracing::info!(
                target: CONSUMER_TARGET, event = "encode-loss", method = method.as_ref(),
                loss = loss.as_ref()
            ),
            TraceEvent::Applied(Applied {
                job,
                task,
                from,
                state,
                connection,
                index,
            }) => tracing::info!(
                target: CONSUMER_TARGET, event = "applied", job = job.as_ref(),
                task = task.as_ref(), from = from.map_or("none", TaskState::name),
                state = state.name(), connection, index
            ),
            TraceEvent::Anomaly {
                job,
                task,
                kind,
                detail,
            } => tracing::info!(
                target: CONSUMER_TARGET, event = "anomaly", job = job.as_ref(),
                task = task.as_ref(), kind = kind.as_ref(), detail = detail.as_ref()
            ),
            TraceEvent::Decision {
                job,
                task,
                decision,
                reason,
            } => tracing::info!(
                target: CONSUMER_TARGET, event = "decision", job = job.as_ref(),
                task = task.as_ref(), decision = decision.as_ref(), reason = reason.as_ref()
            ),
            TraceEvent::Deadline {
                job,
                task,
                state,
                limit_ms,
            } => tracing::info!(
                target: CONSUMER_TARGET, event = "deadline", job = job.as_ref(),
                task = task.as_ref(), state = state.name(), limit_ms
            ),
            TraceEvent::Abandoned {
                job,
                task,
                reason,
                cancel,
            } => tracing::info!(
                target: CONSUMER_TARGET, event = "abandoned", job = job.as_ref(),
                task = task.as_ref(), reason = reason.as_ref(), cancel = cancel.as_ref()
            ),
            TraceEvent::ProfileLearned {
                job,
                peer,
                card_version,
                field,
                value,
            } => tracing::info!(
                target: CONSUMER_TARGET, event = "profile-learned", job = job.as_ref(),
                peer = peer.as_ref(), card_version = card_version.as_ref(), field = field.as_ref(),
                value = value.as_ref()
            ),
            TraceEvent::Outcome { job, outcome } => tracing::info!(
                target: CONSUMER_TARGET, event = "outcome", job = job.as_ref(),
                outcome = outcome.as_ref()
            ),
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
