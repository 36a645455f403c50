//! Impossible jobs: the rules by which the oracle decides, from the peer's personality and
//! the job alone, that no consumer can finish a job.
//!
//! There the right result is a clean give-up: an outcome that says why, within the
//! liveness bound, with nothing applied twice and every task the consumer could cancel
//! canceled. Such a give-up is not a `liveness` violation; everything else is judged as
//! always (`no-double-apply`, `no-orphaned-task` with the peer's refusals named, ...), and
//! a job that finishes after all is judged like any other.

use meshsim_consumer::Job;
use meshsim_runtimes::{CancelOutcome, FollowUp, Personality, Reaping, Script};

/// One rule: its name and what makes the job impossible.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ImpossibleRule {
    pub name: &'static str,
    pub rule: &'static str,
}

/// The job needs an answer and the peer starts a new task for every follow-up.
pub const NEW_TASK_PER_FOLLOW_UP: ImpossibleRule = ImpossibleRule {
    name: "new-task-per-follow-up",
    rule: "the job needs an answer and the peer's `follow_up` is `new-task`: every answer starts a new task, which asks again",
};

/// The job needs an answer and the peer refuses every follow-up.
pub const FOLLOW_UP_REFUSED: ImpossibleRule = ImpossibleRule {
    name: "follow-up-refused",
    rule: "the job needs an answer and the peer's `follow_up` is `not-found`: every answer is refused with -32001",
};

/// The job is to cancel a waiting task and the peer will not cancel one.
pub const CANCEL_REFUSED: ImpossibleRule = ImpossibleRule {
    name: "cancel-refused",
    rule: "the job cancels its task at input-required and the peer's `cancel.interrupted` is `not-cancelable` or `ignore`",
};

/// Every task the job can start in time stalls.
pub const EVERY_TASK_STALLS: ImpossibleRule = ImpossibleRule {
    name: "every-task-stalls",
    rule: "the peer's first `stalled_first_tasks` tasks never leave submitted, and giving each up only at the job's submitted deadline takes the whole job deadline",
};

/// The job's long work outlasts the peer's TTL, which reaps the task mid-work.
pub const WORK_OUTLASTS_TTL: ImpossibleRule = ImpossibleRule {
    name: "work-outlasts-ttl",
    rule: "the job runs the `#long` script, whose work stays in `working` without a transition, and even its shortest (`long_running_steps × work.min_ms`) outlasts the peer's `reaping.ttl.after_ms`: every task is reaped mid-work",
};

/// Every rule, for `meshsim list` and the docs.
pub const IMPOSSIBLE_RULES: [ImpossibleRule; 5] = [
    NEW_TASK_PER_FOLLOW_UP,
    FOLLOW_UP_REFUSED,
    CANCEL_REFUSED,
    EVERY_TASK_STALLS,
    WORK_OUTLASTS_TTL,
];

/// The rule by which no consumer can finish `job` against a peer with `personality`, if
/// any.
pub fn impossible(personality: &Personality, job: &Job) -> Option<ImpossibleRule> {
    let stalls = job
        .deadlines
        .submitted
        .saturating_mul(personality.stalled_first_tasks);
    if personality.stalled_first_tasks > 0 && stalls >= job.deadlines.job {
        return Some(EVERY_TASK_STALLS);
    }
    let script = Script::for_text(&job.request);
    if let (Script::LongRunning, Reaping::Ttl { after_ms }) = (script, personality.reaping) {
        let work = &personality.work;
        let shortest = u64::from(work.long_running_steps.max(1)) * work.min_ms;
        return (shortest > after_ms).then_some(WORK_OUTLASTS_TTL);
    }
    if !script.asks() {
        return None;
    }
    if job.cancel_at_input_required {
        return (personality.cancel.interrupted != CancelOutcome::Cancel).then_some(CANCEL_REFUSED);
    }
    match personality.follow_up {
        FollowUp::NewTask => Some(NEW_TASK_PER_FOLLOW_UP),
        FollowUp::NotFound => Some(FOLLOW_UP_REFUSED),
        FollowUp::Resume | FollowUp::ResumeWithDuplicateSubmitted => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use meshsim_consumer::Deadlines;
    use std::time::Duration;

    fn job(request: &str) -> Job {
        Job {
            name: "job".to_string(),
            peer: "http://agent:9000".to_string(),
            request: request.to_string(),
            answer: "yes".to_string(),
            deadlines: Deadlines {
                submitted: Duration::from_secs(5),
                working: Duration::from_secs(20),
                job: Duration::from_secs(30),
            },
            cancel_at_input_required: false,
        }
    }

    #[test]
    fn a_new_task_per_follow_up_makes_only_jobs_that_ask_impossible() {
        let peer = Personality {
            follow_up: FollowUp::NewTask,
            ..Personality::default()
        };
        assert_eq!(
            impossible(&peer, &job("Summarise the report")),
            Some(NEW_TASK_PER_FOLLOW_UP)
        );
        assert_eq!(
            impossible(&peer, &job("#ask-twice plan")),
            Some(NEW_TASK_PER_FOLLOW_UP)
        );
        assert_eq!(impossible(&peer, &job("#complete translate")), None);
        assert_eq!(impossible(&Personality::default(), &job("Summarise")), None);
    }

    #[test]
    fn a_refused_cancel_makes_a_cancelling_job_impossible() {
        let mut peer = Personality::default();
        peer.cancel.interrupted = CancelOutcome::Ignore;
        let mut cancelling = job("Draft a reply");
        cancelling.cancel_at_input_required = true;
        assert_eq!(impossible(&peer, &cancelling), Some(CANCEL_REFUSED));
        peer.cancel.interrupted = CancelOutcome::NotCancelable;
        assert_eq!(impossible(&peer, &cancelling), Some(CANCEL_REFUSED));
        peer.cancel.interrupted = CancelOutcome::Cancel;
        assert_eq!(impossible(&peer, &cancelling), None);
    }

    #[test]
    fn a_ttl_makes_long_work_impossible_only_when_even_the_shortest_outlasts_it() {
        let peer = |min_ms, max_ms| Personality {
            reaping: Reaping::Ttl { after_ms: 1_000 },
            work: meshsim_runtimes::WorkDurations {
                min_ms,
                max_ms,
                long_running_steps: 10,
            },
            ..Personality::default()
        };
        let long = job("#long crunch the numbers");
        assert_eq!(impossible(&peer(101, 200), &long), Some(WORK_OUTLASTS_TTL));
        assert_eq!(impossible(&peer(50, 99), &long), None);
        assert_eq!(impossible(&peer(101, 200), &job("#complete x")), None);
        let never = Personality {
            work: peer(101, 200).work,
            ..Personality::default()
        };
        assert_eq!(impossible(&never, &long), None);
    }

    #[test]
    fn stalls_are_impossible_only_when_waiting_them_out_takes_the_whole_job() {
        let peer = |stalled| Personality {
            stalled_first_tasks: stalled,
            ..Personality::default()
        };
        assert_eq!(impossible(&peer(5), &job("#complete x")), None);
        assert_eq!(
            impossible(&peer(6), &job("#complete x")),
            Some(EVERY_TASK_STALLS)
        );
    }
}
