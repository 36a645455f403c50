//! The executor: runs a turn's script steps over (simulated) time, and reaping timers.
//!
//! Durations were drawn from the seeded generator when the turn started, in the store's
//! decision order, so they do not depend on how concurrent turns interleave. The executor
//! knows the store only as a [`Clockwork`]: what it does when a step or a timer falls due.

use crate::step::TurnStep;
use std::sync::Arc;
use std::time::Duration;

/// What steps and timers act on when they fall due.
pub(crate) trait Clockwork: Send + Sync + 'static {
    /// Does one non-waiting step of the turn started at `epoch`; false when the turn is
    /// stale and must stop.
    fn step_due(self: &Arc<Self>, task: &str, epoch: u64, step: TurnStep) -> bool;

    /// A reaping timer set after the task's `transitions`-th transition fired.
    fn reap_due(self: &Arc<Self>, task: &str, transitions: u64, reason: &str);
}

/// Runs one turn: waits out each work step, applies the others; stops as soon as the turn
/// is stale (canceled, reaped, or the host went away).
pub(crate) async fn run_turn(
    target: Arc<impl Clockwork>,
    id: String,
    epoch: u64,
    steps: Vec<TurnStep>,
    durations: Vec<Duration>,
) {
    let mut durations = durations.into_iter();
    for step in steps {
        if step == TurnStep::Work {
            meshsim_time::sleep(durations.next().unwrap_or_default()).await;
        } else if !target.step_due(&id, epoch, step) {
            return;
        }
    }
}

/// Fires a reaping timer after `after`.
pub(crate) async fn reap_after(
    target: Arc<impl Clockwork>,
    id: String,
    transitions: u64,
    after: Duration,
    reason: &'static str,
) {
    meshsim_time::sleep(after).await;
    target.reap_due(&id, transitions, reason);
}
