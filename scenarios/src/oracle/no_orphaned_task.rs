//! `no-orphaned-task`: no task a consumer knew of (its report names it, or it was sent its
//! id: a check run's program, or a user's consumer in the simulation, where an id that
//! reached a connection no job opened itself is charged to the first job on the task's
//! host) is left live on its runtime; a cancel the peer refused is the peer's fault, when
//! ground truth says the peer did refuse one (a reported refusal the runtime never made
//! excuses nothing). Dated at the end of the job that left it (its traced outcome, or its
//! program's exit).

use super::evidence::Evidence;
use super::verdict::{PeerFault, Violation, violation};
use crate::invariant::Invariant;
use meshsim_consumer::CancelResult;

pub(super) fn no_orphaned_task(
    evidence: &Evidence<'_>,
    found: &mut Vec<Violation>,
    peer_faults: &mut Vec<PeerFault>,
) {
    for (host, truth) in evidence.truths {
        for record in truth.tasks() {
            if !record.is_live() {
                continue;
            }
            let reported_by = evidence.jobs.iter().find(|run| {
                run.host == *host
                    && run
                        .report
                        .as_ref()
                        .is_some_and(|report| report.task(&record.id).is_some())
            });
            // A program that was sent the task's id and left it out of its report knew of
            // it all the same (a check run's proxies saw the id go to it). An id a consumer
            // received on a connection of none of its jobs (one a task it spawned opened)
            // is its all the same; the first job on the task's host answers for it.
            let delivered = || {
                let delivery = evidence
                    .deliveries
                    .get(&(host.clone(), record.id.clone()))?;
                let run = evidence.jobs.iter().find(|run| {
                    run.host == *host
                        && delivery.job.as_ref().is_none_or(|job| run.job.name == *job)
                })?;
                Some((run, delivery))
            };
            // A task no job ever learned of (its creating response was lost to a fault)
            // cannot be finished or canceled by anyone: A2A has no idempotency key to
            // find it by. Only tasks a consumer knew of and left behind are its doing.
            let (owner, unreported) = match reported_by {
                Some(run) => (run, None),
                None => match delivered() {
                    Some((run, delivery)) => (run, Some(delivery)),
                    None => continue,
                },
            };
            let abandoned = owner
                .report
                .as_ref()
                .and_then(|report| report.task(&record.id))
                .and_then(|view| view.abandoned.as_ref());
            let refused = abandoned
                .filter(|abandoned| abandoned.cancel.is_refusal() && record.cancel_refused);
            if let Some(abandoned) = refused {
                peer_faults.push(PeerFault {
                    invariant: Invariant::NoOrphanedTask,
                    job: owner.job.name.clone(),
                    task: Some(record.id.clone()),
                    peer: format!(
                        "refused to cancel the task ({}); it is still `{}` on {host}",
                        refusal(&abandoned.cancel),
                        record.state
                    ),
                    consumer: format!(
                        "asked to cancel it and reported the refusal (abandoned: {})",
                        abandoned.reason
                    ),
                });
                continue;
            }
            // The act that orphaned it: the job ending (its traced outcome) with the task
            // live; until then the consumer could still finish or cancel it.
            let ended = evidence.job_end_ms(&owner.job.name);
            found.push(violation(
                Invariant::NoOrphanedTask,
                owner,
                Some(&record.id),
                ended,
                match unreported {
                    None => format!(
                        "task is still `{}` on {host} after the job ended; nobody will finish or cancel it",
                        record.state
                    ),
                    Some(delivery) => format!(
                        "task is still `{}` on {host} after the job ended; nobody will finish or cancel it (the consumer was sent its id{})",
                        record.state,
                        match (&delivery.job, delivery.call) {
                            (None, _) => " on a connection none of its jobs opened in its own task, and no report names it".to_string(),
                            (Some(_), Some(call)) => format!(" in the answer to call {call} and its report never names it"),
                            (Some(_), None) => " and its report never names it".to_string(),
                        }
                    ),
                },
            ));
        }
    }
}

/// How the peer refused a cancel, in words.
fn refusal(cancel: &CancelResult) -> String {
    match cancel {
        CancelResult::NotCancelable => "answered -32002 TaskNotCancelable".to_string(),
        CancelResult::Answered(state) => {
            format!("answered with the task still `{state}`: the cancel was ignored")
        }
        other => format!("{other:?}"),
    }
}
