//! `liveness`: every job finishes within the bound; a give-up on a job no consumer could finish
//! is the peer's fault.

use super::evidence::Evidence;
use super::verdict::{PeerFault, Violation, violation};
use crate::impossible::impossible;
use crate::invariant::Invariant;
use meshsim_consumer::Outcome;

pub(super) fn liveness(
    evidence: &Evidence<'_>,
    found: &mut Vec<Violation>,
    peer_faults: &mut Vec<PeerFault>,
) {
    for run in evidence.jobs {
        let problem = match &run.report {
            None => Some(match evidence.consumer_failure {
                Some(failure) => format!("the consumer ended before the job did: {failure}"),
                None => "the job did not finish within the liveness bound".to_string(),
            }),
            Some(report) => match &report.outcome {
                Outcome::GaveUp { reason } => {
                    let found = evidence
                        .personalities
                        .get(&run.host)
                        .and_then(|personality| {
                            impossible(personality, &run.job, evidence.faults_end)
                        });
                    if let Some(found) = found.filter(|_| !reason.is_empty()) {
                        peer_faults.push(PeerFault {
                            invariant: Invariant::Liveness,
                            job: run.job.name.clone(),
                            task: None,
                            peer: format!(
                                "made the job impossible ({}: {})",
                                found.rule.name, found.why
                            ),
                            consumer: format!("gave up cleanly: {reason}"),
                        });
                        continue;
                    }
                    Some(format!("the job gave up: {reason}"))
                }
                _ => None,
            },
        };
        if let Some(problem) = problem {
            found.push(violation(
                Invariant::Liveness,
                run,
                None,
                evidence.end_ms(),
                problem,
            ));
        }
    }
}
