//! A runtime's real lifecycle, stated in the consumer's terms: the profile a perfect
//! observer would learn from it. The oracle holds learned profiles against this. It is not
//! a model of its own: [`meshsim_runtimes::lifecycle`] learns it by probing the runtime's
//! task store with the runtime's [`Behaviour`], the same state machine that runs.

use meshsim_consumer::{FollowupBehaviour, PeerLifecycleProfile, ProfileKey, ResubscribeBehaviour};
use meshsim_runtimes::{Behaviour, FollowUpAnswer, Personality, ResubscribeAnswer, lifecycle};
use std::sync::Arc;

/// The profile `personality` really has under `behaviour`, for a peer at `host`
/// (`host:port`).
pub fn real_profile(
    personality: &Personality,
    behaviour: Arc<dyn Behaviour>,
    host: &str,
) -> PeerLifecycleProfile {
    let real = lifecycle(personality, behaviour);
    let mut profile = PeerLifecycleProfile::unknown(ProfileKey {
        host: host.to_string(),
        card_version: personality.card.version.clone(),
    });
    profile.resubscribe_after_input_required =
        real.resubscribe_after_input_required
            .map(|answer| match answer {
                ResubscribeAnswer::Resumes => ResubscribeBehaviour::Resumes,
                ResubscribeAnswer::Replays => ResubscribeBehaviour::Replays,
                ResubscribeAnswer::TaskNotFound => ResubscribeBehaviour::TaskNotFound,
                ResubscribeAnswer::Error(code) => ResubscribeBehaviour::Error(code),
            });
    profile.followup_same_task = real
        .follow_up_after_input_required
        .map(|answer| match answer {
            FollowUpAnswer::Resumes => FollowupBehaviour::Resumes,
            FollowUpAnswer::ResumesWithDuplicateSubmitted => {
                FollowupBehaviour::ResumesWithDuplicateSubmitted
            }
            FollowUpAnswer::NewTask => FollowupBehaviour::NewTask,
            FollowUpAnswer::TaskNotFound => FollowupBehaviour::TaskNotFound,
        });
    profile.stream_closes_on_input_required = real.stream_closes_on_input_required;
    profile.task_survives_stream_close = real.task_survives_stream_close;
    profile
}

#[cfg(test)]
mod tests {
    use super::*;
    use meshsim_runtimes::{Knobs, Reaping, builtin};

    fn profile_of(name: &str) -> PeerLifecycleProfile {
        real_profile(&builtin(name).expect(name), Arc::new(Knobs), "agent:9000")
    }

    #[test]
    fn the_origin_table_in_profile_terms() {
        let python = profile_of("python-correct");
        assert_eq!(
            python.resubscribe_after_input_required,
            Some(ResubscribeBehaviour::Resumes)
        );
        assert_eq!(python.followup_same_task, Some(FollowupBehaviour::Resumes));
        assert_eq!(python.task_survives_stream_close, Some(true));

        let go = profile_of("go-replaying");
        assert_eq!(
            go.resubscribe_after_input_required,
            Some(ResubscribeBehaviour::Replays)
        );
        assert_eq!(
            go.followup_same_task,
            Some(FollowupBehaviour::ResumesWithDuplicateSubmitted)
        );

        let jvm = profile_of("jvm-reaping");
        assert_eq!(
            jvm.resubscribe_after_input_required,
            Some(ResubscribeBehaviour::TaskNotFound)
        );
        assert_eq!(jvm.followup_same_task, Some(FollowupBehaviour::NewTask));
        assert_eq!(jvm.task_survives_stream_close, Some(false));
        for profile in [python, go, jvm] {
            assert_eq!(profile.stream_closes_on_input_required, Some(true));
        }
    }

    #[test]
    fn a_reaper_on_stream_close_loses_the_task_when_the_client_leaves_an_open_stream() {
        // Swarm seed 45's runtime: streams stay open at input-required, and the task dies
        // with its last stream, so the client stopping its read there loses it.
        let personality = Personality {
            reaping: Reaping::OnStreamClose,
            stream_close: meshsim_runtimes::StreamClose::TerminalOnly,
            ..Personality::default()
        };
        let profile = real_profile(&personality, Arc::new(Knobs), "agent:9000");
        assert_eq!(profile.stream_closes_on_input_required, Some(false));
        assert_eq!(profile.task_survives_stream_close, Some(false));
        assert_eq!(
            profile.resubscribe_after_input_required,
            Some(ResubscribeBehaviour::TaskNotFound)
        );
    }

    #[test]
    fn java_keeps_streams_open_at_input_required() {
        let java = profile_of("a2a-java-1.2");
        assert_eq!(java.stream_closes_on_input_required, Some(false));
    }
}
