//! `profile-matches-runtime`: what the consumer learned of its peer's lifecycle is what the
//! runtime really does.

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
    let fields = [
        (
            "resubscribe_after_input_required",
            learned.resubscribe_after_input_required.map(|b| b.label()),
            real.resubscribe_after_input_required.map(|b| b.label()),
        ),
        (
            "followup_same_task",
            learned.followup_same_task.map(|b| b.label().to_string()),
            real.followup_same_task.map(|b| b.label().to_string()),
        ),
        (
            "stream_closes_on_input_required",
            learned
                .stream_closes_on_input_required
                .map(|b| b.to_string()),
            real.stream_closes_on_input_required.map(|b| b.to_string()),
        ),
        (
            "task_survives_stream_close",
            learned.task_survives_stream_close.map(|b| b.to_string()),
            real.task_survives_stream_close.map(|b| b.to_string()),
        ),
    ];
    let wrong: Vec<String> = fields
        .into_iter()
        .filter_map(|(field, learned, real)| match (learned, real) {
            (Some(learned), Some(real)) if learned != real => {
                Some(format!("{field}: learned {learned}, really {real}"))
            }
            _ => None,
        })
        .collect();
    if !wrong.is_empty() {
        found.push(violation(
            Invariant::ProfileMatchesRuntime,
            run,
            None,
            evidence.end_ms(),
            wrong.join("; "),
        ));
    }
}
