//! The personality a probe measured: `meshsim probe URL --personality-out FILE` writes it,
//! so that what a real agent does with a task's lifecycle can be served (`meshsim serve
//! --runtime FILE`), swept and shrunk like any built-in. It is [`crate::real_profile()`] read
//! backwards for what the probe measures: the Card's claims, whether streams close at
//! `input-required` and tasks outlive them, resubscribe, follow-up (and how its turn opens),
//! repeated states, cancel, and (from a v1.0 Card) the bindings served and the tenant. Knobs
//! the probe cannot see keep their defaults.

use meshsim_consumer::probe::ProbeReport;
use meshsim_consumer::{FollowupBehaviour, ResubscribeBehaviour};
use meshsim_protocol::{Binding, Dialect, ErrorCode, TaskState};
use meshsim_runtimes::{
    Bindings, CancelOutcome, CardClaims, FollowUp, FollowUpOpening, Personality, Reaping,
    Resubscribe, StreamClose, TerminalCancel, UnknownTask,
};

/// The personality that reproduces what `report` measured. Its description names the
/// lifecycle knobs the probe could not measure ([`unmeasured_knobs`]), which keep their
/// defaults.
pub fn probed_personality(report: &ProbeReport) -> Personality {
    let card = &report.card;
    let survives = report.task_survives_stream_close != Some(false);
    let mut description = format!(
        "what `meshsim probe {}` measured of {} {}",
        report.url, card.name, card.version
    );
    let unmeasured = unmeasured_knobs(report);
    if !unmeasured.is_empty() {
        description.push_str(&format!(
            "; not measured, so at their defaults: {}",
            unmeasured.join(", ")
        ));
    }
    let mut personality = Personality {
        name: card.name.clone(),
        description,
        card: CardClaims {
            name: card.name.clone(),
            version: card.version.clone(),
            description: format!("{} as probed", card.name),
            streaming: card.streaming == Some(true),
            push_notifications: card.push_notifications == Some(true),
            state_transition_history: card.state_transition_history == Some(true),
        },
        stream_close: match report.stream_closes_on_input_required {
            Some(false) => StreamClose::TerminalOnly,
            _ => StreamClose::TerminalAndInterrupted,
        },
        // A task gone once its stream closed: the store drops tasks with their stream.
        reaping: if survives {
            Reaping::Never
        } else {
            Reaping::OnStreamClose
        },
        ..Personality::default()
    };
    personality.resubscribe = match report.resubscribe_after_input_required {
        Some(ResubscribeBehaviour::Replays) => Resubscribe::ReplayFromStart,
        // Not found while the task itself lives on: no turn runs at input-required.
        Some(ResubscribeBehaviour::TaskNotFound) if survives => Resubscribe::NotFoundUnlessActive,
        _ => Resubscribe::SnapshotThenTail,
    };
    // A follow-up to a task that is gone meets the unknown-task path instead.
    match (report.followup_same_task, survives) {
        (Some(FollowupBehaviour::ResumesWithDuplicateSubmitted), _) => {
            personality.follow_up = FollowUp::ResumeWithDuplicateSubmitted;
        }
        (Some(FollowupBehaviour::NewTask), true) => personality.follow_up = FollowUp::NewTask,
        (Some(FollowupBehaviour::TaskNotFound), true) => {
            personality.follow_up = FollowUp::NotFound;
        }
        (Some(FollowupBehaviour::NewTask), false) => {
            personality.unknown_task = UnknownTask::NewTask;
        }
        (Some(FollowupBehaviour::TaskNotFound), false) => {
            personality.unknown_task = UnknownTask::NotFound;
        }
        _ => {}
    }
    // A follow-up turn that opens with the waiting task opens with a snapshot of it.
    if report
        .followup_turn
        .first()
        .is_some_and(|state| state.is_interrupted())
    {
        personality.opening.follow_up = FollowUpOpening::Snapshot;
    }
    personality.duplicate_states = repeated_states(report);
    cancel(report, &mut personality);
    personality.bindings = bindings(report);
    // A tenant the knob cannot serve under `/{tenant}/` is left out (the probe report keeps it).
    personality.tenant = report
        .card
        .tenant
        .clone()
        .filter(|tenant| Personality::is_plain_tenant(tenant));
    personality
}

