//! Impossible jobs: the rules by which the oracle decides, from the peer's personality and
//! the job alone, that no consumer can finish a job.
//!
//! There the right result is a clean give-up: an outcome that says why, within the
//! liveness bound, with nothing applied twice and every task the consumer could cancel
//! canceled. Such a give-up is not a `liveness` violation; everything else is judged as
//! always (`no-double-apply`, `no-orphaned-task` with the peer's refusals named, ...), and
//! a job that finishes after all is judged like any other.

use crate::consumer_choice::sim_client;
use meshsim_consumer::Job;
use meshsim_runtimes::{CancelOutcome, FollowUp, Personality, Reaping, Script};
use std::time::Duration;

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

/// The peer's stalled tasks leave too little of the job's time for its work.
pub const EVERY_TASK_STALLS: ImpossibleRule = ImpossibleRule {
    name: "every-task-stalls",
    rule: "the peer's first `stalled_first_tasks` tasks after each (re)start never leave submitted, and a consumer tells a stalled task from a slow one only at the job's submitted deadline: from when a consumer can be sure to reach the peer after the run's faults (their end, when the last restart is past and the network whole, plus one request timeout of the simulation's client, for the call the faults may have swallowed, which it learns of only by that timeout), that many submitted deadlines plus the script's longest work (its work steps × `work.max_ms`) plus the exchanges no consumer can do without (the Card, a send and a cancel per stalled task, a send per turn, each a connection, a request and an answer at the network's slowest) plus the Card's `card_delay_ms` do not fit within the job's deadline, so no consumer can be sure to finish",
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

/// A job no consumer can finish: by which rule, and why it applies to this run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Impossible {
    pub rule: ImpossibleRule,
    /// The rule's figures for this peer and job, where it weighs timings; else the rule.
    pub why: String,
}

impl Impossible {
    fn by(rule: ImpossibleRule) -> Impossible {
        Impossible {
            rule,
            why: rule.rule.to_string(),
        }
    }
}

/// The rule by which no consumer can finish `job` against a peer with `personality`, if
/// any. `faults_end` is when the run's faults were over (zero for a run without any), as
/// time since the run, and the job, started.
pub fn impossible(
    personality: &Personality,
    job: &Job,
    faults_end: Duration,
) -> Option<Impossible> {
    let script = Script::for_text(&job.request);
    if let Some(why) = stalls_outlast_the_job(personality, job, script, faults_end) {
        return Some(Impossible {
            rule: EVERY_TASK_STALLS,
            why,
        });
    }
    if let (Script::LongRunning, Reaping::Ttl { after_ms }) = (script, personality.reaping) {
        let work = &personality.work;
        let shortest = u64::from(work.long_running_steps.max(1)).saturating_mul(work.min_ms);
        return (shortest > after_ms).then(|| Impossible::by(WORK_OUTLASTS_TTL));
    }
    if !script.asks() {
        return None;
    }
    if job.cancel_at_input_required {
        return (personality.cancel.interrupted != CancelOutcome::Cancel)
            .then(|| Impossible::by(CANCEL_REFUSED));
    }
    match personality.follow_up {
        FollowUp::NewTask => Some(Impossible::by(NEW_TASK_PER_FOLLOW_UP)),
        FollowUp::NotFound => Some(Impossible::by(FOLLOW_UP_REFUSED)),
        FollowUp::Resume | FollowUp::ResumeWithDuplicateSubmitted => None,
    }
}

