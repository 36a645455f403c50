//! The vocabulary of a run's trace: every event the harness records, as one typed enum
//! ([`TraceEvent`]), emitted through [`TraceEvent::emit`] and read back from a recorded line
//! into the same type by [`TraceLine::parse`].
//!
//! Emitting is a `tracing` event with a `meshsim::*` target; the simulation's recorder
//! (`meshsim_sim::Recorder`) stamps it with the host and the simulated time and writes it as one
//! canonical JSON line `{"fields":{..},"host":..,"level":..,"t_us":..,"target":..}`, whose
//! bytes the run's hash covers. This crate is the only place that knows which field names
//! an event has: the emitters name the event and give typed values, the readers (the oracle,
//! the timeline, `replay`) match on the variants. It depends on neither turmoil nor the
//! crates that emit, so the runtimes and the consumers can use it.

// Modules are private and the root re-exports what users name: a type that a public
// signature shows must be re-exported too, or users could hold it but not name it.
#![warn(unnameable_types)]

mod emit;
mod error_kind;
mod event;
mod line;
mod read;
mod target;

pub use error_kind::ErrorKind;
pub use event::{Applied, ConnectOutcome, JobOutcome, StreamEnd, TaskOrigin, TraceEvent};
pub use line::TraceLine;
pub use target::{
    CONSUMER_TARGET, FAULT_TARGET, NET_TARGET, NOTE_TARGET, RUNNER_TARGET, RUNTIME_TARGET,
};
