//! `--runtime swarm`: every run draws a whole personality from the knob space, as
//! TigerBeetle's swarm testing draws a configuration per seed, so that a sweep meets
//! runtimes nobody listed instead of the same built-in points.
//!
//! The draw comes from the run's `personality` sub-seed, and each knob from its own
//! sub-seed below that (`seed.derive("personality").derive("reaping")`), so adding a knob
//! changes no other knob's draw. The drawn personality is ordinary data: `replay` prints it
//! as a personality file, which runs exactly like the draw.
//!
//! A runtime with the v0.3 compatibility layer (v0.3 over JSON-RPC) never serves HTTP+JSON
//! alone, which a personality file could not say either. Five couplings keep every drawn
//! job decidable from the personality (possible, or impossible by a rule the oracle states)
//! instead of possible only by luck (the bounds of [`crate::judgeable`], which names what a
//! personality file sets outside them):
//! - under a TTL reaper a work step takes at most half the TTL, or tasks would be reaped
//!   mid-work at random;
//! - the `#long` script's work fits in 15 s (`long_running_steps × work.max_ms`), below
//!   every scenario's 20 s `working` deadline;
//! - under a TTL reaper the `#long` script's work, which stays in `working` without a
//!   transition, either always fits the TTL (`long_running_steps × work.max_ms` under it)
//!   or never does (`long_running_steps × work.min_ms` over it: the job is impossible by
//!   [`crate::impossible::WORK_OUTLASTS_TTL`]);
//! - a Card answered late is answered at least 100 ms before the sidecar's timeouts, if
//!   any, would cut it, or no consumer could discover the peer;
//! - under a reaper on stream close, the sidecar's route timeout, if any, outlasts the
//!   `#long` script's stream with the faults' delay, or whether a cut takes the task with it
//!   would be chance.

use crate::judgeable::{
    LONG_WORK_BUDGET_MS, LONGEST_CARD_DELAY_MS, LONGEST_WORK_STEP_MS, SHORTEST_REAPING_TIMER_MS,
    SHORTEST_SIDECAR_TIMEOUT_MS, longest_long_stream_ms,
};
use meshsim_protocol::{ErrorCode, TaskState};
use meshsim_runtimes::{
    Bindings, BusyFollowUp, CancelOutcome, CancelPolicy, CardClaims, FollowUp, FollowUpOpening,
    NewTaskOpening, Personality, Reaping, Resubscribe, SendReply, Sidecar, StreamClose,
    TerminalCancel, Timestamps, TurnOpening, UnknownTask, WorkDurations,
};
use meshsim_sim::Seed;
use meshsim_sim::seed_names;
use rand::Rng;
use rand_chacha::ChaCha8Rng;

/// The `--runtime` name that draws a personality per seed.
pub const SWARM_RUNTIME: &str = "swarm";

/// Reaping delays: a bucket is drawn, then a value inside it, so that sub-second and
/// minute-long TTLs are both common.
const REAP_AFTER_MS: [u64; 6] = [
    SHORTEST_REAPING_TIMER_MS,
    1_000,
    3_000,
    10_000,
    30_000,
    60_000,
];
/// Keep-alive periods, from chatty to a2a-sdk's 15 s and beyond.
const KEEP_ALIVE_MS: [u64; 5] = [100, 1_000, 5_000, 15_000, 30_000];
/// Sidecar route timeouts (Envoy's default is 15 s).
const ROUTE_TIMEOUT_MS: [u64; 4] = [5_000, 15_000, 30_000, 60_000];
/// Sidecar stream idle timeouts (Envoy's default is 5 min; meshes often set seconds).
const IDLE_TIMEOUT_MS: [u64; 5] = [2_000, 5_000, 15_000, 30_000, 60_000];

/// Card delays, from a busy handler to a cold start; the last bucket ends at the longest the
/// Card may take ([`draw_card_delay`]).
const CARD_DELAY_MS: [u64; 3] = [10, 300, 1_000];

/// Tenants a v1.0 runtime behind a shared endpoint may have: plain, with a dot and a
/// digit, with the unreserved `~` a client must not escape.
const TENANTS: [&str; 3] = ["acme", "eu-west.1", "team~7"];

