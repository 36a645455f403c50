//! A runtime personality: the knobs on which real A2A runtimes differ, as data.
//!
//! A personality is a JSON document (see `docs/personalities.md`). Every field has a
//! default (the spec-correct choice), so a file names only what differs; an unknown or
//! ill-typed field is an error that names it.

use crate::sidecar::Sidecar;
use meshsim_protocol::{ErrorCode, TaskState};
use serde::{Deserialize, Serialize};
use std::path::Path;
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
    /// An Envoy-like sidecar the runtime is deployed behind (its route and idle timeouts);
    /// none when absent. Runs put it in front of the runtime, and so does `meshsim serve`.
    pub sidecar: Option<Sidecar>,
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
            stalled_first_tasks: 0,
            exact_version: false,
            v0_3_compat: false,
            check_input_modes: true,
            check_content_type: false,
            sidecar: None,
        }
    }
}

/// What the Card says about the agent. The Card never says how the lifecycle behaves:
/// that is the point of the seed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct CardClaims {
    pub name: String,
    /// The agent's own version (what lifecycle profiles are keyed on).
    pub version: String,
    pub description: String,
    pub streaming: bool,
    pub push_notifications: bool,
    /// Only v0.1 and v0.3 Cards can carry it.
    pub state_transition_history: bool,
}

impl Default for CardClaims {
    fn default() -> Self {
        CardClaims {
            name: "meshsim agent".to_string(),
            version: "1.0.0".to_string(),
            description: "A mock A2A runtime".to_string(),
            streaming: true,
            push_notifications: false,
            state_transition_history: true,
        }
    }
}

/// Each step of a script waits a duration drawn uniformly from `min_ms..=max_ms` with the
/// runtime's seeded generator.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct WorkDurations {
    pub min_ms: u64,
    pub max_ms: u64,
    /// Work steps (each producing an artifact chunk) of the long-running script.
    pub long_running_steps: u32,
}

impl Default for WorkDurations {
    fn default() -> Self {
        WorkDurations {
            min_ms: 50,
            max_ms: 250,
            long_running_steps: 10,
        }
    }
}

/// The first event of each streamed turn.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct TurnOpening {
    /// What a stream that creates a task starts with.
    pub new_task: NewTaskOpening,
    /// What a stream that continues a task starts with (before its status updates).
    pub follow_up: FollowUpOpening,
}

impl Default for TurnOpening {
    fn default() -> Self {
        TurnOpening {
            new_task: NewTaskOpening::StatusUpdate,
            follow_up: FollowUpOpening::None,
        }
    }
}

/// See [`TurnOpening::new_task`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum NewTaskOpening {
    /// A Task snapshot in `submitted` (a2a-python, a2a-js). v0.1 has no snapshot event,
    /// so it gets a status update there.
    Snapshot,
    /// A status update to `submitted`.
    StatusUpdate,
}

/// See [`TurnOpening::follow_up`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum FollowUpOpening {
    /// Straight to the status updates (a2a-python).
    None,
    /// A Task snapshot first (a2a-js starts every turn with one).
    Snapshot,
}

/// When `tasks/send` / `SendMessage` (non-streaming) answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SendReply {
    /// Once the turn reaches an interrupted or terminal state.
    WhenSettled,
    /// At once, with the task as accepted (state `submitted`).
    OnAccept,
}

/// What a resubscribe does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Resubscribe {
    /// The current Task snapshot, then live events (the spec; a2a-python, a2a-java).
    SnapshotThenTail,
    /// Every event the task ever emitted, from `submitted` on, then live events
    /// (the origin incident's go-replaying).
    ReplayFromStart,
    /// -32001 once the stream that created the task has closed, though the task lives.
    NotFoundAfterStreamClose,
    /// -32001 unless a turn is executing (a2a-go v2: "no active execution").
    NotFoundUnlessActive,
}

/// What a message with the `taskId` of an interrupted task does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum FollowUp {
    /// Continues the task in place: `working` → ... (the spec).
    Resume,
    /// Continues it, but first moves it back to `submitted` and says so (the origin incident's
    /// go-replaying).
    ResumeWithDuplicateSubmitted,
    /// Ignores the id and starts a new task.
    NewTask,
    /// Answers -32001.
    NotFound,
}

/// What a message with an unknown `taskId` does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum UnknownTask {
    /// -32001 (the spec).
    NotFound,
    /// Starts a new task with a new id (the origin incident's jvm-reaping, after reaping).
    NewTask,
}

