//! Swarm mode (swarm testing, as in FoundationDB and TigerBeetle): each seed first draws
//! *which* fault kinds are enabled and how often they strike, then draws a concrete
//! [`FaultPlan`] over the chaos window. Different seeds therefore explore different fault
//! mixes instead of all seeds sampling one uniform mix. The drawn plan is ordinary data: print
//! it, and give it back to the runner to replay the run.
//!
//! Every kind draws from its own sub-seed (`seed.derive(kind)`), so adding a kind does not
//! change what the existing kinds draw.

use std::collections::BTreeMap;

use rand::Rng;
use rand::seq::IndexedRandom;
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

use crate::fault::{Fault, FaultPlan, TimedFault};
use crate::seed::Seed;

/// The fault kinds swarm mode can enable.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FaultKind {
    /// Two-way partition of a link, later repaired.
    Partition,
    /// One-way partition of a link, later repaired.
    PartitionOneway,
    /// Messages of a link held, later released.
    Hold,
    /// A link's latency fixed high, later reset.
    Latency,
    /// Random segment loss on a link, later switched off.
    Loss,
    /// A host crashed, later bounced.
    Crash,
    /// A host restarted.
    Bounce,
    /// A named hook fired.
    Hook,
}

impl FaultKind {
    /// Every kind, in drawing order.
    pub const ALL: [FaultKind; 8] = [
        FaultKind::Partition,
        FaultKind::PartitionOneway,
        FaultKind::Hold,
        FaultKind::Latency,
        FaultKind::Loss,
        FaultKind::Crash,
        FaultKind::Bounce,
        FaultKind::Hook,
    ];

    /// The snake_case name (also the kind's sub-seed name).
    pub fn name(self) -> &'static str {
        match self {
            FaultKind::Partition => "partition",
            FaultKind::PartitionOneway => "partition_oneway",
            FaultKind::Hold => "hold",
            FaultKind::Latency => "latency",
            FaultKind::Loss => "loss",
            FaultKind::Crash => "crash",
            FaultKind::Bounce => "bounce",
            FaultKind::Hook => "hook",
        }
    }

    fn applies_to(self, space: &SwarmSpace) -> bool {
        match self {
            FaultKind::Crash | FaultKind::Bounce => !space.hosts.is_empty(),
            FaultKind::Hook => !space.hooks.is_empty(),
            _ => !space.links.is_empty(),
        }
    }
}

/// What swarm mode may touch.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SwarmSpace {
    /// Links (pairs of hosts or clients) that may fail; list the pairs that carry traffic.
    pub links: Vec<(String, String)>,
    /// Hosts that may crash and bounce.
    pub hosts: Vec<String>,
    /// Hook names that may fire.
    pub hooks: Vec<String>,
    /// The chaos window every fault falls into.
    pub chaos_ms: u64,
}

/// How often an enabled kind strikes and how long each fault lasts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct KindRate {
    /// Mean simulated time between two faults of this kind.
    pub mean_gap_ms: u64,
    /// Mean time until the fault is undone (0 for instantaneous kinds).
    pub mean_duration_ms: u64,
}

/// A seed's swarm draw: the enabled kinds with their rates, and the concrete plan.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Swarm {
    /// The seed the draw came from.
    pub seed: u64,
    /// The enabled kinds.
    pub kinds: BTreeMap<FaultKind, KindRate>,
    /// The faults, ready for the runner.
    pub plan: FaultPlan,
}

/// Intervals during which a link or host already has a fault, so faults do not overlap on
/// one target (turmoil does not support combining e.g. hold with a one-way partition).
#[derive(Default)]
struct Busy<'a>(BTreeMap<Target<'a>, Vec<(u64, u64)>>);

/// What a fault occupies: a host, or a link by its two ends in bytewise order. Borrowed
/// from the space, where a `host:{host}` or `link:{a}|{b}` string was formatted for every
/// fault tried.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Target<'a> {
    Host(&'a str),
    Link(&'a str, &'a str),
}

impl<'a> Busy<'a> {
    fn claim(&mut self, target: Target<'a>, start: u64, end: u64) -> bool {
        let slots = self.0.entry(target).or_default();
        if slots.iter().any(|&(s, e)| start <= e && s <= end) {
            return false;
        }
        slots.push((start, end));
        true
    }
}

