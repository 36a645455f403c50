//! The consumers and their client against runtimes: the origin incident, cancellation,
//! deadlines, client errors, probing over TCP (runtimes and scripted odd agents), the sidecar,
//! and a state outside the spec.

mod scripted_agent;
mod support;

mod cancel;
mod client_errors;
mod deadlines;
mod incident;
mod probe_odd_agents;
mod probe_tcp;
mod sidecar;
mod unknown_state;
