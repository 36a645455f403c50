//! Corners of the knob space the swarm draws rarely, forced: each seed's drawn personality
//! with a few knobs overwritten (a reaper on stream close behind the shortest route timeout
//! the swarm allows, timers of a few hundred milliseconds, cancels ignored or refused in
//! every live state, replays of everything...), run in every scenario and dialect under
//! the seed's swarm faults. A forced personality outside the judgeable space
//! ([`meshsim_scenarios::judgeable`]) is left out, as the swarm never draws one, and every
//! corner must keep at least half its seeds. Each personality is written to a file first,
//! so the line a missed run prints reruns it (and `meshsim replay --runtime FILE` replays
//! it).

use crate::sized_seeds::seeds_from_env;
use meshsim_runtimes::{
    BusyFollowUp, CancelOutcome, FollowUp, FollowUpOpening, NewTaskOpening, Personality, Reaping,
    Resubscribe, SendReply, Sidecar, StreamClose, Timestamps, UnknownTask,
};
use meshsim_scenarios::judgeable::{cautions, longest_long_stream_ms};
use meshsim_scenarios::{
    ConsumerChoice, DUPLICABLE_STATES, Faults, Matrix, RuntimeChoice, TestEnv,
};
use meshsim_sim::Seed;
use std::path::PathBuf;

