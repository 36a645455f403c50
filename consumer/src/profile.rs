//! Per-peer lifecycle profiles: what a peer's runtime really does with a task's lifecycle,
//! which its Agent Card cannot say. Learned from observation, keyed by the resolved host and
//! the Card's `version`, kept in a [`ProfileCache`] shared by a consumer's jobs.

use serde::{Serialize, Serializer};
use std::collections::BTreeMap;
use std::fmt;
use std::sync::{Arc, Mutex, PoisonError};

/// Which peer a profile describes: the host (`host:port`) its Card's interface resolves to,
/// and the Card's `version`. A new version of the same agent is a new peer.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct ProfileKey {
    pub host: String,
    pub card_version: String,
}

/// What `tasks/resubscribe` did after the task reached `input-required` and its stream
/// closed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ResubscribeBehaviour {
    /// Reattached: a snapshot or only new events.
    Resumes,
    /// Sent the task's history again from `submitted` on.
    Replays,
    /// -32001: the peer no longer knows the task.
    TaskNotFound,
    /// Another JSON-RPC error code.
    Error(i64),
}

/// What a follow-up message with the same `taskId` did to an interrupted task.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FollowupBehaviour {
    /// Continued the task in place.
    Resumes,
    /// Continued it, after a second `submitted`.
    ResumesWithDuplicateSubmitted,
    /// Started another task (a different id, or the same id with a fresh history).
    NewTask,
    /// -32001.
    TaskNotFound,
}

impl ResubscribeBehaviour {
    /// The probe's spelling: `resumes`, `replays`, `task-not-found`, `error:<code>`.
    pub fn label(self) -> String {
        match self {
            ResubscribeBehaviour::Resumes => "resumes".to_string(),
            ResubscribeBehaviour::Replays => "replays".to_string(),
            ResubscribeBehaviour::TaskNotFound => "task-not-found".to_string(),
            ResubscribeBehaviour::Error(code) => format!("error:{code}"),
        }
    }
}

impl FollowupBehaviour {
    /// The probe's spelling: `resumes`, `resumes-with-duplicate-submitted`, `new-task`,
    /// `task-not-found`.
    pub fn label(self) -> &'static str {
        match self {
            FollowupBehaviour::Resumes => "resumes",
            FollowupBehaviour::ResumesWithDuplicateSubmitted => "resumes-with-duplicate-submitted",
            FollowupBehaviour::NewTask => "new-task",
            FollowupBehaviour::TaskNotFound => "task-not-found",
        }
    }
}

impl fmt::Display for ResubscribeBehaviour {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.label())
    }
}

impl fmt::Display for FollowupBehaviour {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.label())
    }
}

impl Serialize for ResubscribeBehaviour {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.label())
    }
}

impl Serialize for FollowupBehaviour {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.label())
    }
}

/// One thing a consumer saw a peer do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Observed {
    /// Whether the stream ended on its own when the task reached `input-required`.
    StreamClosedOnInputRequired(bool),
    /// Whether the task was still there (by `tasks/get`) after its stream closed at
    /// `input-required`.
    TaskSurvivedStreamClose(bool),
    /// Whether a task was still there after its stream broke mid-task (a proxy's cut, a
    /// reset, the consumer dropping it at a deadline). A crash of the peer looks the same,
    /// so this is kept apart from the lifecycle fields: it only steers whether to stream.
    TaskSurvivedBrokenStream(bool),
    /// A task was missing right after its stream ended at a question nothing dated (no
    /// readable stamp): lost with the close, or reaped by a timer while a link held the
    /// question and the end the peer sent behind it. Like a broken stream's loss, this is
    /// kept apart from the lifecycle fields: it only steers whether to stream.
    TaskGoneAfterUndatedQuestion,
    Resubscribe(ResubscribeBehaviour),
    Followup(FollowupBehaviour),
}

impl Observed {
    /// Whether the observation is one of the origin incident's anomalies (-32001, duplicate
    /// `submitted`, replay) that must refresh a profile.
    pub fn is_anomaly(self) -> bool {
        matches!(
            self,
            Observed::TaskSurvivedStreamClose(false)
                | Observed::TaskSurvivedBrokenStream(false)
                | Observed::TaskGoneAfterUndatedQuestion
                | Observed::Resubscribe(
                    ResubscribeBehaviour::Replays | ResubscribeBehaviour::TaskNotFound
                )
                | Observed::Followup(
                    FollowupBehaviour::ResumesWithDuplicateSubmitted
                        | FollowupBehaviour::NewTask
                        | FollowupBehaviour::TaskNotFound
                )
        )
    }
}

