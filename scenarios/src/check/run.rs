//! One check run: a (seed, scenario, runtime, dialect) laid out on real loopback TCP, the
//! consumer program started once per job of the scenario, and the run judged by the same
//! oracle as the simulation, from the runtimes' task records (read in-process), the
//! programs' reports and which task ids the proxies sent each program.

use super::contract::{self, Order, ReportInvalid};
use super::faults::{self, Strike};
use super::program::{self, Ending, Program};
use super::proxy::{Agent, Announce, Exchange, ProxyLog};
use super::timer_lateness::{self, TimerLateness};
use crate::file_name::{file_safe, label_in_file_name};
use crate::invariant::Invariant;
use crate::oracle::{self, Evidence, JobRun, Violation};
use crate::run_spec::RuntimeChoice;
use crate::scenario::Scenario;
use crate::shell_word;
use futures_util::future::join_all;
use meshsim_consumer::{Job, JobReport};
use meshsim_protocol::Dialect;
use meshsim_protocol::clock::Clock;
use meshsim_runtimes::{Fate, GroundTruth, Runtime, TaskTruth};
use meshsim_sim::SimTime;
use meshsim_sim::seed_names;
use meshsim_sim::{Seed, Trace};
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;
use std::time::Duration;

/// How long a run waits, once its programs have ended, for the streams they opened to close.
const STREAMS_CLOSE_BOUND: Duration = Duration::from_secs(2);

/// Everything that identifies a check run.
#[derive(Debug, Clone)]
pub struct CheckSpec {
    pub seed: Seed,
    pub scenario: Scenario,
    pub runtime: RuntimeChoice,
    pub dialect: Dialect,
    pub program: Program,
    /// The name the program's reports go under.
    pub name: String,
    /// How long a program may run before it is killed.
    pub bound: Duration,
    /// Whether the scenario's faults are struck (`--no-faults` runs its jobs against a
    /// runtime nothing disturbs).
    pub strike_faults: bool,
    /// Which repetition of this run it is (from 0; `--repeat`).
    pub repetition: u32,
    /// How many times the run is made (`--repeat`).
    pub repeat: u32,
    /// Where reports and logs are written.
    pub workdir: PathBuf,
}

impl CheckSpec {
    /// The `meshsim check` command that runs this (seed, scenario, runtime, dialect) again,
    /// as often and under the name it was run with.
    pub fn rerun_command(&self) -> String {
        let mut command = format!(
            "meshsim check --runtime {} --scenario {} --dialect {} --seed-range {}..{} --timeout-secs {}",
            shell_word::quote(&self.runtime.label),
            self.scenario,
            self.dialect,
            self.seed.value(),
            self.seed.value() + 1,
            self.bound.as_secs(),
        );
        if !self.strike_faults {
            command.push_str(" --no-faults");
        }
        if self.repeat > 1 {
            command.push_str(&format!(" --repeat {}", self.repeat));
        }
        if self.name != self.program.name() {
            command.push_str(&format!(" --name {}", shell_word::quote(&self.name)));
        }
        command + " -- " + &self.program.shell_words()
    }

    /// A file-name-safe stem naming this run (see [`label_in_file_name`]).
    pub fn stem(&self) -> String {
        file_safe(&format!(
            "{}-{}-{}-seed{}-r{}",
            self.scenario,
            label_in_file_name(&self.runtime.label),
            self.dialect,
            self.seed.value(),
            self.repetition
        ))
    }
}

/// A check run's verdict, worst first: a program that failed or broke the contract is not
/// judged as if it had run correctly.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum CheckVerdict {
    /// A program exited non-zero, was killed at the bound or could not start.
    ProgramFailed,
    /// A program's report is missing or breaks the contract.
    ReportInvalid,
    /// The oracle found violations.
    Violated,
    Holds,
}

impl CheckVerdict {
    pub fn name(self) -> &'static str {
        match self {
            CheckVerdict::ProgramFailed => "program-failed",
            CheckVerdict::ReportInvalid => "report-invalid",
            CheckVerdict::Violated => "violated",
            CheckVerdict::Holds => "holds",
        }
    }
}