/// A corner: its name (the personality files' prefix) and the knobs it forces, given the
/// seed to draw any value it needs from.
type Corner = (&'static str, fn(&mut Personality, Seed));

const CORNERS: [Corner; 10] = [
    ("reaps-on-close-keeps-streams-short-route", |p, _| {
        p.reaping = Reaping::OnStreamClose;
        p.stream_close = StreamClose::TerminalOnly;
        p.sidecar = Some(Sidecar {
            route_timeout_ms: Some(longest_long_stream_ms(&p.work).max(5_000)),
            idle_timeout_ms: None,
        });
    }),
    ("quick-question-timer-silent", |p, seed| {
        p.reaping = Reaping::InputRequiredTimeout {
            after_ms: within(seed, "after_ms", 300, 1_500),
        };
        p.keep_alive_ms = None;
    }),
    ("short-ttl", |p, seed| {
        let after_ms = within(seed, "after_ms", 300, 4_000);
        p.reaping = Reaping::Ttl { after_ms };
        p.work.max_ms = p.work.max_ms.min(after_ms / 2);
        p.work.min_ms = p.work.min_ms.min(p.work.max_ms);
    }),
    ("stalls-then-a-late-card", |p, seed| {
        p.stalled_first_tasks = u32::try_from(within(seed, "stalls", 1, 5)).expect("small");
        p.card_delay_ms = Some(within(seed, "card_delay_ms", 1_000, 2_500));
    }),
    ("replays-everything-twice-restamped", |p, _| {
        p.duplicate_states = DUPLICABLE_STATES.to_vec();
        p.timestamps = Timestamps::RestampedOnReplay;
        p.resubscribe = Resubscribe::ReplayFromStart;
        p.follow_up = FollowUp::ResumeWithDuplicateSubmitted;
        p.busy_follow_up = BusyFollowUp::Queue;
    }),
    ("idle-sidecar-silent", |p, seed| {
        p.sidecar = Some(Sidecar {
            route_timeout_ms: None,
            idle_timeout_ms: Some(within(seed, "idle_timeout_ms", 2_000, 3_000)),
        });
        p.keep_alive_ms = None;
        p.card_delay_ms = Some(within(seed, "card_delay_ms", 10, 1_500));
    }),
    ("ignores-cancels-streaming", |p, _| {
        p.cancel.submitted = CancelOutcome::Ignore;
        p.cancel.working = CancelOutcome::Ignore;
        p.cancel.interrupted = CancelOutcome::Ignore;
        p.card.streaming = true;
    }),
    ("refuses-cancels-reaps-at-question-close", |p, _| {
        p.cancel.submitted = CancelOutcome::NotCancelable;
        p.cancel.working = CancelOutcome::NotCancelable;
        p.cancel.interrupted = CancelOutcome::NotCancelable;
        p.reaping = Reaping::OnStreamClose;
        p.stream_close = StreamClose::TerminalAndInputRequired;
        p.resubscribe = Resubscribe::NotFoundAfterStreamClose;
    }),
    ("new-tasks-unstamped-unstreamed", |p, _| {
        p.unknown_task = UnknownTask::NewTask;
        p.follow_up = FollowUp::NewTask;
        p.timestamps = Timestamps::Absent;
        p.keep_alive_ms = None;
        p.card.streaming = false;
    }),
    ("answers-on-accept-unstamped-quick-timer", |p, seed| {
        p.send_reply = SendReply::OnAccept;
        p.opening.new_task = NewTaskOpening::StatusUpdate;
        p.opening.follow_up = FollowUpOpening::None;
        p.timestamps = Timestamps::Absent;
        p.keep_alive_ms = None;
        p.reaping = Reaping::InputRequiredTimeout {
            after_ms: within(seed, "after_ms", 300, 1_500),
        };
    }),
];

/// A value in `low..=high` from `seed`'s sub-seed `name`.
fn within(seed: Seed, name: &str, low: u64, high: u64) -> u64 {
    low + seed.derive("corner").derive(name).value() % (high - low + 1)
}

/// Seeds `0..20`, or those `MESHSIM_SWARM_CORNER_SEEDS` names (`.ci/run` adds `20..60`), of
/// every corner, each in every scenario and dialect under its swarm faults: the reconciling
/// consumer meets every declared expectation, and every corner keeps at least half its
/// seeds. A rerun line's `MESHSIM_SEED` (or `MESHSIM_SEEDS`) picks the seeds instead, so
/// that it forces the personality it names, and runs only that.
#[test]
fn reconciling_consumer_meets_every_expectation_in_forced_corners_of_the_swarm() {
    let sized = seeds_from_env("MESHSIM_SWARM_CORNER_SEEDS", 20);
    let env = TestEnv::from_env().expect("the MESHSIM_ variables parse");
    let picked = env.seeds.is_some();
    let seeds = env.seeds.unwrap_or(sized);
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("swarm_corners");
    std::fs::create_dir_all(&dir).expect("a directory for the corners' personalities");
    let mut kept = [0u64; CORNERS.len()];
    let mut runs = 0;
    for seed in seeds.clone() {
        let drawn = RuntimeChoice::swarm().for_seed(Seed::new(seed)).personality;
        let mut runtimes = Vec::new();
        for ((name, force), kept) in CORNERS.iter().zip(&mut kept) {
            let mut personality = drawn.clone();
            force(&mut personality, Seed::new(seed));
            if !cautions(&personality).is_empty() {
                continue;
            }
            *kept += 1;
            personality.name = format!("{name}-{seed}");
            personality.description = format!(
                "the swarm's draw for seed {seed}, forced into the corner {name} \
                 (tests/matrix/swarm_corners.rs)"
            );
            let path = dir.join(format!("{name}-{seed}.json"));
            let text = serde_json::to_string_pretty(&personality).expect("a personality file");
            std::fs::write(&path, text).expect("the personality file is written");
            runtimes.push(path.display().to_string());
        }
        let outcome = Matrix::for_consumer(ConsumerChoice::Reconciling)
            .runtimes(runtimes)
            .faults([Faults::Swarm])
            .seeds(seed..seed + 1)
            .run();
        outcome.assert_expectations();
        runs += outcome.tally.runs;
    }
    eprintln!(
        "forced corners: {runs} runs met their expectations; personalities kept by corner: {kept:?}"
    );
    if picked {
        return;
    }
    let tried = seeds.end - seeds.start;
    for ((name, _), kept) in CORNERS.iter().zip(kept) {
        assert!(
            kept * 2 >= tried,
            "{name}: only {kept} of {tried} forced personalities were judgeable"
        );
    }
}
