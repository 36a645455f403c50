//! Fault windows: the plan's faults paired into the stretches they last (a partition
//! until its repair, a hold until its release, a crash until the bounce that restarts the
//! host), and the instants that have no length (a bounce of a running host, a hook), and
//! how they are drawn: shaded across the lanes they cover, labelled above them.

use super::axis::Axis;
use super::draw::{Rows, Svg, esc, num, time, width};
use super::layout::{LABEL_ROW, LANE_TOP};
use meshsim_sim::{Fault, FaultPlan, TimedFault};
use meshsim_trace::{TraceEvent, TraceLine};
use std::collections::BTreeMap;

/// One fault window, or an instant when `to_ms` equals `from_ms`.
#[derive(Debug, Clone, PartialEq)]
pub struct Window {
    /// `partition`, `hold`, `crash`, ...
    pub kind: &'static str,
    /// The hosts whose lanes it covers (one for a host fault, two for a link).
    pub hosts: Vec<String>,
    pub from_ms: f64,
    pub to_ms: f64,
    /// Whether the plan ended it (otherwise it lasts to the end of the run).
    pub ended: bool,
    pub label: String,
}

/// The windows of `plan`, the faults as applied (each at the step it struck), in the order
/// they open; the heal at `healed_ms` ends every window still open (it releases every link,
/// resets latency and loss, and bounces the crashed hosts), and a window that neither the
/// plan nor a heal closes runs to `end_ms`. Faults after the run ended are left out.
pub fn windows(plan: &FaultPlan, healed_ms: Option<f64>, end_ms: f64) -> Vec<Window> {
    let mut open: Vec<Window> = Vec::new();
    let mut done: Vec<Window> = Vec::new();
    for timed in plan.faults.iter().filter(|t| t.at_ms as f64 <= end_ms) {
        let at = timed.at_ms as f64;
        let fault = &timed.fault;
        let (closes, opens): (&[&str], Option<&'static str>) = match fault {
            Fault::Partition { .. } => (&[], Some("partition")),
            Fault::PartitionOneway { .. } => (&[], Some("partition_oneway")),
            Fault::Hold { .. } => (&[], Some("hold")),
            Fault::Latency { .. } => (&["latency"], Some("latency")),
            // A new rate replaces the link's last one; a rate of 0 only ends it.
            Fault::Loss { permille, .. } => (&["loss"], (*permille > 0).then_some("loss")),
            Fault::Crash { .. } => (&[], Some("crash")),
            Fault::Repair { .. } => (&["partition"], None),
            Fault::RepairOneway { .. } => (&["partition_oneway"], None),
            Fault::Release { .. } => (&["hold"], None),
            Fault::LatencyReset { .. } => (&["latency"], None),
            Fault::Bounce { .. } => (&["crash"], None),
            Fault::Hook { .. } => (&[], None),
        };
        let hosts = hosts_of(fault);
        let mut closed_any = false;
        let mut index = 0;
        while index < open.len() {
            if closes.contains(&open[index].kind) && same_place(&open[index].hosts, &hosts) {
                let mut window = open.remove(index);
                window.to_ms = at;
                window.ended = true;
                done.push(window);
                closed_any = true;
            } else {
                index += 1;
            }
        }
        if let Some(kind) = opens {
            open.push(Window {
                kind,
                hosts,
                from_ms: at,
                to_ms: end_ms.max(at),
                ended: false,
                label: describe(fault),
            });
        } else if !closed_any || matches!(fault, Fault::Bounce { .. }) {
            // A bounce restarts the host even when it was running: show the instant.
            done.push(Window {
                kind: fault.kind(),
                hosts,
                from_ms: at,
                to_ms: at,
                ended: true,
                label: describe(fault),
            });
        }
    }
    if let Some(healed) = healed_ms.filter(|healed| *healed <= end_ms) {
        for window in &mut open {
            window.to_ms = healed.max(window.from_ms);
            window.ended = true;
        }
    }
    done.extend(open);
    done.sort_by(|a, b| a.from_ms.total_cmp(&b.from_ms));
    done
}

/// The faults the trace says were applied, each at the step it struck (the plan's time
/// rounded up to the step grid), and when the heal came, if it did.
pub fn applied(events: &[TraceLine]) -> (FaultPlan, Option<f64>) {
    let mut applied = FaultPlan::default();
    let mut healed_ms = None;
    for line in events {
        let at_ms = line.t_us / 1000;
        match &line.event {
            TraceEvent::Fault { fault, .. } => {
                if let Ok(fault) = serde_json::from_str::<Fault>(fault) {
                    applied.faults.push(TimedFault::new(at_ms, fault));
                }
            }
            TraceEvent::Heal { .. } => {
                healed_ms.get_or_insert(at_ms as f64);
            }
            _ => {}
        }
    }
    (applied, healed_ms)
}

fn hosts_of(fault: &Fault) -> Vec<String> {
    if let Some((a, b)) = fault.link() {
        vec![a.to_string(), b.to_string()]
    } else if let Some(host) = fault.host() {
        vec![host.to_string()]
    } else {
        Vec::new()
    }
}