/// What became of one job's program.
#[derive(Debug, Clone, Serialize)]
pub struct JobCheck {
    pub job: String,
    #[serde(flatten)]
    pub ending: Ending,
    /// Why its report breaks the contract, if it does.
    pub report_invalid: Option<ReportInvalid>,
    /// The program's report and output.
    pub report: PathBuf,
    pub log: PathBuf,
}

/// What a check run produced.
#[derive(Debug, Clone)]
pub struct CheckResult {
    pub spec: CheckSpec,
    pub verdict: CheckVerdict,
    pub jobs: Vec<JobCheck>,
    pub violations: Vec<Violation>,
    /// The faults that struck, in the order they did.
    pub strikes: Vec<Strike>,
    /// Every call the proxies relayed, and how each ended.
    pub exchanges: Vec<Exchange>,
    /// Each runtime host's task records at the end, times counted from the run's start.
    pub truths: BTreeMap<String, Vec<TaskTruth>>,
    /// Wall time of the run.
    pub elapsed_ms: u64,
    /// The most the check's own timers fired late during the run: how busy the machine was
    /// (a run whose deadlines were missed by about as much may have missed them for it).
    pub timers_late_ms: u64,
    pub reports: Vec<JobReport>,
}

impl CheckResult {
    /// Deletes the run's reports and logs (a run that held needs no second look).
    pub fn forget_files(&self) {
        for job in &self.jobs {
            let _ = std::fs::remove_file(&job.report);
            let _ = std::fs::remove_file(&job.log);
        }
    }

    /// The calls an agent answered with an error, in the order their relays ended. Not a
    /// problem in itself (a reconciling consumer meets -32001 for a reaped task), but where
    /// a job gave up they often say why.
    pub fn refused(&self) -> impl Iterator<Item = &Exchange> {
        self.exchanges
            .iter()
            .filter(|exchange| exchange.refusal.is_some())
    }

    /// How busy the machine was during the run, from how late the check's timers fired,
    /// and what a reader of a run on a busy one should know.
    pub fn machine_line(&self) -> String {
        timer_lateness::described(self.timers_late_ms)
    }

    /// One line per problem: programs that failed, reports that break the contract, and
    /// the oracle's violations.
    pub fn problems(&self) -> Vec<String> {
        let mut lines = Vec::new();
        for job in &self.jobs {
            if job.ending != Ending::Success {
                lines.push(format!(
                    "program-failed: job {}: the program {} (its output: {})",
                    job.job,
                    job.ending,
                    job.log.display()
                ));
            }
            if let Some(invalid) = &job.report_invalid {
                lines.push(format!("report-invalid: job {}: {invalid}", job.job));
            }
        }
        for violation in &self.violations {
            lines.push(format!(
                "{}: job {}{}: {}",
                violation.invariant,
                violation.job,
                violation
                    .task
                    .as_ref()
                    .map(|task| format!(" task {task}"))
                    .unwrap_or_default(),
                violation.detail
            ));
        }
        lines
    }
}

