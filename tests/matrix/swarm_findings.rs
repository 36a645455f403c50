//! What `--runtime swarm` found over seeds 0..30000 (issue 17, then the 1 ms step), over
//! seeds 30000..80000 once `one-outcome` compared artifacts and `deadlines-honoured` asked
//! when, over seeds 80000..120000, over seeds 190000..230000 once the swarm drew late
//! Cards, and over seeds 340000..370000, each reproduced from a personality file in
//! `tests/personalities/` and judged as the verdict now judges it.

use super::divergences::{assert_holds, incident, peer_fault, personality_file};
use meshsim_consumer::{
    CancelResult, FollowupBehaviour, JobReport, Outcome, PeerLifecycleProfile, ReconcilingConfig,
    ResubscribeBehaviour,
};
use meshsim_protocol::{Dialect, TaskState};
use meshsim_runtimes::{Fate, Origin};
use meshsim_scenarios::{
    ConsumerChoice, Faults, Invariant, RunOptions, RunResult, RunSpec, Scenario, run,
};
use meshsim_sim::{FaultPlan, Seed};
use meshsim_trace::{TraceEvent, TraceLine};
use std::time::Duration;

/// The step the swarm findings were made at, and their fault plans timed for: 10 ms, the
/// default until it became 1 ms. A finding made at 1 ms says so and sets its own.
const FOUND_AT: Duration = Duration::from_millis(10);

/// The reconciling consumer's run of the origin incident against the personality file
/// `name`, under `plan` (or no faults), stepped every [`FOUND_AT`].
fn against(name: &str, dialect: Dialect, plan: Option<&str>) -> RunSpec {
    RunSpec {
        faults: plan.map_or(Faults::None, |plan| {
            Faults::Plan(FaultPlan::from_json(plan).expect("a fault plan"))
        }),
        tick: FOUND_AT,
        ..incident(
            &personality_file(name),
            ConsumerChoice::Reconciling,
            dialect,
            1,
        )
    }
}

/// [`against`] for the swarm's seed `seed`, stepped every 1 ms: the findings the default
/// step made.
fn against_at_1ms(name: &str, dialect: Dialect, plan: Option<&str>, seed: u64) -> RunSpec {
    RunSpec {
        seed: Seed::new(seed),
        tick: Duration::from_millis(1),
        ..against(name, dialect, plan)
    }
}

/// Asserts `spec`'s run holds; the profile its consumer learned.
fn profile_of_holding(spec: &RunSpec) -> PeerLifecycleProfile {
    let result = assert_holds(spec);
    result.reports[0].profile.clone().expect("a profile")
}

/// Runs the reconciling consumer against the personality file `name` under `plan`, asserts
/// the run holds, and that the consumer did not learn `wrong` for whether tasks survive a
/// stream's close.
fn assert_close_survival_not_learned(name: &str, dialect: Dialect, plan: &str, wrong: bool) {
    let learned = profile_of_holding(&against(name, dialect, Some(plan)));
    assert_ne!(
        learned.task_survives_stream_close,
        Some(wrong),
        "{dialect}: {learned:?}"
    );
}

/// Runs the reconciling consumer against the personality file `name` at v0.1 with 1 ms
/// steps and no faults, for each of `seeds`, and asserts the job completes and that an
/// answer met a reaped id the peer started afresh (the case the run is there for).
fn assert_completes_after_a_fresh_start(name: &str, seeds: [u64; 3]) {
    for seed in seeds {
        let spec = against_at_1ms(name, Dialect::V0_1, None, seed);
        let result = assert_completes(&spec);
        let started_afresh = result.truths["agent"]
            .iter()
            .any(|task| matches!(task.origin, Origin::FollowUpCreated { .. }));
        assert!(
            started_afresh,
            "{name}, seed {seed}: no answer met a reaped id"
        );
    }
}

/// Asserts `spec`'s run holds and its job completes; the run, for further checks.
fn assert_completes(spec: &RunSpec) -> RunResult {
    let result = assert_holds(spec);
    let report = &result.reports[0];
    assert!(
        matches!(report.outcome, Outcome::Completed { .. }),
        "{}: {:?}",
        spec.dialect,
        report.outcome
    );
    result
}

/// Whether the consumer read the task's history replayed: `submitted` again while the task
/// was working.
fn read_a_replay(report: &JobReport) -> bool {
    report.anomalies.iter().any(|anomaly| {
        anomaly
            .detail
            .starts_with("submitted reported while in working")
    })
}

/// Runs `spec` keeping its trace: the run, and its trace's lines parsed.
fn run_traced(spec: &RunSpec) -> (RunResult, Vec<TraceLine>) {
    let options = RunOptions {
        keep_trace: true,
        ..RunOptions::default()
    };
    let result = run(spec, &options).expect("the run is carried out");
    let lines = (result.trace.as_ref().expect("kept").lines())
        .filter_map(TraceLine::parse)
        .collect();
    (result, lines)
}

/// Found as `liveness` (99 runs of 0..1000): five stalled tasks and quick work fit in the
/// job's 30 s (5 × 5 s + 4 × 200 ms), but the reconciling consumer backed off after each
/// stall (7.75 s in all) as if the peer were restarting, and a blocking v0.1 send counted
/// the submitted deadline from its own 3 s timeout. It now starts over at once after a
/// deadline, counting it from the send, and finishes.
#[test]
fn reconciling_consumer_outwaits_five_stalled_tasks_and_finishes() {
    for dialect in Dialect::ALL {
        let result = assert_completes(&against("stalls-five-tasks-then-works", dialect, None));
        let report = &result.reports[0];
        assert_eq!(
            report.deadlines.len(),
            5,
            "{dialect}: {:?}",
            report.deadlines
        );
    }
}

/// Found as `liveness`: the impossible-job rule fired only at six stalls, but five stalls
/// and slow work (5 × 5 s + 4 × 1.5 s = 31 s, 32.04 s with the exchanges) also leave no
/// consumer time to finish within 30 s. The rule now weighs the work, and the verdict prints
/// the sum.
#[test]
fn stalls_that_leave_no_time_for_the_work_make_the_job_impossible_and_the_verdict_says_why() {
    for dialect in Dialect::ALL {
        let result = assert_holds(&against(
            "stalls-five-tasks-before-slow-work",
            dialect,
            None,
        ));
        assert!(
            matches!(result.reports[0].outcome, Outcome::GaveUp { .. }),
            "{dialect}: {:?}",
            result.reports[0].outcome
        );
        let named = peer_fault(&result, Invariant::Liveness);
        assert!(named.contains("every-task-stalls"), "{named}");
        assert!(
            named.contains("5 stalled tasks × 5000 ms")
                && named.contains("+ 13 exchanges × 80 ms = 32040 ms"),
            "{named}"
        );
    }
}