/// [`EVERY_TASK_STALLS`]'s figures when it applies: the time a consumer that has met every
/// stall may still need, counted from when it can be sure to reach the recovered peer, against
/// the job's deadline.
fn stalls_outlast_the_job(
    personality: &Personality,
    job: &Job,
    script: Script,
    faults_end: Duration,
) -> Option<String> {
    let stalls = personality.stalled_first_tasks;
    if stalls == 0 {
        return None;
    }
    // A job that cancels at input-required is over with the first turn.
    let turns = if job.cancel_at_input_required {
        1
    } else {
        script.turns()
    };
    let work = &personality.work;
    let steps = script.work_steps(turns, work.long_running_steps);
    let longest_work = Duration::from_millis(u64::from(steps).saturating_mul(work.max_ms));
    let waiting = job.deadlines.submitted.saturating_mul(stalls);
    let lost_call = lost_call_timeout(faults_end);
    let exchanges = 1 + 2 * stalls + turns;
    let round_trips = SLOWEST_EXCHANGE.saturating_mul(exchanges);
    let card_delay = personality.card_delay().unwrap_or_default();
    let needed = faults_end + lost_call + waiting + longest_work + round_trips + card_delay;
    // Finishing at the deadline itself is too late: the last answer takes a round trip.
    (needed >= job.deadlines.job).then(|| {
        format!(
            "{} ms (faults end) + {} ms (request timeout of a call they swallowed) + {stalls} stalled tasks × {} ms (submitted deadline) + {steps} work steps × {} ms (work.max_ms) + {exchanges} exchanges × {} ms{} = {} ms, not within the {} ms job deadline",
            faults_end.as_millis(),
            lost_call.as_millis(),
            job.deadlines.submitted.as_millis(),
            work.max_ms,
            SLOWEST_EXCHANGE.as_millis(),
            if card_delay.is_zero() {
                String::new()
            } else {
                format!(" + {} ms (card_delay_ms)", card_delay.as_millis())
            },
            needed.as_millis(),
            job.deadlines.job.as_millis()
        )
    })
}

/// The longest one exchange takes on the simulation's network when nothing is lost: a
/// connection (two messages), a request and its answer, each message up to 20 ms.
const SLOWEST_EXCHANGE: Duration = Duration::from_millis(80);