/// Runs `spec` and judges it; `announce` hears each fault as it strikes.
pub async fn check(spec: &CheckSpec, announce: Option<Announce>) -> Result<CheckResult, String> {
    let clock = Clock::wall();
    let started = clock.now();
    let lateness = TimerLateness::start();
    let layout = spec.scenario.layout(
        &spec.runtime.personality,
        spec.seed.derive(seed_names::WORKLOAD),
    );
    let plan = if spec.strike_faults {
        faults::plan(spec.scenario, spec.seed)
    } else {
        Vec::new()
    };
    let log = ProxyLog::announced(announce);
    let mut truths: BTreeMap<String, GroundTruth> = BTreeMap::new();
    let mut agents = Vec::new();
    for (index, spec_agent) in layout.agents.iter().enumerate() {
        let host_seed = spec
            .seed
            .derive(seed_names::HOSTS)
            .derive(&spec_agent.host)
            .value();
        let runtime = Runtime::new(
            spec_agent.personality.clone(),
            spec.dialect,
            clock.clone(),
            host_seed,
        );
        truths.insert(spec_agent.host.clone(), runtime.truth());
        let triggers = plan
            .iter()
            .filter(|aimed| aimed.agent == index)
            .map(|aimed| aimed.trigger)
            .collect();
        let agent = Agent::start(&spec_agent.host, runtime, triggers, log.clone())
            .map_err(|error| format!("cannot start the runtime: {error}"))?;
        agents.push(agent);
    }
    // Each job's program meets its agent at a port of its own, so that the proxy knows
    // whose each call is.
    let mut servers = Vec::new();
    let mut urls = Vec::new();
    for job in &layout.jobs {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .map_err(|error| format!("cannot listen on loopback: {error}"))?;
        let address = listener
            .local_addr()
            .map_err(|error| format!("cannot read the proxy's address: {error}"))?;
        let door = agents[job.agent].router(&job.name);
        servers.push(tokio::spawn(meshsim_sim::serve(listener, door)));
        urls.push(format!("http://{address}"));
    }

    let consumer_seed = spec.seed.derive("consumer");
    let stem = spec.stem();
    let orders: Vec<(Order, String, PathBuf)> = layout
        .jobs
        .iter()
        .zip(urls)
        .map(|(job, url)| {
            let order = Order {
                job: Job {
                    name: job.name.clone(),
                    peer: url,
                    request: job.request.clone(),
                    answer: job.answer.clone(),
                    deadlines: job.deadlines,
                    cancel_at_input_required: job.cancel_at_input_required,
                },
                dialect: spec.dialect,
                seed: consumer_seed.derive(&job.name).value(),
                report: spec
                    .workdir
                    .join(format!("{stem}-{}.report.jsonl", job.name)),
            };
            let log = spec.workdir.join(format!("{stem}-{}.log", job.name));
            (order, layout.agents[job.agent].host.clone(), log)
        })
        .collect();
    // Each program's ending, and when it ended: a program's acts are not traced, so its
    // exit is when its job's violations are dated.
    let endings = join_all(orders.iter().map(|(order, _, log)| async {
        let ending = program::run(&spec.program, order, log, spec.bound).await;
        (ending, clock.now().saturating_sub(started))
    }))
    .await;
    // Every stream a program opened is closed before the run is judged (a runtime that
    // ends a task with its stream has ended it, as in the simulation, where the run goes on
    // past its consumer's end). A program's child left holding one is killed with its
    // group, so the wait is short; the bound is for a proxy that never sees the close.
    log.streams_closed(STREAMS_CLOSE_BOUND).await;
    let end = clock.now().saturating_sub(started);
    let timers_late_ms = lateness.stop();

    let mut jobs = Vec::new();
    let mut job_runs = Vec::new();
    let mut job_ends = BTreeMap::new();
    for ((order, host, log), (ending, ended)) in orders.into_iter().zip(endings) {
        job_ends.insert(order.job.name.clone(), ended);
        let parsed = contract::read_report(&order.report)
            .and_then(|text| contract::parse_report(&text, &order.job, &spec.name));
        let (report, report_invalid) = match parsed {
            Ok(report) => (Some(report), None),
            Err(invalid) => (None, Some(invalid)),
        };
        jobs.push(JobCheck {
            job: order.job.name.clone(),
            ending,
            report_invalid,
            report: order.report.clone(),
            log,
        });
        job_runs.push(JobRun {
            job: order.job,
            host,
            report,
        });
    }
    let empty_trace: Trace = meshsim_sim::Recorder::new(SimTime::new()).trace();
    let personalities = layout
        .agents
        .iter()
        .map(|agent| (agent.host.clone(), agent.personality.clone()))
        .collect();
    let mut violations = oracle::check(&Evidence {
        jobs: &job_runs,
        truths: &truths,
        profiles: &BTreeMap::new(),
        personalities: &personalities,
        converged: true,
        consumer_failure: None,
        end,
        faults_end: log.faults_end(),
        deliveries: &log.deliveries(),
        trace: &empty_trace,
        job_ends: &job_ends,
        epoch: started,
    });
    // A job without a report already has its verdict (report-invalid, or program-failed):
    // it did not run out of time, whatever `liveness` would read into the missing report.
    let unreported: BTreeSet<&str> = job_runs
        .iter()
        .filter(|run| run.report.is_none())
        .map(|run| run.job.name.as_str())
        .collect();
    violations.retain(|violation| {
        violation.invariant != Invariant::Liveness || !unreported.contains(violation.job.as_str())
    });
    let records = truths
        .iter()
        .map(|(host, truth)| {
            let tasks = truth.tasks().into_iter().map(|task| since(task, started));
            (host.clone(), tasks.collect())
        })
        .collect();
    for agent in &agents {
        agent.stop();
    }
    for server in servers {
        server.abort();
    }
    let verdict = jobs
        .iter()
        .map(|job| {
            if job.ending != Ending::Success {
                CheckVerdict::ProgramFailed
            } else if job.report_invalid.is_some() {
                CheckVerdict::ReportInvalid
            } else {
                CheckVerdict::Holds
            }
        })
        .chain(std::iter::once(if violations.is_empty() {
            CheckVerdict::Holds
        } else {
            CheckVerdict::Violated
        }))
        .min()
        .unwrap_or(CheckVerdict::Holds);
    Ok(CheckResult {
        spec: spec.clone(),
        verdict,
        jobs,
        violations,
        strikes: log.strikes(),
        exchanges: log.exchanges(),
        elapsed_ms: u64::try_from(end.as_millis()).unwrap_or(u64::MAX),
        timers_late_ms,
        reports: job_runs.into_iter().filter_map(|run| run.report).collect(),
        truths: records,
    })
}

