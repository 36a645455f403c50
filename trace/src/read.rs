//! Reading an event back from a recorded line's fields, by the names [`TraceEvent::emit`]
//! gives them: one reader per target (net, fault, runner, runtime, sidecar, consumer).

use std::borrow::Cow;

use meshsim_protocol::TaskState;
use serde_json::{Map, Value};

use crate::error_kind::ErrorKind;
use crate::event::{Applied, ConnectOutcome, JobOutcome, StreamEnd, TaskOrigin, TraceEvent};
use crate::target::{
    CONSUMER_TARGET, FAULT_TARGET, NET_TARGET, NOTE_TARGET, RUNNER_TARGET, RUNTIME_TARGET,
};

/// The fields of one line, read by the names [`TraceEvent::emit`] gives them.
pub(crate) struct Fields<'f>(pub(crate) &'f Map<String, Value>);

impl Fields<'_> {
    /// The event a line of `target` with these fields records, if this crate knows it.
    pub(crate) fn event(&self, target: &str) -> Option<TraceEvent<'static>> {
        match target {
            NET_TARGET => self.net(),
            FAULT_TARGET => self.fault(),
            RUNNER_TARGET => self.runner(),
            RUNTIME_TARGET => self.runtime(),
            CONSUMER_TARGET => self.consumer(),
            NOTE_TARGET => Some(TraceEvent::Note {
                note: self.text("note")?,
                value: self.number("value"),
            }),
            _ => None,
        }
    }

    fn net(&self) -> Option<TraceEvent<'static>> {
        Some(match self.str("event")? {
            "accept" => TraceEvent::Accept {
                conn: self.number("conn")?,
            },
            "accept_error" => TraceEvent::AcceptFailed {
                error: self.error("error")?,
            },
            "connect" => TraceEvent::Connect {
                to: self.text("to")?,
                outcome: match self.str("outcome")? {
                    "ok" => ConnectOutcome::Ok,
                    "timeout" => ConnectOutcome::Timeout,
                    "error" => ConnectOutcome::Error(self.error("error")?),
                    _ => return None,
                },
            },
            "request" => TraceEvent::Request {
                conn: self.number("conn")?,
                method: self.text("method")?,
                path: self.text("path")?,
            },
            "response" => TraceEvent::Response {
                conn: self.number("conn")?,
                method: self.text("method")?,
                path: self.text("path")?,
                status: u16::try_from(self.number("status")?).ok()?,
                streaming: self.bool("streaming")?,
            },
            "stream_event" => TraceEvent::StreamFrame {
                conn: self.number("conn")?,
                seq: self.number("seq")?,
                bytes: self.number("bytes")?,
            },
            "stream_close" => TraceEvent::StreamClose {
                conn: self.number("conn")?,
                frames: self.number("frames")?,
                end: match self.str("outcome")? {
                    "end" => StreamEnd::End,
                    "dropped" => StreamEnd::Dropped,
                    "error" => StreamEnd::Error(self.error("error")?),
                    _ => return None,
                },
            },
            "conn_close" => TraceEvent::ConnClose {
                conn: self.number("conn")?,
                error: match self.str("outcome")? {
                    "ok" => None,
                    "error" => Some(self.error("error")?),
                    _ => return None,
                },
            },
            _ => return None,
        })
    }

    fn fault(&self) -> Option<TraceEvent<'static>> {
        Some(match self.str("event")? {
            "fault" => TraceEvent::Fault {
                at_ms: self.number("at_ms")?,
                fault: self.text("fault")?,
            },
            "heal" => TraceEvent::Heal {
                bounced: self
                    .str("bounced")?
                    .split(',')
                    .filter(|host| !host.is_empty())
                    .map(str::to_string)
                    .collect(),
                latency_reset: self.number("latency_reset")?,
                loss_reset: self.number("loss_reset")?,
            },
            _ => return None,
        })
    }

    fn runner(&self) -> Option<TraceEvent<'static>> {
        Some(match self.str("event")? {
            "exit" => TraceEvent::Exit {
                node: self.text("node")?,
                error: match self.str("outcome")? {
                    "ok" => None,
                    "err" => Some(self.error("error")?),
                    _ => return None,
                },
            },
            "violation" => TraceEvent::Violation {
                message: self.text("message")?,
            },
            "end" => TraceEvent::End {
                clients_done: self.bool("clients_done")?,
            },
            _ => return None,
        })
    }

    fn runtime(&self) -> Option<TraceEvent<'static>> {
        let message = self.str("message")?;
        if message == "error answered" && self.0.contains_key("problem") {
            return Some(TraceEvent::StreamErrorAnswered {
                task: self.text("task")?,
                code: self.0.get("code")?.as_i64()?,
                problem: self.text("problem")?,
            });
        }
        if let Some(sidecar) = self.sidecar(message) {
            return Some(sidecar);
        }
        let runtime = self.text("runtime")?;
        if message == "direct reply" {
            return Some(TraceEvent::DirectReply { runtime });
        }
        if message == "error answered" {
            return Some(TraceEvent::ErrorAnswered {
                runtime,
                method: self.text("method")?,
                code: self.0.get("code")?.as_i64()?,
            });
        }
        let task = self.text("task")?;
        Some(match message {
            "task created" => TraceEvent::TaskCreated {
                runtime,
                task,
                origin: match self.str("origin")? {
                    "new" => TaskOrigin::New,
                    "follow-up" => TaskOrigin::FollowUp,
                    _ => return None,
                },
                to: self.state("to")?,
            },
            "task stalled" => TraceEvent::TaskStalled { runtime, task },
            "task evicted" => TraceEvent::TaskEvicted { runtime, task },
            "follow-up queued" => TraceEvent::FollowUpQueued { runtime, task },
            "queued follow-ups dropped" => TraceEvent::FollowUpsDropped {
                runtime,
                task,
                dropped: self.number("dropped")?,
            },
            "transition" => TraceEvent::Transition {
                runtime,
                task,
                from: self.state("from")?,
                to: self.state("to")?,
            },
            "artifact" => TraceEvent::Artifact {
                runtime,
                task,
                chunk: self.number("chunk")?,
                last: self.bool("last")?,
            },
            "task reaped" => TraceEvent::TaskReaped {
                runtime,
                task,
                state: self.state("state")?,
                reason: self.text("reason")?,
            },
            "stream open" => TraceEvent::TaskStreamOpen {
                runtime,
                task,
                stream: self.number("stream")?,
                kind: self.text("kind")?,
            },
            "stream close" => TraceEvent::TaskStreamClose {
                runtime,
                task,
                stream: self.number("stream")?,
                reason: self.text("reason")?,
            },
            _ => return None,
        })
    }

    fn sidecar(&self, message: &str) -> Option<TraceEvent<'static>> {
        match message {
            "sidecar upstream error" => Some(TraceEvent::SidecarUpstreamError {
                path: self.text("path")?,
                problem: self.error("problem")?,
            }),
            "sidecar cut" => Some(TraceEvent::SidecarCut {
                path: self.text("path")?,
                reason: self.text("reason")?,
            }),
            _ => None,
        }
    }

    fn consumer(&self) -> Option<TraceEvent<'static>> {
        let event = self.str("event")?;
        match event {
            "card" => {
                return Some(TraceEvent::Card {
                    path: self.text("path")?,
                    dialect: self.text("dialect")?,
                    version: self.text("version")?,
                    streaming: match self.0.get("streaming") {
                        None => None,
                        Some(streaming) => Some(streaming.as_bool()?),
                    },
                });
            }
            "encode-loss" => {
                return Some(TraceEvent::EncodeLoss {
                    method: self.text("method")?,
                    loss: self.text("loss")?,
                });
            }
            _ => {}
        }
        let job = self.text("job")?;
        match event {
            "job-start" => {
                return Some(TraceEvent::JobStart {
                    job,
                    consumer: self.text("consumer")?,
                    peer: self.text("peer")?,
                });
            }
            "outcome" => {
                return Some(TraceEvent::Outcome {
                    job,
                    outcome: match self.str("outcome")? {
                        "completed" => JobOutcome::Completed {
                            task: self.text("task")?,
                            artifact: self.text("artifact")?,
                        },
                        "failed" => JobOutcome::Failed {
                            task: self.text("task")?,
                            reason: self.text("reason")?,
                        },
                        "canceled" => JobOutcome::Canceled {
                            task: self.text("task")?,
                        },
                        "gave-up" => JobOutcome::GaveUp {
                            reason: self.text("reason")?,
                        },
                        _ => return None,
                    },
                });
            }
            "profile-learned" => {
                return Some(TraceEvent::ProfileLearned {
                    job,
                    peer: self.text("peer")?,
                    card_version: self.text("card_version")?,
                    field: self.text("field")?,
                    value: self.text("value")?,
                });
            }
            _ => {}
        }
        let task = self.text("task")?;
        Some(match event {
            "applied" => TraceEvent::Applied(Applied {
                job,
                task,
                from: match self.str("from")? {
                    "none" => None,
                    name => Some(name.parse().ok()?),
                },
                state: self.state("state")?,
                connection: u32::try_from(self.number("connection")?).ok()?,
                index: u32::try_from(self.number("index")?).ok()?,
            }),
            "anomaly" => TraceEvent::Anomaly {
                job,
                task,
                kind: self.text("kind")?,
                detail: self.text("detail")?,
            },
            "decision" => TraceEvent::Decision {
                job,
                task,
                decision: self.text("decision")?,
                reason: self.text("reason")?,
            },
            "deadline" => TraceEvent::Deadline {
                job,
                task,
                state: self.state("state")?,
                limit_ms: self.number("limit_ms")?,
            },
            "abandoned" => TraceEvent::Abandoned {
                job,
                task,
                reason: self.text("reason")?,
                cancel: self.text("cancel")?,
            },
            _ => return None,
        })
    }

    fn str(&self, name: &str) -> Option<&str> {
        self.0.get(name)?.as_str()
    }

    fn text(&self, name: &str) -> Option<Cow<'static, str>> {
        self.str(name).map(|text| Cow::Owned(text.to_string()))
    }

    fn number(&self, name: &str) -> Option<u64> {
        self.0.get(name)?.as_u64()
    }

    fn bool(&self, name: &str) -> Option<bool> {
        self.0.get(name)?.as_bool()
    }

    fn state(&self, name: &str) -> Option<TaskState> {
        self.str(name)?.parse().ok()
    }

    fn error(&self, name: &str) -> Option<ErrorKind> {
        ErrorKind::from_name(self.str(name)?)
    }
}