/// Found as `profile-matches-runtime` (seeds 554, 777): a one-way partition from the
/// consumer to the peer kept the consumer's close of a stream from the peer while the
/// stream's events still arrived. The task lived on, since the peer never saw the close,
/// and the consumer learned that tasks outlive their streams and that follow-ups resume;
/// on this peer a close the peer sees reaps the task. The consumer could tell: its first
/// check after the close failed. It now learns about closes only from a first check.
#[test]
fn a_close_a_one_way_partition_kept_from_the_peer_is_no_evidence_that_tasks_outlive_streams() {
    let plan = r#"{"faults": [
        {"at_ms": 200, "kind": "partition_oneway", "from": "consumer", "to": "agent"},
        {"at_ms": 1000, "kind": "repair_oneway", "from": "consumer", "to": "agent"}
    ]}"#;
    for dialect in Dialect::ALL {
        assert_close_survival_not_learned(
            "reaps-on-stream-close-keeps-streams-open",
            dialect,
            plan,
            true,
        );
    }
}

/// Found as `profile-matches-runtime` at 1 ms steps (`--tick-ms 1`: 30 of the 37 runs that
/// missed their expectation among 21,000 swarm runs over seeds 0..1000; at 10 ms none
/// missed): the peer keeps its streams open at `input-required`
/// and reaps a task when its stream closes. The consumer dropped the stream and at once asked
/// about the task on a new connection; the question overtook the close (each message takes
/// its own latency, 1 to 20 ms), found the task alive, and taught that tasks outlive their
/// streams and that follow-ups resume. At 10 ms both arrive at the same step and the close
/// goes first. It now learns that a task outlived a close only when the peer ended the
/// stream itself, which it waits briefly for while it is learning.
#[test]
fn a_question_that_may_overtake_the_close_is_no_evidence_that_tasks_outlive_streams() {
    for seed in 1..=5 {
        let spec = against_at_1ms(
            "reaps-on-stream-close-keeps-streams-open",
            Dialect::V0_1,
            None,
            seed,
        );
        let learned = profile_of_holding(&spec);
        assert_ne!(
            learned.task_survives_stream_close,
            Some(true),
            "seed {seed}: {learned:?}"
        );
        assert_ne!(
            learned.followup_same_task,
            Some(FollowupBehaviour::Resumes),
            "seed {seed}: {learned:?}"
        );
    }
}

/// Found as `profile-matches-runtime` at 1 ms steps (`--tick-ms 1`: 16 of the 25 runs that
/// missed their expectation among 189,000 swarm runs over seeds 1000..10000, seeds 1897,
/// 3861, 5358 and 7278; at 10 ms none missed): the peer keeps its streams open at
/// `input-required`, reaps a task when its stream closes, and answers a resubscribe with
/// the task's history. A partition kept the question from the consumer, whose read timed
/// out after 5 s; it dropped the stream and at once resubscribed on a new connection. The
/// resubscribe overtook the close, found the task alive, replayed it, and the consumer
/// learned that resubscribes replay; once the close has reaped the task, as it does here, a
/// resubscribe finds nothing. At 10 ms both arrive at the same step and the close goes
/// first. A replay now teaches what resubscribes do only when the peer had ended the
/// stream itself, or tasks are known to outlive their streams.
#[test]
fn a_resubscribe_that_may_overtake_the_close_is_no_evidence_that_resubscribes_replay() {
    let plan =
        r#"{"faults": [{"at_ms": 150, "kind": "partition", "a": "consumer", "b": "agent"}]}"#;
    for dialect in Dialect::ALL {
        for seed in 1..=40 {
            let spec = against_at_1ms(
                "reaps-on-stream-close-keeps-streams-open-replays",
                dialect,
                Some(plan),
                seed,
            );
            let learned = profile_of_holding(&spec);
            assert_ne!(
                learned.resubscribe_after_input_required,
                Some(ResubscribeBehaviour::Replays),
                "{dialect} seed {seed}: {learned:?}"
            );
        }
    }
}

/// Found as `liveness` at 1 ms steps (`--tick-ms 1`: the last 3 of 21,000 swarm runs over
/// seeds 0..1000 that missed their expectation, 153 heterogeneous-mesh, 398 and 777
/// stuck-in-submitted, all v0.1; and 197 of 2,100 runs of this personality without
/// faults; at 10 ms none missed): the peer keeps its streams open at `input-required` and
/// reaps a task when its stream closes. The consumer's question about the task overtook
/// the close of the stream it dropped, found the task alive, and the answer then met the
/// reaped id, which a v0.1 peer starts afresh: the answer's stream said `submitted`,
/// `working` and `input-required` again. The consumer's ledger held those as a possible
/// replay of the task's history until something new followed or the stream closed; the
/// peer sent neither, waiting for an answer, and the question has no deadline, so the
/// consumer read keep-alives until the job's deadline. A replay goes on at once with the
/// answer's turn: it now waits only briefly after a held question, then takes the held
/// events for the turn's own (as the close would), answers again and finds the task gone.
#[test]
fn a_question_held_as_a_possible_replay_on_a_stream_left_open_is_not_waited_on_forever() {
    assert_completes_after_a_fresh_start(
        "reaps-on-stream-close-keeps-streams-open-slow-work",
        [4, 7, 29],
    );
}

/// Found as `liveness` at 1 ms steps (swarm seeds 1067 stuck-in-submitted and 5954
/// heterogeneous-mesh, v0.1, once 1 ms was the default; at 10 ms both held): the same
/// answer that met a reaped id as above, against a peer that says `input-required` twice.
/// The repeat, right after the held `submitted`, `working`, `input-required` had matched
/// the task's whole history, settled them as a replay, so nothing was a question held any
/// more and the consumer read the open stream until the job's deadline. A state said again
/// right after itself is now held with the rest; without faults, 17 of this personality's
/// 100 v0.1 runs missed before and none after.
#[test]
fn a_question_said_twice_on_a_stream_left_open_is_not_waited_on_forever() {
    assert_completes_after_a_fresh_start(
        "reaps-on-stream-close-keeps-streams-open-repeats-questions",
        [4, 7, 10],
    );
}

/// Found as `profile-matches-runtime` at 1 ms steps (swarm seed 8479, origin-incident
/// v0.1, 1 of the 25 misses over seeds 1000..10000): the peer keeps its streams open at
/// `input-required`, reaps a task when its stream closes, and answers a follow-up to a
/// live task with a new task. The consumer dropped the stream and answered at once on a
/// new connection; the answer overtook the close, met the task still attached, got a new
/// task, and taught that follow-ups start new tasks, where after the close they are
/// refused. A peer that refuses follow-ups to live tasks but starts unknown ids afresh
/// taught the opposite the same way (swarm seed 1817, stuck-in-submitted v0.3 and v1.0,
/// where a later new task used to overwrite it). Like a task found alive, an answer to a
/// follow-up, or its refusal, now teaches what follow-ups after a close do only if the
/// peer ended the stream itself.
#[test]
fn a_follow_up_that_may_overtake_the_close_is_no_evidence_of_what_follow_ups_after_it_do() {
    for (name, wrong) in [
        (
            "reaps-on-stream-close-keeps-streams-open-new-task-per-follow-up",
            FollowupBehaviour::NewTask,
        ),
        (
            "reaps-on-stream-close-keeps-streams-open-refuses-follow-ups",
            FollowupBehaviour::TaskNotFound,
        ),
    ] {
        for seed in 1..=8 {
            let learned = profile_of_holding(&against_at_1ms(name, Dialect::V0_1, None, seed));
            assert_ne!(
                learned.followup_same_task,
                Some(wrong),
                "{name}, seed {seed}: {learned:?}"
            );
        }
    }
}

