//! `meshsim check`: judge a consumer program written in any language. The program runs
//! against the scenario's runtimes on real loopback TCP, behind a proxy that injects the
//! scenario's faults as triggers on the exchange ([`Strike`], [`Trigger`]); it does its job
//! and writes a report by the [`contract`]; the run is judged by
//! the simulation's own oracle from the runtimes' task records, read in-process, and the
//! report ([`check()`]). [`CheckSweep`] makes many runs at once; [`consume()`] runs the
//! built-in consumers as such programs. The [`contract`] (the job a program is given and
//! its report) and the [`timeline`] page are namespaces.

mod consume;
pub mod contract;
mod faults;
mod program;
mod proxy;
mod run;
mod sweep;
pub mod timeline;
mod timer_lateness;

pub use consume::consume;
pub use faults::{Strike, Trigger};
pub use program::{Ending, Program};
pub use proxy::Exchange;
pub use run::{CheckResult, CheckSpec, CheckVerdict, JobCheck, check};
pub use sweep::{AnnounceRun, CheckCell, CheckSweep, CheckTally, SweepStopped};
