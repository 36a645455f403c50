//! The runner's phases, outcomes, checks, hooks and errors.

use std::future::pending;
use std::time::Duration;

use meshsim_sim::Phase;
use meshsim_sim::TraceHash;
use meshsim_sim::{Fault, FaultPlan, PlanError, TimedFault};
use meshsim_sim::{
    NodeOutcome, Role, RunConfig, RunError, Runner, Seed, SimListener, TurmoilConnector,
};
use meshsim_trace::TraceEvent;
use tower::ServiceExt;

fn config(chaos_ms: u64, liveness_ms: u64) -> RunConfig {
    RunConfig {
        chaos: Duration::from_millis(chaos_ms),
        liveness: Duration::from_millis(liveness_ms),
        ..RunConfig::default()
    }
}

fn sleep_ms(ms: u64) -> meshsim_time::Sleep {
    meshsim_time::sleep(Duration::from_millis(ms))
}

#[test]
fn outcomes_crashes_and_the_heal_bounce_are_reported() {
    let mut runner = Runner::new(Seed::new(1), config(300, 1_000));
    runner.plan(FaultPlan::new(vec![TimedFault::new(
        100,
        Fault::Crash {
            host: "crashy".into(),
        },
    )]));
    runner.host("steady", pending);
    runner.host("crashy", pending);
    runner.host("quitter", || async {
        sleep_ms(10).await;
        Err("boom".into())
    });
    runner.host("finisher", || async { Ok(()) });
    runner.client("waiter", async {
        sleep_ms(500).await;
        Ok(())
    });
    let record = runner.run().unwrap().record;
    assert!(record.converged);
    assert_eq!(record.healed_at_ms, Some(300));
    assert!(
        (500..=510).contains(&record.elapsed_ms),
        "{}",
        record.elapsed_ms
    );
    let node = |name: &str| record.nodes[name].clone();
    assert_eq!(node("steady").outcome, NodeOutcome::Unfinished);
    assert_eq!((node("steady").starts, node("steady").crashes), (1, 0));
    assert_eq!(
        node("crashy").outcome,
        NodeOutcome::Unfinished,
        "bounced on heal"
    );
    assert_eq!((node("crashy").starts, node("crashy").crashes), (2, 1));
    assert_eq!(
        node("quitter").outcome,
        NodeOutcome::Err {
            error: "boom".into()
        }
    );
    assert_eq!(node("finisher").outcome, NodeOutcome::Ok);
    assert_eq!(node("waiter").outcome, NodeOutcome::Ok);
    assert_eq!(node("waiter").role, Role::Client);
    assert_eq!(node("steady").role, Role::Host);
}

#[test]
fn a_host_still_down_when_the_clients_finish_is_crashed() {
    let mut runner = Runner::new(Seed::new(1), config(1_000, 1_000));
    runner.plan(FaultPlan::new(vec![TimedFault::new(
        10,
        Fault::Crash { host: "h".into() },
    )]));
    runner.host("h", pending);
    runner.client("c", async {
        sleep_ms(50).await;
        Ok(())
    });
    let record = runner.run().unwrap().record;
    assert_eq!(record.healed_at_ms, None);
    assert_eq!(record.nodes["h"].outcome, NodeOutcome::Crashed);
}

#[test]
fn a_panicking_host_is_an_error_outcome_not_a_failed_run() {
    let mut runner = Runner::new(Seed::new(1), config(10, 100));
    runner.host("h", || async { panic!("host bug") });
    runner.client("c", async {
        sleep_ms(5).await;
        Ok(())
    });
    let record = runner.run().unwrap().record;
    assert_eq!(
        record.nodes["h"].outcome,
        NodeOutcome::Err {
            error: "panicked: host bug".into()
        }
    );
}

#[test]
fn the_liveness_bound_stops_a_stuck_client() {
    let mut runner = Runner::new(Seed::new(1), config(100, 200));
    runner.client("stuck", pending());
    let record = runner.run().unwrap().record;
    assert!(!record.converged);
    assert_eq!(record.elapsed_ms, 300);
    assert_eq!(record.nodes["stuck"].outcome, NodeOutcome::Unfinished);
}

#[test]
fn heal_repairs_a_partition_the_plan_never_repaired() {
    let mut runner = Runner::new(Seed::new(3), config(400, 2_000));
    runner.plan(FaultPlan::new(vec![TimedFault::new(
        0,
        Fault::Partition {
            a: "c".into(),
            b: "server".into(),
        },
    )]));
    runner.host("server", || async {
        let listener = SimListener::bind(80).await?;
        let router = axum::Router::new();
        match meshsim_sim::serve(listener, router).await {}
    });
    runner.client("c", async {
        let connector = TurmoilConnector::new(Duration::from_millis(50));
        loop {
            let uri: http::Uri = "http://server:80/".parse()?;
            if connector.clone().oneshot(uri).await.is_ok() {
                let since_start = turmoil::sim_elapsed().ok_or("no simulated time")?;
                TraceEvent::Note {
                    note: "connected".into(),
                    value: Some(since_start.as_millis() as u64),
                }
                .emit();
                return Ok(());
            }
            sleep_ms(20).await;
        }
    });
    let run = runner.run().unwrap();
    assert!(run.record.converged);
    let connected = run
        .trace
        .events()
        .into_iter()
        .find_map(|line| match line.event {
            TraceEvent::Note { note, value } if note == "connected" => value,
            _ => None,
        })
        .expect("the client connected");
    assert!(
        connected >= 400,
        "connected at {connected} ms, before the heal"
    );
    let heal = run
        .trace
        .events()
        .iter()
        .position(|line| matches!(line.event, TraceEvent::Heal { .. }));
    assert!(heal.is_some());
}

