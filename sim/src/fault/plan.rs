//! The fault plan: serde data, printable as JSON and replayable on its own.
//!
//! ```json
//! {"faults":[{"at_ms":200,"kind":"partition","a":"client-0","b":"agent-a"},
//!            {"at_ms":900,"kind":"repair","a":"client-0","b":"agent-a"}]}
//! ```

use std::collections::BTreeSet;
use std::time::Duration;

use serde::{Deserialize, Serialize};

/// One change to the simulated world. Link faults name two nodes (hosts or clients); crash
/// and bounce name a host (clients cannot be restarted).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Fault {
    /// Drop every message between `a` and `b`, both ways (in-flight ones too).
    Partition { a: String, b: String },
    /// Drop every message from `from` to `to`; the other direction still works.
    PartitionOneway { from: String, to: String },
    /// Undo partitions between `a` and `b` (held messages stay held).
    Repair { a: String, b: String },
    /// Undo a one-way partition from `from` to `to`.
    RepairOneway { from: String, to: String },
    /// Hold every message between `a` and `b` until released.
    Hold { a: String, b: String },
    /// Deliver held messages and make the link between `a` and `b` healthy.
    Release { a: String, b: String },
    /// Fix the latency between `a` and `b` at `ms` milliseconds.
    Latency { a: String, b: String, ms: u64 },
    /// Restore the run's configured latency range between `a` and `b`.
    LatencyReset { a: String, b: String },
    /// Break the link between `a` and `b` at random on a send, with probability
    /// `permille`/1000 (turmoil has no TCP retransmission: a lost segment stalls the stream).
    Loss { a: String, b: String, permille: u16 },
    /// Stop `host`'s software; it stays down until bounced (or healed).
    Crash { host: String },
    /// Restart `host`'s software (starting it if crashed).
    Bounce { host: String },
    /// Fire the named hook (see [`Hooks`](super::Hooks)).
    Hook { name: String },
}

impl Fault {
    /// The serde tag of this fault (`"partition"`, `"crash"`, ...).
    pub fn kind(&self) -> &'static str {
        match self {
            Fault::Partition { .. } => "partition",
            Fault::PartitionOneway { .. } => "partition_oneway",
            Fault::Repair { .. } => "repair",
            Fault::RepairOneway { .. } => "repair_oneway",
            Fault::Hold { .. } => "hold",
            Fault::Release { .. } => "release",
            Fault::Latency { .. } => "latency",
            Fault::LatencyReset { .. } => "latency_reset",
            Fault::Loss { .. } => "loss",
            Fault::Crash { .. } => "crash",
            Fault::Bounce { .. } => "bounce",
            Fault::Hook { .. } => "hook",
        }
    }

    /// The two ends of a link fault, in the order given.
    pub fn link(&self) -> Option<(&str, &str)> {
        match self {
            Fault::Partition { a, b }
            | Fault::Repair { a, b }
            | Fault::Hold { a, b }
            | Fault::Release { a, b }
            | Fault::Latency { a, b, .. }
            | Fault::LatencyReset { a, b }
            | Fault::Loss { a, b, .. } => Some((a, b)),
            Fault::PartitionOneway { from, to } | Fault::RepairOneway { from, to } => {
                Some((from, to))
            }
            Fault::Crash { .. } | Fault::Bounce { .. } | Fault::Hook { .. } => None,
        }
    }

    /// The host a crash or bounce targets.
    pub fn host(&self) -> Option<&str> {
        match self {
            Fault::Crash { host } | Fault::Bounce { host } => Some(host),
            _ => None,
        }
    }
}

/// A fault and the simulated time (ms since the start of the run) at which it applies.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TimedFault {
    /// Milliseconds of simulated time since the run started.
    pub at_ms: u64,
    /// What happens.
    #[serde(flatten)]
    pub fault: Fault,
}

impl TimedFault {
    /// `fault` at `at_ms`.
    pub fn new(at_ms: u64, fault: Fault) -> Self {
        Self { at_ms, fault }
    }

