//! Applying faults to the turmoil simulation, and healing it.

use std::collections::BTreeSet;

use turmoil::Sim;

use super::config::RunConfig;
use super::record::{NodeOutcome, Reports};
use crate::fault::{Fault, Hooks};
use crate::trace::write_str;
use meshsim_protocol::digits::push_decimal;
use meshsim_trace::TraceEvent;

/// Links whose latency or loss a fault changed, to be restored on heal.
#[derive(Default)]
pub(super) struct Touched {
    latency: BTreeSet<(String, String)>,
    loss: BTreeSet<(String, String)>,
}

fn ordered(a: &str, b: &str) -> (String, String) {
    if a <= b {
        (a.to_string(), b.to_string())
    } else {
        (b.to_string(), a.to_string())
    }
}

/// `fault` as the canonical JSON of its serde form (`{"a":..,"b":..,"kind":"partition"}`:
/// keys in bytewise order), written straight from its fields: building a
/// `serde_json::Value` to print it was about 0.6% of a run under swarm faults.
fn fault_json(fault: &Fault) -> String {
    let mut out = String::with_capacity(64);
    let kind = fault.kind();
    match fault {
        Fault::Partition { a, b }
        | Fault::Repair { a, b }
        | Fault::Hold { a, b }
        | Fault::Release { a, b }
        | Fault::LatencyReset { a, b }
        | Fault::Latency { a, b, .. }
        | Fault::Loss { a, b, .. } => {
            field(&mut out, "{\"a\":", a);
            field(&mut out, ",\"b\":", b);
            field(&mut out, ",\"kind\":", kind);
            match fault {
                Fault::Latency { ms, .. } => {
                    out.push_str(",\"ms\":");
                    push_decimal(&mut out, *ms);
                }
                Fault::Loss { permille, .. } => {
                    out.push_str(",\"permille\":");
                    push_decimal(&mut out, u64::from(*permille));
                }
                _ => {}
            }
        }
        Fault::PartitionOneway { from, to } | Fault::RepairOneway { from, to } => {
            field(&mut out, "{\"from\":", from);
            field(&mut out, ",\"kind\":", kind);
            field(&mut out, ",\"to\":", to);
        }
        Fault::Crash { host } | Fault::Bounce { host } => {
            field(&mut out, "{\"host\":", host);
            field(&mut out, ",\"kind\":", kind);
        }
        Fault::Hook { name } => {
            field(&mut out, "{\"kind\":", kind);
            field(&mut out, ",\"name\":", name);
        }
    }
    out.push('}');
    out
}

/// Appends `key` (its quotes, colon and any comma before it) and `value` as a JSON string.
fn field(out: &mut String, key: &str, value: &str) {
    out.push_str(key);
    write_str(value, out);
}

/// The world the faults act on.
pub(super) struct World<'s, 'a> {
    pub(super) sim: &'s mut Sim<'a>,
    pub(super) config: &'s RunConfig,
    pub(super) hooks: &'s Hooks,
    pub(super) reports: &'s Reports,
    pub(super) touched: Touched,
}

impl World<'_, '_> {
    /// Applies `fault`, recording it in the trace first.
    pub(super) fn apply(&mut self, at_ms: u64, fault: &Fault) {
        TraceEvent::Fault {
            at_ms,
            fault: fault_json(fault).into(),
        }
        .emit();
        let sim = &mut *self.sim;
        match fault {
            Fault::Partition { a, b } => sim.partition(a.as_str(), b.as_str()),
            Fault::PartitionOneway { from, to } => sim.partition_oneway(from.as_str(), to.as_str()),
            Fault::Repair { a, b } => sim.repair(a.as_str(), b.as_str()),
            Fault::RepairOneway { from, to } => sim.repair_oneway(from.as_str(), to.as_str()),
            Fault::Hold { a, b } => sim.hold(a.as_str(), b.as_str()),
            Fault::Release { a, b } => sim.release(a.as_str(), b.as_str()),
            Fault::Latency { a, b, ms } => {
                sim.set_link_latency(
                    a.as_str(),
                    b.as_str(),
                    std::time::Duration::from_millis(*ms),
                );
                self.touched.latency.insert(ordered(a, b));
            }
            Fault::LatencyReset { a, b } => self.reset_latency(a, b),
            Fault::Loss { a, b, permille } => {
                sim.set_link_fail_rate(a.as_str(), b.as_str(), f64::from(*permille) / 1000.0);
                self.touched.loss.insert(ordered(a, b));
            }
            Fault::Crash { host } => {
                sim.crash(host.as_str());
                self.update(host, |report| {
                    report.crashes += 1;
                    report.outcome = NodeOutcome::Crashed;
                });
            }
            Fault::Bounce { host } => {
                sim.bounce(host.as_str());
                // The restarted software marks itself running on its first poll.
                self.update(host, |report| report.outcome = NodeOutcome::Unfinished);
            }
            Fault::Hook { name } => {
                self.hooks.fire(name);
            }
        }
    }

