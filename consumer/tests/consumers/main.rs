//! The consumers and their client against runtimes: the origin incident, cancellation,
//! deadlines, client errors, probing over TCP, and the sidecar.

mod support;

mod cancel;
mod client_errors;
mod deadlines;
mod incident;
mod probe_tcp;
mod sidecar;
