//! The invariants the oracle checks, by name. Each is stated in terms of ground truth that
//! only the simulation sees (the runtimes' task ledgers) against what a consumer reports.

use serde::{Serialize, Serializer};
use std::fmt;
use std::str::FromStr;

/// A named property every consumer run should hold.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Invariant {
    /// No state is applied more often than the task really entered it.
    NoDoubleApply,
    /// Every applied step is a legal move of the task state machine.
    LegalPath,
    /// At the end, the consumer's view of each task it still follows equals the runtime's.
    ViewMatchesTruth,
    /// No task is left live on a runtime once the consumer is done with it.
    NoOrphanedTask,
    /// Each job accepts exactly one outcome, the end its job asks for, and it is the
    /// runtime's real outcome.
    OneOutcome,
    /// A task that sat in `submitted` or `working` past the consumer's deadline was acted on.
    DeadlinesHonoured,
    /// After the heal phase every job finishes within the liveness bound.
    Liveness,
    /// What the consumer learned about a peer is what the peer's runtime really does.
    ProfileMatchesRuntime,
}

impl Invariant {
    /// Every invariant, in the order the oracle checks them.
    pub const ALL: [Invariant; 8] = [
        Invariant::NoDoubleApply,
        Invariant::LegalPath,
        Invariant::ViewMatchesTruth,
        Invariant::NoOrphanedTask,
        Invariant::OneOutcome,
        Invariant::DeadlinesHonoured,
        Invariant::Liveness,
        Invariant::ProfileMatchesRuntime,
    ];

    /// The kebab-case name used on the command line and in JSON.
    pub fn name(self) -> &'static str {
        match self {
            Invariant::NoDoubleApply => "no-double-apply",
            Invariant::LegalPath => "legal-path",
            Invariant::ViewMatchesTruth => "view-matches-truth",
            Invariant::NoOrphanedTask => "no-orphaned-task",
            Invariant::OneOutcome => "one-outcome",
            Invariant::DeadlinesHonoured => "deadlines-honoured",
            Invariant::Liveness => "liveness",
            Invariant::ProfileMatchesRuntime => "profile-matches-runtime",
        }
    }

    /// One sentence for `meshsim list`.
    pub fn description(self) -> &'static str {
        match self {
            Invariant::NoDoubleApply => {
                "no event applied twice: a state is applied at most as often as the runtime entered it"
            }
            Invariant::LegalPath => {
                "every applied step is legal (nothing back to submitted, nothing after a terminal state)"
            }
            Invariant::ViewMatchesTruth => {
                "at the end the consumer's view of each task equals the runtime's ground truth"
            }
            Invariant::NoOrphanedTask => {
                "no remote task the consumer knew of (it reported the task, or was sent its id) is left running"
            }
            Invariant::OneOutcome => {
                "each job has exactly one accepted outcome, the end its job asks for, and the runtime agrees with it (a completed one with the artifact the task holds)"
            }
            Invariant::DeadlinesHonoured => {
                "a task stuck in submitted or working past the consumer's deadline was canceled and re-dispatched, within a second of the deadline"
            }
            Invariant::Liveness => "after the heal phase every job finishes within the bound",
            Invariant::ProfileMatchesRuntime => {
                "the lifecycle profile the consumer learned equals the personality's real behaviour"
            }
        }
    }
}

impl fmt::Display for Invariant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Invariant {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Invariant::ALL
            .into_iter()
            .find(|invariant| invariant.name() == s)
            .ok_or_else(|| {
                let names: Vec<_> = Invariant::ALL.iter().map(|i| i.name()).collect();
                format!(
                    "unknown invariant `{s}` (expected one of: {})",
                    names.join(", ")
                )
            })
    }
}

impl Serialize for Invariant {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.name())
    }
}