    /// The time as a duration.
    pub fn at(&self) -> Duration {
        Duration::from_millis(self.at_ms)
    }
}

/// The faults of a run, applied in `at_ms` order (ties in listed order).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FaultPlan {
    /// The faults; [`FaultPlan::new`] sorts them by time.
    pub faults: Vec<TimedFault>,
}

/// Why a plan cannot run against the given nodes and chaos window.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum PlanError {
    /// The plan is not valid JSON for a fault plan.
    #[error("fault plan is not valid: {0}")]
    Json(String),
    /// A fault names a node that is not part of the run.
    #[error("fault at {at_ms} ms names unknown node {name:?} (known: {known})")]
    UnknownNode {
        at_ms: u64,
        name: String,
        known: String,
    },
    /// A crash or bounce names a client (clients cannot be restarted).
    #[error("fault at {at_ms} ms: {name:?} is a client, only hosts can crash or bounce")]
    NotAHost { at_ms: u64, name: String },
    /// A link fault names the same node at both ends.
    #[error("fault at {at_ms} ms links {name:?} to itself")]
    SelfLink { at_ms: u64, name: String },
    /// A fault falls outside the chaos phase.
    #[error("fault at {at_ms} ms is outside the chaos phase (0..{chaos_ms} ms)")]
    OutsideChaos { at_ms: u64, chaos_ms: u128 },
    /// A loss probability above 1000 per mille.
    #[error("fault at {at_ms} ms has loss {permille}‰, above 1000‰")]
    LossRate { at_ms: u64, permille: u16 },
}

impl FaultPlan {
    /// A plan of `faults`, stably sorted by time.
    pub fn new(mut faults: Vec<TimedFault>) -> Self {
        faults.sort_by_key(|f| f.at_ms);
        Self { faults }
    }

    /// No faults at all.
    pub fn none() -> Self {
        Self::default()
    }

    /// Parses a plan printed by [`FaultPlan::to_json`] (or written by hand), sorting it.
    pub fn from_json(json: &str) -> Result<Self, PlanError> {
        let plan: FaultPlan =
            serde_json::from_str(json).map_err(|err| PlanError::Json(err.to_string()))?;
        Ok(Self::new(plan.faults))
    }

    /// The plan as pretty JSON, one fault per line.
    pub fn to_json(&self) -> String {
        let mut out = String::from("{\"faults\": [");
        for (i, fault) in self.faults.iter().enumerate() {
            out.push_str(if i == 0 { "\n  " } else { ",\n  " });
            out.push_str(&serde_json::to_string(fault).unwrap_or_default());
        }
        out.push_str(if self.faults.is_empty() { "]}" } else { "\n]}" });
        out
    }