/// What a message with the `taskId` of a task whose turn still runs does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum BusyFollowUp {
    /// -32004: the task is not waiting for input.
    Refuse,
    /// Waits for the turn to settle, then answers its question (a2a-python 1.3); its
    /// stream sees the rest of the running turn first.
    Queue,
}

/// When a live task is dropped from the store.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub enum Reaping {
    /// When the last stream attached to it closes (the origin incident's jvm-reaping: the store is
    /// keyed on the SSE connection's lifetime).
    OnStreamClose,
    /// `after_ms` after its last transition (or follow-up taken), whatever its state: a
    /// long stretch of work in one state outlasts it.
    Ttl { after_ms: u64 },
    /// `after_ms` after it entered `input-required`, unless a follow-up was taken by then.
    InputRequiredTimeout { after_ms: u64 },
    /// Never.
    Never,
}

/// Which states end a stream.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum StreamClose {
    /// Only terminal states (v1.0 specification, section 3.1.2; a2a-java).
    TerminalOnly,
    /// Terminal and interrupted states (v1.0 specification, section 11.7; a2a-python).
    TerminalAndInterrupted,
    /// Terminal states and `input-required`, not `auth-required` (a2a-go).
    TerminalAndInputRequired,
}

impl StreamClose {
    /// Whether an event asserting `state` is the last of a stream.
    pub fn closes_on(self, state: TaskState) -> bool {
        match self {
            StreamClose::TerminalOnly => state.is_terminal(),
            StreamClose::TerminalAndInterrupted => state.is_terminal() || state.is_interrupted(),
            StreamClose::TerminalAndInputRequired => {
                state.is_terminal() || state == TaskState::InputRequired
            }
        }
    }
}

/// What `tasks/cancel` does to a task in each kind of state.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct CancelPolicy {
    pub submitted: CancelOutcome,
    pub working: CancelOutcome,
    /// `input-required` and `auth-required`.
    pub interrupted: CancelOutcome,
    pub terminal: TerminalCancel,
}

impl Default for CancelPolicy {
    fn default() -> Self {
        CancelPolicy {
            submitted: CancelOutcome::Cancel,
            working: CancelOutcome::Cancel,
            interrupted: CancelOutcome::Cancel,
            terminal: TerminalCancel::NotCancelable,
        }
    }
}

/// Cancel of a live task.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum CancelOutcome {
    /// The task becomes `canceled`.
    Cancel,
    /// -32002 TaskNotCancelable.
    NotCancelable,
    /// Answers with the task unchanged and keeps working (a2a-js#132).
    Ignore,
}

/// Cancel of a terminal task.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum TerminalCancel {
    /// -32002 (the spec; a2a-python).
    NotCancelable,
    /// Answers with the task (a2a-go).
    ReturnTask,
    /// Answers with the task if it is `canceled`, -32002 for the other terminal states
    /// (a2a-js 1.3: a repeated cancel returns the task, a completed one is not cancelable).
    ReturnCanceled,
}

/// Timestamps on status updates.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Timestamps {
    /// Stamped once, when the transition happens.
    Present,
    /// Never stamped (a2a-rs#274).
    Absent,
    /// Stamped, and stamped again with the current time when an event is replayed.
    RestampedOnReplay,
}

/// A personality file that could not be used.
#[derive(Debug, thiserror::Error)]
pub enum PersonalityError {
    #[error("cannot read personality file {path}: {source}")]
    Read {
        path: String,
        #[source]
        source: std::io::Error,
    },
    #[error("`{name}` is neither a built-in personality ({builtins}) nor a file")]
    Unknown { name: String, builtins: String },
    #[error("personality file {path}: field `{field}`: {problem}")]
    Field {
        path: String,
        field: String,
        problem: String,
    },
}

impl Personality {
    /// Parses a personality from JSON; `origin` names the document in errors.
    pub fn from_json(json: &str, origin: &str) -> Result<Self, PersonalityError> {
        let mut deserializer = serde_json::Deserializer::from_str(json);
        let personality: Personality = serde_path_to_error::deserialize(&mut deserializer)
            .map_err(|error| {
                let field = error.path().to_string();
                PersonalityError::Field {
                    path: origin.to_string(),
                    field: if field == "." {
                        "(document)".to_string()
                    } else {
                        field
                    },
                    problem: error.into_inner().to_string(),
                }
            })?;
        personality.validate(origin)?;
        Ok(personality)
    }