impl Swarm {
    /// Draws the enabled kinds and a plan for `space` from `seed`.
    pub fn draw(seed: Seed, space: &SwarmSpace) -> Swarm {
        let chaos = space.chaos_ms.max(1);
        let mut kinds = BTreeMap::new();
        let mut rngs = BTreeMap::new();
        for kind in FaultKind::ALL {
            let mut rng = seed.rng_for(kind.name());
            let enabled = rng.random_bool(0.5);
            if enabled && kind.applies_to(space) {
                let instantaneous = matches!(kind, FaultKind::Bounce | FaultKind::Hook);
                let rate = KindRate {
                    mean_gap_ms: rng.random_range((chaos / 10).max(1)..=(chaos / 2).max(1)),
                    mean_duration_ms: if instantaneous {
                        0
                    } else {
                        rng.random_range((chaos / 20).max(1)..=(chaos / 4).max(1))
                    },
                };
                kinds.insert(kind, rate);
                rngs.insert(kind, rng);
            }
        }
        if kinds.is_empty() {
            let applicable: Vec<FaultKind> = FaultKind::ALL
                .into_iter()
                .filter(|kind| kind.applies_to(space))
                .collect();
            let mut rng = seed.rng_for("fallback");
            if let Some(&kind) = applicable.choose(&mut rng) {
                let rate = KindRate {
                    mean_gap_ms: (chaos / 4).max(1),
                    mean_duration_ms: (chaos / 8).max(1),
                };
                kinds.insert(kind, rate);
                rngs.insert(kind, rng);
            }
        }
        let mut busy = Busy::default();
        let mut faults = Vec::new();
        for (kind, rate) in &kinds {
            if let Some(rng) = rngs.get_mut(kind) {
                generate(*kind, *rate, space, chaos, rng, &mut busy, &mut faults);
            }
        }
        Swarm {
            seed: seed.value(),
            kinds,
            plan: FaultPlan::new(faults),
        }
    }

    /// The draw as pretty JSON (kinds, then the plan).
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_default()
    }
}

fn generate<'a>(
    kind: FaultKind,
    rate: KindRate,
    space: &'a SwarmSpace,
    chaos: u64,
    rng: &mut ChaCha8Rng,
    busy: &mut Busy<'a>,
    out: &mut Vec<TimedFault>,
) {
    let mut at = rng.random_range(0..=rate.mean_gap_ms * 2);
    while at < chaos {
        let duration = if rate.mean_duration_ms == 0 {
            0
        } else {
            rng.random_range(1..=rate.mean_duration_ms * 2)
        };
        let end = at + duration;
        match kind {
            FaultKind::Crash | FaultKind::Bounce => {
                if let Some(host) = space.hosts.choose(rng)
                    && busy.claim(Target::Host(host), at, end)
                {
                    let host = host.clone();
                    if kind == FaultKind::Crash {
                        out.push(TimedFault::new(at, Fault::Crash { host: host.clone() }));
                        if end < chaos {
                            out.push(TimedFault::new(end, Fault::Bounce { host }));
                        }
                    } else {
                        out.push(TimedFault::new(at, Fault::Bounce { host }));
                    }
                }
            }
            FaultKind::Hook => {
                if let Some(name) = space.hooks.choose(rng) {
                    out.push(TimedFault::new(at, Fault::Hook { name: name.clone() }));
                }
            }
            _ => {
                let latency = rng.random_range(50..=500u64);
                let permille = rng.random_range(5..=100u16);
                let flip = rng.random_bool(0.5);
                if let Some((a, b)) = space.links.choose(rng) {
                    let link = if a <= b {
                        Target::Link(a, b)
                    } else {
                        Target::Link(b, a)
                    };
                    if busy.claim(link, at, end) {
                        let (from, to) = if flip {
                            (b.clone(), a.clone())
                        } else {
                            (a.clone(), b.clone())
                        };
                        let (start, undo) = link_fault(kind, from, to, latency, permille);
                        out.push(TimedFault::new(at, start));
                        if end < chaos {
                            out.push(TimedFault::new(end, undo));
                        }
                    }
                }
            }
        }
        at += rng.random_range(1..=rate.mean_gap_ms * 2);
    }
}

