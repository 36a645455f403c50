//! `liveness`: every job finishes within the bound; a give-up on a job no consumer could finish
//! is the peer's fault, once a task was started there (which is how a consumer finds that out).

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
                    // Every rule is found out only by starting a task (one that stalls,
                    // asks again, is refused, reaped or not canceled): where no task was
                    // ever started, the consumer did not find the job impossible, it did
                    // not try. (A v0.1 task whose blocking send never answered is in the
                    // runtime's records though the consumer never saw a state of it.)
                    let tried = !report.tasks.is_empty()
                        || evidence
                            .truths
                            .get(&run.host)
                            .is_some_and(|truth| !truth.is_empty());
                    if let Some(found) = found.as_ref().filter(|_| !reason.is_empty() && tried) {
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
                    Some(match found {
                        Some(found) if !tried => format!(
                            "the job gave up: {reason} (the peer makes it impossible ({}), but no task was ever started there to find that out)",
                            found.rule.name
                        ),
                        _ => format!("the job gave up: {reason}"),
                    })
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