/// What a peer's runtime does with the lifecycle, as far as has been observed; `None`
/// is "not observed yet". This is the real capability set the origin note asks for.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PeerLifecycleProfile {
    pub key: ProfileKey,
    pub resubscribe_after_input_required: Option<ResubscribeBehaviour>,
    pub followup_same_task: Option<FollowupBehaviour>,
    pub stream_closes_on_input_required: Option<bool>,
    pub task_survives_stream_close: Option<bool>,
    /// Whether tasks outlive a stream that breaks mid-task (see
    /// [`Observed::TaskSurvivedBrokenStream`]).
    pub task_survives_broken_stream: Option<bool>,
    /// Whether a task went missing right after an undated question (see
    /// [`Observed::TaskGoneAfterUndatedQuestion`]); not a lifecycle field either.
    pub task_gone_after_undated_question: bool,
    /// How many observations were recorded.
    pub observations: u32,
    /// How many of them were anomalies that refreshed the profile.
    pub refreshes: u32,
}

impl PeerLifecycleProfile {
    /// A profile with nothing observed.
    pub fn unknown(key: ProfileKey) -> Self {
        PeerLifecycleProfile {
            key,
            resubscribe_after_input_required: None,
            followup_same_task: None,
            stream_closes_on_input_required: None,
            task_survives_stream_close: None,
            task_survives_broken_stream: None,
            task_gone_after_undated_question: false,
            observations: 0,
            refreshes: 0,
        }
    }

    /// Records an observation; the newest one wins, since runtimes get redeployed.
    pub fn record(&mut self, observed: Observed) {
        self.observations += 1;
        if observed.is_anomaly() {
            self.refreshes += 1;
        }
        match observed {
            Observed::StreamClosedOnInputRequired(closed) => {
                self.stream_closes_on_input_required = Some(closed);
            }
            Observed::TaskSurvivedStreamClose(survived) => {
                self.task_survives_stream_close = Some(survived);
            }
            Observed::TaskSurvivedBrokenStream(survived) => {
                self.task_survives_broken_stream = Some(survived);
            }
            Observed::TaskGoneAfterUndatedQuestion => {
                self.task_gone_after_undated_question = true;
            }
            Observed::Resubscribe(behaviour) => {
                self.resubscribe_after_input_required = Some(behaviour);
                if behaviour == ResubscribeBehaviour::TaskNotFound {
                    self.task_survives_stream_close = Some(false);
                }
            }
            Observed::Followup(behaviour) => self.followup_same_task = Some(behaviour),
        }
    }

    /// The lifecycle fields, by name, with their values in the probe's spelling (`None`: not
    /// observed). These are what a runtime's real profile is compared on;
    /// `task_survives_broken_stream` is not one of them (a crash looks the same), nor is
    /// `task_gone_after_undated_question` (a timer's reap looks the same).
    pub fn lifecycle(&self) -> [(&'static str, Option<String>); 4] {
        [
            (
                "resubscribe_after_input_required",
                self.resubscribe_after_input_required.map(|b| b.label()),
            ),
            (
                "followup_same_task",
                self.followup_same_task.map(|b| b.label().to_string()),
            ),
            (
                "stream_closes_on_input_required",
                self.stream_closes_on_input_required.map(|b| b.to_string()),
            ),
            (
                "task_survives_stream_close",
                self.task_survives_stream_close.map(|b| b.to_string()),
            ),
        ]
    }

    /// The lifecycle fields whose value differs from `before`'s, with their new value.
    pub fn changed_since(&self, before: &PeerLifecycleProfile) -> Vec<(&'static str, String)> {
        self.lifecycle()
            .into_iter()
            .zip(before.lifecycle())
            .filter_map(|((field, now), (_, was))| match now {
                Some(now) if Some(&now) != was.as_ref() => Some((field, now)),
                _ => None,
            })
            .collect()
    }

    /// Whether a task can be trusted to outlive the stream that carries it: `Some(false)`
    /// once one was lost with its stream (closed or broken, or gone right after an undated
    /// question), `Some(true)` once one survived its stream's close and none was lost since,
    /// `None` while unknown (the consumer must probe with `tasks/get`).
    pub fn streams_keep_tasks(&self) -> Option<bool> {
        if self.task_survives_stream_close == Some(false)
            || self.task_survives_broken_stream == Some(false)
            || self.task_gone_after_undated_question
        {
            return Some(false);
        }
        self.task_survives_stream_close
    }
}

/// Profiles by peer, shared by every job of a consumer (cheap to clone).
#[derive(Debug, Clone, Default)]
pub struct ProfileCache {
    profiles: Arc<Mutex<BTreeMap<ProfileKey, PeerLifecycleProfile>>>,
}

impl ProfileCache {
    /// An empty cache.
    pub fn new() -> Self {
        Self::default()
    }

    /// The profile of `key`, unknown if never seen.
    pub fn get(&self, key: &ProfileKey) -> PeerLifecycleProfile {
        self.lock()
            .get(key)
            .cloned()
            .unwrap_or_else(|| PeerLifecycleProfile::unknown(key.clone()))
    }