/// The personality file's lifecycle knobs the probe set out to measure and did not (an
/// agent that never asked for input leaves all four), named as the file names them: the
/// personality [`probed_personality`] writes keeps their defaults, which claim nothing the
/// agent was seen to do.
pub fn unmeasured_knobs(report: &ProbeReport) -> Vec<&'static str> {
    [
        (
            report.stream_closes_on_input_required.is_none(),
            "stream_close",
        ),
        (report.task_survives_stream_close.is_none(), "reaping"),
        (
            report.resubscribe_after_input_required.is_none(),
            "resubscribe",
        ),
        (report.followup_same_task.is_none(), "follow_up"),
    ]
    .into_iter()
    .filter_map(|(unmeasured, knob)| unmeasured.then_some(knob))
    .collect()
}

/// The bindings a v1.0 Card offers; both (the default) when it offers neither, or when the
/// Card is of a dialect that has JSON-RPC alone and so says nothing of HTTP+JSON.
fn bindings(report: &ProbeReport) -> Bindings {
    let offers = |binding| report.card.bindings.contains(&binding);
    if report.card.dialect != Dialect::V1_0 {
        return Bindings::Both;
    }
    match (offers(Binding::JsonRpc), offers(Binding::HttpJson)) {
        (true, false) => Bindings::JsonRpc,
        (false, true) => Bindings::HttpJson,
        _ => Bindings::Both,
    }
}

/// The states a turn reported twice in a row: updates the peer sends twice.
fn repeated_states(report: &ProbeReport) -> Vec<TaskState> {
    let mut repeated: Vec<TaskState> = Vec::new();
    for turn in [&report.first_turn, &report.followup_turn] {
        for pair in turn.windows(2) {
            if pair[0] == pair[1] && !repeated.contains(&pair[0]) {
                repeated.push(pair[0]);
            }
        }
    }
    repeated
}

