//! What the oracle is given after a run: the jobs with what their consumers reported, each
//! host's ground truth, personality and real profile, the trace, and the run's times.

use meshsim_consumer::{Job, JobReport, PeerLifecycleProfile, ProfileKey, ledger::EventRef};
use meshsim_protocol::TaskState;
use meshsim_runtimes::{GroundTruth, Personality, TaskTruth};
use meshsim_sim::Trace;
use meshsim_trace::{TraceEvent, TraceLine};
use std::collections::BTreeMap;
use std::time::Duration;

/// One job of a run: what was asked, of which host, and what the consumer reported
/// (`None` when it never finished).
#[derive(Debug, Clone)]
pub struct JobRun {
    pub job: Job,
    pub host: String,
    pub report: Option<JobReport>,
}

/// A task id some job's consumer was sent: which job, and on which call to the host.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Delivery {
    /// The job whose connection received it; `None` for a connection the consumer opened
    /// outside every job's own future (a task it spawned: the simulation cannot tell for
    /// which job).
    pub job: Option<String>,
    /// The host's number for the call whose answer carried the id first (a check run's;
    /// the simulation does not number them).
    pub call: Option<u32>,
}

/// The job each task's id was first sent to, by (host, task id).
pub type Deliveries = BTreeMap<(String, String), Delivery>;

/// `task`, a task of `host`, was sent to `job` (in the answer to `call`); only an id's
/// first delivery is kept.
pub(crate) fn delivered(
    deliveries: &mut Deliveries,
    host: &str,
    task: String,
    job: Option<&str>,
    call: Option<u32>,
) {
    deliveries
        .entry((host.to_string(), task))
        .or_insert_with(|| Delivery {
            job: job.map(str::to_string),
            call,
        });
}

/// What the oracle is given after a run.
pub struct Evidence<'a> {
    pub jobs: &'a [JobRun],
    /// Each runtime host's ground truth, by host name.
    pub truths: &'a BTreeMap<String, GroundTruth>,
    /// Each host's real lifecycle profile, where the scenario makes it well defined.
    pub profiles: &'a BTreeMap<String, PeerLifecycleProfile>,
    /// Each runtime host's personality (what makes a job impossible).
    pub personalities: &'a BTreeMap<String, Personality>,
    /// Whether every client finished within the liveness bound.
    pub converged: bool,
    /// How the consumer's own software failed, if it did (it returned an error or
    /// panicked): the jobs it left without a report did not merely run out of time.
    pub consumer_failure: Option<&'a str>,
    /// Simulated time at the end of the run.
    pub end: Duration,
    /// When the run's faults were over (the heal at the chaos phase's end), zero for a run
    /// without faults: before it the peer may have been unreachable or restarting.
    pub faults_end: Duration,
    /// Which job each task's id reached first, so that a task a consumer was told of and
    /// left out of its report is still its own: from what `meshsim check`'s proxies relayed
    /// to the programs, or what a user's consumer's simulated connections received. Empty
    /// for the built-in consumers, which are judged by their reports.
    pub deliveries: &'a Deliveries,
    /// The run's trace: when the consumer applied what (where it traced it).
    pub trace: &'a Trace,
    /// When each job's consumer ended, by job name, where the trace cannot say: a `meshsim
    /// check` program's exit (its acts are not traced). Empty in the simulation, whose
    /// consumers trace their outcomes.
    pub job_ends: &'a BTreeMap<String, Duration>,
    /// The pinned epoch as a duration since the Unix epoch: ground-truth times minus this
    /// are times since the run started.
    pub epoch: Duration,
}

