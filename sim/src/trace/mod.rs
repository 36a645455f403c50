//! The trace of a run: every `tracing` event whose target starts with `meshsim`, stamped with
//! simulated time and the host it happened on, as canonical JSON lines; and the hash that
//! identifies the run. Events of other targets (the user's own) are printed, filtered by
//! `MESHSIM_LOG` or `RUST_LOG`, and never recorded (`user_log`).

mod canonical;
mod fields;
mod hash;
mod hosts;
mod interest;
mod layout;
mod recorder;
#[cfg(test)]
mod round_trip;
mod subscriber;
mod user_log;

#[cfg(test)]
pub(crate) use canonical::to_canonical_json;
pub(crate) use canonical::write_str;
pub use hash::TraceHash;
pub use recorder::{Recorder, Trace};
pub use subscriber::Installed;

/// The host name recorded for events that happen outside any host (faults, the runner).
pub const SIM_HOST: &str = "sim";
