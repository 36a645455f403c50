//! `meshsim check`: judge a consumer program written in any language. The program runs
//! against the scenario's runtimes on real loopback TCP, behind a proxy that injects the
//! scenario's faults as triggers on the exchange ([`faults`], [`proxy`]); it does its job
//! and writes a report by the [`contract`]; the run is judged by the simulation's own
//! [`oracle`](crate::oracle) from the runtimes' task records, read in-process, and the
//! report ([`run`]). [`sweep`] makes many runs at once; [`consume`] runs the built-in
//! consumers as such programs.

pub mod consume;
pub mod contract;
pub mod faults;
pub mod program;
pub mod proxy;
pub mod run;
pub mod sweep;
pub mod timeline;

pub use contract::{Order, ReportInvalid, parse_report, report_lines};
pub use faults::{Strike, Trigger};
pub use program::{Ending, Program};
pub use run::{CheckResult, CheckSpec, CheckVerdict, check};
pub use sweep::{CheckSweep, CheckTally};