/// Found as `profile-matches-runtime` (seed 752): the peer's timer reaped a task at
/// input-required while the answer travelled (100 ms of latency each way), and the peer
/// answered the unknown id with a new task. The consumer learned that follow-ups start new
/// tasks; they resume. A new task in reply counts only when it comes right after the close,
/// as a -32001 does.
#[test]
fn a_new_task_in_reply_to_an_answer_that_came_after_the_timer_is_not_learned_as_the_follow_up_behaviour()
 {
    let plan = r#"{"faults": [
        {"at_ms": 0, "kind": "latency", "a": "consumer", "b": "agent", "ms": 100},
        {"at_ms": 3000, "kind": "latency_reset", "a": "consumer", "b": "agent"}
    ]}"#;
    for dialect in [Dialect::V0_3, Dialect::V1_0] {
        let spec = against(
            "reaps-by-timer-and-starts-unknown-ids-afresh",
            dialect,
            Some(plan),
        );
        let (result, lines) = run_traced(&spec);
        let started_afresh = result.truths["agent"]
            .iter()
            .any(|task| matches!(task.origin, Origin::FollowUpCreated { .. }));
        assert!(started_afresh, "{dialect}: no answer met a reaped id");
        let learned_new_task = lines.iter().any(|line| {
            matches!(&line.event, TraceEvent::Decision { decision, reason, .. }
                    if decision == "profile-refresh" && reason.contains("Followup(NewTask)"))
        });
        assert!(
            !learned_new_task,
            "{dialect}: learned that follow-ups start new tasks"
        );
        assert_holds(&spec);
    }
}

/// Found as `profile-matches-runtime` (swarm seed 1549, 9 runs): the peer keeps streams
/// open at input-required and reaps a question left unanswered for 400 ms. A link held the
/// question past that timer; the consumer, closing the stream when the question arrived
/// and finding the task gone at once, learned that tasks die with their stream. It counted
/// "right at the close" from when the question arrived; it now counts from when the peer
/// asked, the question's stamp read on its own clock, and a held question is not evidence.
#[test]
fn a_question_a_link_held_past_the_peers_timer_is_no_evidence_that_closes_lose_tasks() {
    let plan = r#"{"faults": [
        {"at_ms": 200, "kind": "hold", "a": "agent", "b": "consumer"},
        {"at_ms": 1000, "kind": "release", "a": "agent", "b": "consumer"}
    ]}"#;
    for dialect in Dialect::ALL {
        assert_close_survival_not_learned(
            "reaps-questions-by-timer-keeps-streams-open",
            dialect,
            plan,
            false,
        );
    }
}

/// Found as `liveness` (swarm seed 2273, 4 runs): the peer keeps streams open at
/// input-required and reaps a task when its stream closes. On a lossy link the consumer's
/// first close never reached the peer, the task was found alive, and the consumer learned
/// that tasks survive closes; from then on every answer (or cancel) went out unconfirmed
/// right after a close and met -32001, and the consumer kept streaming until the job's
/// deadline. A task found gone by that first call, right after the close, now overturns the
/// belief: the consumer stops streaming to the peer and finishes.
#[test]
fn a_task_gone_right_after_a_close_overturns_the_belief_that_tasks_survive_closes() {
    let plan = r#"{"faults": [
        {"at_ms": 545, "kind": "loss", "a": "agent", "b": "consumer", "permille": 83},
        {"at_ms": 1231, "kind": "partition", "a": "consumer", "b": "agent"}
    ]}"#;
    for dialect in [Dialect::V0_3, Dialect::V1_0] {
        for scenario in [Scenario::OriginIncident, Scenario::CancelAtInputRequired] {
            let spec = RunSpec {
                seed: Seed::new(2273),
                scenario,
                ..against(
                    "reaps-on-stream-close-keeps-streams-open-slow-work",
                    dialect,
                    Some(plan),
                )
            };
            let learned = profile_of_holding(&spec);
            assert_eq!(
                learned.task_survives_stream_close,
                Some(false),
                "{dialect} {scenario:?}: {learned:?}"
            );
        }
    }
}

/// Found as `liveness` (swarm seeds 3757 and 4331, 9 runs): the peer's first four tasks
/// after a restart stall, and a task dies when its stream closes. After four stalled tasks
/// the fifth was lost with its stream, which any consumer that streams learns only so, and
/// the consumer paused 4 s before the next dispatch, as if the peer had restarted five
/// times: the pause grew with every task started. It now grows with the tasks lost, and
/// the job finishes.
#[test]
fn stalled_tasks_do_not_lengthen_the_pause_after_a_lost_one() {
    let plan = r#"{"faults": [{"at_ms": 3599, "kind": "crash", "host": "agent"}]}"#;
    for dialect in Dialect::ALL {
        assert_completes(&against(
            "stalls-four-tasks-reaps-on-stream-close",
            dialect,
            Some(plan),
        ));
    }
}

/// Found as `liveness` (swarm seeds 3925, 6941, 7072, 7743, 9899; 19 runs): the peer's
/// first four tasks after a restart stall. Behind the scenario's sidecar, which cuts every
/// stream after 400 ms, the consumer resubscribed with a growing backoff and looked at the
/// submitted deadline only after each pause, up to 2 s past it (elsewhere a call whose
/// answer a partition lost ran its 3 s timeout past it): each stall cost up to 6.1 s, not
/// 5 s, and after a restart at 4.6 s the fifth task came too late. The deadline now cuts
/// short every pause and call about the task, and the job finishes.
#[test]
fn a_submitted_deadline_cuts_short_the_pause_between_resubscribes() {
    let plan = r#"{"faults": [{"at_ms": 4621, "kind": "bounce", "host": "agent"}]}"#;
    for dialect in Dialect::ALL {
        let spec = RunSpec {
            scenario: Scenario::SidecarCut,
            ..against("stalls-four-tasks-quick-work", dialect, Some(plan))
        };
        assert_completes(&spec);
    }
}