    /// Records an observation about `key` and returns the updated profile.
    pub fn record(&self, key: &ProfileKey, observed: Observed) -> PeerLifecycleProfile {
        let mut profiles = self.lock();
        let profile = profiles
            .entry(key.clone())
            .or_insert_with(|| PeerLifecycleProfile::unknown(key.clone()));
        profile.record(observed);
        profile.clone()
    }

    /// Every profile, by key.
    pub fn snapshot(&self) -> Vec<PeerLifecycleProfile> {
        self.lock().values().cloned().collect()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, BTreeMap<ProfileKey, PeerLifecycleProfile>> {
        // A panic while holding the lock cannot leave a half-written profile: every update
        // is a single field assignment.
        self.profiles.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(version: &str) -> ProfileKey {
        ProfileKey {
            host: "go-replaying:8080".into(),
            card_version: version.into(),
        }
    }

    #[test]
    fn labels_are_the_probe_spelling() {
        assert_eq!(ResubscribeBehaviour::Error(-32004).label(), "error:-32004");
        assert_eq!(ResubscribeBehaviour::TaskNotFound.label(), "task-not-found");
        assert_eq!(
            serde_json::to_value(FollowupBehaviour::ResumesWithDuplicateSubmitted).unwrap(),
            "resumes-with-duplicate-submitted"
        );
    }

    #[test]
    fn anomalies_refresh_and_the_newest_observation_wins() {
        let cache = ProfileCache::new();
        cache.record(
            &key("1.0"),
            Observed::Resubscribe(ResubscribeBehaviour::Resumes),
        );
        let profile = cache.record(
            &key("1.0"),
            Observed::Resubscribe(ResubscribeBehaviour::Replays),
        );
        assert_eq!(
            profile.resubscribe_after_input_required,
            Some(ResubscribeBehaviour::Replays)
        );
        assert_eq!((profile.observations, profile.refreshes), (2, 1));
    }

    #[test]
    fn task_not_found_on_resubscribe_means_tasks_do_not_survive() {
        let cache = ProfileCache::new();
        let profile = cache.record(
            &key("1.0"),
            Observed::Resubscribe(ResubscribeBehaviour::TaskNotFound),
        );
        assert_eq!(profile.streams_keep_tasks(), Some(false));
    }

    #[test]
    fn a_task_lost_with_a_broken_stream_stops_streaming_until_one_survives() {
        let cache = ProfileCache::new();
        cache.record(&key("1.0"), Observed::TaskSurvivedStreamClose(true));
        let lost = cache.record(&key("1.0"), Observed::TaskSurvivedBrokenStream(false));
        assert_eq!(lost.streams_keep_tasks(), Some(false));
        assert_eq!(
            lost.task_survives_stream_close,
            Some(true),
            "the lifecycle field stays"
        );
        let kept = cache.record(&key("1.0"), Observed::TaskSurvivedBrokenStream(true));
        assert_eq!(kept.streams_keep_tasks(), Some(true));
    }

    #[test]
    fn a_task_gone_after_an_undated_question_stops_streaming_and_teaches_no_lifecycle() {
        let before = PeerLifecycleProfile::unknown(key("1.0"));
        let mut after = before.clone();
        after.record(Observed::TaskGoneAfterUndatedQuestion);
        assert_eq!(after.streams_keep_tasks(), Some(false));
        assert_eq!(after.changed_since(&before), Vec::new());
        assert_eq!((after.observations, after.refreshes), (1, 1));
    }

    #[test]
    fn a_change_names_the_lifecycle_fields_it_set_and_only_those() {
        let before = PeerLifecycleProfile::unknown(key("1.0"));
        let mut after = before.clone();
        after.record(Observed::Resubscribe(ResubscribeBehaviour::TaskNotFound));
        assert_eq!(
            after.changed_since(&before),
            vec![
                (
                    "resubscribe_after_input_required",
                    "task-not-found".to_string()
                ),
                ("task_survives_stream_close", "false".to_string()),
            ]
        );
        let mut again = after.clone();
        again.record(Observed::TaskSurvivedStreamClose(false));
        again.record(Observed::TaskSurvivedBrokenStream(true));
        assert_eq!(again.changed_since(&after), Vec::new(), "nothing new");
    }

    #[test]
    fn versions_are_separate_peers() {
        let cache = ProfileCache::new();
        cache.record(&key("1.0"), Observed::Followup(FollowupBehaviour::NewTask));
        assert_eq!(cache.get(&key("2.0")).followup_same_task, None);
        assert_eq!(
            cache.get(&key("1.0")).followup_same_task,
            Some(FollowupBehaviour::NewTask)
        );
        assert_eq!(cache.snapshot().len(), 1);
    }
}