/// How long after the faults end a consumer may still be waiting on a call they swallowed.
///
/// A consumer learns that the peer is back only by calling it. A call under way when the
/// faults end may have been lost to them (a crash drops its connection without a word, a
/// partition its answer), and nothing tells a lost call from a slow one before its request
/// timeout: the simulation's client allows each call that long ([`sim_client`]). A consumer
/// that calls again sooner may start a second task beside the first. So the first call it can
/// be sure reaches the recovered peer begins one request timeout after the faults end; a run
/// without faults lost no call.
fn lost_call_timeout(faults_end: Duration) -> Duration {
    if faults_end.is_zero() {
        Duration::ZERO
    } else {
        sim_client().request_timeout
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use meshsim_consumer::Deadlines;

    /// The rule that applies in a run without faults.
    fn rule_of(personality: &Personality, job: &Job) -> Option<ImpossibleRule> {
        impossible(personality, job, Duration::ZERO).map(|found| found.rule)
    }

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
            rule_of(&peer, &job("Summarise the report")),
            Some(NEW_TASK_PER_FOLLOW_UP)
        );
        assert_eq!(
            rule_of(&peer, &job("#ask-twice plan")),
            Some(NEW_TASK_PER_FOLLOW_UP)
        );
        assert_eq!(rule_of(&peer, &job("#complete translate")), None);
        assert_eq!(rule_of(&Personality::default(), &job("Summarise")), None);
    }

    #[test]
    fn a_refused_cancel_makes_a_cancelling_job_impossible() {
        let mut peer = Personality::default();
        peer.cancel.interrupted = CancelOutcome::Ignore;
        let mut cancelling = job("Draft a reply");
        cancelling.cancel_at_input_required = true;
        assert_eq!(rule_of(&peer, &cancelling), Some(CANCEL_REFUSED));
        peer.cancel.interrupted = CancelOutcome::NotCancelable;
        assert_eq!(rule_of(&peer, &cancelling), Some(CANCEL_REFUSED));
        peer.cancel.interrupted = CancelOutcome::Cancel;
        assert_eq!(rule_of(&peer, &cancelling), None);
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
        assert_eq!(rule_of(&peer(101, 200), &long), Some(WORK_OUTLASTS_TTL));
        assert_eq!(rule_of(&peer(50, 99), &long), None);
        assert_eq!(rule_of(&peer(101, 200), &job("#complete x")), None);
        let never = Personality {
            work: peer(101, 200).work,
            ..Personality::default()
        };
        assert_eq!(rule_of(&never, &long), None);
    }

    #[test]
    fn stalls_are_impossible_when_their_deadlines_and_the_longest_work_outlast_the_job() {
        let peer = |stalled, max_ms| Personality {
            stalled_first_tasks: stalled,
            work: meshsim_runtimes::WorkDurations {
                min_ms: 0,
                max_ms,
                long_running_steps: 3,
            },
            ..Personality::default()
        };
        let asks = job("Summarise");
        // 5 × 5 s + 4 steps × 0.98 s + 13 exchanges × 80 ms (the Card, a send and a cancel
        // per stall, a send per turn) = 29.96 s fits in 30 s; with 1 s steps, 30.04 s does
        // not.
        assert_eq!(rule_of(&peer(5, 980), &asks), None);
        let found = impossible(&peer(5, 1_000), &asks, Duration::ZERO).expect("impossible");
        assert_eq!(found.rule, EVERY_TASK_STALLS);
        assert!(
            found.why.contains("+ 13 exchanges × 80 ms = 30040 ms"),
            "{}",
            found.why
        );
        // A Card answered 40 ms late takes the 29.96 s to the deadline itself.
        let late_card = Personality {
            card_delay_ms: Some(40),
            ..peer(5, 980)
        };
        let found = impossible(&late_card, &asks, Duration::ZERO).expect("impossible");
        assert!(
            found
                .why
                .contains("+ 13 exchanges × 80 ms + 40 ms (card_delay_ms) = 30000 ms"),
            "{}",
            found.why
        );
        // Without the question's second turn, 2 steps fit.
        assert_eq!(rule_of(&peer(5, 1_000), &job("#complete x")), None);
        // The same peer after faults that end at 5 s leaves no room for four stalls.
        let restarted = impossible(&peer(4, 1_000), &asks, Duration::from_secs(5));
        assert_eq!(restarted.map(|found| found.rule), Some(EVERY_TASK_STALLS));
        assert_eq!(rule_of(&peer(4, 1_000), &asks), None);
        assert_eq!(rule_of(&peer(0, 1_000), &asks), None);
        assert_eq!(
            rule_of(&peer(6, 0), &job("#complete x")),
            Some(EVERY_TASK_STALLS)
        );
    }

    #[test]
    fn after_faults_the_stalls_count_from_one_request_timeout_past_their_end() {
        // Seed 2571's peer: four stalls, then `#long` work of 6 steps of at most 350 ms.
        let peer = |stalled| Personality {
            stalled_first_tasks: stalled,
            work: meshsim_runtimes::WorkDurations {
                min_ms: 133,
                max_ms: 350,
                long_running_steps: 5,
            },
            ..Personality::default()
        };
        let long = job("#long crunch the numbers");
        let faults_end = Duration::from_secs(5);
        // 5 s + 3 s + 4 × 5 s + 6 × 350 ms + (1 + 8 + 1) exchanges × 80 ms = 30.9 s: a call
        // the faults swallowed is known lost only at 8 s. Counted from the faults' end alone
        // it was 27.9 s, and possible.
        let found = impossible(&peer(4), &long, faults_end).expect("impossible");
        assert_eq!(found.rule, EVERY_TASK_STALLS);
        assert!(
            found.why.contains("+ 3000 ms (request timeout")
                && found.why.contains("+ 10 exchanges × 80 ms = 30900 ms"),
            "{}",
            found.why
        );
        // Without faults no call was lost: 22.9 s fits.
        assert_eq!(rule_of(&peer(4), &long), None);
        // One stall fewer fits after the faults: 25.7 s.
        assert_eq!(impossible(&peer(3), &long, faults_end), None);
        // At the edge: 5 s + 3 s + 4 × 5 s + 10 exchanges × 80 ms leave 1.2 s for
        // `#complete`'s two steps.
        let quick = |max_ms| Personality {
            work: meshsim_runtimes::WorkDurations {
                min_ms: 0,
                max_ms,
                long_running_steps: 1,
            },
            ..peer(4)
        };
        let complete = job("#complete x");
        assert_eq!(impossible(&quick(599), &complete, faults_end), None);
        let found = impossible(&quick(600), &complete, faults_end).map(|found| found.rule);
        assert_eq!(found, Some(EVERY_TASK_STALLS));
    }
}
