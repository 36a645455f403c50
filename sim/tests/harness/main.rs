//! Integration tests of the harness: determinism across processes, swarm replay, the runner's
//! phases and outcomes, serving on real TCP, and hyper-util's client over the connector.

mod callsite_interest;
mod determinism;
mod fast_forward;
mod hyper_util_client;
mod real_tcp;
mod runner;
mod shrink;
mod sse_mesh;
mod swarm_replay;
