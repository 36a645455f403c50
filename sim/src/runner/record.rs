//! What a run leaves behind: the [`RunRecord`] (serialisable, small) and the trace.

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::rc::Rc;

use serde::{Deserialize, Serialize};

use crate::fault::FaultPlan;
use crate::trace::{Trace, TraceHash};

/// Each node's report while the run goes on, by node name (shared by the supervised nodes
/// and the fault applier).
pub(super) type Reports = Rc<RefCell<BTreeMap<String, NodeReport>>>;

/// How a node's software ended (for a host: its latest incarnation).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "status", rename_all = "snake_case")]
pub enum NodeOutcome {
    /// Returned `Ok`.
    Ok,
    /// Returned an error or panicked.
    Err { error: String },
    /// Crashed and not restarted when the run ended.
    Crashed,
    /// Still running when the run ended.
    Unfinished,
}

/// Whether a node is a restartable host or a run-once client.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    /// Software from a factory; can crash and bounce.
    Host,
    /// One future; the run waits for all clients.
    Client,
}

/// One node's fate.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct NodeReport {
    /// Host or client.
    pub role: Role,
    /// How its software ended.
    pub outcome: NodeOutcome,
    /// How many times its software started (1 + bounces that restarted it).
    pub starts: u32,
    /// How many times it was crashed.
    pub crashes: u32,
}

/// The record of one run: enough to identify it (seed, plan, hash) and judge it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunRecord {
    /// The root seed.
    pub seed: u64,
    /// The root seed in hex, as printed elsewhere.
    pub seed_hex: String,
    /// The faults that were scheduled.
    pub plan: FaultPlan,
    /// Hash of the canonical trace.
    pub trace_hash: TraceHash,
    /// Simulated time when the run stopped.
    pub elapsed_ms: u64,
    /// How many turmoil steps it took (fewer with idle fast-forward; the trace is the same).
    pub steps: u64,
    /// When the heal phase began, if the run got that far.
    pub healed_at_ms: Option<u64>,
    /// Every client finished before the liveness bound.
    pub converged: bool,
    /// The first failed safety check, if any (the run stops there).
    pub violation: Option<String>,
    /// Per node, by name.
    pub nodes: BTreeMap<String, NodeReport>,
}

/// A finished run: its record and its trace.
#[derive(Clone, Debug)]
pub struct Run {
    /// The record.
    pub record: RunRecord,
    /// The recorded trace (`record.trace_hash == *trace.hash()`).
    pub trace: Trace,
}