/// The errors real runtimes answer a message or subscribe to a terminal task with.
pub const TERMINAL_ERRORS: [ErrorCode; 5] = [
    ErrorCode::UnsupportedOperation,
    ErrorCode::InvalidParams,
    ErrorCode::TaskNotFound,
    ErrorCode::InvalidRequest,
    ErrorCode::InternalError,
];

/// The states the scripts enter, whose status updates may be sent twice.
pub const DUPLICABLE_STATES: [TaskState; 6] = [
    TaskState::Submitted,
    TaskState::Working,
    TaskState::InputRequired,
    TaskState::Completed,
    TaskState::Failed,
    TaskState::Canceled,
];

/// The personality the run with root seed `run_seed` draws.
pub fn draw(run_seed: Seed) -> Personality {
    let seed = run_seed.derive(seed_names::PERSONALITY);
    let knob = |name: &str| seed.derive(name).rng();
    let name = format!("swarm-{}", run_seed.value());
    let reaping = draw_reaping(&mut knob("reaping"));
    let v0_3_compat = chance(&mut knob("v0_3_compat"), 50);
    let work = draw_work(&mut knob("work"), reaping);
    let sidecar = draw_sidecar(&mut knob("sidecar"), reaping, &work);
    let mut version = knob("card.version");
    let version = format!(
        "{}.{}.{}",
        version.random_range(0..=3),
        version.random_range(0..=40),
        version.random_range(0..=9)
    );
    Personality {
        description: format!("drawn by `--runtime swarm` from seed {}", run_seed.value()),
        card: CardClaims {
            name: name.clone(),
            version,
            description: "A runtime drawn from the knob space".to_string(),
            streaming: chance(&mut knob("card.streaming"), 70),
            push_notifications: chance(&mut knob("card.push_notifications"), 50),
            state_transition_history: chance(&mut knob("card.state_transition_history"), 50),
        },
        work,
        opening: TurnOpening {
            new_task: pick(
                &mut knob("opening.new_task"),
                &[
                    (1, NewTaskOpening::Snapshot),
                    (1, NewTaskOpening::StatusUpdate),
                ],
            ),
            follow_up: pick(
                &mut knob("opening.follow_up"),
                &[(1, FollowUpOpening::None), (1, FollowUpOpening::Snapshot)],
            ),
        },
        send_reply: pick(
            &mut knob("send_reply"),
            &[(1, SendReply::WhenSettled), (1, SendReply::OnAccept)],
        ),
        resubscribe: pick(
            &mut knob("resubscribe"),
            &[
                (1, Resubscribe::SnapshotThenTail),
                (1, Resubscribe::ReplayFromStart),
                (1, Resubscribe::NotFoundAfterStreamClose),
                (1, Resubscribe::NotFoundUnlessActive),
            ],
        ),
        // Half resume in place: the other three make most jobs that need an answer
        // impossible, and a sweep should mostly exercise jobs that can finish.
        follow_up: pick(
            &mut knob("follow_up"),
            &[
                (10, FollowUp::Resume),
                (4, FollowUp::ResumeWithDuplicateSubmitted),
                (3, FollowUp::NewTask),
                (3, FollowUp::NotFound),
            ],
        ),
        unknown_task: pick(
            &mut knob("unknown_task"),
            &[(1, UnknownTask::NotFound), (1, UnknownTask::NewTask)],
        ),
        busy_follow_up: pick(
            &mut knob("busy_follow_up"),
            &[(1, BusyFollowUp::Refuse), (1, BusyFollowUp::Queue)],
        ),
        reaping,
        stream_close: pick(
            &mut knob("stream_close"),
            &[
                (1, StreamClose::TerminalOnly),
                (1, StreamClose::TerminalAndInterrupted),
                (1, StreamClose::TerminalAndInputRequired),
            ],
        ),
        cancel: CancelPolicy {
            submitted: draw_cancel(&mut knob("cancel.submitted")),
            working: draw_cancel(&mut knob("cancel.working")),
            interrupted: draw_cancel(&mut knob("cancel.interrupted")),
            terminal: pick(
                &mut knob("cancel.terminal"),
                &[
                    (1, TerminalCancel::NotCancelable),
                    (1, TerminalCancel::ReturnTask),
                    (1, TerminalCancel::ReturnCanceled),
                ],
            ),
        },
        terminal_send_error: pick_uniform(&mut knob("terminal_send_error"), &TERMINAL_ERRORS),
        terminal_subscribe_error: pick_uniform(
            &mut knob("terminal_subscribe_error"),
            &TERMINAL_ERRORS,
        ),
        timestamps: pick(
            &mut knob("timestamps"),
            &[
                (1, Timestamps::Present),
                (1, Timestamps::Absent),
                (1, Timestamps::RestampedOnReplay),
            ],
        ),
        duplicate_states: {
            let mut rng = knob("duplicate_states");
            DUPLICABLE_STATES
                .into_iter()
                .filter(|_| chance(&mut rng, 15))
                .collect()
        },
        keep_alive_ms: {
            let mut rng = knob("keep_alive_ms");
            chance(&mut rng, 50).then(|| within(&mut rng, &KEEP_ALIVE_MS))
        },
        stalled_first_tasks: {
            let mut rng = knob("stalled_first_tasks");
            if chance(&mut rng, 20) {
                rng.random_range(1..=40)
            } else {
                0
            }
        },
        exact_version: chance(&mut knob("exact_version"), 50),
        v0_3_compat,
        check_input_modes: chance(&mut knob("check_input_modes"), 50),
        check_content_type: chance(&mut knob("check_content_type"), 50),
        card_delay_ms: draw_card_delay(&mut knob("card_delay_ms"), sidecar),
        sidecar,
        bindings: draw_bindings(&mut knob("bindings"), v0_3_compat),
        tenant: {
            let mut rng = knob("tenant");
            chance(&mut rng, 25).then(|| pick_uniform(&mut rng, &TENANTS).to_string())
        },
        name,
    }
}

