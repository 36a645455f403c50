//! The built-in personalities: the seed's three runtimes, exactly as its step table has
//! them, and runtimes calibrated against real SDKs (`a2a-behaviour.md` §3).

use crate::personality::{
    BusyFollowUp, CancelPolicy, CardClaims, FollowUp, FollowUpOpening, NewTaskOpening, Personality,
    PersonalityError, Reaping, Resubscribe, SendReply, StreamClose, TerminalCancel, TurnOpening,
    UnknownTask,
};
use meshsim_protocol::ErrorCode;
use std::path::Path;

/// The names of every built-in personality, in the order `meshsim list` shows them.
pub const BUILTIN_NAMES: [&str; 7] = [
    "python-correct",
    "go-replaying",
    "jvm-reaping",
    "a2a-python-1.3",
    "a2a-js-1.3",
    "a2a-go-2",
    "a2a-java-1.2",
];

/// A built-in personality by name.
pub fn builtin(name: &str) -> Option<Personality> {
    let personality = match name {
        "python-correct" => seed_runtime(
            name,
            "The seed's Python a2a-sdk server: resubscribe reattaches, follow-ups resume",
            "0.2.5",
        ),
        "go-replaying" => Personality {
            resubscribe: Resubscribe::ReplayFromStart,
            follow_up: FollowUp::ResumeWithDuplicateSubmitted,
            send_reply: SendReply::OnAccept,
            ..seed_runtime(
                name,
                "The seed's Go runtime: resubscribe replays every event from the start; a \
                 follow-up resumes but emits a second `submitted`",
                "1.4.0",
            )
        },
        "jvm-reaping" => Personality {
            reaping: Reaping::OnStreamClose,
            unknown_task: UnknownTask::NewTask,
            ..seed_runtime(
                name,
                "The seed's JVM runtime: its task store is keyed on the SSE connection, so a \
                 task is reaped when its stream closes and a follow-up starts a new task",
                "2.1.0",
            )
        },
        "a2a-python-1.3" => Personality {
            opening: TurnOpening {
                new_task: NewTaskOpening::Snapshot,
                follow_up: FollowUpOpening::None,
            },
            keep_alive_ms: Some(15_000),
            busy_follow_up: BusyFollowUp::Queue,
            ..sdk_runtime(
                name,
                "a2a-sdk (Python) 1.3.0 as observed on loopback",
                "1.3.0",
            )
        },
        "a2a-js-1.3" => Personality {
            opening: TurnOpening {
                new_task: NewTaskOpening::Snapshot,
                follow_up: FollowUpOpening::Snapshot,
            },
            cancel: CancelPolicy {
                // Measured by tests/interop_js.rs: cancel of a completed task is -32002.
                terminal: TerminalCancel::ReturnCanceled,
                ..CancelPolicy::default()
            },
            exact_version: true,
            v0_3_compat: true,
            // Measured with the A2A TCK against the real SDK (docs/conformance.md): it
            // accepts any part media type, and refuses a non-JSON Content-Type with -32005.
            check_input_modes: false,
            check_content_type: true,
            ..sdk_runtime(name, "@a2a-js/sdk 1.3.0 as observed on loopback", "1.3.0")
        },
        "a2a-go-2" => Personality {
            resubscribe: Resubscribe::NotFoundUnlessActive,
            stream_close: StreamClose::TerminalAndInputRequired,
            terminal_send_error: ErrorCode::InvalidParams,
            terminal_subscribe_error: ErrorCode::TaskNotFound,
            cancel: CancelPolicy {
                // a2a-go's canceler returns a canceled task as it is and refuses the other
                // terminal states with ErrTaskNotCancelable; the A2A TCK's CORE-CANCEL-002
                // (cancel of a completed task) caught this knob set to `return-task`.
                terminal: TerminalCancel::ReturnCanceled,
                ..CancelPolicy::default()
            },
            ..sdk_runtime(name, "a2a-go v2.x, from its code and issues", "2.0.0")
        },
        "a2a-java-1.2" => Personality {
            stream_close: StreamClose::TerminalOnly,
            ..sdk_runtime(name, "a2a-java 1.2, from its code and issues", "1.2.0")
        },
        _ => return None,
    };
    Some(personality)
}

/// Every built-in personality, in [`BUILTIN_NAMES`] order.
pub fn builtins() -> Vec<Personality> {
    BUILTIN_NAMES
        .iter()
        .filter_map(|name| builtin(name))
        .collect()
}

/// A built-in by name, or else a personality file at that path.
pub fn resolve(name_or_path: &str) -> Result<Personality, PersonalityError> {
    if let Some(personality) = builtin(name_or_path) {
        return Ok(personality);
    }
    let path = Path::new(name_or_path);
    if !path.exists() {
        return Err(PersonalityError::Unknown {
            name: name_or_path.to_string(),
            builtins: BUILTIN_NAMES.join(", "),
        });
    }
    Personality::load(path)
}

/// The seed's runtimes share everything but their lifecycle quirks: the Card claims
/// streaming and state transition history, status updates open every stream, streams close
/// at input-required (the seed's step 3).
fn seed_runtime(name: &str, description: &str, version: &str) -> Personality {
    Personality {
        name: name.to_string(),
        description: description.to_string(),
        card: CardClaims {
            name: name.to_string(),
            version: version.to_string(),
            streaming: true,
            state_transition_history: true,
            ..CardClaims::default()
        },
        ..Personality::default()
    }
}

/// The SDK-calibrated runtimes start from the spec-correct defaults.
fn sdk_runtime(name: &str, description: &str, version: &str) -> Personality {
    Personality {
        name: name.to_string(),
        description: description.to_string(),
        card: CardClaims {
            name: name.to_string(),
            version: version.to_string(),
            streaming: true,
            state_transition_history: false,
            ..CardClaims::default()
        },
        ..Personality::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_name_resolves_to_a_personality_of_that_name() {
        for name in BUILTIN_NAMES {
            let personality = builtin(name).unwrap();
            assert_eq!(personality.name, name);
            assert_eq!(resolve(name).unwrap(), personality);
        }
        assert_eq!(builtins().len(), BUILTIN_NAMES.len());
    }

    #[test]
    fn builtins_survive_a_json_round_trip() {
        for personality in builtins() {
            let json = serde_json::to_string(&personality).unwrap();
            assert_eq!(
                Personality::from_json(&json, "roundtrip").unwrap(),
                personality
            );
        }
    }

    #[test]
    fn unknown_name_lists_the_builtins() {
        let error = resolve("no-such-runtime").unwrap_err().to_string();
        assert!(
            error.contains("no-such-runtime") && error.contains("go-replaying"),
            "{error}"
        );
    }
}
