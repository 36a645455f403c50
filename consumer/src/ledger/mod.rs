//! Reconciliation of one task's reported states into the sequence a consumer applies.
//!
//! A peer may replay a task's whole history on a resubscribe (with the original timestamps,
//! re-stamped, or with none), open a stream with a snapshot that repeats the next live
//! event, or emit a second `submitted` when a follow-up resumes the task. Timestamps alone
//! cannot tell these apart, so the ledger keys on position and content:
//!
//! - a state equal to the current one is a repeat, never applied twice;
//! - a state that matches an applied one by timestamp or status-message id is a duplicate;
//! - a `submitted` on a stream after the task has moved on opens an *alignment*: the next events
//!   are held while they match the applied sequence from its start (a further `submitted`
//!   among them is the duplicate a follow-up left in the peer's history, and is held without
//!   consuming anything of the applied sequence, as is a state said again right after
//!   itself). When the whole applied
//!   sequence has been matched the held events were a replay (on a resubscribe at once, on a
//!   turn once something new follows); when an event breaks the match, or a turn ends
//!   before anything new (its stream closes, or it holds a question the peer waits on:
//!   [`TaskLedger::holds_question`]), the held events were live after all and are judged
//!   one by one (the `submitted` as a duplicate);
//! - otherwise the event is judged by
//!   [`TaskState::move_from`](meshsim_protocol::TaskState::move_from): forward steps are
//!   applied, backward moves and anything after a terminal state are rejected.
//!
//! Everything here is a pure function of the observations: no I/O, no clock.

mod observation;
mod ruling;
mod task_ledger;

pub use observation::{ConnectionKind, EventKind, EventRef, Observation};
pub use ruling::{Applied, Ruling, StateVerdict};
pub use task_ledger::TaskLedger;

#[cfg(test)]
mod tests;
