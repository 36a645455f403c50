//! [`TraceEvent`]: every event the harness records, with its fields as typed values.
//!
//! Text fields are `Cow`s so that emitting borrows what the emitter already holds, and
//! reading a line back gives owned values (`TraceEvent<'static>`).

use std::borrow::Cow;

use meshsim_protocol::TaskState;

use crate::error_kind::ErrorKind;

/// One event of a run's trace.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TraceEvent<'a> {
    // ---- the simulated network (`meshsim::net`), recorded on the serving side -------------
    /// A server accepted connection `conn` (numbered per listener from 0).
    Accept { conn: u64 },
    /// A listener failed to accept a connection (it retries).
    AcceptFailed { error: ErrorKind },
    /// A client's connection attempt to `to` (`host:port`).
    Connect {
        to: Cow<'a, str>,
        outcome: ConnectOutcome,
    },
    /// A server read a request on connection `conn`.
    Request {
        conn: u64,
        method: Cow<'a, str>,
        path: Cow<'a, str>,
    },
    /// A server answered the request on connection `conn`; `streaming` when the answer is
    /// an event stream.
    Response {
        conn: u64,
        method: Cow<'a, str>,
        path: Cow<'a, str>,
        status: u16,
        streaming: bool,
    },
    /// A server sent data frame `seq` (from 1) of `bytes` bytes on the stream of `conn`.
    StreamFrame { conn: u64, seq: u64, bytes: u64 },
    /// The stream of connection `conn` ended after `frames` frames.
    StreamClose {
        conn: u64,
        frames: u64,
        end: StreamEnd,
    },
    /// A server's connection `conn` closed; `error` when it failed.
    ConnClose { conn: u64, error: Option<ErrorKind> },

    // ---- faults (`meshsim::fault`) ---------------------------------------------------------
    /// A planned fault was applied at `at_ms`; `fault` is the fault as canonical JSON.
    Fault { at_ms: u64, fault: Cow<'a, str> },
    /// The fault phase ended: every link healed, the crashed hosts `bounced` back, and so many
    /// links' latency and loss reset.
    Heal {
        bounced: Vec<String>,
        latency_reset: u64,
        loss_reset: u64,
    },

    // ---- the runner (`meshsim::runner`) ----------------------------------------------------
    /// A host's software ended; `error` when it failed.
    Exit {
        node: Cow<'a, str>,
        error: Option<ErrorKind>,
    },
    /// A check run while the simulation ran found a violation and stopped it.
    Violation { message: Cow<'a, str> },
    /// The run ended; `clients_done` when every client finished.
    End { clients_done: bool },

    // ---- the mock runtimes (`meshsim::runtime`) --------------------------------------------
    /// `runtime` created task `task` in state `to` (always submitted).
    TaskCreated {
        runtime: Cow<'a, str>,
        task: Cow<'a, str>,
        origin: TaskOrigin,
        to: TaskState,
    },
    /// The task stalls in its first state (the personality stalls the first tasks).
    TaskStalled {
        runtime: Cow<'a, str>,
        task: Cow<'a, str>,
    },
    /// A finished task was evicted to make room under the store's task limit.
    TaskEvicted {
        runtime: Cow<'a, str>,
        task: Cow<'a, str>,
    },
    /// A follow-up message waits for the task's turn to settle.
    FollowUpQueued {
        runtime: Cow<'a, str>,
        task: Cow<'a, str>,
    },
    /// `dropped` queued follow-ups were thrown away (the task ended, or cannot resume).
    FollowUpsDropped {
        runtime: Cow<'a, str>,
        task: Cow<'a, str>,
        dropped: u64,
    },
    /// The runtime moved the task from `from` to `to`: the ground truth's transition.
    Transition {
        runtime: Cow<'a, str>,
        task: Cow<'a, str>,
        from: TaskState,
        to: TaskState,
    },
    /// The runtime emitted artifact chunk `chunk` (from 0); `last` on the final chunk.
    Artifact {
        runtime: Cow<'a, str>,
        task: Cow<'a, str>,
        chunk: u64,
        last: bool,
    },
    /// The runtime forgot the task, in `state`, for `reason`.
    TaskReaped {
        runtime: Cow<'a, str>,
        task: Cow<'a, str>,
        state: TaskState,
        reason: Cow<'a, str>,
    },
    /// A stream of the task's events opened (`kind` says which request opened it).
    TaskStreamOpen {
        runtime: Cow<'a, str>,
        task: Cow<'a, str>,
        stream: u64,
        kind: Cow<'a, str>,
    },
    /// A stream of the task's events closed, for `reason`.
    TaskStreamClose {
        runtime: Cow<'a, str>,
        task: Cow<'a, str>,
        stream: u64,
        reason: Cow<'a, str>,
    },
    /// The runtime answered a message with a message, creating no task.
    DirectReply { runtime: Cow<'a, str> },
    /// The runtime answered `method` (`-` when it could not tell) with JSON-RPC error `code`.
    ErrorAnswered {
        runtime: Cow<'a, str>,
        method: Cow<'a, str>,
        code: i64,
    },
    /// A stream event the dialect cannot express went out as error `code` instead.
    StreamErrorAnswered {
        task: Cow<'a, str>,
        code: i64,
        problem: Cow<'a, str>,
    },
    /// The sidecar could not relay `path` to its backend.
    SidecarUpstreamError {
        path: Cow<'a, str>,
        problem: ErrorKind,
    },
    /// The sidecar cut the exchange on `path` when a timeout (`reason`) ran out.
    SidecarCut {
        path: Cow<'a, str>,
        reason: Cow<'a, str>,
    },

    // ---- the consumers (`meshsim::consumer`) -----------------------------------------------
    /// `consumer` started `job` against `peer`.
    JobStart {
        job: Cow<'a, str>,
        consumer: Cow<'a, str>,
        peer: Cow<'a, str>,
    },
    /// The consumer read the agent card at `path` and chose `dialect`.
    Card {
        path: Cow<'a, str>,
        dialect: Cow<'a, str>,
        version: Cow<'a, str>,
        streaming: Option<bool>,
    },
    /// Encoding a `method` request lost something the dialect cannot say.
    EncodeLoss {
        method: Cow<'a, str>,
        loss: Cow<'a, str>,
    },
    /// The consumer applied a state to its view of a task.
    Applied(Applied<'a>),
    /// The consumer noticed something wrong (`kind`, as the consumer names it).
    Anomaly {
        job: Cow<'a, str>,
        task: Cow<'a, str>,
        kind: Cow<'a, str>,
        detail: Cow<'a, str>,
    },
    /// What the consumer does next about a task, and why.
    Decision {
        job: Cow<'a, str>,
        task: Cow<'a, str>,
        decision: Cow<'a, str>,
        reason: Cow<'a, str>,
    },
    /// A local deadline of `limit_ms` for the task in `state` expired.
    Deadline {
        job: Cow<'a, str>,
        task: Cow<'a, str>,
        state: TaskState,
        limit_ms: u64,
    },
    /// The consumer stopped following the task; `cancel` is what its cancel did.
    Abandoned {
        job: Cow<'a, str>,
        task: Cow<'a, str>,
        reason: Cow<'a, str>,
        cancel: Cow<'a, str>,
    },
    /// What the consumer learned of a peer's lifecycle changed: profile `field` of the peer
    /// `peer` (`host:port`) at Card version `card_version` now holds `value` (the probe's
    /// spelling), from what `job` observed.
    ProfileLearned {
        job: Cow<'a, str>,
        peer: Cow<'a, str>,
        card_version: Cow<'a, str>,
        field: Cow<'a, str>,
        value: Cow<'a, str>,
    },
    /// The job's accepted outcome, as the consumer reports it.
    Outcome {
        job: Cow<'a, str>,
        outcome: JobOutcome<'a>,
    },

    // ---- programs under test (`meshsim::note`) ---------------------------------------------
    /// A note a program run inside the simulation left: a name and an optional number.
    Note {
        note: Cow<'a, str>,
        value: Option<u64>,
    },

    /// A recorded event this crate does not know (another target, or another version's).
    Unrecognised,
}

/// The consumer applied `state` (from `from`, `None` for a task it had not seen) to its view
/// of `task` in `job`, on reading event `index` of its connection `connection`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Applied<'a> {
    pub job: Cow<'a, str>,
    pub task: Cow<'a, str>,
    pub from: Option<TaskState>,
    pub state: TaskState,
    pub connection: u32,
    pub index: u32,
}

/// A job's accepted outcome, as the trace records it (`outcome` names the kind, beside the
/// fields it has).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum JobOutcome<'a> {
    /// The task completed with `artifact`.
    Completed {
        task: Cow<'a, str>,
        artifact: Cow<'a, str>,
    },
    /// The task failed (or was rejected), for `reason`.
    Failed {
        task: Cow<'a, str>,
        reason: Cow<'a, str>,
    },
    /// The task was canceled, as the job asked.
    Canceled { task: Cow<'a, str> },
    /// The consumer gave the job up, for `reason`.
    GaveUp { reason: Cow<'a, str> },
}

impl JobOutcome<'_> {
    /// The name the trace's `outcome` field carries.
    pub fn name(&self) -> &'static str {
        match self {
            JobOutcome::Completed { .. } => "completed",
            JobOutcome::Failed { .. } => "failed",
            JobOutcome::Canceled { .. } => "canceled",
            JobOutcome::GaveUp { .. } => "gave-up",
        }
    }
}

/// How a connection attempt went.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ConnectOutcome {
    Ok,
    Error(ErrorKind),
    Timeout,
}

