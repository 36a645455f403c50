//! The faults `meshsim check` injects on real TCP, as triggers on the exchange rather than
//! on the clock: "cut the 1st stream after its 2nd event" strikes at the same point of the
//! exchange however fast the machine, the program or the runtime are, so the same seed
//! strikes the same points in every run (the [`Strike`] log of two runs is equal).
//!
//! Each scenario's simulated faults have a counterpart here, drawn from the run's seed:
//! the sidecar's route timeout becomes a cut stream, the crash and bounce a restart with an
//! empty store, the partition around the resubscribe a held or reset answer.

use crate::scenario::Scenario;
use meshsim_sim::Seed;
use rand::Rng;
use serde::Serialize;
use std::fmt;

/// A trigger on the exchange with one agent, and what the proxy does when it fires.
/// Requests, streams and events are counted from 1, per agent; every A2A call counts as a
/// request, over either binding (Card fetches do not).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case", tag = "fault")]
pub enum Trigger {
    /// Cut the `stream`th stream right after relaying its `after_event`th event: the
    /// connection closes mid-stream, as a proxy's route timeout does.
    CutStream { stream: u32, after_event: u32 },
    /// Hold the answer to the `request`th call for `hold_ms` before relaying it (a stream's
    /// first byte included), as a partition that heals does.
    HoldAnswer { request: u32, hold_ms: u64 },
    /// Let the runtime handle the `request`th call, then reset the connection instead of
    /// relaying the answer: the program never learns what the runtime did.
    ResetAnswer { request: u32 },
    /// Restart the runtime with an empty store right after it sent its `after_event`th
    /// stream event (all streams counted): every task it held is lost, every stream cut.
    Restart { after_event: u32 },
}

impl fmt::Display for Trigger {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Trigger::CutStream {
                stream,
                after_event,
            } => write!(f, "cut stream {stream} after its event {after_event}"),
            Trigger::HoldAnswer { request, hold_ms } => {
                write!(f, "hold the answer to request {request} for {hold_ms} ms")
            }
            Trigger::ResetAnswer { request } => {
                write!(f, "reset the connection of request {request}")
            }
            Trigger::Restart { after_event } => {
                write!(f, "restart the runtime empty after its event {after_event}")
            }
        }
    }
}

/// A trigger aimed at one agent of the layout.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Aimed {
    /// The index of the agent in the scenario's layout.
    pub agent: usize,
    pub trigger: Trigger,
}

/// A fault that struck: which agent, which trigger, and the exchange point (request and,
/// for stream faults, the event within the stream) where it did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Strike {
    pub agent: String,
    #[serde(flatten)]
    pub trigger: Trigger,
    /// The call (counted from 1) whose answer the fault hit.
    pub request: u32,
    /// For a stream fault, the event of that call's stream after which it struck.
    pub event: Option<u32>,
}

impl fmt::Display for Strike {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}: {} (request {}",
            self.agent, self.trigger, self.request
        )?;
        if let Some(event) = self.event {
            write!(f, ", event {event}")?;
        }
        f.write_str(")")
    }
}

/// The triggers of `scenario` for the run of `seed`.
pub fn plan(scenario: Scenario, seed: Seed) -> Vec<Aimed> {
    let mut rng = seed.rng_for("check-faults");
    let at_agent = |trigger| vec![Aimed { agent: 0, trigger }];
    match scenario {
        Scenario::SidecarCut => at_agent(Trigger::CutStream {
            stream: 1,
            after_event: rng.random_range(1..=3),
        }),
        Scenario::CrashBounce => at_agent(Trigger::Restart {
            after_event: rng.random_range(1..=3),
        }),
        Scenario::PartitionDuringResubscribe => {
            // The resubscribe is the program's second or third call, depending on whether
            // it polls first; the partition either heals (a held answer) or loses it.
            let request = rng.random_range(2..=3);
            if rng.random_bool(0.5) {
                at_agent(Trigger::HoldAnswer {
                    request,
                    hold_ms: rng.random_range(200..=1500),
                })
            } else {
                at_agent(Trigger::ResetAnswer { request })
            }
        }
        Scenario::OriginIncident
        | Scenario::CancelAtInputRequired
        | Scenario::StuckInSubmitted
        | Scenario::HeterogeneousMesh => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_seed_draws_the_same_triggers_every_time() {
        for scenario in Scenario::ALL {
            for seed in 0..20 {
                assert_eq!(
                    plan(scenario, Seed::new(seed)),
                    plan(scenario, Seed::new(seed))
                );
            }
        }
    }

    #[test]
    fn the_faulty_scenarios_have_triggers_and_the_others_none() {
        let faulty = [
            Scenario::SidecarCut,
            Scenario::CrashBounce,
            Scenario::PartitionDuringResubscribe,
        ];
        for scenario in Scenario::ALL {
            assert_eq!(
                !plan(scenario, Seed::new(1)).is_empty(),
                faulty.contains(&scenario),
                "{scenario}"
            );
        }
    }
}
