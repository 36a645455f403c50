//! A personality's real lifecycle, stated in the consumer's terms: the profile a perfect
//! observer would learn from it. The oracle holds learned profiles against this.

use meshsim_consumer::{FollowupBehaviour, PeerLifecycleProfile, ProfileKey, ResubscribeBehaviour};
use meshsim_protocol::TaskState;
use meshsim_runtimes::{FollowUp, Personality, Reaping, Resubscribe, UnknownTask};

/// The profile `personality` really has, for a peer at `host` (`host:port`).
pub fn real_profile(personality: &Personality, host: &str) -> PeerLifecycleProfile {
    let closes_on_input_required = personality.stream_close.closes_on(TaskState::InputRequired);
    // A task reaped with its stream is gone once the stream ends at input-required: the
    // peer closes it there, or the client closes it, having read what it waits for (a
    // runtime that keeps the stream open still reaps the task when the client leaves).
    let reaped_at_close = personality.reaping == Reaping::OnStreamClose;
    let resubscribe = if reaped_at_close {
        ResubscribeBehaviour::TaskNotFound
    } else {
        match personality.resubscribe {
            Resubscribe::SnapshotThenTail => ResubscribeBehaviour::Resumes,
            Resubscribe::ReplayFromStart => ResubscribeBehaviour::Replays,
            Resubscribe::NotFoundAfterStreamClose if closes_on_input_required => {
                ResubscribeBehaviour::TaskNotFound
            }
            Resubscribe::NotFoundAfterStreamClose => ResubscribeBehaviour::Resumes,
            // At input-required no turn is executing.
            Resubscribe::NotFoundUnlessActive => ResubscribeBehaviour::TaskNotFound,
        }
    };
    let followup = if reaped_at_close {
        match personality.unknown_task {
            UnknownTask::NewTask => FollowupBehaviour::NewTask,
            UnknownTask::NotFound => FollowupBehaviour::TaskNotFound,
        }
    } else {
        match personality.follow_up {
            FollowUp::Resume => FollowupBehaviour::Resumes,
            FollowUp::ResumeWithDuplicateSubmitted => {
                FollowupBehaviour::ResumesWithDuplicateSubmitted
            }
            FollowUp::NewTask => FollowupBehaviour::NewTask,
            FollowUp::NotFound => FollowupBehaviour::TaskNotFound,
        }
    };
    let mut profile = PeerLifecycleProfile::unknown(ProfileKey {
        host: host.to_string(),
        card_version: personality.card.version.clone(),
    });
    profile.resubscribe_after_input_required = Some(resubscribe);
    profile.followup_same_task = Some(followup);
    profile.stream_closes_on_input_required = Some(closes_on_input_required);
    profile.task_survives_stream_close = Some(!reaped_at_close);
    profile
}

#[cfg(test)]
mod tests {
    use super::*;
    use meshsim_runtimes::builtin;

    fn profile_of(name: &str) -> PeerLifecycleProfile {
        real_profile(&builtin(name).expect(name), "agent:9000")
    }

    #[test]
    fn the_seed_table_in_profile_terms() {
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
        let profile = real_profile(&personality, "agent:9000");
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
