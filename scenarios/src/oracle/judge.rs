//! Judging a run: every invariant checked in turn, violations ordered by invariant, then job.

use super::deadlines_honoured::deadlines_honoured;
use super::evidence::Evidence;
use super::legal_path::legal_path;
use super::liveness::liveness;
use super::no_double_apply::no_double_apply;
use super::no_orphaned_task::no_orphaned_task;
use super::one_outcome::one_outcome;
use super::profile_matches_runtime::profile_matches_runtime;
use super::verdict::{Judgement, Violation};
use super::view_matches_truth::view_matches_truth;
use crate::invariant::Invariant;

/// Checks every invariant; violations come in [`Invariant::ALL`] order, then job order.
pub fn check(evidence: &Evidence<'_>) -> Vec<Violation> {
    judge(evidence).violations
}

/// Checks every invariant, telling the consumer's violations from the peer's faults.
pub fn judge(evidence: &Evidence<'_>) -> Judgement {
    let mut peer_faults = Vec::new();
    let mut found = Vec::new();
    for run in evidence.jobs {
        let Some(report) = &run.report else { continue };
        let truth = evidence.truths.get(&run.host);
        no_double_apply(evidence, run, report, truth, &mut found);
        legal_path(evidence, run, report, &mut found);
        view_matches_truth(evidence, run, report, truth, &mut found);
    }
    no_orphaned_task(evidence, &mut found, &mut peer_faults);
    for run in evidence.jobs {
        let Some(report) = &run.report else { continue };
        one_outcome(evidence, run, report, &mut found);
        deadlines_honoured(evidence, run, report, &mut found);
    }
    liveness(evidence, &mut found, &mut peer_faults);
    for run in evidence.jobs {
        let Some(report) = &run.report else { continue };
        profile_matches_runtime(evidence, run, report, &mut found);
    }
    found.sort_by_key(|violation| {
        Invariant::ALL
            .iter()
            .position(|invariant| *invariant == violation.invariant)
    });
    Judgement {
        violations: found,
        peer_faults,
    }
}
