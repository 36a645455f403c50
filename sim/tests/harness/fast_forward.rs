//! Idle fast-forward: a run takes fewer steps and records the same trace, with faults,
//! hooks and timers that fall between events keeping their instants.

use std::time::Duration;

use meshsim_sim::{Fault, FaultPlan, TimedFault};
use meshsim_sim::{Run, RunConfig, Runner, Seed};
use meshsim_trace::TraceEvent;

/// A run stepped every 10 ms, with fast-forward or not, its chaos and liveness phases
/// `chaos_ms` and `liveness_ms` long.
fn ten_ms_steps(fast_forward: bool, chaos_ms: u64, liveness_ms: u64) -> RunConfig {
    RunConfig {
        tick: Duration::from_millis(10),
        chaos: Duration::from_millis(chaos_ms),
        liveness: Duration::from_millis(liveness_ms),
        fast_forward,
        ..RunConfig::default()
    }
}

/// Two hosts that wake up now and then, a hook and a crash that strike while every host is
/// asleep, and a client that waits them out; stepped every 10 ms.
fn sleepy_run(fast_forward: bool) -> Run {
    let mut runner = Runner::new(Seed::new(3), ten_ms_steps(fast_forward, 2_000, 3_000));
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

/// A relay that connects to itself over loopback, then passes what it read on to a sink over
/// the network; the sink notes when it arrives. Turmoil delivers a host's messages to itself
/// with a timer of its own, one step later, which no registry of the harness holds.
fn loopback_run(fast_forward: bool) -> Run {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    use turmoil::net::{TcpListener, TcpStream};

    let mut runner = Runner::new(Seed::new(5), ten_ms_steps(fast_forward, 1_000, 1_000));
    runner.host("sink", || async {
        let listener = TcpListener::bind(("0.0.0.0", 9001)).await?;
        let (mut from_relay, _) = listener.accept().await?;
        let mut word = [0; 4];
        from_relay.read_exact(&mut word).await?;
        TraceEvent::Note {
            note: "arrived".into(),
            value: None,
        }
        .emit();
        Ok(())
    });
    runner.host("relay", || async {
        let listener = TcpListener::bind(("0.0.0.0", 9000)).await?;
        let passer = tokio::task::spawn_local(async move {
            let (mut from_self, _) = listener.accept().await?;
            let mut word = [0; 4];
            from_self.read_exact(&mut word).await?;
            let mut to_sink = TcpStream::connect("sink:9001").await?;
            to_sink.write_all(&word).await?;
            std::future::pending::<()>().await;
            Ok::<(), Box<dyn std::error::Error>>(())
        });
        meshsim_time::sleep(Duration::from_millis(100)).await;
        let mut to_self = TcpStream::connect(("127.0.0.1", 9000)).await?;
        to_self.write_all(b"ping").await?;
        let _ = passer.await;
        Ok(())
    });
    runner.client("waiter", async {
        meshsim_time::sleep(Duration::from_millis(800)).await;
        Ok(())
    });
    runner.run().expect("the run")
}

#[test]
fn a_message_a_host_sends_itself_keeps_fast_forward_from_skipping() {
    let fast = loopback_run(true);
    let fixed = loopback_run(false);
    let arrived = times(&fixed, note("arrived"));
    // The relay wakes at 100 ms; its connect, its word and the connect to the sink each take
    // a step or two; the sink reads the word well before the waiter's 800 ms.
    assert_eq!(arrived.len(), 1, "{arrived:?}");
    assert!(arrived[0] < 300_000, "{arrived:?}");
    assert_eq!(times(&fast, note("arrived")), arrived);
    assert_eq!(fast.record.trace_hash, fixed.record.trace_hash);
    assert!(fast.record.steps < fixed.record.steps);
}
