//! The runtime personalities as a peer sees them: the origin incident's steps in process and over TCP,
//! each knob, personality files, the SDK-calibrated and TCK conventions, the bounded task
//! store, the sidecar, the simulated runtimes under turmoil, and the served bytes of every
//! method against the official schema or proto message of its response, requests with
//! values outside the spec, the HTTP+JSON binding beside JSON-RPC, and the knob choosing the
//! bindings served.

mod support;
// The official-spec checkers of the protocol's wire tests, for the served bytes.
#[path = "../../../protocol/tests/wire/support/proto.rs"]
mod proto;
#[path = "../../../protocol/tests/wire/support/spec.rs"]
mod spec;

mod bindings_knob;
mod bounded_store;
mod http_json;
mod knobs;
mod personality_files;
mod sdk_calibrated;
mod seed_steps;
mod seed_steps_tcp;
mod served_shapes;
mod sidecar;
mod simulated;
mod tck_conventions;
mod tenant_knob;
mod unknown_values;
