//! Swarm mode end to end: a seed's drawn fault plan, printed as JSON and parsed back, replays
//! the SSE mesh to the same trace hash.

use meshsim_sim::seed_names;
use meshsim_sim::{FaultPlan, NodeOutcome, Seed, Swarm};
use meshsim_trace::TraceEvent;

use crate::sse_mesh;

#[test]
fn printed_swarm_plans_replay_to_the_same_trace_hash() {
    for seed in (21..=24).map(Seed::new) {
        let swarm = Swarm::draw(seed.derive(seed_names::FAULTS), &sse_mesh::space());
        let kinds: Vec<&str> = swarm.kinds.keys().map(|kind| kind.name()).collect();
        let printed = swarm.plan.to_json();
        println!("seed {seed}: kinds {kinds:?}\n{printed}");
        assert!(!swarm.plan.faults.is_empty());

        let drawn = sse_mesh::run(seed, swarm.plan.clone());
        let parsed = FaultPlan::from_json(&printed).expect("the printed plan parses");
        let replayed = sse_mesh::run(seed, parsed);

        assert_eq!(replayed.record.plan, swarm.plan);
        assert_eq!(drawn.record.trace_hash, replayed.record.trace_hash);
        assert_eq!(
            drawn.trace.lines().collect::<Vec<_>>(),
            replayed.trace.lines().collect::<Vec<_>>()
        );
        let applied = drawn
            .trace
            .events()
            .iter()
            .filter(|line| matches!(line.event, TraceEvent::Fault { .. }))
            .count();
        assert!(applied > 0, "no fault of the swarm plan was applied");
        for client in sse_mesh::CLIENTS {
            assert_eq!(drawn.record.nodes[client].outcome, NodeOutcome::Ok);
        }
        println!(
            "  -> trace hash {} ({applied} faults applied)",
            drawn.record.trace_hash
        );
    }
}

#[test]
fn other_seeds_draw_other_plans_and_traces() {
    let seed = Seed::new(22);
    let one = Swarm::draw(Seed::new(21).derive(seed_names::FAULTS), &sse_mesh::space());
    let other = Swarm::draw(seed.derive(seed_names::FAULTS), &sse_mesh::space());
    assert_ne!(one.plan, other.plan);
    let a = sse_mesh::run(Seed::new(21), one.plan);
    let b = sse_mesh::run(seed, other.plan);
    assert_ne!(a.record.trace_hash, b.record.trace_hash);
}

#[test]
fn crash_heavy_swarms_agree_when_run_in_parallel_threads() {
    // Seeds 22 and 24 crash and bounce hosts with streams open: what a crash drops, and in
    // which order, must not depend on what other simulations in the process are doing.
    for seed in [22, 24].map(Seed::new) {
        let swarm = Swarm::draw(seed.derive(seed_names::FAULTS), &sse_mesh::space());
        assert!(swarm.plan.faults.iter().any(|f| f.fault.kind() == "crash"));
        let threads: Vec<_> = (0..4)
            .map(|_| {
                let plan = swarm.plan.clone();
                std::thread::spawn(move || sse_mesh::run(seed, plan).trace)
            })
            .collect();
        let traces: Vec<_> = threads.into_iter().map(|t| t.join().unwrap()).collect();
        for trace in &traces[1..] {
            let first_difference = traces[0].lines().zip(trace.lines()).find(|(a, b)| a != b);
            assert_eq!(first_difference, None, "seed {seed}");
            assert_eq!(trace.hash(), traces[0].hash(), "seed {seed}");
        }
    }
}