/// A sidecar for one runtime in four; under a reaper on stream close, its route timeout
/// outlasts the `#long` script's stream ([`longest_long_stream_ms`]).
fn draw_sidecar(rng: &mut ChaCha8Rng, reaping: Reaping, work: &WorkDurations) -> Option<Sidecar> {
    let shortest_route_ms = match reaping {
        Reaping::OnStreamClose => longest_long_stream_ms(work),
        _ => 0,
    };
    chance(rng, 25).then(|| Sidecar {
        route_timeout_ms: chance(rng, 70)
            .then(|| within(rng, &ROUTE_TIMEOUT_MS).max(shortest_route_ms)),
        idle_timeout_ms: chance(rng, 70).then(|| within(rng, &IDLE_TIMEOUT_MS)),
    })
}

/// A Card answered late, for three runtimes in ten: at most [`LONGEST_CARD_DELAY_MS`], and
/// short enough that the sidecar, if any, lets the exchange through.
fn draw_card_delay(rng: &mut ChaCha8Rng, sidecar: Option<Sidecar>) -> Option<u64> {
    let sidecar_timeouts = sidecar
        .into_iter()
        .flat_map(|sidecar| [sidecar.route_timeout_ms, sidecar.idle_timeout_ms])
        .flatten();
    let longest = sidecar_timeouts
        .map(|timeout_ms| timeout_ms.saturating_sub(SHORTEST_SIDECAR_TIMEOUT_MS))
        .fold(LONGEST_CARD_DELAY_MS, u64::min);
    let [quick, busy, slow] = CARD_DELAY_MS;
    chance(rng, 30).then(|| within(rng, &[quick, busy, slow, longest]))
}

/// The bindings a v1.0 runtime serves, each value alike; a runtime with the v0.3
/// compatibility layer (v0.3 over JSON-RPC) serves JSON-RPC, alone or beside HTTP+JSON.
fn draw_bindings(rng: &mut ChaCha8Rng, v0_3_compat: bool) -> Bindings {
    if v0_3_compat {
        pick_uniform(rng, &[Bindings::JsonRpc, Bindings::Both])
    } else {
        pick_uniform(rng, &Bindings::ALL)
    }
}