/// `task` with its times counted from `start` instead of the Unix epoch.
fn since(mut task: TaskTruth, start: Duration) -> TaskTruth {
    task.created_at = task.created_at.saturating_sub(start);
    for transition in &mut task.transitions {
        transition.at = transition.at.saturating_sub(start);
    }
    task.fate = task.fate.map(|fate| match fate {
        Fate::Reaped { at, reason } => Fate::Reaped {
            at: at.saturating_sub(start),
            reason,
        },
        Fate::Lost { at } => Fate::Lost {
            at: at.saturating_sub(start),
        },
    });
    task
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(label: &str) -> CheckSpec {
        let personality = meshsim_runtimes::builtin("python-correct").expect("a built-in");
        CheckSpec {
            seed: Seed::new(3),
            scenario: Scenario::OriginIncident,
            runtime: RuntimeChoice::named(label, personality),
            dialect: Dialect::V1_0,
            program: Program {
                command: "python3".into(),
                args: vec!["mine.py".into()],
            },
            name: "mine".into(),
            bound: Duration::from_secs(60),
            strike_faults: true,
            repetition: 0,
            repeat: 1,
            workdir: PathBuf::from("/tmp"),
        }
    }

    #[test]
    fn labels_written_alike_name_different_files_and_a_plain_one_keeps_its_name() {
        assert_ne!(spec("pp/a b.json").stem(), spec("pp/a_b.json").stem());
        assert_eq!(
            spec("python-correct").stem(),
            "origin-incident-python-correct-v1.0-seed3-r0"
        );
    }

    #[test]
    fn the_rerun_command_keeps_no_faults_the_repeat_and_a_name_of_its_own() {
        let plain = spec("python-correct");
        assert!(!plain.rerun_command().contains("--no-faults"));
        assert!(!plain.rerun_command().contains("--repeat"));
        assert!(!plain.rerun_command().contains("--name"));
        let again = CheckSpec {
            strike_faults: false,
            repeat: 3,
            name: "my name".into(),
            ..plain
        };
        assert!(
            again
                .rerun_command()
                .ends_with("--no-faults --repeat 3 --name 'my name' -- python3 mine.py"),
            "{}",
            again.rerun_command()
        );
    }
}