/// A link fault of `kind` and the fault that undoes it.
fn link_fault(
    kind: FaultKind,
    a: String,
    b: String,
    latency: u64,
    permille: u16,
) -> (Fault, Fault) {
    match kind {
        FaultKind::PartitionOneway => (
            Fault::PartitionOneway {
                from: a.clone(),
                to: b.clone(),
            },
            Fault::RepairOneway { from: a, to: b },
        ),
        FaultKind::Hold => (
            Fault::Hold {
                a: a.clone(),
                b: b.clone(),
            },
            Fault::Release { a, b },
        ),
        FaultKind::Latency => (
            Fault::Latency {
                a: a.clone(),
                b: b.clone(),
                ms: latency,
            },
            Fault::LatencyReset { a, b },
        ),
        FaultKind::Loss => (
            Fault::Loss {
                a: a.clone(),
                b: b.clone(),
                permille,
            },
            Fault::Loss { a, b, permille: 0 },
        ),
        _ => (
            Fault::Partition {
                a: a.clone(),
                b: b.clone(),
            },
            Fault::Repair { a, b },
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;
    use std::time::Duration;

    fn space() -> SwarmSpace {
        SwarmSpace {
            links: vec![
                ("c0".into(), "h0".into()),
                ("c1".into(), "h1".into()),
                ("c0".into(), "h1".into()),
            ],
            hosts: vec!["h0".into(), "h1".into()],
            hooks: vec!["cut".into()],
            chaos_ms: 5_000,
        }
    }

    #[test]
    fn a_seed_draws_the_same_swarm_every_time() {
        assert_eq!(
            Swarm::draw(Seed::new(5), &space()),
            Swarm::draw(Seed::new(5), &space())
        );
    }

    #[test]
    fn seeds_explore_different_fault_mixes() {
        let mixes: BTreeSet<Vec<FaultKind>> = (0..32)
            .map(|s| {
                Swarm::draw(Seed::new(s), &space())
                    .kinds
                    .into_keys()
                    .collect()
            })
            .collect();
        assert!(mixes.len() > 8, "only {} distinct mixes", mixes.len());
    }

    #[test]
    fn plans_are_valid_inside_the_window_and_never_empty_of_kinds() {
        let space = space();
        let hosts: BTreeSet<String> = space.hosts.iter().cloned().collect();
        let clients: BTreeSet<String> = ["c0", "c1"].iter().map(|s| s.to_string()).collect();
        for s in 0..64 {
            let swarm = Swarm::draw(Seed::new(s), &space);
            assert!(!swarm.kinds.is_empty());
            swarm
                .plan
                .validate(&hosts, &clients, Duration::from_millis(space.chaos_ms))
                .unwrap();
            for timed in &swarm.plan.faults {
                let kind = timed.fault.kind();
                assert!(
                    swarm.kinds.keys().any(|k| kind.starts_with(k.name())
                        || (kind == "bounce" && k == &FaultKind::Crash)
                        || (kind == "repair" && k == &FaultKind::Partition)
                        || (kind == "repair_oneway" && k == &FaultKind::PartitionOneway)
                        || (kind == "release" && k == &FaultKind::Hold)),
                    "{kind} not enabled in {:?}",
                    swarm.kinds
                );
            }
        }
    }

    #[test]
    fn kinds_that_do_not_apply_are_never_drawn() {
        let space = SwarmSpace {
            links: vec![("a".into(), "b".into())],
            hosts: vec![],
            hooks: vec![],
            chaos_ms: 1_000,
        };
        for s in 0..32 {
            let swarm = Swarm::draw(Seed::new(s), &space);
            for kind in [FaultKind::Crash, FaultKind::Bounce, FaultKind::Hook] {
                assert!(!swarm.kinds.contains_key(&kind));
            }
        }
    }

    #[test]
    fn the_draw_round_trips_through_json() {
        let swarm = Swarm::draw(Seed::new(11), &space());
        let back: Swarm = serde_json::from_str(&swarm.to_json()).unwrap();
        assert_eq!(back, swarm);
    }
}
