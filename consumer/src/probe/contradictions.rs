//! Setting the measured lifecycle beside the Card: each claim the probe's findings contradict.

use super::report::{Contradiction, ProbeReport};
use crate::profile::{FollowupBehaviour, ResubscribeBehaviour};

/// The Card's claims that the measured profile contradicts.
pub fn contradictions(report: &ProbeReport) -> Vec<Contradiction> {
    let mut found = Vec::new();
    let streaming = report.card.streaming == Some(true);
    let history = report.card.state_transition_history == Some(true);
    let claim_streaming = "capabilities.streaming = true".to_string();
    if streaming && report.task_survives_stream_close == Some(false) {
        found.push(Contradiction {
            claim: claim_streaming.clone(),
            observed: "the task is gone once its stream closes: it cannot be resumed".to_string(),
        });
    }
    if streaming
        && let Some(behaviour) = report.resubscribe_after_input_required
        && behaviour != ResubscribeBehaviour::Resumes
    {
        found.push(Contradiction {
            claim: claim_streaming.clone(),
            observed: format!(
                "resubscribe after input-required {}",
                match behaviour {
                    ResubscribeBehaviour::Replays =>
                        "replays every event from the start".to_string(),
                    ResubscribeBehaviour::TaskNotFound => "answers -32001 TaskNotFound".to_string(),
                    other => format!("fails ({other})"),
                }
            ),
        });
    }
    if streaming
        && let Some(behaviour) = report.followup_same_task
        && behaviour != FollowupBehaviour::Resumes
    {
        found.push(Contradiction {
            claim: claim_streaming,
            observed: format!(
                "a follow-up with the same taskId {}",
                match behaviour {
                    FollowupBehaviour::ResumesWithDuplicateSubmitted =>
                        "resumes only after a second `submitted`",
                    FollowupBehaviour::NewTask => "starts a new task",
                    _ => "answers -32001 TaskNotFound",
                }
            ),
        });
    }
    if history {
        let claim = "capabilities.stateTransitionHistory = true".to_string();
        if report.resubscribe_after_input_required == Some(ResubscribeBehaviour::Replays) {
            found.push(Contradiction {
                claim: claim.clone(),
                observed: "history is replayed as if live, not served as history".to_string(),
            });
        }
        if report.followup_same_task == Some(FollowupBehaviour::ResumesWithDuplicateSubmitted) {
            found.push(Contradiction {
                claim,
                observed: "the transition history goes back to `submitted` mid-task".to_string(),
            });
        }
    }
    found
}
