//! `profile-matches-runtime`: what the consumer learned of its peer's lifecycle is what the
//! runtime really does. Dated at the consumer's learning of the wrong value (its
//! `profile-learned` trace line), else at the job's outcome, which reported it.

use super::evidence::{Evidence, JobRun};
use super::verdict::{Violation, violation};
use crate::invariant::Invariant;
use meshsim_consumer::JobReport;

pub(super) fn profile_matches_runtime(
    evidence: &Evidence<'_>,
    run: &JobRun,
    report: &JobReport,
    found: &mut Vec<Violation>,
) {
    let (Some(learned), Some(real)) = (&report.profile, evidence.profiles.get(&run.host)) else {
        return;
    };
    let wrong: Vec<(&str, String, String)> = learned
        .lifecycle()
        .into_iter()
        .zip(real.lifecycle())
        .filter_map(|((field, learned), (_, real))| match (learned, real) {
            (Some(learned), Some(real)) if learned != real => Some((field, learned, real)),
            _ => None,
        })
        .collect();
    if wrong.is_empty() {
        return;
    }
    // The profile has been wrong since the earliest of the wrong values was learned.
    let at = wrong
        .iter()
        .map(|(field, value, _)| {
            evidence
                .learned_at(&run.job.name, &learned.key, field, value)
                .unwrap_or_else(|| evidence.job_end_ms(&run.job.name))
        })
        .min()
        .unwrap_or_else(|| evidence.end_ms());
    let detail: Vec<String> = wrong
        .iter()
        .map(|(field, learned, real)| format!("{field}: learned {learned}, really {real}"))
        .collect();
    found.push(violation(
        Invariant::ProfileMatchesRuntime,
        run,
        None,
        at,
        detail.join("; "),
    ));
}