#[test]
fn a_failing_check_stops_the_run_with_a_violation() {
    let mut runner = Runner::new(Seed::new(1), config(200, 1_000));
    runner.client("c", pending());
    let mut phases = Vec::new();
    runner.check(Duration::from_millis(50), move |point| {
        phases.push(point.phase);
        if point.elapsed >= Duration::from_millis(250) {
            assert_eq!(phases.last(), Some(&Phase::Heal));
            Err(format!(
                "invariant broken at {} ms",
                point.elapsed.as_millis()
            ))
        } else {
            Ok(())
        }
    });
    let run = runner.run().unwrap();
    assert_eq!(
        run.record.violation.as_deref(),
        Some("invariant broken at 250 ms")
    );
    assert_eq!(run.record.elapsed_ms, 250);
    assert!(!run.record.converged);
    assert_eq!(
        run.trace.events().last().map(|line| &line.event),
        Some(&TraceEvent::End {
            clients_done: false
        })
    );
}

#[test]
fn a_hook_wakes_host_software_at_its_time() {
    let mut runner = Runner::new(Seed::new(1), config(500, 500));
    let hooks = runner.hooks();
    runner.plan(FaultPlan::new(vec![TimedFault::new(
        120,
        Fault::Hook { name: "cut".into() },
    )]));
    runner.host("h", move || {
        let mut cut = hooks.subscribe("cut");
        async move {
            cut.changed().await?;
            TraceEvent::Note {
                note: "cut seen".into(),
                value: None,
            }
            .emit();
            Ok(())
        }
    });
    runner.client("c", async {
        sleep_ms(200).await;
        Ok(())
    });
    let run = runner.run().unwrap();
    assert_eq!(run.record.nodes["h"].outcome, NodeOutcome::Ok);
    let seen = run
        .trace
        .events()
        .into_iter()
        .find(|line| matches!(&line.event, TraceEvent::Note { note, .. } if note == "cut seen"))
        .expect("the host saw the hook");
    assert_eq!(seen.host, "h");
    assert_eq!(seen.t_us, 120_000);
}

#[test]
fn bad_plans_names_and_configs_are_errors() {
    let mut runner = Runner::new(Seed::new(1), config(100, 100));
    runner.plan(FaultPlan::new(vec![TimedFault::new(
        5,
        Fault::Bounce { host: "c".into() },
    )]));
    runner.client("c", async { Ok(()) });
    assert!(matches!(
        runner.run(),
        Err(RunError::Plan(PlanError::NotAHost { .. }))
    ));

    let mut runner = Runner::new(Seed::new(1), config(100, 100));
    runner.host("x", || async { Ok(()) });
    runner.client("x", async { Ok(()) });
    let err = runner.run().unwrap_err();
    assert_eq!(err.to_string(), r#"node name "x" is registered twice"#);

    let mut bad_latency = config(100, 100);
    bad_latency.min_latency = Duration::from_millis(50);
    let mut runner = Runner::new(Seed::new(1), bad_latency);
    runner.client("c", async { Ok(()) });
    assert!(matches!(runner.run(), Err(RunError::Config(_))));
}

#[test]
fn the_trace_file_holds_the_same_lines_and_hash() {
    let path = std::env::temp_dir().join(format!("meshsim-runner-{}.jsonl", std::process::id()));
    let mut runner = Runner::new(Seed::new(9), config(100, 100));
    runner.trace_file(&path);
    runner.plan(FaultPlan::new(vec![TimedFault::new(
        10,
        Fault::Hook { name: "n".into() },
    )]));
    runner.client("c", async {
        sleep_ms(30).await;
        Ok(())
    });
    let run = runner.run().unwrap();
    let written = std::fs::read_to_string(&path).unwrap();
    std::fs::remove_file(&path).unwrap();
    let lines: Vec<&str> = written.lines().collect();
    assert_eq!(lines, run.trace.lines().collect::<Vec<_>>());
    assert_eq!(TraceHash::of_lines(lines), run.record.trace_hash);
}

#[test]
fn a_turmoil_panic_is_a_simulation_error() {
    let mut small = config(1_000, 1_000);
    small.tcp_capacity = 1;
    let mut runner = Runner::new(Seed::new(1), small);
    // Bound but never accepting: every SYN waits in the one-slot backlog.
    runner.host("server", || async {
        let _listener = SimListener::bind(80).await?;
        pending().await
    });
    for name in ["c0", "c1", "c2"] {
        runner.client(name, async {
            let connector = TurmoilConnector::new(Duration::from_millis(500));
            let _ = connector.oneshot("http://server:80/".parse()?).await;
            Ok(())
        });
    }
    match runner.run() {
        Err(RunError::Simulation(message)) => {
            assert!(message.contains("server socket buffer full"), "{message}")
        }
        other => panic!(
            "expected a simulation error, got {:?}",
            other.map(|run| run.record)
        ),
    }
}

#[test]
fn a_host_bounced_at_0_ms_reads_the_simulated_clock_when_it_restarts() {
    // Turmoil sets a host's clock on the host's first tick; software that reads the time as
    // it starts (as runtimes do) used to panic when bounced before it.
    let mut runner = Runner::new(Seed::new(2), config(1_000, 1_000));
    runner.plan(FaultPlan::new(vec![TimedFault::new(
        0,
        Fault::Bounce {
            host: "server".into(),
        },
    )]));
    runner.host("server", || {
        let started = meshsim_sim::sim_clock().now();
        async move {
            let _ = started;
            pending().await
        }
    });
    runner.client("client", async {
        meshsim_time::sleep(Duration::from_millis(10)).await;
        Ok(())
    });
    let run = runner
        .run()
        .expect("a bounce at 0 ms strikes after the first tick");
    assert_eq!(run.record.nodes["server"].starts, 2);
    assert!(run.record.converged);
}