/// How an event stream ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StreamEnd {
    /// The body ended.
    End,
    /// The body was dropped unfinished (the client went away, the host crashed).
    Dropped,
    /// The body failed.
    Error(ErrorKind),
}

/// Why a runtime created a task.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TaskOrigin {
    /// A message without a task id.
    New,
    /// A follow-up on a task the runtime answers with a new task.
    FollowUp,
}

impl TaskOrigin {
    /// The name the trace carries.
    pub fn name(self) -> &'static str {
        match self {
            TaskOrigin::New => "new",
            TaskOrigin::FollowUp => "follow-up",
        }
    }
}

impl TraceEvent<'_> {
    /// The runtime personality that emitted the event, for the runtimes' events that name it.
    pub fn runtime(&self) -> Option<&str> {
        match self {
            TraceEvent::TaskCreated { runtime, .. }
            | TraceEvent::TaskStalled { runtime, .. }
            | TraceEvent::TaskEvicted { runtime, .. }
            | TraceEvent::FollowUpQueued { runtime, .. }
            | TraceEvent::FollowUpsDropped { runtime, .. }
            | TraceEvent::Transition { runtime, .. }
            | TraceEvent::Artifact { runtime, .. }
            | TraceEvent::TaskReaped { runtime, .. }
            | TraceEvent::TaskStreamOpen { runtime, .. }
            | TraceEvent::TaskStreamClose { runtime, .. }
            | TraceEvent::DirectReply { runtime }
            | TraceEvent::ErrorAnswered { runtime, .. } => Some(runtime),
            _ => None,
        }
    }

    /// The connection a network event happened on, as its server numbers it.
    pub fn conn(&self) -> Option<u64> {
        match self {
            TraceEvent::Accept { conn }
            | TraceEvent::Request { conn, .. }
            | TraceEvent::Response { conn, .. }
            | TraceEvent::StreamFrame { conn, .. }
            | TraceEvent::StreamClose { conn, .. }
            | TraceEvent::ConnClose { conn, .. } => Some(*conn),
            _ => None,
        }
    }
}