/// Found as `profile-matches-runtime` (swarm seeds 2357, 5307, 6327, 6561 and 7157, 8
/// runs): the peer refuses every follow-up with -32001, keeps tasks across stream closes
/// and reaps them by a timer. The follow-up, the first call right after the close, met
/// -32001; the consumer then canceled, the cancel's answer was lost to a partition, and
/// the retry that got through seconds later found the task reaped by the timer. The
/// consumer judged "right at the close" when the follow-up's answer came, not when the
/// cancel's did, and learned that tasks die with their stream. It now judges it when the
/// cancel's answer comes, as it does for a `tasks/get` or a cancel the job asks for.
#[test]
fn a_cancel_that_got_through_after_the_timer_is_no_evidence_that_closes_lose_tasks() {
    for dialect in Dialect::ALL {
        // The partition begins right after the second follow-up's -32001 reaches the
        // consumer (v0.1's discovery takes one more round trip) and outlasts the timer.
        let begins = if dialect == Dialect::V0_1 { 891 } else { 861 };
        let plan = format!(
            r#"{{"faults": [
                {{"at_ms": {begins}, "kind": "partition", "a": "consumer", "b": "agent"}},
                {{"at_ms": 2800, "kind": "repair", "a": "consumer", "b": "agent"}}
            ]}}"#
        );
        assert_close_survival_not_learned("refuses-follow-ups-reaps-by-ttl", dialect, &plan, false);
    }
}

/// Found as `no-orphaned-task` (swarm seeds 4657 and 6025, v0.1): the peer refuses every
/// follow-up with -32001 while the task waits on, and the consumer cancels such a task
/// before starting over. A partition outlasted the cancel's three retries (3.5 s), the
/// consumer recorded the cancel as failed and never asked again, and the task waited at
/// input-required forever. It now asks again before every further dispatch and before the
/// job ends.
#[test]
fn a_cancel_a_partition_kept_from_the_peer_is_asked_again_once_it_heals() {
    for dialect in Dialect::ALL {
        // The partition begins right after the first follow-up's -32001 reaches the
        // consumer (v0.1's discovery takes one more round trip) and outlasts the retries.
        let begins = if dialect == Dialect::V0_1 { 351 } else { 321 };
        let plan = format!(
            r#"{{"faults": [
                {{"at_ms": {begins}, "kind": "partition", "a": "consumer", "b": "agent"}},
                {{"at_ms": 4500, "kind": "repair", "a": "consumer", "b": "agent"}}
            ]}}"#
        );
        let result = assert_holds(&against("refuses-follow-ups", dialect, Some(&plan)));
        let first = result.reports[0].tasks.first().expect("a task");
        let abandoned = first.abandoned.as_ref().expect("abandoned");
        assert_eq!(
            abandoned.cancel,
            CancelResult::Answered(TaskState::Canceled),
            "{dialect}: {abandoned:?}"
        );
    }
}

/// Found as `profile-matches-runtime` (swarm seed 3424, 6 runs): the peer stamps no status,
/// pings every 250 ms, and reaps a question left unanswered for 735 ms. A link held the
/// question for 850 ms; with no stamp, the consumer counted "right at the close" from when
/// it arrived, found the task gone at once, and learned that tasks die with their stream.
/// Nothing dates an unstamped question (the keep-alives only bound how late it left; see
/// the test of seed 19062), so the held question is not evidence.
#[test]
fn an_unstamped_question_a_link_held_past_the_peers_timer_is_no_evidence_that_closes_lose_tasks() {
    let plan = r#"{"faults": [
        {"at_ms": 200, "kind": "hold", "a": "agent", "b": "consumer"},
        {"at_ms": 1200, "kind": "release", "a": "agent", "b": "consumer"}
    ]}"#;
    for dialect in Dialect::ALL {
        assert_close_survival_not_learned(
            "reaps-unstamped-questions-by-timer-keeps-pinging",
            dialect,
            plan,
            false,
        );
    }
}

/// Found as `profile-matches-runtime` at 1 ms steps (swarm seed 7289, 6 runs over seeds
/// 1000..10000: origin-incident, cancel-at-input-required and partition-during-resubscribe,
/// v0.3 and v1.0): the peer stamps no status, sends no keep-alives, and reaps a question
/// left unanswered for 390 ms. A link held the question (and the stream's end behind it)
/// for 425 ms; the consumer counted "right at the close" from their arrival, found the task
/// gone at once, and learned that tasks die with their stream. Nothing dates such a
/// question, so a task found gone right after it now only steers the consumer off streams
/// and teaches nothing of closes. The same hold misses at 10 ms too; the swarm found it at 1.
#[test]
fn an_undated_question_a_link_held_past_the_peers_timer_is_no_evidence_that_closes_lose_tasks() {
    let plan = r#"{"faults": [
        {"at_ms": 200, "kind": "hold", "a": "agent", "b": "consumer"},
        {"at_ms": 1200, "kind": "release", "a": "agent", "b": "consumer"}
    ]}"#;
    assert_undated_loss_teaches_no_lifecycle("reaps-unstamped-questions-by-timer-silent", plan);
}

/// Found as `profile-matches-runtime` at 1 ms steps (swarm seed 19062, 6 runs over seeds
/// 10000..30000: the same three scenarios, v0.3 and v1.0): the peer stamps no status, pings
/// every 756 ms, and reaps a question left unanswered for 341 ms. A link held a keep-alive
/// and the question the peer sent 25 ms after it (with the stream's end) for about 500 ms.
/// The keep-alive said when it left at the latest, one period after the bytes before it,
/// which left the question a whole period more: the consumer dated it by its arrival, found
/// the task gone at once, and learned that tasks die with their stream. Keep-alives bound
/// how late bytes left, never how early, so they date no question: a task found gone right
/// after an unstamped one now teaches nothing of closes, with keep-alives or without. The
/// same hold misses at 10 ms too.
#[test]
fn a_keep_alive_a_link_held_with_an_unstamped_question_does_not_date_it() {
    let plan = r#"{"faults": [
        {"at_ms": 1000, "kind": "hold", "a": "agent", "b": "consumer"},
        {"at_ms": 2000, "kind": "release", "a": "agent", "b": "consumer"}
    ]}"#;
    assert_undated_loss_teaches_no_lifecycle(
        "reaps-unstamped-questions-by-timer-pings-slowly",
        plan,
    );
}

/// Runs the reconciling consumer against the personality file `name` under `plan` with 1 ms
/// steps, on every dialect, and asserts the job completes having learned nothing of whether
/// tasks survive a stream's close, while the task it found gone steers it off streams.
fn assert_undated_loss_teaches_no_lifecycle(name: &str, plan: &str) {
    for dialect in Dialect::ALL {
        let spec = against_at_1ms(name, dialect, Some(plan), 1);
        let learned = assert_completes(&spec).reports[0].profile.clone();
        let learned = learned.expect("a profile");
        assert_eq!(
            learned.task_survives_stream_close, None,
            "{dialect}: {learned:?}"
        );
        assert_eq!(learned.streams_keep_tasks(), Some(false), "{dialect}");
    }
}