    /// Reads and parses a personality file.
    pub fn load(path: &Path) -> Result<Self, PersonalityError> {
        let origin = path.display().to_string();
        let json = std::fs::read_to_string(path).map_err(|source| PersonalityError::Read {
            path: origin.clone(),
            source,
        })?;
        Self::from_json(&json, &origin)
    }

    /// Checks what serde cannot: ranges that must be ordered, periods that must be positive.
    fn validate(&self, origin: &str) -> Result<(), PersonalityError> {
        let field = |field: &str, problem: String| PersonalityError::Field {
            path: origin.to_string(),
            field: field.to_string(),
            problem,
        };
        if self.work.min_ms > self.work.max_ms {
            return Err(field(
                "work.max_ms",
                format!(
                    "{} is below work.min_ms ({})",
                    self.work.max_ms, self.work.min_ms
                ),
            ));
        }
        if self.keep_alive_ms == Some(0) {
            return Err(field(
                "keep_alive_ms",
                "must be positive (omit it for no pings)".into(),
            ));
        }
        if let Some(sidecar) = self.sidecar {
            for (name, timeout) in [
                ("sidecar.route_timeout_ms", sidecar.route_timeout_ms),
                ("sidecar.idle_timeout_ms", sidecar.idle_timeout_ms),
            ] {
                if timeout == Some(0) {
                    return Err(field(name, "must be positive (null for none)".into()));
                }
            }
        }
        Ok(())
    }

    /// The keep-alive period, if any.
    pub fn keep_alive(&self) -> Option<Duration> {
        self.keep_alive_ms.map(Duration::from_millis)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_document_is_the_spec_correct_default() {
        let personality = Personality::from_json("{}", "inline").unwrap();
        assert_eq!(personality, Personality::default());
    }

    #[test]
    fn unknown_field_is_named() {
        let error =
            Personality::from_json(r#"{"resubscribe_mode": "resume"}"#, "x.json").unwrap_err();
        let text = error.to_string();
        assert!(text.contains("x.json"), "{text}");
        assert!(text.contains("resubscribe_mode"), "{text}");
    }

    #[test]
    fn bad_nested_value_names_its_path() {
        let error =
            Personality::from_json(r#"{"cancel": {"working": "maybe"}}"#, "p.json").unwrap_err();
        match error {
            PersonalityError::Field { field, problem, .. } => {
                assert_eq!(field, "cancel.working");
                assert!(problem.contains("maybe"), "{problem}");
            }
            other => panic!("unexpected {other}"),
        }
    }

    #[test]
    fn reaping_with_parameters_parses() {
        let personality =
            Personality::from_json(r#"{"reaping": {"ttl": {"after_ms": 500}}}"#, "inline").unwrap();
        assert_eq!(personality.reaping, Reaping::Ttl { after_ms: 500 });
    }

    #[test]
    fn a_sidecar_parses_and_a_zero_timeout_is_refused() {
        let personality = Personality::from_json(
            r#"{"sidecar": {"route_timeout_ms": 5000, "idle_timeout_ms": null}}"#,
            "inline",
        )
        .unwrap();
        assert_eq!(
            personality.sidecar,
            Some(Sidecar {
                route_timeout_ms: Some(5000),
                idle_timeout_ms: None
            })
        );
        let error =
            Personality::from_json(r#"{"sidecar": {"idle_timeout_ms": 0}}"#, "s.json").unwrap_err();
        assert!(
            error.to_string().contains("sidecar.idle_timeout_ms"),
            "{error}"
        );
    }

    #[test]
    fn inverted_work_range_is_refused() {
        let error = Personality::from_json(r#"{"work": {"min_ms": 9, "max_ms": 3}}"#, "w.json")
            .unwrap_err();
        assert!(error.to_string().contains("work.max_ms"), "{error}");
    }

    #[test]
    fn stream_close_rules() {
        use TaskState::*;
        assert!(!StreamClose::TerminalOnly.closes_on(InputRequired));
        assert!(StreamClose::TerminalAndInterrupted.closes_on(AuthRequired));
        assert!(!StreamClose::TerminalAndInputRequired.closes_on(AuthRequired));
        assert!(StreamClose::TerminalAndInputRequired.closes_on(InputRequired));
        assert!(StreamClose::TerminalOnly.closes_on(Canceled));
        assert!(!StreamClose::TerminalAndInterrupted.closes_on(Working));
    }
}