/// The cancel the probe ended with, read against the state the task was in then (after
/// the follow-up, or after the first turn when there was none).
fn cancel(report: &ProbeReport, personality: &mut Personality) {
    let before = match &report.get_after_followup {
        Some(state) => state.parse::<TaskState>().ok(),
        None => report.first_turn.last().copied(),
    };
    let (Some(before), Some(answer)) = (before, report.cancel.as_deref()) else {
        return;
    };
    let not_cancelable = format!("error:{}", ErrorCode::TaskNotCancelable.code());
    let refused = answer == not_cancelable;
    let after = answer.parse::<TaskState>().ok();
    if before.is_terminal() {
        if after.is_some() {
            personality.cancel.terminal = TerminalCancel::ReturnTask;
        } else if refused {
            personality.cancel.terminal = TerminalCancel::NotCancelable;
        }
    } else if before.is_interrupted() {
        personality.cancel.interrupted = match after {
            Some(TaskState::Canceled) => CancelOutcome::Cancel,
            Some(_) => CancelOutcome::Ignore,
            None if refused => CancelOutcome::NotCancelable,
            None => return,
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::real_profile::real_profile;
    use meshsim_consumer::probe::CardClaims as ProbedCard;
    use meshsim_runtimes::{Knobs, builtin};
    use std::sync::Arc;

    fn report(name: &str) -> ProbeReport {
        let real = real_profile(&builtin(name).unwrap(), Arc::new(Knobs), "agent:9000");
        ProbeReport {
            url: "http://agent:9000".to_string(),
            card: ProbedCard {
                name: name.to_string(),
                version: "1.0.0".to_string(),
                dialect: Dialect::V1_0,
                bindings: vec![Binding::JsonRpc, Binding::HttpJson],
                streaming: Some(true),
                push_notifications: None,
                state_transition_history: Some(false),
                tenant: None,
            },
            binding: Binding::JsonRpc,
            endpoint_answered: true,
            task_id: Some("t-1".to_string()),
            first_turn: vec![
                TaskState::Submitted,
                TaskState::Working,
                TaskState::InputRequired,
            ],
            reached_input_required: true,
            stream_closes_on_input_required: real.stream_closes_on_input_required,
            task_survives_stream_close: real.task_survives_stream_close,
            resubscribe_after_input_required: real.resubscribe_after_input_required,
            followup_same_task: real.followup_same_task,
            followup_turn: vec![TaskState::Working, TaskState::Completed],
            get_after_followup: Some("completed".to_string()),
            cancel: Some("error:-32002".to_string()),
            contradictions: Vec::new(),
            notes: Vec::new(),
        }
    }

    #[test]
    fn the_probed_personality_has_the_profile_the_probe_measured() {
        for name in [
            "python-correct",
            "go-replaying",
            "jvm-reaping",
            "a2a-java-1.2",
        ] {
            let probed = probed_personality(&report(name));
            let expected = real_profile(&builtin(name).unwrap(), Arc::new(Knobs), "agent:9000");
            let profile = real_profile(&probed, Arc::new(Knobs), "agent:9000");
            assert_eq!(
                (
                    profile.resubscribe_after_input_required,
                    profile.followup_same_task,
                    profile.stream_closes_on_input_required,
                    profile.task_survives_stream_close,
                ),
                (
                    expected.resubscribe_after_input_required,
                    expected.followup_same_task,
                    expected.stream_closes_on_input_required,
                    expected.task_survives_stream_close,
                ),
                "{name}"
            );
        }
    }

    #[test]
    fn the_bindings_are_those_a_v1_0_card_offers() {
        let mut measured = report("python-correct");
        for (offered, served) in [
            (vec![Binding::JsonRpc, Binding::HttpJson], Bindings::Both),
            (vec![Binding::HttpJson], Bindings::HttpJson),
            (vec![Binding::JsonRpc], Bindings::JsonRpc),
        ] {
            measured.card.bindings = offered;
            assert_eq!(probed_personality(&measured).bindings, served);
        }
        measured.card.dialect = Dialect::V0_3;
        assert_eq!(probed_personality(&measured).bindings, Bindings::Both);
    }

    #[test]
    fn openings_repeats_and_cancels_are_read_from_the_turns() {
        let mut measured = report("python-correct");
        measured.followup_turn = vec![
            TaskState::InputRequired,
            TaskState::Working,
            TaskState::Working,
            TaskState::Completed,
        ];
        measured.get_after_followup = Some("input-required".to_string());
        measured.cancel = Some("input-required".to_string());
        let probed = probed_personality(&measured);
        assert_eq!(probed.opening.follow_up, FollowUpOpening::Snapshot);
        assert_eq!(probed.duplicate_states, vec![TaskState::Working]);
        assert_eq!(probed.cancel.interrupted, CancelOutcome::Ignore);
        measured.get_after_followup = Some("completed".to_string());
        measured.cancel = Some("completed".to_string());
        assert_eq!(
            probed_personality(&measured).cancel.terminal,
            TerminalCancel::ReturnTask
        );
    }

    #[test]
    fn knobs_the_probe_did_not_reach_are_named_in_the_description() {
        let measured = report("jvm-reaping");
        assert_eq!(unmeasured_knobs(&measured), Vec::<&str>::new());
        assert!(
            !probed_personality(&measured)
                .description
                .contains("not measured")
        );
        let mut never_asked = measured;
        never_asked.first_turn = vec![TaskState::Submitted];
        never_asked.reached_input_required = false;
        never_asked.stream_closes_on_input_required = None;
        never_asked.task_survives_stream_close = None;
        never_asked.resubscribe_after_input_required = None;
        never_asked.followup_same_task = None;
        assert_eq!(
            unmeasured_knobs(&never_asked),
            ["stream_close", "reaping", "resubscribe", "follow_up"]
        );
        assert!(
            probed_personality(&never_asked).description.ends_with(
                "; not measured, so at their defaults: stream_close, reaping, resubscribe, \
                 follow_up"
            ),
            "{}",
            probed_personality(&never_asked).description
        );
    }
}