/// Found as `liveness` (swarm seed 9715, heterogeneous-mesh v0.1): a link held the peer's
/// question while the peer restarted empty; the answer, sent when the question arrived,
/// met a v0.1 peer that starts a forgotten id afresh, and the task it started under the
/// job's id asked the same question again. The peer stamps nothing, so the consumer read
/// the unchanged question as its answer not taken yet and polled it for 20 s before
/// answering again and finding the task was not the job's. The answer's own reply names
/// the task's first request: the consumer now starts over when that reply (or any whole
/// task under the job's id) began with another request, and finishes.
#[test]
fn a_task_started_afresh_under_the_jobs_id_is_caught_in_the_answers_own_reply() {
    let plan = r#"{"faults": [
        {"at_ms": 150, "kind": "hold", "a": "agent", "b": "consumer"},
        {"at_ms": 2950, "kind": "bounce", "host": "agent"},
        {"at_ms": 3000, "kind": "release", "a": "agent", "b": "consumer"}
    ]}"#;
    let result = assert_completes(&against(
        "starts-unknown-ids-afresh-unstamped",
        Dialect::V0_1,
        Some(plan),
    ));
    let report = &result.reports[0];
    let first = report.tasks.first().expect("a task");
    let abandoned = first.abandoned.as_ref().expect("abandoned");
    assert!(
        abandoned
            .reason
            .contains("a task of its own under the same id"),
        "{abandoned:?}"
    );
}

/// Seen in swarm seed 6167 (cancel-at-input-required v0.1): a send that could not connect
/// had written nothing, yet the consumer searched for the task it might have created (v0.1
/// asks for its chosen id, v1.0 lists the context) with growing pauses while the peer was
/// unreachable, and sent only after a search answered empty: one more call and one more
/// pause after the peer was back. It now sends again at once, so the first call the
/// recovered peer reads creates the task.
#[test]
fn a_send_that_could_not_connect_is_sent_again_not_searched_for() {
    for dialect in Dialect::ALL {
        // The partition refuses the first send, right after the Card (v0.1's discovery
        // takes one more round trip).
        let begins = if dialect == Dialect::V0_1 { 63 } else { 33 };
        let plan = format!(
            r#"{{"faults": [
                {{"at_ms": {begins}, "kind": "partition_oneway", "from": "consumer", "to": "agent"}},
                {{"at_ms": 2000, "kind": "repair_oneway", "from": "consumer", "to": "agent"}}
            ]}}"#
        );
        let spec = against("stalls-four-tasks-quick-work", dialect, Some(&plan));
        let (_, lines) = run_traced(&spec);
        let refused = lines.iter().any(|line| {
            matches!(&line.event, TraceEvent::Decision { reason, .. }
                if reason.contains("send failed: cannot connect"))
        });
        assert!(refused, "{dialect}: the partition refused no send");
        let first_read_after_repair = lines
            .iter()
            .find(|line| line.t_us >= 2_000_000 && matches!(line.event, TraceEvent::Request { .. }))
            .map(|line| line.t_us);
        let first_created = lines
            .iter()
            .find(|line| matches!(line.event, TraceEvent::TaskCreated { .. }))
            .map(|line| line.t_us);
        assert_eq!(
            first_read_after_repair, first_created,
            "{dialect}: the recovered peer read another call before the send"
        );
        assert_holds(&spec);
    }
}

/// Found as `liveness` (swarm seed 4620, 12 runs; 8838's origin-incident and
/// partition-during-resubscribe v0.1 lost 750 ms the same way): restarts lose the peer's
/// first tasks, then its first four tasks after the restart stall and its timer reaps each
/// 4725 ms after creation, just before the 5 s submitted deadline. The consumer paused
/// before each re-dispatch (1 s, 2 s, 4 s) as if the peer were restarting, though each
/// reaped task had lived 4.7 s, and the task that works came too late. The pause now
/// counts from the lost task's dispatch, so a task that lived longer than the pause costs
/// none.
#[test]
fn a_task_that_lived_longer_than_the_pause_costs_no_pause_when_lost() {
    let plan = r#"{"faults": [{"at_ms": 2559, "kind": "bounce", "host": "agent"}]}"#;
    for dialect in Dialect::ALL {
        assert_completes(&against(
            "stalls-four-tasks-reaped-before-the-deadline",
            dialect,
            Some(plan),
        ));
    }
}

