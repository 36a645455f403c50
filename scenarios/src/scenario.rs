//! The scenarios: who stands where in the mesh, what the consumer is asked to do, and which
//! faults always strike (on top of whatever the swarm draws).

use meshsim_consumer::Deadlines;
use meshsim_runtimes::{Personality, Sidecar};
use meshsim_sim::{Fault, Seed, TimedFault};
use rand::Rng;
use serde::Serialize;
use std::fmt;
use std::str::FromStr;
use std::time::Duration;

/// The port every agent (and sidecar) listens on inside the simulation.
pub const AGENT_PORT: u16 = 9000;
/// The simulated host that runs the consumer.
pub const CONSUMER_HOST: &str = "consumer";
/// The simulated host of the sidecar proxy, when a scenario has one.
pub const SIDECAR_HOST: &str = "sidecar";
/// The text the consumer answers a runtime's question with.
pub const ANSWER: &str = "as plain text, please";

/// A named situation to run a consumer through.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Scenario {
    /// The origin incident: stream to input-required, stream closes, resubscribe, follow up.
    OriginIncident,
    /// The task is canceled while it waits at input-required.
    CancelAtInputRequired,
    /// A sidecar in front of the runtime cuts the stream while the task works.
    SidecarCut,
    /// The runtime crashes while the task works, and comes back with an empty store.
    CrashBounce,
    /// The link to the runtime partitions around the time the consumer resubscribes.
    PartitionDuringResubscribe,
    /// The runtime's worker is wedged: its first task never leaves `submitted`.
    StuckInSubmitted,
    /// Many concurrent jobs across runtimes of different personalities.
    HeterogeneousMesh,
}

impl Scenario {
    /// Every scenario; the origin incident first (it is the default).
    pub const ALL: [Scenario; 7] = [
        Scenario::OriginIncident,
        Scenario::CancelAtInputRequired,
        Scenario::SidecarCut,
        Scenario::CrashBounce,
        Scenario::PartitionDuringResubscribe,
        Scenario::StuckInSubmitted,
        Scenario::HeterogeneousMesh,
    ];

    /// The name used on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Scenario::OriginIncident => "origin-incident",
            Scenario::CancelAtInputRequired => "cancel-at-input-required",
            Scenario::SidecarCut => "sidecar-cut",
            Scenario::CrashBounce => "crash-bounce",
            Scenario::PartitionDuringResubscribe => "partition-during-resubscribe",
            Scenario::StuckInSubmitted => "stuck-in-submitted",
            Scenario::HeterogeneousMesh => "heterogeneous-mesh",
        }
    }

    /// One line for `meshsim list`.
    pub fn summary(self) -> &'static str {
        match self {
            Scenario::OriginIncident => {
                "the origin incident: input-required, stream closed, resubscribe, follow-up"
            }
            Scenario::CancelAtInputRequired => "the consumer cancels the task at input-required",
            Scenario::SidecarCut => {
                "a sidecar's route timeout cuts the stream of a long task while it works"
            }
            Scenario::CrashBounce => "the runtime crashes and restarts empty while the task works",
            Scenario::PartitionDuringResubscribe => {
                "the consumer's link to the runtime partitions around the resubscribe"
            }
            Scenario::StuckInSubmitted => {
                "the runtime's first task never leaves submitted (the consumer's deadline)"
            }
            Scenario::HeterogeneousMesh => {
                "six concurrent jobs over the runtime under test and the origin incident's three runtimes"
            }
        }
    }

    /// Lays the scenario out around `runtime`, the personality under test. `seed` draws
    /// the timing of scripted faults.
    pub fn layout(self, runtime: &Personality, seed: Seed) -> Layout {
        let single = |job: JobSpec| Layout {
            agents: vec![AgentSpec::new("agent", runtime.clone())],
            jobs: vec![job],
            sidecar: runtime.sidecar,
            scripted: Vec::new(),
        };
        let mut rng = seed.rng_for("scenario");
        match self {
            Scenario::OriginIncident => single(JobSpec::ask("incident", 0, "Summarise the report")),
            Scenario::CancelAtInputRequired => {
                let mut job = JobSpec::ask("cancel", 0, "Draft a reply to the customer");
                job.cancel_at_input_required = true;
                single(job)
            }
            Scenario::SidecarCut => {
                let mut layout = single(JobSpec::ask("long", 0, "#long crunch the numbers"));
                // The scenario's own route timeout, under the runtime's idle timeout if it
                // is deployed behind a sidecar; it counts from each request's arrival, so it
                // lets a late Card through as long after its delay.
                let card_delay_ms = runtime.card_delay_ms.unwrap_or(0);
                layout.sidecar = Some(Sidecar {
                    route_timeout_ms: Some(rng.random_range(300..=900) + card_delay_ms),
                    idle_timeout_ms: runtime.sidecar.and_then(|sidecar| sidecar.idle_timeout_ms),
                });
                layout
            }
            Scenario::CrashBounce => {
                let mut layout = single(JobSpec::ask("long", 0, "#long crunch the numbers"));
                let crash_at = rng.random_range(300..=900);
                let down_for = rng.random_range(50..=600);
                layout.scripted = vec![
                    TimedFault::new(
                        crash_at,
                        Fault::Crash {
                            host: "agent".into(),
                        },
                    ),
                    TimedFault::new(
                        crash_at + down_for,
                        Fault::Bounce {
                            host: "agent".into(),
                        },
                    ),
                ];
                layout
            }
            Scenario::PartitionDuringResubscribe => {
                let mut layout = single(JobSpec::ask("incident", 0, "Summarise the report"));
                let start = rng.random_range(200..=800);
                let length = rng.random_range(200..=1500);
                let link = || (CONSUMER_HOST.to_string(), "agent".to_string());
                let (a, b) = link();
                let (c, d) = link();
                layout.scripted = vec![
                    TimedFault::new(start, Fault::Partition { a, b }),
                    TimedFault::new(start + length, Fault::Repair { a: c, b: d }),
                ];
                layout
            }
            Scenario::StuckInSubmitted => {
                let mut personality = runtime.clone();
                personality.stalled_first_tasks = 1;
                let mut job = JobSpec::ask("stuck", 0, "Summarise the report");
                job.deadlines.submitted = Duration::from_secs(2);
                Layout {
                    sidecar: personality.sidecar,
                    agents: vec![AgentSpec::new("agent", personality)],
                    jobs: vec![job],
                    scripted: Vec::new(),
                }
            }
            Scenario::HeterogeneousMesh => {
                let mut agents = vec![AgentSpec::new("agent-0", runtime.clone())];
                for (index, name) in ["python-correct", "go-replaying", "jvm-reaping"]
                    .into_iter()
                    .enumerate()
                {
                    if let Some(peer) = meshsim_runtimes::builtin(name) {
                        agents.push(AgentSpec::new(&format!("agent-{}", index + 1), peer));
                    }
                }
                let requests = [
                    "Summarise the report",
                    "#complete translate the memo",
                    "#ask-twice plan the offsite",
                    "Summarise the minutes",
                    "#fail parse the scanned fax",
                    "Draft the release notes",
                ];
                let jobs = requests
                    .iter()
                    .enumerate()
                    .map(|(index, request)| {
                        JobSpec::ask(&format!("job-{index}"), index % agents.len(), request)
                    })
                    .collect();
                Layout {
                    agents,
                    jobs,
                    sidecar: runtime.sidecar,
                    scripted: Vec::new(),
                }
            }
        }
    }
}

