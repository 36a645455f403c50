//! The fixed lifecycle probe behind `meshsim probe`: measures what a real agent does with a
//! task's lifecycle and sets it beside what its Card claims.
//!
//! Steps: fetch the Card (and choose the binding from it, as every client does: the first
//! of its interfaces the client speaks); start a streamed task and read it to
//! `input-required` (where the agent gets there); watch whether the stream closes on its own
//! (closing it from this side if not); `tasks/get` to see whether the task outlived its
//! stream; resubscribe; follow up with the same `taskId`; get; cancel whatever is left.
//! The walk is in `walk`, what it reports in `report`, the comparison with the Card in
//! `contradictions`.

mod contradictions;
mod report;
mod walk;

pub use contradictions::contradictions;
pub use report::{CardClaims, Contradiction, ProbeConfig, ProbeReport};
pub use walk::probe;
