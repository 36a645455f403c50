//! Idle fast-forward: a run takes fewer steps and records the same trace, with faults,
//! hooks and timers that fall between events keeping their instants.

use std::time::Duration;

use meshsim_sim::{Fault, FaultPlan, TimedFault};
use meshsim_sim::{Run, RunConfig, Runner, Seed};
use meshsim_trace::TraceEvent;

/// Two hosts that wake up now and then, a hook and a crash that strike while every host is
/// asleep, and a client that waits them out; stepped every 10 ms.
fn sleepy_run(fast_forward: bool) -> Run {
    let config = RunConfig {
        tick: Duration::from_millis(10),
        chaos: Duration::from_millis(2_000),
        liveness: Duration::from_millis(3_000),
        fast_forward,
        ..RunConfig::default()
    };
    let mut runner = Runner::new(Seed::new(3), config);
    let hooks = runner.hooks();
    runner.plan(FaultPlan::new(vec![
        TimedFault::new(
            777,
            Fault::Hook {
                name: "nudge".into(),
            },
        ),
        TimedFault::new(
            1_234,
            Fault::Crash {
                host: "napper".into(),
            },
        ),
    ]));
    runner.host("napper", || async {
        loop {
            meshsim_time::sleep(Duration::from_millis(333)).await;
            TraceEvent::Note {
                note: "nap over".into(),
                value: None,
            }
            .emit();
        }
    });
    runner.host("listener", move || {
        let mut nudge = hooks.subscribe("nudge");
        async move {
            nudge.changed().await?;
            TraceEvent::Note {
                note: "nudged".into(),
                value: None,
            }
            .emit();
            Ok(())
        }
    });
    runner.client("waiter", async {
        meshsim_time::sleep(Duration::from_millis(2_500)).await;
        Ok(())
    });
    runner.run().expect("the run")
}

/// The simulated times of the events `wanted` picks, in microseconds.
fn times(run: &Run, wanted: impl Fn(&TraceEvent) -> bool) -> Vec<u64> {
    run.trace
        .events()
        .into_iter()
        .filter(|line| wanted(&line.event))
        .map(|line| line.t_us)
        .collect()
}

/// Picks the notes named `name`.
fn note(name: &str) -> impl Fn(&TraceEvent) -> bool {
    move |event| matches!(event, TraceEvent::Note { note, .. } if note == name)
}

#[test]
fn fast_forward_skips_idle_steps_and_records_the_same_trace() {
    let fast = sleepy_run(true);
    let fixed = sleepy_run(false);
    assert_eq!(
        fast.trace.lines().collect::<Vec<_>>(),
        fixed.trace.lines().collect::<Vec<_>>()
    );
    assert_eq!(fast.record.trace_hash, fixed.record.trace_hash);
    assert_eq!(fast.record.elapsed_ms, fixed.record.elapsed_ms);
    // 2.5 s in 10 ms steps, plus the step that runs the client's wake-up at 2,500 ms; the
    // hosts wake about a dozen times.
    assert_eq!(fixed.record.steps, 251);
    assert!(fast.record.steps < 60, "{} steps", fast.record.steps);
    // Timers fire at their instant, faults and hooks at the first step start at or after
    // theirs, as with every step taken.
    // The napper naps until the crash at 1,240 ms and again from the heal's bounce at 2 s.
    assert_eq!(
        times(&fast, note("nap over")),
        [333_000, 666_000, 999_000, 2_333_000]
    );
    assert_eq!(times(&fast, note("nudged")), [780_000]);
    assert_eq!(
        times(&fast, |event| matches!(event, TraceEvent::Fault { .. })),
        [780_000, 1_240_000]
    );
}
