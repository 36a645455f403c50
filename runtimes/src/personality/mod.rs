//! A runtime personality: the knobs on which real A2A runtimes differ, as data.
//!
//! A personality is a JSON document (see `docs/personalities.md`). Every field has a
//! default (the spec-correct choice), so a file names only what differs; an unknown or
//! ill-typed field is an error that names it (`load` reads and checks a document). Each
//! group of knobs has its own module: the Card's claims, work durations, the events of a
//! turn, what messages naming a task do, streams and resubscribe, reaping, cancel, and the
//! protocol bindings served.

mod bindings;
mod cancel;
mod card_claims;
mod events;
mod load;
mod messages;
mod reaping;
mod streams;
mod work;

pub use bindings::Bindings;
pub use cancel::{CancelOutcome, CancelPolicy, TerminalCancel};
pub use card_claims::CardClaims;
pub use events::{FollowUpOpening, NewTaskOpening, Timestamps, TurnOpening};
pub use load::PersonalityError;
pub use messages::{BusyFollowUp, FollowUp, SendReply, UnknownTask};
pub use reaping::Reaping;
pub use streams::{Resubscribe, StreamClose};
pub use work::WorkDurations;

use crate::sidecar::Sidecar;
use meshsim_protocol::{ErrorCode, TaskState};
use serde::{Deserialize, Serialize};
use std::time::Duration;

/// Everything that makes one mock runtime behave like a given real one.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Personality {
    /// Shown by `meshsim list` and in trace events.
    pub name: String,
    /// One line on what this personality reproduces.
    pub description: String,
    /// What the Agent Card claims.
    pub card: CardClaims,
    /// How long each step of the executor's scripts takes.
    pub work: WorkDurations,
    /// What a streamed turn starts with.
    pub opening: TurnOpening,
    /// When a non-streaming send answers.
    pub send_reply: SendReply,
    /// What `tasks/resubscribe` / `SubscribeToTask` does.
    pub resubscribe: Resubscribe,
    /// What a message carrying the `taskId` of an interrupted task does.
    pub follow_up: FollowUp,
    /// What a message carrying an unknown `taskId` does.
    pub unknown_task: UnknownTask,
    /// What a follow-up to a task whose turn still runs does.
    pub busy_follow_up: BusyFollowUp,
    /// When a task is dropped from the store while not terminal.
    pub reaping: Reaping,
    /// Which states end a stream.
    pub stream_close: StreamClose,
    /// What `tasks/cancel` does, per state.
    pub cancel: CancelPolicy,
    /// The error for a message sent to a terminal task.
    pub terminal_send_error: ErrorCode,
    /// The error for a subscribe to a terminal task.
    pub terminal_subscribe_error: ErrorCode,
    /// Whether status updates carry timestamps.
    pub timestamps: Timestamps,
    /// Status updates into these states are sent twice (a reported field bug).
    pub duplicate_states: Vec<TaskState>,
    /// Period of `: ping` SSE comments on open streams; none when absent.
    pub keep_alive_ms: Option<u64>,
    /// How long the Agent Card takes to be answered: a runtime cold-starting, or one that
    /// builds its Card per request from a slow registry. At once when absent.
    pub card_delay_ms: Option<u64>,
    /// The first this many tasks an instance creates are never picked up by its executor:
    /// they stay `submitted` (a wedged worker pool; consumers need their own deadline).
    pub stalled_first_tasks: u32,
    /// A v1.0 runtime that accepts only `A2A-Version: 1.0` exactly, refusing e.g. `1.1`
    /// with -32009 (the spec compares the major version only).
    pub exact_version: bool,
    /// A v1.0 runtime that also serves v0.3 (Card, methods, events) to requests without an
    /// `A2A-Version` header or with a `0.x` one (a2a-js 1.3; a2a-sdk with its compat layer).
    pub v0_3_compat: bool,
    /// Whether a message part whose media type the Card's input modes do not cover is
    /// refused with -32005, as the spec asks (a2a-sdk with `validate_input_modes`);
    /// @a2a-js/sdk 1.3.0 accepts any.
    pub check_input_modes: bool,
    /// Whether a request whose `Content-Type` is not JSON is refused with -32005 before its
    /// body is read (@a2a-js/sdk 1.3.0); otherwise the body is parsed whatever the header
    /// says (a2a-sdk: a body that is not JSON is then -32700).
    pub check_content_type: bool,
    /// Which protocol bindings a v1.0 runtime serves (JSON-RPC, HTTP+JSON or both); its
    /// Card lists exactly those. v0.1 and v0.3 serve JSON-RPC whatever this says.
    pub bindings: Bindings,
    /// An Envoy-like sidecar the runtime is deployed behind (its route and idle timeouts);
    /// none when absent. Runs put it in front of the runtime, and so does `meshsim serve`.
    pub sidecar: Option<Sidecar>,
    /// v1.0 only: the tenant of an agent served behind an endpoint shared by several. Its
    /// Card's interfaces declare it, and a request that does not carry it (JSON-RPC in
    /// `params.tenant`, HTTP+JSON as its path's first segment) reaches no agent: JSON-RPC
    /// answers -32602 and HTTP+JSON's unprefixed routes do not exist (404). None when
    /// absent.
    pub tenant: Option<String>,
}

impl Default for Personality {
    /// The spec-correct runtime: resubscribe reattaches, follow-ups resume in place, tasks
    /// live until terminal, streams close on terminal and interrupted states.
    fn default() -> Self {
        Personality {
            name: "unnamed".to_string(),
            description: String::new(),
            card: CardClaims::default(),
            work: WorkDurations::default(),
            opening: TurnOpening::default(),
            send_reply: SendReply::WhenSettled,
            resubscribe: Resubscribe::SnapshotThenTail,
            follow_up: FollowUp::Resume,
            unknown_task: UnknownTask::NotFound,
            busy_follow_up: BusyFollowUp::Refuse,
            reaping: Reaping::Never,
            stream_close: StreamClose::TerminalAndInterrupted,
            cancel: CancelPolicy::default(),
            terminal_send_error: ErrorCode::UnsupportedOperation,
            terminal_subscribe_error: ErrorCode::UnsupportedOperation,
            timestamps: Timestamps::Present,
            duplicate_states: Vec::new(),
            keep_alive_ms: None,
            card_delay_ms: None,
            stalled_first_tasks: 0,
            exact_version: false,
            v0_3_compat: false,
            check_input_modes: true,
            check_content_type: false,
            bindings: Bindings::Both,
            sidecar: None,
            tenant: None,
        }
    }
}

impl Personality {
    /// Whether `tenant` can be the `tenant` knob: 1 to 64 of the characters a URL path
    /// segment carries as they are (letters, digits, `-`, `.`, `_`, `~`), since HTTP+JSON
    /// serves under `/{tenant}/`.
    pub fn is_plain_tenant(tenant: &str) -> bool {
        let unreserved = |c: char| c.is_ascii_alphanumeric() || "-._~".contains(c);
        (1..=64).contains(&tenant.len()) && tenant.chars().all(unreserved)
    }

    /// The keep-alive period, if any.
    pub fn keep_alive(&self) -> Option<Duration> {
        self.keep_alive_ms.map(Duration::from_millis)
    }

    /// How long the Card takes to be answered, if it is not answered at once.
    pub fn card_delay(&self) -> Option<Duration> {
        self.card_delay_ms.map(Duration::from_millis)
    }
}
