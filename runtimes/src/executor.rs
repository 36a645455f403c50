//! The executor: runs a turn's script steps over (simulated) time, and reaping timers.
//!
//! Durations were drawn from the seeded generator when the turn started, under the store's
//! lock, so they do not depend on how concurrent turns interleave.

use crate::script::Step;
use crate::store::Host;
use std::sync::Arc;
use std::time::Duration;

/// Runs one turn: waits out each work step, applies the others; stops as soon as the turn
/// is stale (canceled, reaped, or the host went away).
pub(crate) async fn run_turn(
    host: Arc<Host>,
    id: String,
    epoch: u64,
    steps: Vec<Step>,
    durations: Vec<Duration>,
) {
    let mut durations = durations.into_iter();
    for step in steps {
        if step == Step::Work {
            meshsim_time::sleep(durations.next().unwrap_or_default()).await;
        } else if !host.step(&id, epoch, step) {
            return;
        }
    }
}

/// Reaps the task after `after` unless it made a transition meanwhile.
pub(crate) async fn reap_after(
    host: Arc<Host>,
    id: String,
    transitions: u64,
    after: Duration,
    reason: &'static str,
) {
    meshsim_time::sleep(after).await;
    host.reap_if_idle(&id, transitions, reason);
}
