//! The origin incident in simulation: the reconciling consumer completes it against all
//! three seed runtimes in every dialect; the naive consumer double-counts against
//! go-replaying and loses the task against jvm-reaping.

use crate::support;
use crate::support::{
    ANSWER, Kind, SEED_PERSONALITIES, applied, assert_no_divergences, assert_runtime_state,
    completion, counts, divergences, entered, run_incident,
};
use meshsim_consumer::{FollowupBehaviour, Outcome};
use meshsim_protocol::{Dialect, TaskState};
use meshsim_runtimes::Fate;

#[test]
fn reconciling_consumer_completes_the_incident_against_every_seed_runtime() {
    for personality in SEED_PERSONALITIES {
        for dialect in Dialect::ALL {
            let (report, truth) = run_incident(personality, dialect, Kind::Reconciling, 7);
            let context = format!("{personality} {dialect}: {report:#?}");
            let (task_id, artifact) = completion(&report, &context);
            assert!(
                artifact.contains(ANSWER),
                "artifact {artifact:?}; {context}"
            );
            assert_runtime_state(&truth, task_id, TaskState::Completed, &context);
            assert_no_divergences(&report, &truth, &context);
            // What it learned agrees with the origin incident's table wherever it learned anything.
            let profile = report.profile.as_ref().expect("a learned profile");
            let (survives, followup) = match personality {
                "python-correct" => (true, Some(FollowupBehaviour::Resumes)),
                "go-replaying" => (true, Some(FollowupBehaviour::ResumesWithDuplicateSubmitted)),
                _ => (false, None),
            };
            assert_eq!(
                profile.task_survives_stream_close,
                Some(survives),
                "{context}"
            );
            assert_eq!(profile.followup_same_task, followup, "{context}");
        }
    }
}

#[test]
fn naive_consumer_double_counts_against_go_replaying() {
    for dialect in Dialect::ALL {
        let (report, truth) = run_incident("go-replaying", dialect, Kind::Naive, 7);
        let context = format!("{dialect}: {report:#?}");
        let view = &report.tasks[0];
        let real = counts(entered(&truth, &view.task_id));
        let mine = counts(applied(view));
        let times = |counts: &[(TaskState, usize)], state| {
            counts
                .iter()
                .find(|(known, _)| *known == state)
                .map_or(0, |(_, n)| *n)
        };
        assert!(
            times(&mine, TaskState::Working) > times(&real, TaskState::Working)
                || times(&mine, TaskState::Submitted) > times(&real, TaskState::Submitted),
            "applied {mine:?}, runtime entered {real:?}; {context}"
        );
        assert!(!divergences(&report, &truth).is_empty(), "{context}");
    }
}

#[test]
fn naive_consumer_loses_the_task_against_jvm_reaping() {
    for dialect in Dialect::ALL {
        let (report, truth) = run_incident("jvm-reaping", dialect, Kind::Naive, 7);
        let context = format!("{dialect}: {report:#?}");
        let original = &report.tasks[0];
        let records = truth.records(&original.task_id);
        // The runtime reaped the task when its stream closed ...
        assert!(
            matches!(records[0].fate, Some(Fate::Reaped { .. })),
            "{records:?}; {context}"
        );
        // ... and the naive consumer never noticed: it still believes the task alive and
        // waiting, and never abandoned it.
        assert!(
            original
                .final_state
                .is_some_and(|state| !state.is_terminal()),
            "{context}"
        );
        assert!(original.abandoned.is_none(), "{context}");
        assert!(
            !matches!(report.outcome, Outcome::Completed { .. }),
            "{context}"
        );
        assert!(!divergences(&report, &truth).is_empty(), "{context}");
    }
}

#[test]
fn only_the_origin_incidents_misbehaving_runtimes_break_the_naive_consumer() {
    for &personality in meshsim_runtimes::BUILTIN_NAMES {
        for dialect in Dialect::ALL {
            for kind in [Kind::Naive, Kind::Reconciling] {
                let (report, truth) = run_incident(personality, dialect, kind, 11);
                let problems = divergences(&report, &truth);
                let breaks = matches!(kind, Kind::Naive)
                    && ["go-replaying", "jvm-reaping"].contains(&personality);
                let context = format!("{personality} {dialect} {kind:?}: {problems:?} {report:#?}");
                assert_eq!(!problems.is_empty(), breaks, "{context}");
                let completed = matches!(report.outcome, Outcome::Completed { .. });
                assert_eq!(
                    completed,
                    !(breaks && personality == "jvm-reaping"),
                    "{context}"
                );
            }
        }
    }
}

#[test]
fn without_streaming_in_the_card_both_consumers_poll_to_completion() {
    for dialect in Dialect::ALL {
        for kind in [Kind::Naive, Kind::Reconciling] {
            let mut personality = meshsim_runtimes::builtin("python-correct").unwrap();
            personality.card.streaming = false;
            let (report, truth) =
                support::run_job(personality, dialect, kind, 5, support::incident_job());
            let context = format!("{dialect} {kind:?}: {report:#?}");
            let (task_id, artifact) = completion(&report, &context);
            assert!(artifact.contains(ANSWER), "{context}");
            assert_runtime_state(&truth, task_id, TaskState::Completed, &context);
            assert_no_divergences(&report, &truth, &context);
        }
    }
}

#[test]
fn a_run_is_a_function_of_its_seed() {
    for kind in [Kind::Naive, Kind::Reconciling] {
        let (first, _) = run_incident("go-replaying", Dialect::V1_0, kind, 21);
        let (again, _) = run_incident("go-replaying", Dialect::V1_0, kind, 21);
        let (other, _) = run_incident("go-replaying", Dialect::V1_0, kind, 22);
        assert_eq!(first, again, "{kind:?}");
        assert_ne!(first.tasks[0].task_id, other.tasks[0].task_id, "{kind:?}");
    }
}
