//! The job a program is given: the contract's environment variables and the [`Order`] they
//! carry, written by `meshsim check` and read back by the program (`meshsim consume`).

use meshsim_consumer::{Deadlines, Job};
use meshsim_protocol::Dialect;
use std::{path::PathBuf, time::Duration};

/// The agent's base URL: its Agent Card is found from there.
pub const AGENT_URL: &str = "MESHSIM_AGENT_URL";
/// The dialect the agent speaks (`v0.1`, `v0.3` or `v1.0`), for programs that need to know.
pub const DIALECT: &str = "MESHSIM_DIALECT";
/// The job's name, unique within a run.
pub const JOB: &str = "MESHSIM_JOB";
/// The text of the message that starts the task.
pub const REQUEST: &str = "MESHSIM_REQUEST";
/// The text to answer with when the task asks for input.
pub const ANSWER: &str = "MESHSIM_ANSWER";
/// `1`: cancel the task when it asks for input instead of answering; `0` otherwise.
pub const CANCEL_AT_INPUT_REQUIRED: &str = "MESHSIM_CANCEL_AT_INPUT_REQUIRED";
/// Longest time a task may sit in `submitted` before the program acts, in ms.
pub const SUBMITTED_DEADLINE_MS: &str = "MESHSIM_SUBMITTED_DEADLINE_MS";
/// Longest time a task may sit in `working` (one turn) before the program acts, in ms.
pub const WORKING_DEADLINE_MS: &str = "MESHSIM_WORKING_DEADLINE_MS";
/// Longest time for the whole job, in ms; past it the program gives up.
pub const JOB_DEADLINE_MS: &str = "MESHSIM_JOB_DEADLINE_MS";
/// A seed the program may use for its own ids and choices.
pub const SEED: &str = "MESHSIM_SEED";
/// Where the program writes its report (JSON lines).
pub const REPORT: &str = "MESHSIM_REPORT";

/// Every variable of the contract, in the order `docs/check.md` lists them.
pub const VARIABLES: [&str; 11] = [
    AGENT_URL,
    DIALECT,
    JOB,
    REQUEST,
    ANSWER,
    CANCEL_AT_INPUT_REQUIRED,
    SUBMITTED_DEADLINE_MS,
    WORKING_DEADLINE_MS,
    JOB_DEADLINE_MS,
    SEED,
    REPORT,
];

/// One job handed to a consumer program.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Order {
    /// The job; its `peer` is the agent's base URL.
    pub job: Job,
    pub dialect: Dialect,
    pub seed: u64,
    pub report: PathBuf,
}

impl Order {
    /// The environment variables that hand this order to a program.
    pub fn env(&self) -> Vec<(&'static str, String)> {
        let millis = |duration: Duration| duration.as_millis().to_string();
        let deadlines = &self.job.deadlines;
        vec![
            (AGENT_URL, self.job.peer.clone()),
            (DIALECT, self.dialect.to_string()),
            (JOB, self.job.name.clone()),
            (REQUEST, self.job.request.clone()),
            (ANSWER, self.job.answer.clone()),
            (
                CANCEL_AT_INPUT_REQUIRED,
                u8::from(self.job.cancel_at_input_required).to_string(),
            ),
            (SUBMITTED_DEADLINE_MS, millis(deadlines.submitted)),
            (WORKING_DEADLINE_MS, millis(deadlines.working)),
            (JOB_DEADLINE_MS, millis(deadlines.job)),
            (SEED, self.seed.to_string()),
            (REPORT, self.report.display().to_string()),
        ]
    }

    /// The order a program was started with, read through `lookup` (the process
    /// environment, in a program); one line naming the variable when one is missing or bad.
    pub fn from_env(lookup: impl Fn(&str) -> Option<String>) -> Result<Order, String> {
        let get = |name: &str| {
            lookup(name).ok_or_else(|| {
                format!("{name} is not set: run this under `meshsim check` (see docs/check.md)")
            })
        };
        let number = |name: &str| -> Result<u64, String> {
            let text = get(name)?;
            text.parse()
                .map_err(|_| format!("{name}={text:?} is not a whole number"))
        };
        let millis = |name: &str| number(name).map(Duration::from_millis);
        let dialect: Dialect = get(DIALECT)?
            .parse()
            .map_err(|error| format!("{DIALECT}: {error}"))?;
        let cancel = match get(CANCEL_AT_INPUT_REQUIRED)?.as_str() {
            "1" => true,
            "0" => false,
            other => {
                return Err(format!(
                    "{CANCEL_AT_INPUT_REQUIRED}={other:?} is not 0 or 1"
                ));
            }
        };
        Ok(Order {
            job: Job {
                name: get(JOB)?,
                peer: get(AGENT_URL)?,
                request: get(REQUEST)?,
                answer: get(ANSWER)?,
                deadlines: Deadlines {
                    submitted: millis(SUBMITTED_DEADLINE_MS)?,
                    working: millis(WORKING_DEADLINE_MS)?,
                    job: millis(JOB_DEADLINE_MS)?,
                },
                cancel_at_input_required: cancel,
            },
            dialect,
            seed: number(SEED)?,
            report: PathBuf::from(get(REPORT)?),
        })
    }
}
