//! The runtime personalities as a peer sees them: the seed's steps in process and over TCP,
//! each knob, personality files, the SDK-calibrated and TCK conventions, the bounded task
//! store, the sidecar, and the simulated runtimes under turmoil.

mod support;

mod bounded_store;
mod knobs;
mod personality_files;
mod sdk_calibrated;
mod seed_steps;
mod seed_steps_tcp;
mod sidecar;
mod simulated;
mod tck_conventions;