/// Whether two faults name the same link (either way round) or the same host.
fn same_place(a: &[String], b: &[String]) -> bool {
    let mut a = a.to_vec();
    let mut b = b.to_vec();
    a.sort();
    b.sort();
    a == b
}

fn describe(fault: &Fault) -> String {
    match fault {
        Fault::PartitionOneway { from, to } | Fault::RepairOneway { from, to } => {
            format!("{} {from}→{to}", fault.kind())
        }
        Fault::Latency { a, b, ms } => format!("latency {ms} ms {a}↔{b}"),
        Fault::Loss { a, b, permille } => format!("loss {permille}‰ {a}↔{b}"),
        Fault::Hook { name } => format!("hook {name}"),
        other => match (other.link(), other.host()) {
            (Some((a, b)), _) => format!("{} {a}↔{b}", other.kind()),
            (None, Some(host)) => format!("{} {host}", other.kind()),
            (None, None) => other.kind().to_string(),
        },
    }
}

/// The windows, shaded over the lanes of their hosts and labelled.
pub(super) fn draw_faults(
    svg: &mut Svg,
    axis: &Axis,
    windows: &[Window],
    lane_y: &BTreeMap<String, f64>,
) {
    let mut rows = Rows::new(3);
    for window in windows {
        let ys: Vec<f64> = window
            .hosts
            .iter()
            .filter_map(|h| lane_y.get(h).copied())
            .collect();
        let (top, bottom) = match (
            ys.iter().copied().reduce(f64::min),
            ys.iter().copied().reduce(f64::max),
        ) {
            (Some(top), Some(bottom)) => (top - 85.0, bottom + 85.0),
            _ => (LANE_TOP - 85.0, LANE_TOP + 85.0),
        };
        let x0 = axis.x(window.from_ms);
        let x1 = axis.x(window.to_ms);
        let tip = format!(
            "{}: {} → {}{}",
            window.label,
            time(window.from_ms),
            time(window.to_ms),
            if window.ended { "" } else { " (never ended)" }
        );
        let attrs = format!(
            r#" data-kind="{}" data-from-ms="{}" data-to-ms="{}""#,
            esc(window.kind),
            num(window.from_ms),
            num(window.to_ms)
        );
        if window.to_ms > window.from_ms {
            svg.rect(
                x0,
                top,
                x1 - x0,
                bottom - top,
                &format!("fault fault-{}", window.kind),
                &attrs,
                &tip,
            );
        } else {
            svg.line(
                x0,
                top,
                x0,
                bottom,
                &format!("fault-instant fault-{}", window.kind),
                &attrs,
                &tip,
            );
        }
        let row = rows.place(x0, width(&window.label));
        svg.text(
            x0 + 3.0,
            top + 11.0 + row as f64 * LABEL_ROW,
            "fault-label",
            &window.label,
            &tip,
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use meshsim_sim::TimedFault;

    #[test]
    fn partitions_pair_with_repairs_and_crashes_with_bounces() {
        let link = || ("consumer".to_string(), "agent".to_string());
        let plan = FaultPlan::new(vec![
            TimedFault::new(
                355,
                Fault::Crash {
                    host: "agent".into(),
                },
            ),
            TimedFault::new(
                572,
                Fault::Partition {
                    a: link().0,
                    b: link().1,
                },
            ),
            TimedFault::new(
                822,
                Fault::Repair {
                    a: link().1,
                    b: link().0,
                },
            ),
            TimedFault::new(
                1265,
                Fault::Bounce {
                    host: "agent".into(),
                },
            ),
            TimedFault::new(
                1500,
                Fault::Hold {
                    a: link().0,
                    b: link().1,
                },
            ),
            TimedFault::new(
                2500,
                Fault::Crash {
                    host: "agent".into(),
                },
            ),
        ]);
        let windows = windows(&plan, None, 2000.0);
        let spans: Vec<(&str, f64, f64, bool)> = windows
            .iter()
            .map(|w| (w.kind, w.from_ms, w.to_ms, w.ended))
            .collect();
        assert_eq!(
            spans,
            vec![
                ("crash", 355.0, 1265.0, true),
                ("partition", 572.0, 822.0, true),
                ("bounce", 1265.0, 1265.0, true),
                ("hold", 1500.0, 2000.0, false),
            ]
        );
    }

    #[test]
    fn the_heal_ends_every_open_window_and_a_new_loss_rate_ends_the_last_one() {
        let (a, b) = ("client".to_string(), "agent".to_string());
        let plan = FaultPlan::new(vec![
            TimedFault::new(
                100,
                Fault::Loss {
                    a: a.clone(),
                    b: b.clone(),
                    permille: 69,
                },
            ),
            TimedFault::new(200, Fault::Loss { a, b, permille: 0 }),
            TimedFault::new(
                300,
                Fault::Crash {
                    host: "agent".into(),
                },
            ),
        ]);
        let spans: Vec<(&str, f64, f64, bool)> = windows(&plan, Some(500.0), 1000.0)
            .iter()
            .map(|w| (w.kind, w.from_ms, w.to_ms, w.ended))
            .collect();
        assert_eq!(
            spans,
            vec![("loss", 100.0, 200.0, true), ("crash", 300.0, 500.0, true)]
        );
    }
}