/// The other side of the pause (swarm seeds 616, 810, 1198 and 1437 broke when it was
/// dropped for every loss that came with the peer answering): a peer that restarts twelve
/// times in 5 s, between the consumer's polls, loses each task with a prompt -32001 (v0.1:
/// the blocking send's connection closes) and no failed connect. Each loss may be a
/// restart, so the next task is sent only once the growing pause (250 ms, doubling up to
/// 4 s) has passed since the lost one was sent; a task that lived longer than its pause
/// is followed at once. The tasks' creations on the peer show it, and the job completes.
#[test]
fn a_peer_restarting_between_polls_gets_a_growing_pause_between_dispatches() {
    let restarts = [
        713, 1394, 1990, 2049, 2289, 2396, 3211, 4252, 4284, 4581, 4621, 4874,
    ];
    let faults: Vec<String> = restarts
        .iter()
        .map(|at| format!(r#"{{"at_ms": {at}, "kind": "bounce", "host": "agent"}}"#))
        .collect();
    let plan = format!(r#"{{"faults": [{}]}}"#, faults.join(", "));
    let base = ReconcilingConfig::default().retry_backoff;
    for dialect in Dialect::ALL {
        let spec = RunSpec {
            scenario: Scenario::StuckInSubmitted,
            ..against("restarts-between-polls", dialect, Some(&plan))
        };
        assert_completes(&spec);
        let (_, lines) = run_traced(&spec);
        let (mut last_created_us, mut losses, mut owed_pause) = (0, 0u32, None);
        let mut paused = 0;
        for line in &lines {
            match &line.event {
                TraceEvent::Decision {
                    decision, reason, ..
                } if decision == "retry" || reason.contains("lost by the peer") => {
                    losses += 1;
                    owed_pause = Some(base * (1 << (losses - 1).min(4)));
                }
                TraceEvent::TaskCreated { .. } => {
                    if let Some(pause) = owed_pause.take() {
                        let gap_us = line.t_us - last_created_us;
                        assert!(
                            gap_us >= pause.as_micros() as u64,
                            "{dialect}: a task sent {} ms after the lost one, \
                             before its pause of {pause:?} (loss {losses})",
                            gap_us / 1000
                        );
                        paused += 1;
                    }
                    last_created_us = line.t_us;
                }
                _ => {}
            }
        }
        assert!(
            paused >= 4,
            "{dialect}: only {paused} tasks followed a loss"
        );
    }
}

/// Found as `liveness` (swarm seed 2571, crash-bounce, all dialects; now an excused give-up
/// by `every-task-stalls`): the call under way when the faults ended (a send, or v0.1's
/// discovery) had its answer swallowed and timed out at 6.8 s; the consumer then paused the
/// whole 4 s backoff before trying again, so the first task after the faults came at 10.8 s
/// and four stalled tasks left too little time for the work. The pause now counts from the
/// try, which the timeout had already spaced, and the job finishes.
#[test]
fn a_try_that_timed_out_counts_toward_the_pause_before_the_next() {
    let plan = r#"{"faults": [
        {"at_ms": 33, "kind": "partition_oneway", "from": "consumer", "to": "agent"},
        {"at_ms": 663, "kind": "crash", "host": "agent"},
        {"at_ms": 740, "kind": "bounce", "host": "agent"},
        {"at_ms": 956, "kind": "repair_oneway", "from": "consumer", "to": "agent"},
        {"at_ms": 1614, "kind": "partition", "a": "agent", "b": "consumer"},
        {"at_ms": 2020, "kind": "repair", "a": "agent", "b": "consumer"},
        {"at_ms": 2517, "kind": "partition_oneway", "from": "agent", "to": "consumer"},
        {"at_ms": 2642, "kind": "crash", "host": "agent"},
        {"at_ms": 3720, "kind": "bounce", "host": "agent"},
        {"at_ms": 4021, "kind": "repair_oneway", "from": "agent", "to": "consumer"},
        {"at_ms": 4052, "kind": "crash", "host": "agent"},
        {"at_ms": 4465, "kind": "bounce", "host": "agent"},
        {"at_ms": 4544, "kind": "latency", "a": "consumer", "b": "agent", "ms": 473},
        {"at_ms": 4546, "kind": "latency_reset", "a": "consumer", "b": "agent"}
    ]}"#;
    for dialect in Dialect::ALL {
        let spec = RunSpec {
            scenario: Scenario::CrashBounce,
            ..against(
                "stalls-four-tasks-after-restart-long-work",
                dialect,
                Some(plan),
            )
        };
        assert_completes(&spec);
    }
}

/// Found as `profile-matches-runtime` (swarm seed 2451, origin-incident and
/// stuck-in-submitted, v0.1): every follow-up starts a new task, an unknown v0.1 id starts a
/// task afresh under that id, and a 623 ms timer reaps tasks. A 325 ms latency held the
/// answer until after the timer had reaped the task it answered; the peer started a new
/// task under the same id, whose `submitted` was judged only when the stalled stream timed
/// out 5 s later, and the consumer learned that follow-ups resume with a duplicate
/// `submitted`, over the right `new-task` it had learned at the first answer. Like a new
/// task in reply, a duplicate `submitted` now counts only when the peer sent it (by its
/// stamp) right after it asked the question.
#[test]
fn a_submitted_from_a_task_started_afresh_after_the_timer_is_not_learned_as_the_follow_up_behaviour()
 {
    let plan = r#"{"faults": [
        {"at_ms": 1777, "kind": "latency", "a": "agent", "b": "consumer", "ms": 418},
        {"at_ms": 2435, "kind": "latency_reset", "a": "agent", "b": "consumer"},
        {"at_ms": 2546, "kind": "latency", "a": "agent", "b": "consumer", "ms": 325},
        {"at_ms": 3065, "kind": "latency_reset", "a": "agent", "b": "consumer"},
        {"at_ms": 3333, "kind": "loss", "a": "agent", "b": "consumer", "permille": 99},
        {"at_ms": 4456, "kind": "loss", "a": "agent", "b": "consumer", "permille": 0},
        {"at_ms": 4706, "kind": "latency", "a": "agent", "b": "consumer", "ms": 251}
    ]}"#;
    let result = assert_holds(&against(
        "starts-unknown-ids-afresh-reaps-by-ttl",
        Dialect::V0_1,
        Some(plan),
    ));
    let learned = result.reports[0].profile.as_ref().expect("a profile");
    assert_eq!(
        learned.followup_same_task,
        Some(FollowupBehaviour::NewTask),
        "{learned:?}"
    );
}

/// Found as a give-up the oracle excused by 216 ms (swarm seed 4786, origin-incident, v0.1,
/// v0.3 and v1.0): four restarts lost the peer's first four tasks (-32001 each), the four
/// tasks after the last restart stalled, and the consumer gave up at 25.5 s with "no outcome
/// after 8 dispatches", though the ninth task would have finished in time. Its budget
/// counted the tasks the peer lost, which leave nothing running and bound nothing the
/// job's deadline does not; it now counts only the tasks it gives up itself, and the job
/// completes without an excuse.
#[test]
fn tasks_the_peer_lost_do_not_count_against_the_consumers_budget() {
    let plan = r#"{"faults": [
        {"at_ms": 405, "kind": "bounce", "host": "agent"},
        {"at_ms": 674, "kind": "latency", "a": "consumer", "b": "agent", "ms": 343},
        {"at_ms": 1088, "kind": "bounce", "host": "agent"},
        {"at_ms": 1596, "kind": "latency_reset", "a": "consumer", "b": "agent"},
        {"at_ms": 2247, "kind": "latency", "a": "agent", "b": "consumer", "ms": 80},
        {"at_ms": 2644, "kind": "bounce", "host": "agent"},
        {"at_ms": 3497, "kind": "latency_reset", "a": "agent", "b": "consumer"},
        {"at_ms": 4851, "kind": "bounce", "host": "agent"},
        {"at_ms": 4915, "kind": "latency", "a": "consumer", "b": "agent", "ms": 288}
    ]}"#;
    for dialect in Dialect::ALL {
        let result = assert_completes(&against(
            "loses-tasks-to-restarts-then-stalls-four",
            dialect,
            Some(plan),
        ));
        assert!(
            result.peer_faults.is_empty(),
            "{dialect}: {:?}",
            result.peer_faults
        );
        let report = &result.reports[0];
        assert_eq!(
            report.deadlines.len(),
            4,
            "{dialect}: {:?}",
            report.deadlines
        );
    }
}

/// Found as `liveness` at 5 ms steps (swarm seed 965, stuck-in-submitted v0.1; the one miss
/// of seeds 0..10000 at `--tick-ms 5`): the consumer answered the peer's question as the
/// peer restarted, and the answer met a v0.1 peer that starts a forgotten id afresh, in a
/// task that stalls (the scenario's first task after each start). The answer's stream said
/// `submitted`, which the ledger held as a possible repeat of the task's history, and then
/// only keep-alives; the consumer's state was still the question, which has no deadline,
/// so it read on until the job's deadline. A turn the peer restarts in `submitted` now has
/// the `submitted` deadline, counted from the answer. (The seed's first bounce, at 2,104 ms,
/// also lost the first task as its deadline came; a streamed task lost at its deadline now
/// stops the streaming, so the run keeps only the bounce that meets the answer, at 2,904 ms
/// where the answer now goes.)
#[test]
fn a_turn_restarted_in_submitted_has_the_submitted_deadline() {
    let plan = r#"{"faults": [{"at_ms": 2904, "kind": "bounce", "host": "agent"}]}"#;
    let spec = RunSpec {
        scenario: Scenario::StuckInSubmitted,
        seed: Seed::new(965),
        tick: Duration::from_millis(5),
        ..against(
            "pings-while-a-restarted-turn-stalls",
            Dialect::V0_1,
            Some(plan),
        )
    };
    let result = assert_completes(&spec);
    let restarted = result.truths["agent"]
        .iter()
        .any(|task| matches!(task.origin, Origin::FollowUpCreated { .. }));
    assert!(restarted, "no answer met a task the peer started afresh");
}