    fn reset_latency(&mut self, a: &str, b: &str) {
        self.sim.set_link_latency(a, b, self.config.min_latency);
        self.sim
            .set_link_max_message_latency(a, b, self.config.max_latency);
    }

    fn update(&self, name: &str, change: impl FnOnce(&mut super::record::NodeReport)) {
        if let Some(report) = self.reports.borrow_mut().get_mut(name) {
            change(report);
        }
    }

    /// Releases and repairs every link, restores latency and loss, and bounces crashed hosts.
    pub(super) fn heal(&mut self, nodes: &[String]) {
        let crashed: Vec<String> = self
            .reports
            .borrow()
            .iter()
            .filter(|(_, report)| report.outcome == NodeOutcome::Crashed)
            .map(|(name, _)| name.clone())
            .collect();
        TraceEvent::Heal {
            bounced: crashed.clone(),
            latency_reset: u64::try_from(self.touched.latency.len()).unwrap_or(u64::MAX),
            loss_reset: u64::try_from(self.touched.loss.len()).unwrap_or(u64::MAX),
        }
        .emit();
        for (i, a) in nodes.iter().enumerate() {
            for b in &nodes[i + 1..] {
                // Release makes both directions healthy and delivers held messages.
                self.sim.release(a.as_str(), b.as_str());
            }
        }
        for (a, b) in std::mem::take(&mut self.touched.latency) {
            self.reset_latency(&a, &b);
        }
        for (a, b) in std::mem::take(&mut self.touched.loss) {
            self.sim.set_link_fail_rate(a.as_str(), b.as_str(), 0.0);
        }
        for host in crashed {
            self.sim.bounce(host.as_str());
            self.update(&host, |report| report.outcome = NodeOutcome::Unfinished);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::to_canonical_json;

    #[test]
    fn a_faults_line_is_the_canonical_json_of_its_serde_form() {
        let (a, b) = ("client-0".to_string(), "agent \"a\"\n".to_string());
        let faults = [
            Fault::Partition {
                a: a.clone(),
                b: b.clone(),
            },
            Fault::PartitionOneway {
                from: a.clone(),
                to: b.clone(),
            },
            Fault::Repair {
                a: a.clone(),
                b: b.clone(),
            },
            Fault::RepairOneway {
                from: a.clone(),
                to: b.clone(),
            },
            Fault::Hold {
                a: a.clone(),
                b: b.clone(),
            },
            Fault::Release {
                a: a.clone(),
                b: b.clone(),
            },
            Fault::Latency {
                a: a.clone(),
                b: b.clone(),
                ms: u64::MAX,
            },
            Fault::LatencyReset {
                a: a.clone(),
                b: b.clone(),
            },
            Fault::Loss {
                a: a.clone(),
                b: b.clone(),
                permille: 1000,
            },
            Fault::Crash { host: b.clone() },
            Fault::Bounce { host: a.clone() },
            Fault::Hook {
                name: "\u{1}hook\\é".to_string(),
            },
        ];
        for fault in faults {
            let value = serde_json::to_value(&fault).unwrap();
            assert_eq!(fault_json(&fault), to_canonical_json(&value), "{fault:?}");
        }
    }
}
