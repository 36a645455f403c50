//! Integration tests of the harness: determinism across processes, swarm replay, the runner's
//! phases and outcomes, and serving on real TCP.

mod determinism;
mod fast_forward;
mod real_tcp;
mod runner;
mod shrink;
mod sse_mesh;
mod swarm_replay;