/// Found as `one-outcome` at 1 ms steps (swarm seed 30761, sidecar-cut v0.1; the one miss of
/// seeds 30000..80000): the long task's stream was cut while the sidecar could not reach the
/// agent, two of its four artifact chunks were made then, and the v0.1 resubscribe carried
/// only the chunk after it. The consumer asked for the completed task to read its artifact
/// whole, the answer was lost in a partition, and it accepted the one chunk it had read. A
/// task whose events went unread is now read whole or not accepted: the fetch is tried
/// again after the partition, and where the peer has reaped the task by then, it is lost and
/// the job starts again. (The seed's last partition struck at 1,400 ms; since the consumer
/// also reads such a task whole while it is live, right after the resubscribe, the fetch at
/// the end comes earlier, and the partition is moved to 1,385 ms to catch it.)
#[test]
fn a_v0_1_task_whose_chunks_went_unread_is_read_whole_before_its_artifact_is_accepted() {
    let plan = r#"{"faults": [
        {"at_ms": 61, "kind": "partition", "a": "agent", "b": "sidecar"},
        {"at_ms": 1273, "kind": "repair", "a": "agent", "b": "sidecar"},
        {"at_ms": 1385, "kind": "partition", "a": "sidecar", "b": "consumer"}
    ]}"#;
    let whole = "chunk 1 of 4chunk 2 of 4chunk 3 of 4chunk 4 of 4";
    for (name, tasks) in [
        ("streams-long-work-in-chunks", 1),
        ("streams-long-work-in-chunks-reaps-by-ttl", 2),
    ] {
        let spec = RunSpec {
            scenario: Scenario::SidecarCut,
            ..against_at_1ms(name, Dialect::V0_1, Some(plan), 30761)
        };
        let result = assert_completes(&spec);
        let report = &result.reports[0];
        let Outcome::Completed { artifact, .. } = &report.outcome else {
            unreachable!("assert_completes checked it");
        };
        assert_eq!(artifact, whole, "{name}");
        // The first fetch of the completed task was lost: the case the run is there for.
        let first_task = &report.tasks[0].task_id;
        let fetch_lost = report
            .anomalies
            .iter()
            .any(|anomaly| &anomaly.task_id == first_task && anomaly.detail.contains("timed out"));
        assert!(fetch_lost, "{name}: {:?}", report.anomalies);
        assert_eq!(report.tasks.len(), tasks, "{name}: {:?}", report.tasks);
    }
}

/// Found as `deadlines-honoured` at 1 ms steps (swarm seed 42777, stuck-in-submitted v0.1;
/// seeds 30000..80000): the consumer's answer reached the peer just after it restarted, and
/// the v0.1 peer started the task afresh under its id, in `submitted`, where it stalled. The
/// consumer held that `submitted` as a possible replay, as it should, and acted on the
/// `submitted` deadline 2 s after the peer restarted the task, 15 ms after the limit. The
/// oracle dated its knowledge from the `submitted` it had applied 4 s earlier, before the
/// task worked and asked its question, and called the act 2 s late. A deadline is now due
/// from the runtime's new entry into the state where that came after the apply.
#[test]
fn a_deadline_acted_on_from_a_restarted_turn_is_honoured() {
    let plan = r#"{"faults": [
        {"at_ms": 4028, "kind": "latency", "a": "consumer", "b": "sidecar", "ms": 425},
        {"at_ms": 4323, "kind": "bounce", "host": "agent"}
    ]}"#;
    let spec = RunSpec {
        scenario: Scenario::StuckInSubmitted,
        ..against_at_1ms(
            "stalls-a-follow-up-started-afresh",
            Dialect::V0_1,
            Some(plan),
            42777,
        )
    };
    let result = assert_holds(&spec);
    let restarted = result.truths["agent"]
        .iter()
        .find(|task| matches!(task.origin, Origin::FollowUpCreated { .. }))
        .expect("an answer met a task the peer started afresh");
    let acted = result.reports[0]
        .deadlines
        .iter()
        .any(|hit| hit.task_id == restarted.id && hit.state == TaskState::Submitted);
    assert!(acted, "{:?}", result.reports[0].deadlines);
}

