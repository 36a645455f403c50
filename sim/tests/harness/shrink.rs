//! Shrinking a swarm plan against real runs of the SSE mesh.

use meshsim_sim::seed_names;
use meshsim_sim::shrink_plan;
use meshsim_sim::{Seed, Swarm};
use meshsim_trace::TraceEvent;

use crate::sse_mesh;

#[test]
fn a_swarm_plan_shrinks_to_the_one_fault_that_breaks_client_1() {
    let seed = Seed::new(22);
    let swarm = Swarm::draw(seed.derive(seed_names::FAULTS), &sse_mesh::space());
    // client-1 streams from agent-b: "client-1 had to retry" is the failure to keep.
    let client_1_retried = |plan: &meshsim_sim::FaultPlan| {
        sse_mesh::run(seed, plan.clone())
            .trace
            .events()
            .iter()
            .any(|line| {
                line.host == "client-1"
                    && matches!(&line.event, TraceEvent::Note { note, .. } if note == "retry")
            })
    };
    let (shrunk, runs) = shrink_plan(&swarm.plan, client_1_retried);
    println!(
        "{} faults -> {} in {runs} runs:\n{}",
        swarm.plan.faults.len(),
        shrunk.faults.len(),
        shrunk.to_json()
    );
    assert!(swarm.plan.faults.len() > 1);
    assert_eq!(shrunk.faults.len(), 1);
    assert_eq!(shrunk.faults[0].fault.host(), Some("agent-b"));
    assert!(client_1_retried(&shrunk));
}