impl Evidence<'_> {
    pub(super) fn since_start(&self, at: Duration) -> u64 {
        millis(at.saturating_sub(self.epoch))
    }

    pub(super) fn end_ms(&self) -> u64 {
        millis(self.end)
    }

    /// When `job`'s consumer had done all it did for the job, in milliseconds since the
    /// start: its `outcome` trace line, or else its program's exit (`job_ends`), or else the
    /// run's end. Dates an act of the job that nothing traced.
    pub(super) fn job_end_ms(&self, job: &str) -> u64 {
        self.consumer_lines()
            .find_map(|line| match &line.event {
                TraceEvent::Outcome { job: traced, .. } if traced == job => Some(line.t_us / 1000),
                _ => None,
            })
            .or_else(|| self.job_ends.get(job).copied().map(millis))
            .unwrap_or_else(|| self.end_ms())
    }

    /// When the consumer applied `event` to `task` in `job`, from its `applied` trace line,
    /// in milliseconds since the start; `None` when it traced none (a user's consumer need
    /// not). Only read when a violation needs it, so a passing run pays nothing.
    pub(super) fn applied_at(&self, job: &str, task: &str, event: &EventRef) -> Option<u64> {
        // The task's field as the recorder writes it (canonical JSON escapes strings as
        // serde_json does): only the lines that name the task are parsed.
        let task_field = format!("\"task\":{}", serde_json::to_string(task).ok()?);
        self.trace
            .lines()
            .filter(|line| line.contains(&task_field))
            .filter_map(TraceLine::parse_applied)
            .find(|(_, applied)| {
                applied.job == job
                    && applied.task == task
                    && applied.connection == event.connection
                    && applied.index == event.index
            })
            .map(|(micros, _)| micros / 1000)
    }

    /// When the consumer that ran `job` learned that `field` of `peer`'s profile holds
    /// `value`: its last `profile-learned` line for the field up to the job's outcome (its
    /// profile cache is shared by its jobs, so another job's observation may have set it), in
    /// milliseconds since the start; `None` when it traced no such change.
    pub(super) fn learned_at(
        &self,
        job: &str,
        peer: &ProfileKey,
        field: &str,
        value: &str,
    ) -> Option<u64> {
        let lines: Vec<TraceLine> = self
            .consumer_lines()
            .take_while(|line| {
                !matches!(&line.event, TraceEvent::Outcome { job: ended, .. } if ended == job)
            })
            .collect();
        let consumer_host = lines.iter().find_map(|line| match &line.event {
            TraceEvent::JobStart { job: started, .. } if started == job => Some(&line.host),
            _ => None,
        })?;
        let (micros, learned) = lines.iter().rev().find_map(|line| match &line.event {
            TraceEvent::ProfileLearned {
                peer: learned_peer,
                card_version,
                field: learned_field,
                value,
                ..
            } if line.host == *consumer_host
                && *learned_peer == peer.host
                && *card_version == peer.card_version
                && learned_field == field =>
            {
                Some((line.t_us, value))
            }
            _ => None,
        })?;
        (learned == value).then_some(micros / 1000)
    }

    /// When `job`'s consumer traced a deadline of `task` in `state` expiring, each time, in
    /// milliseconds since the start (none in a run without a trace of the consumer).
    pub(super) fn deadlines_at(&self, job: &str, task: &str, state: TaskState) -> Vec<u64> {
        self.consumer_lines()
            .filter_map(|line| match &line.event {
                TraceEvent::Deadline {
                    job: traced_job,
                    task: traced_task,
                    state: traced_state,
                    ..
                } if traced_job == job && traced_task == task && *traced_state == state => {
                    Some(line.t_us / 1000)
                }
                _ => None,
            })
            .collect()
    }

    /// The consumers' trace lines, in the order they happened.
    fn consumer_lines(&self) -> impl Iterator<Item = TraceLine> + '_ {
        self.trace.lines().filter_map(TraceLine::parse_consumer)
    }

    pub(super) fn records(&self, host: &str, task: &str) -> Vec<TaskTruth> {
        self.truths
            .get(host)
            .map(|truth| truth.records(task))
            .unwrap_or_default()
    }
}

pub(super) fn millis(duration: Duration) -> u64 {
    u64::try_from(duration.as_millis()).unwrap_or(u64::MAX)
}
