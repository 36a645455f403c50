//! The `meshsim` binary as a user runs it (every subcommand, bad inputs, pipes and exit codes)
//! and `meshsim serve` on loopback: hardening, load and endpoint fuzzing.

mod hardening;
#[path = "../../runtimes/tests/personalities/support/mod.rs"]
mod support;

mod bad_inputs;
mod bisect;
mod cautions;
mod decode;
mod endpoint_fuzz;
mod fixed_steps;
mod merge;
mod meshsim;
mod pipes;
mod probe;
mod replay_shrink;
mod serve;
mod serve_hardening;
mod serve_load;
mod timeline;
mod version;