fn draw_reaping(rng: &mut ChaCha8Rng) -> Reaping {
    match pick(rng, &[(4, 0), (2, 1), (2, 2), (2, 3)]) {
        0 => Reaping::Never,
        1 => Reaping::OnStreamClose,
        2 => Reaping::Ttl {
            after_ms: within(rng, &REAP_AFTER_MS),
        },
        _ => Reaping::InputRequiredTimeout {
            after_ms: within(rng, &REAP_AFTER_MS),
        },
    }
}

/// Work steps of 0 to 1.6 s ([`LONGEST_WORK_STEP_MS`]); see the module comment for the
/// three caps.
fn draw_work(rng: &mut ChaCha8Rng, reaping: Reaping) -> WorkDurations {
    let min_ms = rng.random_range(0..=400);
    let mut max_ms = min_ms + rng.random_range(0..=LONGEST_WORK_STEP_MS - 400);
    if let Reaping::Ttl { after_ms } = reaping {
        max_ms = max_ms.min(after_ms / 2);
    }
    let min_ms = min_ms.min(max_ms);
    // How many steps of at most `max_ms` fit in `budget_ms`.
    let fitting = |budget_ms: u64| u32::try_from(budget_ms / max_ms.max(1)).unwrap_or(u32::MAX);
    let mut steps = rng
        .random_range(1..=40)
        .min(fitting(LONG_WORK_BUDGET_MS))
        .max(1);
    if let Reaping::Ttl { after_ms } = reaping {
        let (shortest, longest) = (u64::from(steps) * min_ms, u64::from(steps) * max_ms);
        if longest >= after_ms && shortest <= after_ms {
            steps = fitting(after_ms - 1).max(1);
        }
    }
    WorkDurations {
        min_ms,
        max_ms,
        long_running_steps: steps,
    }
}

fn draw_cancel(rng: &mut ChaCha8Rng) -> CancelOutcome {
    pick(
        rng,
        &[
            (2, CancelOutcome::Cancel),
            (1, CancelOutcome::NotCancelable),
            (1, CancelOutcome::Ignore),
        ],
    )
}

/// `true` with `percent` % probability.
fn chance(rng: &mut ChaCha8Rng, percent: u32) -> bool {
    rng.random_range(0..100) < percent
}

/// One of `choices`, each as likely as its weight.
fn pick<T: Copy>(rng: &mut ChaCha8Rng, choices: &[(u32, T)]) -> T {
    let total: u32 = choices.iter().map(|(weight, _)| weight).sum();
    let mut ticket = rng.random_range(0..total);
    for (weight, choice) in choices {
        if ticket < *weight {
            return *choice;
        }
        ticket -= weight;
    }
    choices[choices.len() - 1].1
}

fn pick_uniform<T: Copy>(rng: &mut ChaCha8Rng, choices: &[T]) -> T {
    choices[rng.random_range(0..choices.len())]
}

/// A value in a bucket of `bounds` (each bucket as likely), uniform inside it: integers
/// only, so the draw is the same on every platform.
fn within(rng: &mut ChaCha8Rng, bounds: &[u64]) -> u64 {
    let bucket = rng.random_range(0..bounds.len() - 1);
    rng.random_range(bounds[bucket]..=bounds[bucket + 1])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_same_seed_draws_the_same_personality_and_seeds_differ() {
        assert_eq!(draw(Seed::new(7)), draw(Seed::new(7)));
        assert_ne!(draw(Seed::new(7)), draw(Seed::new(8)));
    }

    #[test]
    fn every_draw_is_a_valid_personality_file_that_reads_back_equal() {
        for seed in 0..300 {
            let personality = draw(Seed::new(seed));
            let json = serde_json::to_string_pretty(&personality).unwrap();
            let read = Personality::from_json(&json, "drawn").unwrap();
            assert_eq!(read, personality, "seed {seed}");
        }
    }

    #[test]
    fn every_draw_is_inside_the_space_where_verdicts_are_about_the_consumer() {
        for seed in 0..2_000 {
            let personality = draw(Seed::new(seed));
            let work = &personality.work;
            assert!(work.min_ms <= work.max_ms, "seed {seed}");
            assert_eq!(
                crate::judgeable::cautions(&personality),
                Vec::<String>::new(),
                "seed {seed}: {personality:?}"
            );
        }
    }
}