    /// Checks every name against `hosts` (restartable) and `clients`, and every time against
    /// the chaos phase.
    pub fn validate(
        &self,
        hosts: &BTreeSet<String>,
        clients: &BTreeSet<String>,
        chaos: Duration,
    ) -> Result<(), PlanError> {
        let known = || {
            hosts
                .iter()
                .chain(clients)
                .map(String::as_str)
                .collect::<Vec<_>>()
                .join(", ")
        };
        let is_node = |name: &str| hosts.contains(name) || clients.contains(name);
        for timed in &self.faults {
            let at_ms = timed.at_ms;
            if timed.at() >= chaos {
                return Err(PlanError::OutsideChaos {
                    at_ms,
                    chaos_ms: chaos.as_millis(),
                });
            }
            if let Some((a, b)) = timed.fault.link() {
                for name in [a, b] {
                    if !is_node(name) {
                        return Err(PlanError::UnknownNode {
                            at_ms,
                            name: name.to_string(),
                            known: known(),
                        });
                    }
                }
                if a == b {
                    return Err(PlanError::SelfLink {
                        at_ms,
                        name: a.to_string(),
                    });
                }
            }
            if let Some(host) = timed.fault.host() {
                if clients.contains(host) {
                    return Err(PlanError::NotAHost {
                        at_ms,
                        name: host.to_string(),
                    });
                }
                if !hosts.contains(host) {
                    return Err(PlanError::UnknownNode {
                        at_ms,
                        name: host.to_string(),
                        known: known(),
                    });
                }
            }
            if let Fault::Loss { permille, .. } = timed.fault
                && permille > 1000
            {
                return Err(PlanError::LossRate { at_ms, permille });
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(list: &[&str]) -> BTreeSet<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    fn sample() -> FaultPlan {
        FaultPlan::new(vec![
            TimedFault::new(
                900,
                Fault::Repair {
                    a: "c".into(),
                    b: "h".into(),
                },
            ),
            TimedFault::new(
                200,
                Fault::Partition {
                    a: "c".into(),
                    b: "h".into(),
                },
            ),
            TimedFault::new(
                300,
                Fault::Loss {
                    a: "c".into(),
                    b: "h".into(),
                    permille: 50,
                },
            ),
            TimedFault::new(300, Fault::Hook { name: "cut".into() }),
            TimedFault::new(400, Fault::Crash { host: "h".into() }),
        ])
    }

    #[test]
    fn sorts_stably_and_round_trips_through_json() {
        let plan = sample();
        let times: Vec<u64> = plan.faults.iter().map(|f| f.at_ms).collect();
        assert_eq!(times, [200, 300, 300, 400, 900]);
        assert_eq!(plan.faults[1].fault.kind(), "loss");
        let json = plan.to_json();
        assert!(
            json.contains(r#"{"at_ms":200,"kind":"partition","a":"c","b":"h"}"#),
            "{json}"
        );
        assert_eq!(FaultPlan::from_json(&json), Ok(plan));
        assert_eq!(
            FaultPlan::from_json(&FaultPlan::none().to_json()),
            Ok(FaultPlan::none())
        );
    }

    #[test]
    fn rejects_malformed_json_with_a_message() {
        let err = FaultPlan::from_json(r#"{"faults":[{"at_ms":1,"kind":"explode"}]}"#).unwrap_err();
        assert!(
            matches!(err, PlanError::Json(ref m) if m.contains("explode")),
            "{err}"
        );
        assert!(FaultPlan::from_json("[").is_err());
    }

    #[test]
    fn validates_names_roles_and_window() {
        let hosts = names(&["h"]);
        let clients = names(&["c"]);
        let chaos = Duration::from_secs(1);
        assert_eq!(sample().validate(&hosts, &clients, chaos), Ok(()));
        let late = FaultPlan::new(vec![TimedFault::new(
            1000,
            Fault::Hook { name: "x".into() },
        )]);
        assert!(matches!(
            late.validate(&hosts, &clients, chaos),
            Err(PlanError::OutsideChaos { .. })
        ));
        let crash_client =
            FaultPlan::new(vec![TimedFault::new(1, Fault::Crash { host: "c".into() })]);
        assert!(matches!(
            crash_client.validate(&hosts, &clients, chaos),
            Err(PlanError::NotAHost { .. })
        ));
        let unknown = FaultPlan::new(vec![TimedFault::new(
            1,
            Fault::Hold {
                a: "h".into(),
                b: "zz".into(),
            },
        )]);
        let err = unknown.validate(&hosts, &clients, chaos).unwrap_err();
        assert_eq!(
            err.to_string(),
            r#"fault at 1 ms names unknown node "zz" (known: h, c)"#
        );
        let selfish = FaultPlan::new(vec![TimedFault::new(
            1,
            Fault::Partition {
                a: "h".into(),
                b: "h".into(),
            },
        )]);
        assert!(matches!(
            selfish.validate(&hosts, &clients, chaos),
            Err(PlanError::SelfLink { .. })
        ));
        let lossy = FaultPlan::new(vec![TimedFault::new(
            1,
            Fault::Loss {
                a: "h".into(),
                b: "c".into(),
                permille: 1001,
            },
        )]);
        assert!(matches!(
            lossy.validate(&hosts, &clients, chaos),
            Err(PlanError::LossRate { .. })
        ));
    }
}
