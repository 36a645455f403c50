//! The contract between `meshsim check` and a consumer program, in any language (the
//! human-readable version is `docs/check.md`, the report's JSON Schema
//! `schemas/check-report.schema.json`).
//!
//! meshsim starts the program with the job in environment variables ([`Order`]); the
//! program does the job against the agent at `MESHSIM_AGENT_URL` with whatever client it
//! likes and writes its report to `MESHSIM_REPORT`: one JSON object per line ([`Line`]), one
//! per state it applied, task it learned of, deadline it enforced or task it abandoned, and
//! last its one outcome. [`read_report`] reads the file (a regular file, of bounded size,
//! in UTF-8), [`parse_report`] turns those lines into the [`JobReport`] the oracle
//! reads, or names the line and field that break the contract; [`report_lines`] writes a
//! [`JobReport`] in the same form (what `meshsim consume` does for the built-in consumers).
//!
//! [`JobReport`]: meshsim_consumer::JobReport

mod line;
mod order;
mod parse;
mod read;
#[cfg(test)]
mod tests;
mod write;

pub use line::{
    AbandonedLine, AppliedLine, Cancel, DeadlineLine, Ending, KINDS, Line, OutcomeLine, Source,
    TaskLine, Via,
};
pub use order::{
    AGENT_URL, ANSWER, CANCEL_AT_INPUT_REQUIRED, DIALECT, JOB, JOB_DEADLINE_MS, Order, REPORT,
    REQUEST, SEED, SUBMITTED_DEADLINE_MS, VARIABLES, WORKING_DEADLINE_MS,
};
pub use parse::{ReportInvalid, parse_report};
pub use read::{MOST_REPORT_BYTES, read_report};
pub use write::report_lines;