impl fmt::Display for Scenario {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Scenario {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Scenario::ALL
            .into_iter()
            .find(|scenario| scenario.name() == s)
            .ok_or_else(|| {
                let names: Vec<_> = Scenario::ALL.iter().map(|s| s.name()).collect();
                format!(
                    "unknown scenario `{s}` (expected one of: {})",
                    names.join(", ")
                )
            })
    }
}

impl Serialize for Scenario {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.name())
    }
}

/// One runtime host of a layout.
#[derive(Debug, Clone)]
pub struct AgentSpec {
    pub host: String,
    pub personality: Personality,
}

impl AgentSpec {
    fn new(host: &str, personality: Personality) -> Self {
        AgentSpec {
            host: host.to_string(),
            personality,
        }
    }
}

/// One job the consumer runs, against `agents[agent]`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JobSpec {
    pub name: String,
    pub agent: usize,
    pub request: String,
    pub answer: String,
    pub deadlines: Deadlines,
    /// Cancel the task at input-required instead of answering.
    pub cancel_at_input_required: bool,
}

impl JobSpec {
    fn ask(name: &str, agent: usize, request: &str) -> Self {
        JobSpec {
            name: name.to_string(),
            agent,
            request: request.to_string(),
            answer: ANSWER.to_string(),
            deadlines: Deadlines {
                submitted: Duration::from_secs(5),
                working: Duration::from_secs(20),
                job: Duration::from_secs(30),
            },
            cancel_at_input_required: false,
        }
    }
}

/// A scenario laid out: the hosts, the jobs and the faults that always strike.
#[derive(Debug, Clone)]
pub struct Layout {
    /// The runtime hosts; the first is the runtime under test.
    pub agents: Vec<AgentSpec>,
    pub jobs: Vec<JobSpec>,
    /// A sidecar proxy in front of the first agent (the runtime under test).
    pub sidecar: Option<Sidecar>,
    /// Faults of the scenario itself, merged into the run's plan.
    pub scripted: Vec<TimedFault>,
}

impl Layout {
    /// The host a job's requests go to (the sidecar, when there is one, fronts agent 0).
    pub fn entry_host(&self, job: &JobSpec) -> &str {
        match self.sidecar {
            Some(_) if job.agent == 0 => SIDECAR_HOST,
            _ => &self.agents[job.agent].host,
        }
    }
}