/// Crash-bounce in v0.1 at 1 ms steps against the personality `name`, at seed 1 with no
/// faults, not even the scenario's crash: the first task is streamed, and the sidecar cuts it
/// mid-work. (Swarm seed 72447's faults lost a first task and then cut the second; a
/// streamed task lost at its deadline now stops the streaming, so the second is polled.)
fn cut_mid_work_in_crash_bounce(name: &str) -> RunSpec {
    RunSpec {
        scenario: Scenario::CrashBounce,
        ..against_at_1ms(name, Dialect::V0_1, Some(r#"{"faults": []}"#), 1)
    }
}

/// Found as `liveness` at 1 ms steps (swarm seed 72447, crash-bounce v0.1), by the re-sweep
/// of seeds 30000..80000 after the consumer began reading a task whole where events of it
/// went unread: this peer replays a task's whole history on resubscribe and reaps the task
/// when its stream closes. After a cut the consumer read every event again, from `submitted`
/// to `completed`, and then required the fetch of the ended task, which the reap had made
/// -32001; it took the task for lost and started again until the job's deadline. A stream
/// that begins at the task's first state leaves no event of it unread.
#[test]
fn a_task_read_again_from_its_first_state_needs_no_whole_fetch() {
    let result = assert_completes(&cut_mid_work_in_crash_bounce(
        "replays-and-reaps-on-stream-close-behind-a-short-route",
    ));
    // The completed task was read again from its start after a cut: the case the run is
    // there for.
    let report = &result.reports[0];
    assert!(read_a_replay(report), "{:?}", report.anomalies);
}

/// Found by shrinking swarm seed 72447 (crash-bounce v0.1, `liveness`) with the default
/// resubscribe in place of the seed's replay: every task that lasts is cut mid-work by the
/// sidecar's route timeout, a v0.1 resubscribe carries only the events after it, and the peer
/// reaps a task when its stream closes, so the ended task cannot be fetched to read its
/// artifact whole. The consumer took each such task for lost and started again until the
/// job's deadline. Where the peer may reap a task on close, it now reads the task whole right
/// after the resubscribe, while the task is live: its artifacts are the ones already read, so
/// nothing went unread, and the stream has the rest.
#[test]
fn a_v0_1_task_cut_with_nothing_unread_is_read_whole_while_it_is_live() {
    let result = assert_completes(&cut_mid_work_in_crash_bounce(
        "reaps-on-stream-close-behind-a-short-route",
    ));
    // The task that completed was cut mid-work and followed again: the case the run is
    // there for.
    let report = &result.reports[0];
    let completed = &report.tasks.last().expect("a task").task_id;
    let cut = report.anomalies.iter().any(|anomaly| {
        &anomaly.task_id == completed && anomaly.detail.starts_with("transport failure")
    });
    assert!(cut, "{:?}", report.anomalies);
}

/// Found as `profile-matches-runtime` by the sweep of seeds 80000..120000 (seed 101649,
/// stuck-in-submitted, in every dialect; seed 83006 too, heterogeneous-mesh v0.1, where it
/// taught that tasks die with their streams): a partition kept the task's question from the
/// consumer, whose read timed out after 5 s, and it resubscribed. The peer replays a task's
/// history on resubscribe and stamps each replayed status anew, so the question, asked
/// 4.8 s before, read as asked just then; the peer's timer reaped the waiting task a moment
/// later, the follow-up met -32001, and the consumer put that down to the follow-up, right
/// after the question, and learned that follow-ups to the same task are refused (v0.3,
/// v1.0) or resume with a second `submitted` (v0.1). A state applied from a resubscribe is
/// no longer dated by its stamp.
#[test]
fn a_question_replayed_with_a_new_stamp_does_not_date_what_follows_it() {
    let plan = r#"{"faults": [
        {"at_ms": 943, "kind": "partition_oneway", "from": "consumer", "to": "agent"},
        {"at_ms": 2404, "kind": "repair_oneway", "from": "consumer", "to": "agent"},
        {"at_ms": 2849, "kind": "partition", "a": "agent", "b": "consumer"},
        {"at_ms": 3440, "kind": "repair", "a": "agent", "b": "consumer"},
        {"at_ms": 3516, "kind": "partition_oneway", "from": "agent", "to": "consumer"},
        {"at_ms": 4340, "kind": "repair_oneway", "from": "agent", "to": "consumer"}
    ]}"#;
    for dialect in Dialect::ALL {
        let spec = RunSpec {
            scenario: Scenario::StuckInSubmitted,
            ..against_at_1ms(
                "replays-restamped-and-reaps-waiting-tasks",
                dialect,
                Some(plan),
                101649,
            )
        };
        let result = assert_completes(&spec);
        // The question came in a replay, and the task it asked about was gone when the
        // consumer answered: the case the run is there for.
        let report = &result.reports[0];
        let replayed = read_a_replay(report);
        let reaped = result.truths["agent"].iter().any(|task| {
            matches!(&task.fate, Some(Fate::Reaped { reason, .. }) if reason == "input-required timeout")
        });
        assert!(replayed && reaped, "{dialect}: {:?}", report.anomalies);
    }
}

/// Found as `liveness` by the sweep of seeds 190000..230000 (seed 226553, crash-bounce, in
/// every dialect; `meshsim shrink` left one partition): the peer reaps a task when its stream
/// closes, behind a sidecar whose route timeout (12.4 s) falls inside the `#long` work (11.9
/// to 14.7 s). The partition kept `working` from the consumer, which at the `submitted`
/// deadline dropped the stream, so the peer reaped the task, and the cancel found it gone.
/// The consumer learned nothing from that, streamed the next task too, and the route cut it
/// at 17.7 s; the task reaped, the next needed more of the 30 s job than was left. A
/// streamed task that the deadline's cancel finds gone now teaches what a read that finds it
/// gone does: the next dispatch polls, and the job finishes.
#[test]
fn a_streamed_task_the_deadlines_cancel_finds_gone_is_not_streamed_again() {
    let plan = r#"{"faults": [{"at_ms": 548, "kind": "partition", "a": "sidecar", "b": "agent"}]}"#;
    for dialect in Dialect::ALL {
        let spec = RunSpec {
            scenario: Scenario::CrashBounce,
            ..against_at_1ms(
                "reaps-on-stream-close-long-work-behind-a-route",
                dialect,
                Some(plan),
                226553,
            )
        };
        let result = assert_completes(&spec);
        let report = &result.reports[0];
        // The first task was found gone by the deadline's cancel: the case the run is there
        // for.
        let first = report.tasks.first().expect("a task");
        let abandoned = first.abandoned.as_ref().expect("abandoned");
        assert_eq!(
            abandoned.cancel,
            CancelResult::TaskGone,
            "{dialect}: {abandoned:?}"
        );
        assert!(
            abandoned.reason.contains("deadline"),
            "{dialect}: {abandoned:?}"
        );
        let learned = report.profile.as_ref().expect("a profile");
        assert_eq!(
            learned.task_survives_broken_stream,
            Some(false),
            "{dialect}"
        );
    }
}

/// Found as `liveness` by the sweep of seeds 340000..370000 (seed 356913, heterogeneous-mesh
/// v0.1, the one miss of 630,000; `meshsim shrink` left a restart and a partition): the
/// peer behind the sidecar restarted while its task waited for an answer, and the answer,
/// in v0.1 a send under the task's id, started the task afresh. The partition kept its
/// question from the consumer, whose read timed out, and the peer replays a task's history
/// on resubscribe and closes the stream at the question. That history (`submitted`,
/// `working`, `input-required`) matched the start of what the consumer had applied over two
/// turns, so the whole replay, the new question included, was settled as a replay, and the
/// consumer resubscribed again and again (642 times) until the `working` deadline, too late
/// for the job. A resubscribe the peer closes with nothing new is now followed by reading
/// the task, which shows it began with another request, and the job starts again in time.
#[test]
fn a_replay_that_brings_nothing_new_is_followed_by_reading_the_task() {
    let plan = r#"{"faults": [
        {"at_ms": 2510, "kind": "bounce", "host": "agent-0"},
        {"at_ms": 3135, "kind": "partition", "a": "sidecar", "b": "agent-0"}
    ]}"#;
    let spec = RunSpec {
        scenario: Scenario::HeterogeneousMesh,
        job_limit: Some(3),
        ..against_at_1ms(
            "replays-from-start-behind-an-idle-sidecar",
            Dialect::V0_1,
            Some(plan),
            356913,
        )
    };
    let result = assert_holds(&spec);
    let report = result
        .reports
        .iter()
        .find(|report| report.job == "job-0")
        .expect("job-0 behind the sidecar");
    assert!(
        matches!(report.outcome, Outcome::Completed { .. }),
        "{:?}",
        report.outcome
    );
    // The resubscribe replayed the task, and reading it showed the peer had started it
    // afresh: the case the run is there for.
    let learned = report.profile.as_ref().expect("a profile");
    assert_eq!(
        learned.resubscribe_after_input_required,
        Some(ResubscribeBehaviour::Replays)
    );
    let started_afresh = report
        .anomalies
        .iter()
        .any(|anomaly| anomaly.detail.contains("began with another request"));
    assert!(started_afresh, "{:?}", report.anomalies);
}
